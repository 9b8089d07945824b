// The problem views every kernel family shares (src/kernels/problem_views.hpp), on the CPU: the
// mirror C^T = B^T A^T swaps m and n and the operands, flips every layout, computes the same
// product into the same memory, and is its own inverse; alignment is tested in bytes, so it
// serves 4- and 2-byte elements alike; the 32-bit checks hold exactly up to their limits.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "kernels/problem_views.hpp"

namespace tilegemm::kernels::views {
namespace {

constexpr Layout kRow = Layout::kRowMajor;
constexpr Layout kCol = Layout::kColMajor;

// An address that is never dereferenced: the views below only carry it.
const void* fake_address(std::uintptr_t a) {
  return reinterpret_cast<const void*>(a);
}

bool same_view(const ConstMatrixRef& x, const ConstMatrixRef& y) {
  return x.data == y.data && x.layout == y.layout && x.ld == y.ld && x.dtype == y.dtype;
}
bool same_view(const MatrixRef& x, const MatrixRef& y) {
  return x.data == y.data && x.layout == y.layout && x.ld == y.ld && x.dtype == y.dtype;
}

// ---- The mirror ---------------------------------------------------------------------------------

TEST(ProblemViews, MirrorSwapsMAndNAndTheOperandsAndFlipsEveryLayout) {
  for (Layout la : {kRow, kCol}) {
    for (Layout lb : {kRow, kCol}) {
      for (Layout lc : {kRow, kCol}) {
        float a = 0.0f, b = 0.0f, c = 0.0f;
        Problem p = Problem::make(3, 5, 7, &a, &b, &c, 2.0f, 0.5f, la, lb, lc);
        p.a.ld += 1;  // padded leading dimensions: the mirror keeps them
        p.b.ld += 2;
        p.c.ld += 3;
        const Problem t = mirrored(p);
        EXPECT_EQ(t.m, p.n);
        EXPECT_EQ(t.n, p.m);
        EXPECT_EQ(t.k, p.k);
        EXPECT_EQ(t.alpha, p.alpha);
        EXPECT_EQ(t.beta, p.beta);
        EXPECT_EQ(t.a.data, p.b.data);
        EXPECT_EQ(t.b.data, p.a.data);
        EXPECT_EQ(t.c.data, p.c.data);
        EXPECT_EQ(t.a.layout, flipped(p.b.layout));
        EXPECT_EQ(t.b.layout, flipped(p.a.layout));
        EXPECT_EQ(t.c.layout, flipped(p.c.layout));
        EXPECT_EQ(t.a.ld, p.b.ld);
        EXPECT_EQ(t.b.ld, p.a.ld);
        EXPECT_EQ(t.c.ld, p.c.ld);
        // k-contiguity moves with the operand: the memory is the same, so B^T in A's place is
        // k-contiguous exactly when B was (a layout instance serves its mirror image).
        EXPECT_EQ(a_k_contiguous(t), b_k_contiguous(p));
        EXPECT_EQ(b_k_contiguous(t), a_k_contiguous(p));
      }
    }
  }
}

TEST(ProblemViews, MirroringTwiceIsTheIdentity) {
  for (Layout la : {kRow, kCol}) {
    for (Layout lb : {kRow, kCol}) {
      for (Layout lc : {kRow, kCol}) {
        Problem p = Problem::make_typed(
            17, 4, 9, GemmTypes{DType::kBF16, DType::kF32}, fake_address(0x1000),
            fake_address(0x2000), const_cast<void*>(fake_address(0x3000)), 1.5f, -1.0f, la, lb, lc);
        p.b.ld += 8;
        const Problem back = mirrored(mirrored(p));
        EXPECT_EQ(back.m, p.m);
        EXPECT_EQ(back.n, p.n);
        EXPECT_EQ(back.k, p.k);
        EXPECT_EQ(back.alpha, p.alpha);
        EXPECT_EQ(back.beta, p.beta);
        EXPECT_TRUE(same_view(back.a, p.a));
        EXPECT_TRUE(same_view(back.b, p.b));
        EXPECT_TRUE(same_view(back.c, p.c));
      }
    }
  }
}

// C = alpha * A * B + beta * C, read and written through each view's strides.
void host_gemm(const Problem& p) {
  const Strides sa = strides_of(p.a.layout, p.a.ld);
  const Strides sb = strides_of(p.b.layout, p.b.ld);
  const Strides sc = strides_of(p.c.layout, p.c.ld);
  const auto* a = static_cast<const float*>(p.a.data);
  const auto* b = static_cast<const float*>(p.b.data);
  auto* c = static_cast<float*>(p.c.data);
  for (std::int64_t i = 0; i < p.m; ++i) {
    for (std::int64_t j = 0; j < p.n; ++j) {
      float acc = 0.0f;
      for (std::int64_t kk = 0; kk < p.k; ++kk) {
        acc += a[i * sa.row + kk * sa.col] * b[kk * sb.row + j * sb.col];
      }
      float& out = c[i * sc.row + j * sc.col];
      out = p.alpha * acc + p.beta * out;
    }
  }
}

TEST(ProblemViews, MirrorComputesTheSameProductIntoTheSameMemory) {
  constexpr std::int64_t m = 3, n = 4, k = 5;
  std::vector<float> a(static_cast<std::size_t>(m * k + 8));
  std::vector<float> b(static_cast<std::size_t>(k * n + 8));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 7) - 3.0f;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 5) - 2.0f;
  for (Layout la : {kRow, kCol}) {
    for (Layout lb : {kRow, kCol}) {
      for (Layout lc : {kRow, kCol}) {
        std::vector<float> direct(static_cast<std::size_t>(m * n), 1.0f);
        std::vector<float> via_mirror = direct;
        const Problem p =
            Problem::make(m, n, k, a.data(), b.data(), direct.data(), 1.0f, 0.5f, la, lb, lc);
        Problem q = p;
        q.c.data = via_mirror.data();
        host_gemm(p);
        host_gemm(mirrored(q));  // small integers: both orders of summation are exact
        EXPECT_EQ(direct, via_mirror);
      }
    }
  }
}

