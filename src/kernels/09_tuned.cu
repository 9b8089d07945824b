// Rung 9: tuned instances of rung 8 per shape class, rasterised tile order, split-K, and the
// `auto` rule that picks among them (src/core/dispatch.cpp).
//
// What it adds over `cp_async`: the same kernel, scheduled for the shape. Idea: a GEMM is fast
// only when every SM has enough blocks and the blocks resident together share their operands in
// L2; so pick the tile size by how many tiles the shape has, walk them in groups of tile-rows,
// and when there are too few tiles to fill the GPU, split K and add the partial sums afterwards.
//  - large, 128x256 (8x16 thread tiles, 1 block/SM): shapes with at least about one wave of
//    128x256 tiles (2048^2 and up), where rung 8's 128x256 instances are its fastest.
//  - large, 128x128 (2 blocks/SM): between one 128x128 tile per SM and a wave of 128x256 tiles;
//    tiles walked in groups of 8 tile-rows so a wave of ~264 blocks reuses 8 row panels of A.
//  - medium (128x64, 4 warps): about one wave of 128x128 tiles or fewer (1024..2047).
//  - small (64x64, 4 warps, 8x4 thread tiles): 256..1024; its `_splitk` twin splits K when the
//    tiles fill less than half the SMs.
//  - skinny (16x64, 2 warps, 4x4 thread tiles, 4 stages of BK = 32): M <= 32 (or N <= 32: the
//    launcher runs C^T = B^T A^T, views::mirrored, no copy), always split-K: these shapes read
//    a whole operand once and are bound by memory bandwidth, so they need many blocks in flight.
//  - longk: the large tile with split-K where its tiles fall short of two waves: K split until
//    the waves are 85% busy (a wave tail of 128x128 tiles costs a whole tile's K loop).
//  - `_anyalign` twins (large 128x256 and 128x128, longk, small, skinny) copy x-contiguous
//    operands 4 bytes at a time: any leading dimension and base alignment (4095^3 with a
//    row-major B), where the 16-byte path cannot be used. The large and longk ones run large
//    problems instead on copies of the operands at a 128-byte pitch, made inside the call
//    (pad_copy.cuh).
// Split-K: split z computes K tiles [z * per_split, (z+1) * per_split) and stores its raw sums to
// a workspace slice laid out like C; a reduction kernel adds the slices in split order
// (deterministic) and applies C = alpha * sum + beta * C, never reading C when beta == 0. The
// workspace is the library's per-stream scratch buffer (runtime::stream_workspace,
// src/core/device_runtime.hpp).
//
// Measurements: docs/ladder.md (rung 9, `auto`), docs/perf-notes.md (rung 9).
#include <algorithm>
#include <string>
#include <type_traits>
#include <utility>

#include "../core/device_runtime.hpp"
#include "08_cp_async.cuh"
#include "families.hpp"
#include "pad_copy.cuh"

