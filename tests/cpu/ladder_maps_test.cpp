// The SIMT ladder's index maps (src/kernels/ladder_maps.hpp), proved on the CPU: every copy plan
// covers its operand tile exactly once, every thread map covers its block tile exactly once, the
// rasterisation (problem_views.hpp's raster_tile, which the ladder uses) is a bijection, and a
// model of shared-memory banks counts the wavefronts of the accesses rungs 5 and 6 differ in
// (rung 5 keeps two conflicts on purpose; rung 6 removes them).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "kernels/ladder_maps.hpp"

namespace tilegemm::kernels::ladder {
namespace {

// ---- Coverage ----------------------------------------------------------------------------------

// How often each element (x, k) of a BX x BK tile is copied by the plan (all threads, all passes).
template <int BX, int BK, int THREADS, CopyKind KIND>
std::vector<int> copy_counts() {
  using Plan = CopyPlan<BX, BK, THREADS, KIND>;
  std::vector<int> count(BX * BK, 0);
  for (int tid = 0; tid < THREADS; ++tid) {
    for (int p = 0; p < Plan::kPasses; ++p) {
      for (int j = 0; j < Plan::kWidth; ++j) {
        const int x = Plan::x0(tid) + Plan::dx(p) + (Plan::kAlongK ? 0 : j);
        const int k = Plan::k0(tid) + Plan::dk(p) + (Plan::kAlongK ? j : 0);
        if (x < 0 || x >= BX || k < 0 || k >= BK) return {};  // outside the tile: fail below
        ++count[k * BX + x];
      }
    }
  }
  return count;
}

template <int BX, int BK, int THREADS, CopyKind KIND>
void expect_exact_cover() {
  static_assert(CopyPlan<BX, BK, THREADS, KIND>::valid());
  const std::vector<int> count = copy_counts<BX, BK, THREADS, KIND>();
  ASSERT_EQ(count.size(), static_cast<std::size_t>(BX * BK)) << "an element outside the tile";
  for (int c : count) ASSERT_EQ(c, 1);
}

template <int BX, int BK, int THREADS>
void expect_all_kinds_cover() {
  expect_exact_cover<BX, BK, THREADS, CopyKind::kKScalar>();
  expect_exact_cover<BX, BK, THREADS, CopyKind::kXVec4>();
  expect_exact_cover<BX, BK, THREADS, CopyKind::kXScalar>();
}

TEST(LadderMaps, CopyPlansCoverEveryTileExactlyOnce) {
  // rungs 5-7 (register-staged, 16-byte vectors)
  expect_exact_cover<128, 8, 256, CopyKind::kKVec4>();
  expect_exact_cover<128, 8, 256, CopyKind::kXVec4>();
  expect_exact_cover<128, 16, 256, CopyKind::kKVec4>();
  expect_exact_cover<128, 16, 256, CopyKind::kXVec4>();
  expect_exact_cover<256, 8, 256, CopyKind::kKVec4>();  // rung 8's KA copy of a 256-row A tile
  // rungs 8-9 (cp.async): every operand tile shape of the registered instances
  expect_all_kinds_cover<128, 8, 256>();
  expect_all_kinds_cover<128, 16, 256>();
  expect_all_kinds_cover<256, 8, 256>();
  expect_all_kinds_cover<64, 16, 128>();
  expect_all_kinds_cover<128, 16, 128>();
  expect_all_kinds_cover<16, 32, 64>();
  expect_all_kinds_cover<64, 32, 64>();
}

template <typename Map, int BM, int BN, int TM, int TN>
void expect_threads_cover_block() {
  static_assert(Map::valid());
  std::vector<int> count(BM * BN, 0);
  for (int tid = 0; tid < Map::kThreads; ++tid) {
    for (int sm = 0; sm < Map::kSubM; ++sm) {
      for (int sn = 0; sn < Map::kSubN; ++sn) {
        for (int i = 0; i < TM / Map::kSubM; ++i) {
          for (int j = 0; j < TN / Map::kSubN; ++j) {
            const int r = Map::row(tid, sm) + i;
            const int c = Map::col(tid, sn) + j;
            ASSERT_TRUE(r >= 0 && r < BM && c >= 0 && c < BN) << tid;
            ++count[r * BN + c];
          }
        }
      }
    }
  }
  for (int c : count) ASSERT_EQ(c, 1);
}

TEST(LadderMaps, ThreadTilesCoverTheBlockTileExactlyOnce) {
  expect_threads_cover_block<BlockThreadMap<128, 128, 8, 8, 8, 8>, 128, 128, 8, 8>();  // rung 5
  expect_threads_cover_block<BlockThreadMap<128, 128, 8, 8, 4, 4>, 128, 128, 8, 8>();  // rung 6
  expect_threads_cover_block<WarpTileMap<128, 128, 64, 32, 8, 8>, 128, 128, 8, 8>();
  expect_threads_cover_block<WarpTileMap<128, 128, 32, 64, 8, 8>, 128, 128, 8, 8>();
  expect_threads_cover_block<WarpTileMap<128, 256, 64, 64, 8, 16>, 128, 256, 8, 16>();
  expect_threads_cover_block<WarpTileMap<64, 64, 32, 32, 8, 4>, 64, 64, 8, 4>();
  expect_threads_cover_block<WarpTileMap<128, 64, 64, 32, 8, 8>, 128, 64, 8, 8>();
  expect_threads_cover_block<WarpTileMap<16, 64, 16, 32, 4, 4>, 16, 64, 4, 4>();
}

TEST(LadderMaps, RasterisationVisitsEveryTileOnce) {
  for (int tiles_m : {1, 2, 5, 8, 33}) {
    for (int tiles_n : {1, 3, 8, 32}) {
      for (int group : {1, 2, 4, 8, 16}) {
        const int g = std::min(group, tiles_m);  // the launcher's clamp
        std::set<std::pair<int, int>> seen;
        for (int bid = 0; bid < tiles_m * tiles_n; ++bid) {
          const TileCoord t = raster_tile(bid, tiles_m, tiles_n, g);
          ASSERT_TRUE(t.m >= 0 && t.m < tiles_m && t.n >= 0 && t.n < tiles_n)
              << tiles_m << "x" << tiles_n << " group " << g << " bid " << bid;
          seen.insert({t.m, t.n});
        }
        EXPECT_EQ(seen.size(), static_cast<std::size_t>(tiles_m * tiles_n));
      }
    }
  }
}

// ---- Shared-memory banks -----------------------------------------------------------------------

// A model of one warp-wide shared-memory access: 32 banks of 4-byte words; lanes that touch the
// same word share it (broadcast); distinct words in one bank take one wavefront each. Returns
// {wavefronts, ideal}: ideal is what the distinct bytes need at 128 bytes per wavefront.
struct Wavefronts {
  int needed;
  int ideal;
};
Wavefronts count_wavefronts(const std::vector<int>& first_word, int words_per_lane) {
  std::set<int> words;
  for (int w : first_word) {
    for (int j = 0; j < words_per_lane; ++j) words.insert(w + j);
  }
  std::map<int, int> per_bank;
  for (int w : words) ++per_bank[w % 32];
  int needed = 0;
  for (const auto& kv : per_bank) needed = std::max(needed, kv.second);
  const int ideal = (static_cast<int>(words.size()) + 31) / 32;
  return {needed, ideal};
}

// Wavefronts of store j (0..3) of the transposing copy (kKVec4) into rows of `ld` floats, warp 0.
template <int BX, int BK, int THREADS>
Wavefronts transposing_store(int ld, int j) {
  using Plan = CopyPlan<BX, BK, THREADS, CopyKind::kKVec4>;
  std::vector<int> words;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    words.push_back((Plan::k0(lane) + j) * ld + Plan::x0(lane));
  }
  return count_wavefronts(words, 1);
}

TEST(LadderBanks, Rung5TransposingStoreConflictsAndRung6PaddingRemovesIt) {
  for (int j = 0; j < 4; ++j) {
    const Wavefronts unpadded = transposing_store<128, 8, 256>(128, j);  // rung 5
    EXPECT_EQ(unpadded.ideal, 1);
    EXPECT_EQ(unpadded.needed, 2) << "rung 5: As[k][x] and As[k+4][x] share a bank";
    const Wavefronts padded = transposing_store<128, 8, 256>(132, j);  // rung 6
    EXPECT_EQ(padded.needed, padded.ideal) << "rung 6: rows of 132 floats";
  }
}

// Wavefronts of the first 16-byte fragment read of B at k = 0 by warp 0, given the column map.
template <typename ColOf>
Wavefronts fragment_read(ColOf col_of, int sub) {
  std::vector<int> words;
  for (int lane = 0; lane < kWarpSize; ++lane) words.push_back(col_of(lane, sub));
  return count_wavefronts(words, 4);
}

TEST(LadderBanks, Rung5FragmentReadsConflictAndRung6StripsRemoveIt) {
  using Rung5 = BlockThreadMap<128, 128, 8, 8, 8, 8>;
  using Rung6 = BlockThreadMap<128, 128, 8, 8, 4, 4>;
  for (int s = 0; s < 2; ++s) {
    // rung 5: one 8 x 8 tile, its two vectors at col and col + 4
    const Wavefronts r5 = fragment_read([](int t, int v) { return Rung5::col(t, 0) + 4 * v; }, s);
    EXPECT_EQ(r5.ideal, 2);
    EXPECT_EQ(r5.needed, 4) << "rung 5: 16 vectors 32 bytes apart, 4 deep in 4 bank groups";
    const Wavefronts r6 = fragment_read([](int t, int v) { return Rung6::col(t, v); }, s);
    EXPECT_EQ(r6.needed, r6.ideal) << "rung 6: 16 vectors side by side";
    // A: two thread rows per warp, a broadcast in both rungs
    const Wavefronts a5 = fragment_read([](int t, int v) { return Rung5::row(t, 0) + 4 * v; }, s);
    EXPECT_EQ(a5.needed, a5.ideal);
  }
}

template <typename Map>
void expect_warp_fragment_reads_conflict_free() {
  for (int warp = 0; warp < Map::kThreads / kWarpSize; ++warp) {
    for (int s = 0; s < Map::kSubM; ++s) {
      std::vector<int> words;
      for (int lane = 0; lane < kWarpSize; ++lane) words.push_back(Map::row(warp * 32 + lane, s));
      const Wavefronts w = count_wavefronts(words, 4);
      EXPECT_EQ(w.needed, w.ideal) << "A, warp " << warp << " sub-tile " << s;
    }
    for (int s = 0; s < Map::kSubN; ++s) {
      std::vector<int> words;
      for (int lane = 0; lane < kWarpSize; ++lane) words.push_back(Map::col(warp * 32 + lane, s));
      const Wavefronts w = count_wavefronts(words, 4);
      EXPECT_EQ(w.needed, w.ideal) << "B, warp " << warp << " sub-tile " << s;
    }
  }
}

TEST(LadderBanks, WarpTileFragmentReadsAreConflictFree) {
  expect_warp_fragment_reads_conflict_free<WarpTileMap<128, 128, 64, 32, 8, 8>>();
  expect_warp_fragment_reads_conflict_free<WarpTileMap<128, 128, 32, 64, 8, 8>>();
  expect_warp_fragment_reads_conflict_free<WarpTileMap<128, 256, 64, 64, 8, 16>>();
  expect_warp_fragment_reads_conflict_free<WarpTileMap<64, 64, 32, 32, 8, 4>>();
  expect_warp_fragment_reads_conflict_free<WarpTileMap<128, 64, 64, 32, 8, 8>>();
  expect_warp_fragment_reads_conflict_free<WarpTileMap<16, 64, 16, 32, 4, 4>>();
}

// The cp.async 4-byte transposing copy (kKScalar) into rows of BX + 4 floats: every warp's
// stores of one pass hit 32 distinct banks.
template <int BX, int BK, int THREADS>
void expect_k_scalar_stores_conflict_free() {
  using Plan = CopyPlan<BX, BK, THREADS, CopyKind::kKScalar>;
  for (int warp = 0; warp < THREADS / kWarpSize; ++warp) {
    for (int p = 0; p < Plan::kPasses; ++p) {
      std::vector<int> words;
      for (int lane = 0; lane < kWarpSize; ++lane) {
        const int tid = warp * kWarpSize + lane;
        words.push_back((Plan::k0(tid) + Plan::dk(p)) * (BX + 4) + Plan::x0(tid) + Plan::dx(p));
      }
      const Wavefronts w = count_wavefronts(words, 1);
      EXPECT_EQ(w.needed, w.ideal) << BX << "x" << BK << " warp " << warp << " pass " << p;
    }
  }
}

TEST(LadderBanks, TransposingCpAsyncStoresAreConflictFree) {
  expect_k_scalar_stores_conflict_free<128, 8, 256>();
  expect_k_scalar_stores_conflict_free<128, 16, 256>();
  expect_k_scalar_stores_conflict_free<256, 8, 256>();
  expect_k_scalar_stores_conflict_free<64, 16, 128>();
  expect_k_scalar_stores_conflict_free<128, 16, 128>();
  expect_k_scalar_stores_conflict_free<16, 32, 64>();
  expect_k_scalar_stores_conflict_free<64, 32, 64>();
}

// Rung 8's KA tile: A kept k-contiguous, rows of BK + 4 floats, row x at ka_physical_row<BM>(x)
// (PERMUTED) or at x. One LDS.128 of a warp reads 4 k of its lanes' rows of sub-tile s, offset c;
// returns the largest excess of wavefronts over the ideal among all such reads of all warps.
template <typename Map, int BM, int BK, bool PERMUTED>
int ka_read_worst_excess() {
  constexpr int kLdK = BK + 4;
  int excess = 0;
  for (int warp = 0; warp < Map::kThreads / kWarpSize; ++warp) {
    for (int s = 0; s < Map::kSubM; ++s) {
      for (int c = 0; c < 4; ++c) {
        for (int kg = 0; kg < BK; kg += 4) {
          std::vector<int> words;
          for (int lane = 0; lane < kWarpSize; ++lane) {
            const int x = Map::row(warp * kWarpSize + lane, s) + c;
            words.push_back((PERMUTED ? ka_physical_row<BM>(x) : x) * kLdK + kg);
          }
          const Wavefronts w = count_wavefronts(words, 4);
          excess = std::max(excess, w.needed - w.ideal);
        }
      }
    }
  }
  return excess;
}

TEST(LadderBanks, KaTileReadsAreConflictFreeOnlyWithPermutedRows) {
  using Map128x256 = WarpTileMap<128, 256, 64, 64, 8, 16>;
  using Map256x128 = WarpTileMap<256, 128, 64, 64, 8, 16>;
  EXPECT_EQ((ka_read_worst_excess<Map128x256, 128, 8, true>()), 0);
  EXPECT_EQ((ka_read_worst_excess<Map256x128, 256, 8, true>()), 0);
  // rows 4 apart, 12 floats each: 8 rows in 2 bank groups, 4 deep
  EXPECT_GT((ka_read_worst_excess<Map128x256, 128, 8, false>()), 0);
}

TEST(LadderMaps, KaPhysicalRowIsAPermutation) {
  std::vector<int> seen(256, 0);
  for (int x = 0; x < 256; ++x) ++seen[static_cast<std::size_t>(ka_physical_row<256>(x))];
  for (int c : seen) EXPECT_EQ(c, 1);
}

// The KA copy's 16-byte stores (kKVec4 plan, permuted rows): wavefronts per warp and pass, as
// the model counts them, against the ideal (docs/perf-notes.md quotes these).
template <int BX, int BK, int THREADS>
Wavefronts ka_store_worst() {
  using Plan = CopyPlan<BX, BK, THREADS, CopyKind::kKVec4>;
  Wavefronts worst{0, 0};
  for (int warp = 0; warp < THREADS / kWarpSize; ++warp) {
    for (int p = 0; p < Plan::kPasses; ++p) {
      std::vector<int> words;
      for (int lane = 0; lane < kWarpSize; ++lane) {
        const int tid = warp * kWarpSize + lane;
        words.push_back(ka_physical_row<BX>(Plan::x0(tid) + Plan::dx(p)) * (BK + 4) +
                        Plan::k0(tid));
      }
      const Wavefronts w = count_wavefronts(words, 4);
      if (w.needed > worst.needed) worst = w;
    }
  }
  return worst;
}

TEST(LadderBanks, KaCopyStoresTakeTwiceTheIdealWavefronts) {
  const Wavefronts w128 = ka_store_worst<128, 8, 256>();
  EXPECT_EQ(w128.ideal, 4);
  EXPECT_EQ(w128.needed, 8);
  const Wavefronts w256 = ka_store_worst<256, 8, 256>();
  EXPECT_EQ(w256.ideal, 4);
  EXPECT_EQ(w256.needed, 8);
}

}  // namespace
}  // namespace tilegemm::kernels::ladder