// ---- Alignment ----------------------------------------------------------------------------------

ConstMatrixRef view_of(std::uintptr_t address, std::int64_t ld, DType dtype) {
  return ConstMatrixRef{fake_address(address), kRow, ld, dtype};
}

TEST(ProblemViews, AlignmentOfFourByteElementsIsInBytes) {
  EXPECT_TRUE(aligned(view_of(0x1000, 4, DType::kF32), 16));  // 16-byte rows
  EXPECT_TRUE(aligned(view_of(0x1000, 1024, DType::kF32), 16));
  EXPECT_FALSE(aligned(view_of(0x1000, 6, DType::kF32), 16));   // 24-byte rows
  EXPECT_TRUE(aligned(view_of(0x1000, 6, DType::kF32), 8));     // ... are 8-byte aligned
  EXPECT_FALSE(aligned(view_of(0x1004, 4, DType::kF32), 16));   // base 4 bytes off
  EXPECT_TRUE(aligned(view_of(0x1004, 4095, DType::kF32), 4));  // any fp32 view, by element
  EXPECT_TRUE(aligned(view_of(0x1000, 4, DType::kTF32), 16));   // tf32 is stored in 4 bytes
  EXPECT_FALSE(aligned(view_of(0x1000, 4095, DType::kTF32), 16));
}

TEST(ProblemViews, AlignmentOfTwoByteElementsIsInBytes) {
  for (DType t : {DType::kBF16, DType::kF16}) {
    EXPECT_TRUE(aligned(view_of(0x1000, 8, t), 16));  // 8 x 2 = 16 bytes
    EXPECT_TRUE(aligned(view_of(0x1000, 4096, t), 16));
    EXPECT_FALSE(aligned(view_of(0x1000, 4, t), 16));  // 8-byte rows: what an fp32 ld of 4 passes
    EXPECT_TRUE(aligned(view_of(0x1000, 4, t), 8));
    EXPECT_FALSE(aligned(view_of(0x1000, 12, t), 16));  // 24 bytes
    EXPECT_FALSE(aligned(view_of(0x1008, 8, t), 16));   // base 8 bytes off
    EXPECT_TRUE(aligned(view_of(0x1002, 1, t), 2));     // any 2-byte view, by element
    EXPECT_FALSE(aligned(view_of(0x1002, 2, t), 4));
  }
}

