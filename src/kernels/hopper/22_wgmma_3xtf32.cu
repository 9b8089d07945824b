// Rung 22: fp32 products on the tensor cores, as three tf32 products (sm_90a).
//
// The SIMT ladder (rungs 1-9) is bound by the CUDA cores' fp32 peak; the tensor cores run tf32
// at several times that, but a tf32 operand keeps only 11 of fp32's 24 significant bits. Split
// each fp32 element x into a tf32 part and a tf32 remainder,
//     big(x) = tf32(x),   small(x) = tf32(x - big(x))    (x - big(x) is exact in fp32),
// and a b = big(a) big(b) + big(a) small(b) + small(a) big(b) + small(a) small(b): the first
// three products carry about 22 significant bits of each operand, and the dropped fourth is at
// most 2^-22 |a b| (both remainders are at most half a tf32 ulp). The tensor cores form each
// product exactly (two 11-bit significands) and add in fp32, but their adds truncate: summed
// over a whole K' in the tensor cores' accumulator, the error grew linearly with K, far past
// cuBLAS's SGEMM's (docs/perf-notes.md, "Rung 22"). So every 4 k-tiles the consumers add the
// accumulator into a second one with rounding fp32 adds and restart it (Config::kPromote, in
// wgmma_tma.cuh); the error is then fp32-class, verified against the fp64 reference at the
// fp32 tolerance like the SIMT kernels (testbed.cu). The idea is CUTLASS's "3xTF32" (its
// fast-accurate fp32 GEMM on tensor cores: NVIDIA/cutlass,
// examples/27_ampere_3xtf32_fast_accurate_tensorop_gemm); the promotion is the "CUDA-core
// two-level accumulation" DeepGEMM applies to FP8 (deepseek-ai/DeepGEMM, README).
//
// How this rung runs it: no new main loop. The three products of a row of A and a column of B
// are one dot product of length 3K over the concatenations
//     A' = [ small(A) | big(A) | big(A) ]        (M lines of 3 Kp, K-major)
//     B' = [ big(B) ; small(B) ; big(B) ]        (N lines of 3 Kp, K-major)
// (Kp: K rounded up to the 32-element tf32 k-tile, zeros past K; the remainder terms come first,
// while the accumulator is still small). One launch writes A' and B' into the library's stream
// workspace (each operand read once, in any layout, leading dimension and alignment, and written
// three times at a 128-byte multiple pitch), then rung 15's tf32 kernel (rung 18's one-consumer
// tile for small M or N), with the promotion, computes C = alpha A' B' + beta C on them as the
// copy's programmatic dependent, with its own split-K and epilogue. No 128x256 tile: its
// consumers' registers hold no second 64 x 256 accumulator. The cost over one tf32 product:
// three times the MMA work and the split pass (12 bytes written per element of A and B);
// docs/perf-notes.md, "Rung 22", has the measured balance against cuBLAS's fp32 SIMT GEMM.
//
// The split inside the kernel (Config::kSplit3, the `_cs` instances, rung 18's one-consumer
// tiles): where M or N is small the large operand dominates, and the pass above writes it three
// times and the kernel reads it three times. These instances read it once, through fp32 tensor
// maps (a tf32 map would round it on the way in): the consumer warpgroup, which owns the whole
// stage, rewrites the stage's B tile in place as its tf32 parts and writes the remainders into a
// spare B-sized slot, splits its A fragments (from a K-major or an M-major tile) in registers,
// and runs the three products with A from registers. The pass then only copies A where no
// tensor map can describe it and B also where it is not K-major, once, K-major; with both read
// in place there is no pass at all. It waits for each k-tile's wgmmas before rewriting A's
// fragment registers, so it promotes every k-tile. Its `_ra` instances load A and B by element
// copies instead of tensor maps (wgmma_tma.cuh, ElementCopy): any pitch and element-aligned
// base, and only an N-major B is copied.
//
// Non-finite inputs: the remainder of an Inf or NaN is taken as 0 (x - tf32(x) would be NaN); a
// finite x whose tf32 rounding overflows keeps its truncation. NaN propagates, but an Inf does
// not survive as Inf: its tf32 part meets the other operand's remainders, and Inf times a zero
// remainder is NaN. No split into three products keeps Inf x finite = Inf for every finite
// partner; where Inf must come out as Inf, set_fp32_math(Fp32Math::kSimt) keeps SGEMM's
// semantics (tested: Library.ThreeTf32KeepsNanAndTheLargestFiniteAndNoInfFinite).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "../../core/device_runtime.hpp"
#include "../families.hpp"
#include "wgmma_tma.cuh"