namespace tilegemm::kernels {

namespace cp_async {
// Instantiated in 08_cp_async.cu.
extern template cudaError_t launch<Config<128, 128, 8, 64, 32, 8, 8, 3, true>>(const Problem&,
                                                                               const Schedule&,
                                                                               cudaStream_t);
extern template const void* device_function<Config<128, 128, 8, 64, 32, 8, 8, 3, true>>(
    const Problem&);
extern template cudaError_t launch<Config<128, 256, 8, 64, 64, 8, 16, 3, true>>(const Problem&,
                                                                                const Schedule&,
                                                                                cudaStream_t);
extern template const void* device_function<Config<128, 256, 8, 64, 64, 8, 16, 3, true>>(
    const Problem&);
}  // namespace cp_async

namespace {

using cp_async::Config;
using cp_async::Schedule;

using Wide = Config<128, 256, 8, 64, 64, 8, 16, 3, true>;  // rung 8's best at 2048^3 and up
using Large = Config<128, 128, 8, 64, 32, 8, 8, 3, true>;
using Medium = Config<128, 64, 16, 64, 32, 8, 8, 3, true>;
using Small = Config<64, 64, 16, 32, 32, 8, 4, 3, true>;
using Skinny = Config<16, 64, 32, 16, 32, 4, 4, 4, true>;
using WideAnyAlign = Config<128, 256, 8, 64, 64, 8, 16, 3, false>;
using LargeAnyAlign = Config<128, 128, 8, 64, 32, 8, 8, 3, false>;
using SmallAnyAlign = Config<64, 64, 16, 32, 32, 8, 4, 3, false>;
using SkinnyAnyAlign = Config<16, 64, 32, 16, 32, 4, 4, 4, false>;

// ---- Split-K workspace -------------------------------------------------------------------------

// Partial sums may take at most this many floats (256 MiB); beyond it fewer splits are used.
constexpr std::int64_t kMaxWorkspaceFloats = std::int64_t{1} << 26;

// C = alpha * (sum of the split slices) + beta * C, one thread per element, walking C's
// contiguous dimension (the slices are laid out like C, so both sides are coalesced).
__global__ void __launch_bounds__(256)
    splitk_reduce_kernel(GemmArgs g, const float* workspace, int splits, std::int64_t split_stride,
                         bool c_row_major) {
  const std::int64_t idx = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t total = static_cast<std::int64_t>(g.m) * g.n;
  if (idx >= total) return;
  const std::int64_t inner = c_row_major ? g.n : g.m;
  const std::int64_t outer_i = idx / inner;
  const std::int64_t inner_i = idx % inner;
  const std::int64_t row = c_row_major ? outer_i : inner_i;
  const std::int64_t col = c_row_major ? inner_i : outer_i;
  float sum = 0.0f;
  for (int z = 0; z < splits; ++z) sum += workspace[z * split_stride + idx];
  epilogue_store(g.c + row * g.c_rs + col * g.c_cs, sum, g.alpha, g.beta);
}

// ---- Schedules ---------------------------------------------------------------------------------

// Blocks of this configuration one SM holds, estimated from its threads (at most 128 registers
// each, what the kernels' launch bounds aim at) and its shared memory.
template <class C>
int blocks_per_sm() {
  const int by_registers = 65536 / (C::kThreads * 128);
  const int by_smem = (227 * 1024) / (C::kSmemBytes + 1024);
  return std::max(1, std::min({by_registers, by_smem, 32}));
}

// Splits of K: none while the tiles keep at least half the SMs busy; otherwise enough to fill
// one wave of resident blocks, keeping at least 4 K tiles per split and the workspace bounded,
// rounded down toward a whole number of blocks per SM (docs/perf-notes.md, "Rung 9's split
// count").
template <class C>
int choose_splits(const Problem& p, int tiles_mn, int k_tiles) {
  const int sms = runtime::sm_count();
  if (2 * static_cast<std::int64_t>(tiles_mn) > sms) return 1;
  std::int64_t want = ceil_div(static_cast<std::int64_t>(sms) * blocks_per_sm<C>(), tiles_mn);
  want = std::min<std::int64_t>({want, k_tiles / 4, 64});
  // Past one block per SM, a whole number of blocks per SM: a count that gives some SMs a block
  // more than others runs at the pace of the fuller ones.
  if (want * tiles_mn > sms) {
    want = std::max<std::int64_t>(1, want * tiles_mn / sms * sms / tiles_mn);
  }
  while (want > 1 && want * p.m * p.n > kMaxWorkspaceFloats) --want;
  return static_cast<int>(std::max<std::int64_t>(want, 1));
}

// Splits of K that fill the SMs' block slots, for tiles that fall short of two waves: the
// fewest (up to 16, each at least 16 K tiles, the workspace bounded) whose waves are at least
// 85% busy, else the one that fills them best (by a twentieth at least). A split adds a write and
// a read of a C-sized slice; a mostly idle last wave costs the whole tile's K loop.
template <class C>
int choose_fill_splits(const Problem& p, int tiles_mn, int k_tiles) {
  const std::int64_t slots = std::int64_t{runtime::sm_count()} * blocks_per_sm<C>();
  const auto fill = [slots](std::int64_t count) {
    const std::int64_t waves = ceil_div(count, slots);
    return static_cast<double>(count) / static_cast<double>(waves * slots);
  };
  if (tiles_mn >= 2 * slots) return 1;
  int best = 1;
  double best_fill = fill(tiles_mn);
  if (best_fill >= 0.85) return 1;
  for (int s = 2; s <= 16 && k_tiles / s >= 16; ++s) {
    if (s * p.m * p.n > kMaxWorkspaceFloats) break;
    const double f = fill(std::int64_t{tiles_mn} * s);
    if (f >= 0.85) return s;
    if (f > best_fill + 0.05) {
      best = s;
      best_fill = f;
    }
  }
  return best;
}

// kWhenFewTiles: choose_splits; kFillWaves: choose_fill_splits.
enum class Split { kNever, kWhenFewTiles, kFillWaves };

template <class C>
int splits_for(const Problem& p, Split split, int tiles_mn, int k_tiles) {
  switch (split) {
    case Split::kNever:
      return 1;
    case Split::kWhenFewTiles:
      return choose_splits<C>(p, tiles_mn, k_tiles);
    case Split::kFillWaves:
      return choose_fill_splits<C>(p, tiles_mn, k_tiles);
  }
  return 1;
}

// The schedule launch_scheduled runs: the plain one, K split as `split` says.
template <class C>
Schedule plan_schedule(const Problem& p, int raster_group, Split split) {
  Schedule s = cp_async::plain_schedule<C>(p);
  s.raster_group = views::clamp_raster_group(raster_group, s.tiles_m);
  const int k_tiles = s.tiles_per_split;
  const int splits = splits_for<C>(p, split, s.tiles_m * s.tiles_n, k_tiles);
  if (splits <= 1) return s;
  s.tiles_per_split = static_cast<int>(ceil_div(k_tiles, splits));
  s.splits = static_cast<int>(ceil_div(k_tiles, s.tiles_per_split));  // no split is empty
  return s;
}

// Bytes of partial sums a schedule needs in the stream workspace.
std::size_t split_bytes(const Problem& p, const Schedule& s) {
  return s.splits <= 1 ? 0
                       : static_cast<std::size_t>(s.splits) * static_cast<std::size_t>(p.m * p.n) *
                             sizeof(float);
}

// `ws_offset`: bytes at the front of the stream workspace that the caller has filled (operand
// copies) and that the partial sums must not overwrite; the caller has already sized the
// workspace for both, so asking again here does not move it.
template <class C>
cudaError_t launch_scheduled(const Problem& p, int raster_group, Split split, cudaStream_t stream,
                             std::size_t ws_offset = 0) {
  Schedule s = plan_schedule<C>(p, raster_group, split);
  if (s.splits <= 1) return cp_async::launch<C>(p, s, stream);

  const bool c_row_major = p.c.layout == Layout::kRowMajor;
  s.ws_rs = c_row_major ? p.n : 1;
  s.ws_cs = c_row_major ? 1 : p.m;
  s.ws_split_stride = p.m * p.n;
  void* workspace = nullptr;
  if (runtime::stream_workspace(ws_offset + split_bytes(p, s), stream, &workspace) != cudaSuccess) {
    // No workspace (out of memory): the unsplit launch is slower, never wrong. Clear the
    // allocation error so that the launch's own error check does not report it.
    static_cast<void>(cudaGetLastError());
    Schedule unsplit = cp_async::plain_schedule<C>(p);
    unsplit.raster_group = s.raster_group;
    return cp_async::launch<C>(p, unsplit, stream);
  }
  workspace = static_cast<unsigned char*>(workspace) + ws_offset;
  s.workspace = static_cast<float*>(workspace);
  if (cudaError_t err = cp_async::launch<C>(p, s, stream); err != cudaSuccess) return err;
  const std::int64_t total = p.m * p.n;
  splitk_reduce_kernel<<<static_cast<unsigned>(ceil_div(total, 256)), 256, 0, stream>>>(
      make_args(p), s.workspace, s.splits, s.ws_split_stride, c_row_major);
  return cudaGetLastError();
}

// Large problems with an operand the 16-byte path cannot take: the any-alignment instances copy
// such an operand to a 128-byte pitch first (pad_copy.cuh, inside the call) and run their 16-byte
// twin on the copy, where the copy costs little beside the product: at least 2^28 multiply-adds,
// M and N of at least 128, K of at least 64 (docs/perf-notes.md, rung 9's any-alignment path).
bool pays_to_pad(const Problem& p) {
  return p.m >= 128 && p.n >= 128 && p.k >= 64 && p.m * p.n * p.k >= (std::int64_t{1} << 28);
}

// An operand as lines of contiguous elements: rows of K (row-major A) or columns of M, and so on.
Copy pad_plan(const MatrixView<const void*>& x, std::int64_t rows, std::int64_t cols) {
  if (views::aligned(x, 16)) return Copy{};
  const bool row_major = x.layout == Layout::kRowMajor;
  return sized_copy(x.dtype, row_major ? rows : cols, row_major ? cols : rows, false);
}

// Runs `Aligned` on copies of the operands the 16-byte path cannot take; false in `ran` where
// `Aligned` cannot take the padded problem either (the caller runs its any-alignment path).
template <class Aligned>
cudaError_t launch_padded(const Problem& p, int raster_group, Split split, cudaStream_t stream,
                          bool& ran) {
  const Copy ca = pad_plan(p.a, p.m, p.k);
  const Copy cb = pad_plan(p.b, p.k, p.n);
  const Problem planned = on_copies(p, ca, cb);
  ran = cp_async::can_implement<Aligned>(planned);
  if (!ran) return cudaSuccess;
  // The copies, then (split K) the partial sums behind them: one workspace request for both.
  const std::size_t copies = static_cast<std::size_t>(
      views::round_up(static_cast<std::int64_t>(ca.bytes + cb.bytes), 256));
  const std::size_t partials =
      split_bytes(planned, plan_schedule<Aligned>(planned, raster_group, split));
  void* workspace = nullptr;
  if (cudaError_t err = runtime::stream_workspace(copies + partials, stream, &workspace);
      err != cudaSuccess) {
    return err;
  }
  unsigned char* const a_copy = static_cast<unsigned char*>(workspace);
  unsigned char* const b_copy = a_copy + ca.bytes;
  if (cudaError_t err = copy_operands(p.a.dtype, p.a.data, p.a.ld, a_copy, ca, p.b.data, p.b.ld,
                                      b_copy, cb, stream);
      err != cudaSuccess) {
    return err;
  }
  return launch_scheduled<Aligned>(on_copies(p, ca, cb, a_copy, b_copy), raster_group, split,
                                   stream, copies);
}

// The skinny tile is short along M: run the problem so that its short side is M (N < M runs as
// C^T = B^T A^T, the same product on the same memory).
Problem skinny_view(const Problem& p) {
  return p.n < p.m ? views::mirrored(p) : p;
}

// ---- Registration ------------------------------------------------------------------------------

// `Padded`: for an any-alignment instance, its 16-byte twin, which runs large problems on padded
// copies (pays_to_pad) with the same split policy; void: none.
template <class C, class Padded = void>
void add(Registry& r, const std::string& cls, int raster_group, Split split, bool skinny,
         const std::string& why) {
  KernelInfo k;
  k.name = "tuned_" + cls + "_" + C::tag() + (split == Split::kNever ? "" : "_splitk");
  k.family = "tuned";
  k.rung = 9;
  k.tile = C::tile_config();
  k.desc = C::desc();
  k.desc.split_k = split != Split::kNever;
  k.summary = why;
  if (skinny) {
    k.can_implement = [](const Problem& p) { return cp_async::can_implement<C>(skinny_view(p)); };
    k.launch = [raster_group, split](const Problem& p, cudaStream_t stream) {
      return launch_scheduled<C>(skinny_view(p), raster_group, split, stream);
    };
    // The main kernel's instance for the view it runs (split-K adds splitk_reduce_kernel).
    k.device_function = [](const Problem& p) {
      return cp_async::device_function<C>(skinny_view(p));
    };
  } else {
    k.can_implement = cp_async::can_implement<C>;
    k.launch = [raster_group, split](const Problem& p, cudaStream_t stream) {
      if constexpr (!std::is_void_v<Padded>) {
        if (pays_to_pad(p)) {
          bool ran = false;
          const cudaError_t err = launch_padded<Padded>(p, raster_group, split, stream, ran);
          if (ran || err != cudaSuccess) return err;
        }
      }
      return launch_scheduled<C>(p, raster_group, split, stream);
    };
    k.device_function = cp_async::device_function<C>;
  }
  r.push_back(std::move(k));
}

}  // namespace

void register_tuned(Registry& r) {
  constexpr Split kNever = Split::kNever;
  constexpr Split kSplit = Split::kWhenFewTiles;
  constexpr Split kFill = Split::kFillWaves;
  // The 128x256 pair first: `auto` takes the first instance of a glob that fits, the 16-byte
  // instance before its any-alignment twin.
  add<Wide>(r, "large", 8, kNever, false,
            "large shapes (>= 7/8 of a wave of 128x256 tiles): rung 8's 128x256x8 with 8x16 "
            "thread tiles, 1 block/SM, 8 tile-rows rasterised");
  add<WideAnyAlign, Wide>(r, "large", 8, kNever, false,
                          "large shapes, any alignment: 128x256x8, 4-byte copies of "
                          "x-contiguous operands; large problems run the 16-byte twin on "
                          "operands copied to a 128-byte pitch");
  add<Large>(
      r, "large", 8, kNever, false,
      "large shapes (>= 1 tile of 128x128 per SM): rung 8's 128x128x8, 8 tile-rows rasterised");
  add<Medium>(r, "medium", 8, kNever, false,
              "medium shapes (about one wave of 128x128 tiles or fewer): 128x64 tiles, 4 warps");
  add<Small>(r, "small", 4, kNever, false, "small shapes (256..1024): 64x64 tiles, 4 warps");
  add<Small>(r, "small", 4, kSplit, false,
             "small shapes with long K: 64x64 tiles, split-K when the tiles fill < half the SMs");
  add<Skinny>(
      r, "skinny", 1, kSplit, true,
      "M or N <= 32: 16x64 tiles, split-K, bandwidth-bound (N <= 32 runs as C^T = B^T A^T)");
  add<Large>(r, "longk", 8, kFill, false,
             "fewer 128x128 tiles than two waves: K split until the waves are 85% busy");
  add<LargeAnyAlign, Large>(r, "large", 8, kNever, false,
                            "large shapes, any alignment: 4-byte copies of x-contiguous operands; "
                            "large problems run the 16-byte twin on operands copied to a "
                            "128-byte pitch");
  add<LargeAnyAlign, Large>(r, "longk", 8, kFill, false,
                            "fewer 128x128 tiles than two waves, any alignment: K split until "
                            "the waves are 85% busy; large problems run the 16-byte twin on "
                            "operands copied to a 128-byte pitch");
  add<SmallAnyAlign>(
      r, "small", 4, kSplit, false,
      "small shapes, any alignment: 4-byte copies of x-contiguous operands, split-K");
  add<SkinnyAnyAlign>(r, "skinny", 1, kSplit, true,
                      "M or N <= 32, any alignment: 4-byte copies of x-contiguous operands");
}

}  // namespace tilegemm::kernels