TEST(ProblemViews, AlignmentReadsTheViewsOwnDtypeAndPointer) {
  float data[8] = {};
  Problem p = Problem::make(4, 4, 4, data, data, data);
  EXPECT_EQ(aligned(p.a, 16), aligned(static_cast<const void*>(data), 16));
  p.a.ld = 5;
  EXPECT_FALSE(aligned(p.a, 16));
  EXPECT_TRUE(aligned(p.c, 4));  // a mutable view too
}

// ---- 32-bit fits --------------------------------------------------------------------------------

constexpr std::int64_t kIntMax = INT_MAX;

Problem shape(std::int64_t m, std::int64_t n, std::int64_t k) {
  Problem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.a.ld = min_ld(p.a.layout, m, k);
  p.b.ld = min_ld(p.b.layout, k, n);
  p.c.ld = min_ld(p.c.layout, m, n);
  return p;
}

TEST(ProblemViews, DimensionsFitAnIntUpToItsLimitAndMargin) {
  EXPECT_TRUE(dims_fit_int(shape(kIntMax, 1, 1)));
  EXPECT_FALSE(dims_fit_int(shape(kIntMax + 1, 1, 1)));
  EXPECT_FALSE(dims_fit_int(shape(1, kIntMax + 1, 1)));
  EXPECT_FALSE(dims_fit_int(shape(1, 1, kIntMax + 1)));
  EXPECT_TRUE(dims_fit_int(shape(kIntMax - 1024, kIntMax - 1024, kIntMax - 1024), 1024));
  EXPECT_FALSE(dims_fit_int(shape(1, 1, kIntMax - 1023), 1024));
}

TEST(ProblemViews, SpansFitAnIntExactlyUpToItsLimit) {
  // A 1 x INT_MAX row: the last offset is INT_MAX - 1, the span INT_MAX.
  EXPECT_EQ(span_elements(1, kIntMax, strides_of(kRow, kIntMax)), kIntMax);
  EXPECT_TRUE(span_fits_int(1, kIntMax, strides_of(kRow, kIntMax)));
  // Rounded up to whole tiles of 8 columns it passes the limit.
  EXPECT_FALSE(span_fits_int(1, kIntMax, strides_of(kRow, kIntMax), 1, 8));
  // 65536 rows of 32767: 2^31 - 65536 elements; 65536 rows of 32768: 2^31.
  EXPECT_TRUE(span_fits_int(65536, 32767, strides_of(kRow, 32767)));
  EXPECT_FALSE(span_fits_int(65536, 32768, strides_of(kRow, 32768)));
  // The same matrix column-major: the same span.
  EXPECT_TRUE(span_fits_int(32767, 65536, strides_of(kCol, 32767)));
  EXPECT_FALSE(span_fits_int(32768, 65536, strides_of(kCol, 32768)));
  // A huge leading dimension does not overflow the test on its way to "no".
  EXPECT_FALSE(span_fits_int(1 << 20, 4, strides_of(kRow, std::int64_t{1} << 62)));
  EXPECT_TRUE(span_fits_int(1, 4, strides_of(kRow, std::int64_t{1} << 62)));  // one row: no ld
}

TEST(ProblemViews, OffsetsOfEveryOperandMustFit) {
  // C (m x n, row-major) alone crosses the limit: 46341^2 > INT_MAX >= 46340^2.
  EXPECT_TRUE(offsets_fit_int(shape(46340, 46340, 1)));
  EXPECT_FALSE(offsets_fit_int(shape(46341, 46341, 1)));
  // A (m x k) alone, and B (k x n) alone.
  EXPECT_FALSE(offsets_fit_int(shape(46341, 1, 46341)));
  EXPECT_FALSE(offsets_fit_int(shape(1, 46341, 46341)));
  // Rounding up to tiles: 46336 = 362 * 128 fits untiled, and so does its tile-padded span
  // (the extents are multiples of 128 already); 46340 pads to 46464 rows and columns, which
  // does not.
  EXPECT_TRUE(offsets_fit_int(shape(46336, 46336, 8), 128, 128, 8));
  EXPECT_TRUE(offsets_fit_int(shape(46340, 46340, 8)));
  EXPECT_FALSE(offsets_fit_int(shape(46340, 46340, 8), 128, 128, 8));
}