namespace tilegemm::kernels {

namespace {

// One operand's pass: `rows` lines (M for A, N for B) of k elements; element (r, c) of the line
// view at src[r * ld + c] when k_contig, else at src[c * ld + r]. Destination line r holds
// `segments` segments of kp elements at dst + r * segments kp, zeros from k to kp: with three,
// segment `small_segment` the remainders and the other two the tf32 parts; with one, the fp32
// elements themselves, K-major, for the in-kernel split (small_segment unused).
// `tiles`: the 32 x 32 tiles of the line view (0: the operand is not copied).
struct SplitJob {
  const float* src;
  float* dst;
  std::int64_t ld, rows, k, kp, tiles;
  int k_contig;
  int segments;
  int small_segment;
};

constexpr int kSplitThreads = 256;
constexpr int kSplitKTile = 32;  // the tf32 wgmma k-tile (128 bytes): Kp is a multiple of it

// Splits A's and B's 32 x 32 tiles (a grid-stride loop over both jobs): each tile read through
// shared memory in the source's contiguous direction (coalesced either way) and written as three
// coalesced 128-byte line pieces per line. Then lets the dependent GEMM launch start; it waits
// for this grid's memory in griddepcontrol.wait before reading A' or B'.
__global__ void __launch_bounds__(kSplitThreads) split_3xtf32_kernel(const SplitJob a,
                                                                     const SplitJob b) {
  __shared__ float tile[32][33];
  const int tx = static_cast<int>(threadIdx.x) % 32;
  const int ty = static_cast<int>(threadIdx.x) / 32;  // 0..7
  const std::int64_t total = a.tiles + b.tiles;
  for (std::int64_t t = blockIdx.x; t < total; t += gridDim.x) {
    const bool in_a = t < a.tiles;
    const SplitJob j = in_a ? a : b;
    const std::int64_t u = in_a ? t : t - a.tiles;
    const std::int64_t k_tiles = j.kp / kSplitKTile;
    const std::int64_t r0 = (u / k_tiles) * 32;
    const std::int64_t c0 = (u % k_tiles) * kSplitKTile;
#pragma unroll
    for (int i = 0; i < 32; i += 8) {
      if (j.k_contig) {
        const std::int64_t r = r0 + ty + i, c = c0 + tx;
        tile[ty + i][tx] = r < j.rows && c < j.k ? __ldg(j.src + r * j.ld + c) : 0.0f;
      } else {
        const std::int64_t c = c0 + ty + i, r = r0 + tx;
        tile[tx][ty + i] = r < j.rows && c < j.k ? __ldg(j.src + c * j.ld + r) : 0.0f;
      }
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < 32; i += 8) {
      const std::int64_t r = r0 + ty + i;
      if (r < j.rows) {
        const float x = tile[ty + i][tx];
        float* line = j.dst + r * j.segments * j.kp + c0 + tx;
        if (j.segments == 1) {
          line[0] = x;
        } else {  // three segments
          const float2 s = split_tf32(x);
#pragma unroll
          for (int seg = 0; seg < 3; ++seg) line[seg * j.kp] = seg == j.small_segment ? s.y : s.x;
        }
      }
    }
    __syncthreads();  // the tile is free for the next one
  }
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
}

// The pass over a problem with a row-major C (views::row_major_c): which operands it writes, how
// A' and B' lie in the workspace, and the problem the tf32 kernel runs on them. The split
// beforehand (three segments) writes both; with the split in the kernel (Config::kSplit3) A is
// copied only where no tensor map can describe it (the kernel reads its fragments from either
// layout), B also where it is not K-major.
struct SplitPlan3 {
  int segments = 3;
  std::int64_t kp = 0;
  std::size_t a_bytes = 0, b_bytes = 0;  // each rounded up to 256 bytes; 0 where not copied
  bool copy_a() const { return a_bytes > 0; }
  bool copy_b() const { return b_bytes > 0; }
};
template <class Cfg>
SplitPlan3 split_plan3(const Problem& q) {
  SplitPlan3 s;
  s.kp = views::round_up(q.k, kSplitKTile);
  bool copy_a = true, copy_b = true;
  if constexpr (Cfg::kSplit3) {
    s.segments = 1;
    if constexpr (Cfg::kRealign) {
      // The element copies read any pitch and element-aligned base: only an N-major B is copied.
      copy_a = false;
      copy_b = !views::b_k_contiguous(q);
    } else {
      const hopper::OperandGeometry ga = hopper::a_geometry(q);  // A: either layout
      copy_a = !hopper::tensor_map_describable(DType::kTF32, q.a.data, ga.rows, ga.cols, q.a.ld);
      copy_b = !views::b_k_contiguous(q) ||
               !hopper::tensor_map_describable(DType::kTF32, q.b.data, q.n, q.k, q.b.ld);
    }
  }
  auto bytes = [&](std::int64_t lines) {
    return static_cast<std::size_t>(views::round_up(lines * s.segments * s.kp * 4, 256));
  };
  if (copy_a) s.a_bytes = bytes(q.m);
  if (copy_b) s.b_bytes = bytes(q.n);
  return s;
}
// a_split, b_split: the written operands' addresses; left out where only their alignment matters.
Problem on_split(const Problem& q, const SplitPlan3& s,
                 const void* a_split = views::kAlignedStandIn,
                 const void* b_split = views::kAlignedStandIn) {
  Problem t = q;
  const std::int64_t line = s.segments * s.kp;
  t.k = s.segments == 1 ? q.k : line;  // one segment: zeros past K come from the tensor maps
  t.a = s.copy_a() ? ConstMatrixRef{a_split, Layout::kRowMajor, line, DType::kTF32}  // M lines
                   : ConstMatrixRef{q.a.data, q.a.layout, q.a.ld, DType::kTF32};
  t.b = s.copy_b() ? ConstMatrixRef{b_split, Layout::kColMajor, line, DType::kTF32}  // N lines
                   : ConstMatrixRef{q.b.data, q.b.layout, q.b.ld, DType::kTF32};
  return t;
}

// The workspace the split operands may take: 4 GiB (8192^3 takes 1.5 GiB).
constexpr std::size_t kMaxSplitBytes = std::size_t{1} << 32;

template <class Cfg>
bool can_implement_3xtf32(const Problem& problem) {
  const Problem q = views::row_major_c(problem);
  if (q.a.dtype != DType::kF32 || q.c.dtype != DType::kF32) return false;
  const SplitPlan3 s = split_plan3<Cfg>(q);
  if (s.a_bytes + s.b_bytes > kMaxSplitBytes) return false;
  return hopper::can_implement<Cfg>(on_split(q, s));
}

SplitJob split_job(bool copy, const void* src, std::int64_t ld, bool k_contig, std::int64_t rows,
                   std::int64_t k, const SplitPlan3& s, void* dst, int small_segment) {
  const std::int64_t tiles = copy ? views::ceil_div(rows, 32) * (s.kp / kSplitKTile) : 0;
  return SplitJob{static_cast<const float*>(src), static_cast<float*>(dst), ld, rows, k, s.kp,
                  tiles, k_contig ? 1 : 0, s.segments, small_segment};
}

template <class Cfg>
cudaError_t launch_3xtf32(const Problem& problem, cudaStream_t stream) {
  const Problem q = views::row_major_c(problem);
  const SplitPlan3 s = split_plan3<Cfg>(q);
  runtime::OperandWorkspace ws;
  if (cudaError_t err = runtime::operand_workspace(
          s.a_bytes, s.b_bytes, hopper::split_k_bytes<Cfg>(on_split(q, s)), stream, &ws);
      err != cudaSuccess) {
    return err;
  }
  unsigned char* const a_split = ws.a;
  unsigned char* const b_split = ws.b;
  float* const partial = reinterpret_cast<float*>(ws.tail);
  // A': the remainders first; B': the remainders in the middle (paired with big(A)).
  const SplitJob ja = split_job(s.copy_a(), q.a.data, q.a.ld, views::a_k_contiguous(q), q.m, q.k,
                                s, a_split, 0);
  const SplitJob jb = split_job(s.copy_b(), q.b.data, q.b.ld, views::b_k_contiguous(q), q.n, q.k,
                                s, b_split, 1);
  const std::int64_t tiles = ja.tiles + jb.tiles;
  if (tiles > 0) {
    const auto blocks =
        static_cast<unsigned>(std::min<std::int64_t>(tiles, 8LL * runtime::sm_count()));
    split_3xtf32_kernel<<<blocks, kSplitThreads, 0, stream>>>(ja, jb);
    if (cudaError_t err = cudaGetLastError(); err != cudaSuccess) return err;
  }
  return hopper::launch_with<Cfg>(on_split(q, s, a_split, b_split), stream, partial, tiles > 0);
}

template <class Cfg>
KernelInfo describe_3xtf32(const std::string& tiles) {
  KernelInfo k = hopper::describe<Cfg>(
      "wgmma_3xtf32", 22,
      std::string("fp32 as three tf32 products (3xTF32): ") +
          (!Cfg::kSplit3 ? "A and B split into tf32 parts and remainders in one pass, then "
           : Cfg::kRealign ? "B copied K-major where it is N-major, then "
                           : "A and B copied K-major where no tensor map reads them, then ") +
          tiles + ", its sums added into a rounding fp32 accumulator every " +
          std::to_string(Cfg::kPromote) + " k-tiles");
  k.name = "wgmma_3x" + Cfg::tag();  // wgmma_3xtf32_...
  k.desc.types = {GemmTypes{DType::kF32, DType::kF32}};
  if constexpr (Cfg::kSplit3) {
    k.desc.variant = Cfg::kRealign ? "cs_ra" : "cs";  // the consumer splits (element copies)
  }
  k.desc.align_a = 1;  // the split pass reads any leading dimension and alignment
  k.desc.align_b = 1;
  k.can_implement = can_implement_3xtf32<Cfg>;
  k.launch = launch_3xtf32<Cfg>;
  k.device_function = [](const Problem& p) {
    const Problem q = views::row_major_c(p);
    return hopper::device_function<Cfg>(on_split(q, split_plan3<Cfg>(q)));
  };
  k.plan = [](const Problem& p) {
    const Problem q = views::row_major_c(p);
    return hopper::plan_text<Cfg>(on_split(q, split_plan3<Cfg>(q)));
  };
  return k;
}

}  // namespace

void register_wgmma_3xtf32(Registry& r) {
  using hopper::Config;
  constexpr bool kTf32 = true, kTmaStore = true, kRegEpilogue = false, kRealign = false;
  constexpr int kOneConsumer = 1, kTwoConsumers = 2;
  // Every 4 k-tiles (128 of the 3 Kp) the tensor cores' sum goes into a rounding accumulator
  // (Config::kPromote): a second 64 x BN accumulator per consumer, which the 128x256 tile's
  // registers do not hold.
  constexpr int kPromote = 4;
  using Tile128x128 = Config<128, 6, kTf32, 1, kTmaStore, kTwoConsumers, kRealign, kPromote>;
  using Tile128x64 = Config<64, 8, kTf32, 1, kTmaStore, kTwoConsumers, kRealign, kPromote>;
  using Tile64x64 = Config<64, 13, kTf32, 1, kRegEpilogue, kOneConsumer, kRealign, kPromote>;
  r.push_back(describe_3xtf32<Tile128x128>("rung 15's 128x128 tile"));
  r.push_back(describe_3xtf32<Tile128x64>("rung 15's 128x64 tile"));
  r.push_back(describe_3xtf32<Tile64x64>("rung 18's one-consumer 64x64 tile"));
  // The split inside the kernel (Config::kSplit3) waits for each k-tile's wgmmas anyway (A's
  // fragment registers are rewritten), so it promotes every k-tile: a window of 96 products.
  constexpr bool kConsumerSplit = true;
  constexpr int kPromoteCs = 1;
  using Tile64x64Cs = Config<64, 12, kTf32, 1, kRegEpilogue, kOneConsumer, kRealign, kPromoteCs,
                             kConsumerSplit>;
  using Tile64x128Cs = Config<128, 8, kTf32, 1, kRegEpilogue, kOneConsumer, kRealign, kPromoteCs,
                              kConsumerSplit>;
  const std::string cs = "splitting each stage in the kernel";
  r.push_back(describe_3xtf32<Tile64x64Cs>("rung 18's 64x64 tile " + cs));
  r.push_back(describe_3xtf32<Tile64x128Cs>("rung 18's 64x128 tile " + cs));
  // The same with a producer of element copies (rung 20's place, wgmma_tma.cuh ElementCopy)
  // instead of tensor maps: an operand of any pitch and element-aligned base read in place, no
  // copy and no second launch.
  constexpr bool kElementCopies = true;
  using Tile64x64CsRa = Config<64, 12, kTf32, 1, kRegEpilogue, kOneConsumer, kElementCopies,
                               kPromoteCs, kConsumerSplit>;
  using Tile64x128CsRa = Config<128, 8, kTf32, 1, kRegEpilogue, kOneConsumer, kElementCopies,
                                kPromoteCs, kConsumerSplit>;
  const std::string cs_ra = cs + ", loaded by element copies";
  r.push_back(describe_3xtf32<Tile64x64CsRa>("rung 18's 64x64 tile " + cs_ra));
  r.push_back(describe_3xtf32<Tile64x128CsRa>("rung 18's 64x128 tile " + cs_ra));
}

}  // namespace tilegemm::kernels