TEST(ProblemViews, TileGridsFitTheHardwareLimits) {
  EXPECT_TRUE(tile_grid_fits(shape(65535 * 16, 64, 1), 16, 64));  // 65535 tiles on y
  EXPECT_FALSE(tile_grid_fits(shape(65535 * 16 + 1, 64, 1), 16, 64));
  EXPECT_TRUE(tile_grid_fits(shape(1, kIntMax, 1), 1, 1));  // INT_MAX tiles on x
  EXPECT_FALSE(tile_grid_fits(shape(1, kIntMax + 1, 1), 1, 1));
  const TileCounts t = tile_counts(shape(1000, 4095, 1), 128, 256);
  EXPECT_EQ(t.m, 8);
  EXPECT_EQ(t.n, 16);
  // One linear grid of every tile: tiles_m * tiles_n <= INT_MAX.
  EXPECT_TRUE(linear_tile_grid_fits(shape(65536, 32767, 1), 1, 1));
  EXPECT_FALSE(linear_tile_grid_fits(shape(65536, 32768, 1), 1, 1));
  EXPECT_TRUE(linear_tile_grid_fits(shape(65536, 32768, 1), 2, 1));
}

TEST(ProblemViews, Fits32CombinesTheGridAndTheTilePaddedOffsets) {
  EXPECT_TRUE(fits_int32(shape(4096, 4096, 4096), 128, 128, 8));
  EXPECT_FALSE(fits_int32(shape(65536 * 128 + 1, 1, 1), 128, 128, 8));     // grid y
  EXPECT_FALSE(fits_int32(shape(46340, 46340, 8), 128, 128, 8));           // C's padded span
  EXPECT_TRUE(fits_int32(mirrored(shape(8, 46336, 46336)), 128, 128, 8));  // views of any kind
}

// ---- Rasterisation ------------------------------------------------------------------------------

TEST(ProblemViews, RasterGroupIsClampedToTheTileRows) {
  EXPECT_EQ(clamp_raster_group(8, 32), 8);
  EXPECT_EQ(clamp_raster_group(8, 3), 3);
  EXPECT_EQ(clamp_raster_group(0, 3), 1);
  EXPECT_EQ(clamp_raster_group(-4, 3), 1);
}

TEST(ProblemViews, RasterisedOrderWalksGroupsOfTileRowsColumnByColumn) {
  // 5 x 3 tiles in groups of 2 rows: (0,0) (1,0) (0,1) (1,1) (0,2) (1,2), then the same for
  // rows 2-3, then the last row alone.
  const std::vector<std::pair<int, int>> want = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2},
                                                 {1, 2}, {2, 0}, {3, 0}, {2, 1}, {3, 1},
                                                 {2, 2}, {3, 2}, {4, 0}, {4, 1}, {4, 2}};
  std::set<std::pair<int, int>> seen;
  for (int bid = 0; bid < 15; ++bid) {
    const TileCoord t = raster_tile(bid, 5, 3, clamp_raster_group(2, 5));
    EXPECT_EQ(std::make_pair(t.m, t.n), want[static_cast<std::size_t>(bid)]) << "block " << bid;
    seen.insert({t.m, t.n});
  }
  EXPECT_EQ(seen.size(), 15u);
  // A group as tall as the grid is column-major order; a group of one, row-major order.
  for (int bid = 0; bid < 15; ++bid) {
    const TileCoord col = raster_tile(bid, 5, 3, clamp_raster_group(99, 5));
    EXPECT_EQ(col.m, bid % 5);
    EXPECT_EQ(col.n, bid / 5);
    const TileCoord row = raster_tile(bid, 5, 3, 1);
    EXPECT_EQ(row.m, bid / 3);
    EXPECT_EQ(row.n, bid % 3);
  }
}

}  // namespace
}  // namespace tilegemm::kernels::views
