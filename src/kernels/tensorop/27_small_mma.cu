// Rung 27: small and mid-sized products of 16-bit operands on the tensor cores in one launch, at
// any pitch and alignment (`small_mma_64x64`, `small_mma_64x128`).
//
// Rung 24 (small) does a product of up to 2^24 multiply-adds in one launch on the CUDA cores; past
// that its FMA rate bounds it. The tensor-core paths for an operand no tensor map describes (an
// odd leading dimension, a base off 16 bytes) copy it first (rung 16: a second launch, tensor maps
// encoded on the host) or read it through residue-class tensor maps (rung 23: up to nine maps);
// on products of 10^8 to 10^9 multiply-adds those calls spend more time on the host than the GPU
// needs for the product, and cuBLAS's calls are as long (docs/perf-notes.md, "Rung 27").
// Idea: rung 24's launch with rung 25's tensor-core tile:
//  - C is made row-major (a column-major C is computed as its mirror, C^T = B^T A^T).
//  - Block tile 64 x BN (64 or 128), 256 threads as 2 x 4 warps of 32 x BN/4, K in stages of 64:
//    each stage is read through the operands' strides (any layout, pitch and base; consecutive
//    threads along the contiguous dimension; element pairs as one 4-byte load where the base and
//    pitch allow, else element by element) into registers as storage bits, then into one of two
//    shared buffers in the operand's own orientation (the next stage's loads in flight while
//    this one is multiplied, one barrier per stage).
//  - mma.sync m16n8k16 from ldmatrix fragments (ldmatrix.trans for an M- or N-contiguous
//    operand), fp32 accumulation.
//  - K of more than four stages split over blocks (grid y) until about two blocks per SM are
//    busy, at most kMaxSplits ways; each split writes its tile of partial sums (tile-major, so
//    every split's writes and the final sum's reads are whole 16-byte pieces whatever M and N
//    are) into the stream workspace, and the last block of a tile to arrive (stream::last_split)
//    adds them in split order (deterministic) and writes C.
// auto took the 64 x 64 tile for rung 24's small products with K of 49..128 (one or two stages
// here, two to four of rung 24's) until rung 28's 16 x 8 tile took that class; it takes it for a
// short K under a long thin C, and for K of 65..128 there where an operand has no tensor map
// (dispatch.cpp, kShortKThinC16 and kMidKThinC16). Elsewhere it won where the paths
// auto takes were slow against cuBLAS and lost about as often, bound by its element loads'
// instructions rather than the tensor cores (docs/perf-notes.md, "Rung 27"). `tune` measures both
// instances with the rest.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>

#include "../common.cuh"
#include "../families.hpp"
#include "../stream_common.cuh"
#include "../tensor_common.cuh"
#include "mma_sync.cuh"

namespace tilegemm::kernels {
namespace {

using mma_sync::ldsm_x4_of;
using mma_sync::opaque;

constexpr int kThreads = 256;
constexpr int kWarpsM = 2;  // warps along M; 4 along N
constexpr int kWarpsN = 4;
constexpr int BM = 64;      // C rows per block
constexpr int BK = 64;      // K per stage: 4 mma k-steps
constexpr int kWarpM = BM / kWarpsM;
constexpr int kMf = kWarpM / 16;   // m16 fragments per warp
constexpr int kSplitBlocksPerSm = 2;  // the split target: blocks per SM over the grid
constexpr int kMaxSplits = 16;        // the last block adds at most 16 partial sums per output

// The instance's geometry for BN columns of C per block.
template <int BN>
struct Tile {
  static constexpr int kWarpN = BN / kWarpsN;  // columns per warp
  static constexpr int kNf = kWarpN / 8;       // n8 fragments per warp
  // An operand's stage takes the larger of its two orientations (StageLoads).
  static constexpr int kARegion = std::max(BM * (BK + 8), BK * (BM + 8));
  static constexpr int kBRegion = std::max(BN * (BK + 8), BK * (BN + 8));
  static constexpr int kBufElems = kARegion + kBRegion;
  static constexpr int kSmemBytes = 2 * kBufElems * 2;  // two buffers of 16-bit values
  static constexpr int kMinBlocks = BN == 64 ? 3 : 2;   // at most 85 (128) registers a thread
  static_assert(kNf % 2 == 0, "B fragments come two n8 tiles per ldmatrix.x4");
};

// The kernel's arguments: the row-major-C problem, its tiles along N, K per split, and for a split
// K the partial sums (tiles x splits x BM x BN floats, tile-major) and a counter per tile.
struct SmallMmaArgs : StridedProblem {
  int tiles_n;
  int k_chunk;
  int a_pairs, b_pairs;  // A's (B's) base and pitch are 4-byte aligned: pairs load as one word
  int c_pairs;           // C's base and ldc allow 2-element accesses at even columns
  float* partial;
  unsigned* counters;
};

// One operand's X x BK part of a stage, in the operand's own orientation: lines along its strided
// dimension, each holding kC values of its contiguous one (K_CONTIG, A row-major or B
// column-major: X lines of BK k; otherwise BK lines of X). Element (line l, position c) is at
// p[l * ld + c] in memory and at s[l * kLine + c] in the stage, whose lines are 16 bytes longer
// than kC values (ldmatrix's eight 16-byte rows of eight lines fall in distinct bank groups).
// Consecutive threads take consecutive positions of a line. Where the operand's base and pitch
// are 4-byte aligned (`pairs`), a thread loads and stores a pair of positions at once; otherwise
// one element (any pitch and base). Zero outside the matrix and past the split's K.
template <int X, bool K_CONTIG>
struct StageLoads {
  static constexpr int kC = K_CONTIG ? BK : X;  // values per line
  static constexpr int kLine = kC + 8;
  static constexpr int kLines = X * BK / kC;
  static constexpr int kElems = X * BK / kThreads;  // per thread: element loads, or twice the pairs
  static constexpr int kElemStep = kThreads / kC;   // lines apart, element path
  static constexpr int kPairStep = 2 * kThreads / kC;  // lines apart, pair path
  static constexpr int kBytes = kLines * kLine * 2;
  static_assert(kThreads % kC == 0 && kC % 64 == 0, "whole lines per pass");
  std::uint32_t v[kElems];

  // p: the operand's element (0, 0) of the stage; ld: the pitch between lines; lines and c_left:
  // lines and positions left in the matrix (or the split's K) from the stage's corner.
  __device__ __forceinline__ void load(const std::uint16_t* p, int ld, int lines, int c_left,
                                       bool pairs, int tid) {
    // One running pointer a thread, stepped between loads (opaque: mma_sync.cuh).
    if (pairs) {
      const int c = 2 * (tid % (kC / 2));
      const int l0 = tid / (kC / 2);
      const std::int64_t step = std::int64_t{kPairStep} * ld;
      p += l0 * ld + c;
#pragma unroll
      for (int j = 0; j < kElems / 2; ++j) {
        std::uint32_t w = 0u;
        if (l0 + kPairStep * j < lines) {
          if (c + 1 < c_left) {
            w = __ldg(reinterpret_cast<const unsigned int*>(p));
          } else if (c < c_left) {
            w = __ldg(p);
          }
        }
        v[j] = w;
        p += step;
        opaque(p);
      }
    } else {
      const int c = tid % kC;
      const int l0 = tid / kC;
      const bool c_in = c < c_left;
      const std::int64_t step = std::int64_t{kElemStep} * ld;
      p += l0 * ld + c;
#pragma unroll
      for (int j = 0; j < kElems; ++j) {
        v[j] = c_in && l0 + kElemStep * j < lines ? __ldg(p) : 0u;
        p += step;
        opaque(p);
      }
    }
  }

  __device__ __forceinline__ void store(std::uint16_t* s, bool pairs, int tid) const {
    if (pairs) {
      const int c = 2 * (tid % (kC / 2));
      const int l0 = tid / (kC / 2);
#pragma unroll
      for (int j = 0; j < kElems / 2; ++j) {
        *reinterpret_cast<std::uint32_t*>(s + (l0 + kPairStep * j) * kLine + c) = v[j];
      }
    } else {
      const int c = tid % kC;
      const int l0 = tid / kC;
#pragma unroll
      for (int j = 0; j < kElems; ++j) {
        s[(l0 + kElemStep * j) * kLine + c] = static_cast<std::uint16_t>(v[j]);
      }
    }
  }
};

/// C = alpha * A B + beta * C for block tile blockIdx.x over split blockIdx.y of K.
/// @tparam Op   Bf16Op or F16Op
/// @tparam CT   C's storage type
/// @tparam BN   columns of C per block (64 or 128)
/// @tparam A_K  A is K-contiguous (row-major); else M-contiguous
/// @tparam B_K  B is K-contiguous (column-major); else N-contiguous
template <class Op, class CT, int BN, bool A_K, bool B_K>
__global__ void __launch_bounds__(kThreads, Tile<BN>::kMinBlocks)
    small_mma_kernel(const SmallMmaArgs g) {
  using T = Tile<BN>;
  extern __shared__ __align__(16) unsigned char smem[];
  std::uint16_t* const lines = reinterpret_cast<std::uint16_t*>(smem);
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / 32;
  const int lane = tid % 32;
  const int tile = static_cast<int>(blockIdx.x);
  const int m0 = (tile / g.tiles_n) * BM;
  const int n0 = (tile % g.tiles_n) * BN;
  const int k_begin = static_cast<int>(blockIdx.y) * g.k_chunk;
  const int k_end = min(g.k, k_begin + g.k_chunk);
  const int rows_a = g.m - m0;
  const int rows_b = g.n - n0;

  // Each operand's corner of the block's first stage, advanced by a stage's K per stage.
  const std::uint16_t* pa = static_cast<const std::uint16_t*>(g.a) + m0 * g.a_m + k_begin * g.a_k;
  const std::uint16_t* pb = static_cast<const std::uint16_t*>(g.b) + n0 * g.b_n + k_begin * g.b_k;
  const int lda = static_cast<int>(A_K ? g.a_m : g.a_k);
  const int ldb = static_cast<int>(B_K ? g.b_n : g.b_k);
  const std::int64_t a_step = BK * g.a_k;
  const std::int64_t b_step = BK * g.b_k;

  using LA = StageLoads<BM, A_K>;
  using LB = StageLoads<BN, B_K>;
  static_assert(LA::kBytes <= 2 * T::kARegion && LB::kBytes <= 2 * T::kBRegion, "stage regions");
  LA la;
  LB lb;
  const bool a_pairs = g.a_pairs != 0;
  const bool b_pairs = g.b_pairs != 0;
  // Lines and positions left from a stage's corner, with k_left of the split's K left.
  const auto load = [&](int k_left) {
    la.load(pa, lda, A_K ? rows_a : k_left, A_K ? k_left : rows_a, a_pairs, tid);
    lb.load(pb, ldb, B_K ? rows_b : k_left, B_K ? k_left : rows_b, b_pairs, tid);
  };
  if (k_begin < k_end) load(k_end - k_begin);

  const int wm = warp / kWarpsN;
  const int wn = warp % kWarpsN;
  float acc[kMf][T::kNf][4] = {};
  // ldmatrix addresses (elements within an operand's stage) of the warp's first fragments, and
  // the steps to the next fragment (f) and the next k-step (kk). A matrix j = lane / 8 is (rows
  // 8 (j % 2) .., k 8 (j / 2) ..); B matrix j is (columns 8 (j / 2) .., k 8 (j % 2) ..), two n8
  // fragments per x4. K-contiguous stages hold them as rows (ldmatrix), the others as k-lines
  // (ldmatrix.trans gives the same registers).
  const int a_lane =
      A_K ? (kWarpM * wm + lane % 16) * LA::kLine + 8 * (lane / 16)
          : (lane % 8 + 8 * (lane / 16)) * LA::kLine + kWarpM * wm + 8 * ((lane / 8) % 2);
  const int b_lane =
      B_K ? (T::kWarpN * wn + 8 * (lane / 16) + lane % 8) * LB::kLine + 8 * ((lane / 8) % 2)
          : (lane % 8 + 8 * ((lane / 8) % 2)) * LB::kLine + T::kWarpN * wn + 8 * (lane / 16);
  constexpr int kAf = A_K ? 16 * LA::kLine : 16;
  constexpr int kAk = A_K ? 16 : 16 * LA::kLine;
  constexpr int kBf = B_K ? 16 * LB::kLine : 16;
  constexpr int kBk = B_K ? 16 : 16 * LB::kLine;
  int buf = 0;
  for (int ks = k_begin; ks < k_end; ks += BK) {
    std::uint16_t* const s = lines + buf * T::kBufElems;
    la.store(s, a_pairs, tid);
    lb.store(s + T::kARegion, b_pairs, tid);
    __syncthreads();  // the stage is written; with two buffers, one barrier per stage suffices
    if (ks + BK < k_end) {  // the next stage's loads, in flight while this one is multiplied
      pa += a_step;
      pb += b_step;
      load(k_end - ks - BK);
    }
    const std::uint32_t a_base = smem_addr(s + a_lane);
    const std::uint32_t b_base = smem_addr(s + T::kARegion + b_lane);
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk) {
      std::uint32_t af[kMf][4];
      std::uint32_t bf[T::kNf / 2][4];
#pragma unroll
      for (int f = 0; f < kMf; ++f) ldsm_x4_of<A_K>(af[f], a_base + 2 * (kAf * f + kAk * kk));
#pragma unroll
      for (int f = 0; f < T::kNf / 2; ++f) {
        ldsm_x4_of<B_K>(bf[f], b_base + 2 * (kBf * f + kBk * kk));
      }
#pragma unroll
      for (int i = 0; i < kMf; ++i) {
#pragma unroll
        for (int j = 0; j < T::kNf; ++j) {
          const std::uint32_t bj[2] = {bf[j / 2][2 * (j % 2)], bf[j / 2][2 * (j % 2) + 1]};
          Op::mma(acc[i][j], af[i], bj);
        }
      }
    }
    buf ^= 1;
  }

  // Each accumulator pair: block-relative row r and columns c, c + 1 (mma.sync's m16n8 layout).
  const auto for_each_pair = [&](auto&& f) {
#pragma unroll
    for (int i = 0; i < kMf; ++i) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = kWarpM * wm + 16 * i + 8 * h + lane / 4;
#pragma unroll
        for (int j = 0; j < T::kNf; ++j) {
          f(r, T::kWarpN * wn + 8 * j + 2 * (lane % 4), acc[i][j][2 * h], acc[i][j][2 * h + 1]);
        }
      }
    }
  };
  CT* const c = static_cast<CT*>(g.c);
  const int cols_left = g.n - n0;
  const bool vec2 = g.c_pairs != 0;
  if (gridDim.y == 1) {
    for_each_pair([&](int r, int col, float x, float y) {
      if (r < rows_a) {
        store_c_pair(c + static_cast<std::int64_t>(m0 + r) * g.ldc + n0, col, cols_left, x, y,
                     g.alpha, g.beta, vec2);
      }
    });
    return;
  }

  // Split K: this split's tile of partial sums, then the last block of the tile to arrive adds
  // every split's in split order and writes C.
  constexpr int kTileOut = BM * BN;
  const int splits = static_cast<int>(gridDim.y);
  float* const tile_partial = g.partial + static_cast<std::int64_t>(tile) * splits * kTileOut;
  float* const mine = tile_partial + static_cast<std::int64_t>(blockIdx.y) * kTileOut;
  for_each_pair([&](int r, int col, float x, float y) {
    *reinterpret_cast<float2*>(mine + r * BN + col) = make_float2(x, y);
  });
  if (!stream::last_split(g.counters)) return;
  // Thread t adds the 4 outputs 4 (t + kThreads q) .. + 3 for q < kQuads, 8 loads in flight.
  constexpr int kQuads = kTileOut / (4 * kThreads);
  float4 sum[kQuads];
  stream::sum_tile_splits<kTileOut, kThreads, 8 / kQuads>(tile_partial, splits, tid, sum);
#pragma unroll
  for (int q = 0; q < kQuads; ++q) {
    const int e = 4 * (tid + kThreads * q);
    const int r = e / BN;
    if (r >= rows_a) continue;
    CT* const c_row = c + static_cast<std::int64_t>(m0 + r) * g.ldc + n0;
    store_c_pair(c_row, e % BN, cols_left, sum[q].x, sum[q].y, g.alpha, g.beta, vec2);
    store_c_pair(c_row, e % BN + 2, cols_left, sum[q].z, sum[q].w, g.alpha, g.beta, vec2);
  }
}

// Leading dimensions of A and B under 2^24 elements: a stage's offsets from its corner are 32-bit
// (at most 128 lines and 64 k); m, n and k with a stage to spare; the tiles fit a 1-D grid.
template <int BN>
bool can_implement_small_mma(const Problem& p) {
  const Problem q = views::row_major_c(p);
  constexpr std::int64_t kMaxLd = std::int64_t{1} << 24;
  return q.a.ld < kMaxLd && q.b.ld < kMaxLd && views::dims_fit_int(q, 2 * BK) &&
         views::linear_tile_grid_fits(q, BM, BN);
}

template <class Op, class CT, int BN>
runtime::SmemKernel kernel_for_layouts(const Problem& q) {
  return views::dispatch_layouts(q, [](auto a_k, auto b_k) {
    static std::atomic<std::uint64_t> opted_in{0};
    return runtime::SmemKernel{
        kernel_address(&small_mma_kernel<Op, CT, BN, decltype(a_k)::value, decltype(b_k)::value>),
        &opted_in};
  });
}

// The instantiation for a row-major-C problem's types (16-bit A/B) and layouts.
template <int BN>
runtime::SmemKernel kernel_for(const Problem& q) {
  return mma_sync::with_16bit_op(q.types(), [&](auto op, auto ct) {
    return kernel_for_layouts<typename decltype(op)::type, typename decltype(ct)::type, BN>(q);
  });
}

template <int BN>
const void* device_function_small_mma(const Problem& p) {
  return kernel_for<BN>(views::row_major_c(p)).fn;
}

template <int BN>
cudaError_t launch_small_mma(const Problem& p, cudaStream_t stream) {
  const Problem q = views::row_major_c(p);
  const runtime::SmemKernel k = kernel_for<BN>(q);
  if (const cudaError_t e = runtime::opt_in_smem(k.fn, Tile<BN>::kSmemBytes, *k.opted_in);
      e != cudaSuccess) {
    return e;
  }
  SmallMmaArgs g{};
  static_cast<StridedProblem&>(g) = strided_problem(q);
  const std::int64_t tiles_n = ceil_div(q.n, std::int64_t{BN});
  const std::int64_t tiles = ceil_div(q.m, std::int64_t{BM}) * tiles_n;
  g.tiles_n = static_cast<int>(tiles_n);
  g.a_pairs = views::aligned(q.a, 4);
  g.b_pairs = views::aligned(q.b, 4);
  g.c_pairs = views::aligned(q.c, 2 * dtype_bytes(q.c.dtype));
  const stream::Split sp =
      stream::short_k(q.k, BK)
          ? stream::whole_k(q.k, BK)
          : stream::plan_split(tiles, q.k, BK,
                               std::max<std::int64_t>(BK, ceil_div(q.k, std::int64_t{kMaxSplits})),
                               kSplitBlocksPerSm);
  g.k_chunk = sp.k_chunk;
  if (const cudaError_t e = stream::partial_sums(sp, tiles * BM * BN, tiles, stream, &g.partial,
                                                 &g.counters);
      e != cudaSuccess) {
    return e;
  }
  void* args[] = {&g};
  const cudaError_t e =
      cudaLaunchKernel(k.fn, dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(sp.splits)),
                       dim3(kThreads), args, Tile<BN>::kSmemBytes, stream);
  return e != cudaSuccess ? e : cudaGetLastError();
}

template <int BN>
void register_instance(Registry& r) {
  KernelInfo k;
  k.name = "small_mma_" + std::to_string(BM) + "x" + std::to_string(BN);
  k.family = "small_mma";
  k.rung = 27;
  k.tile = TileConfig{};
  k.tile.bm = BM;
  k.tile.bn = BN;
  k.tile.bk = BK;
  k.tile.wm = kWarpM;
  k.tile.wn = Tile<BN>::kWarpN;
  k.tile.tm = 16;
  k.tile.tn = 8;
  k.tile.threads = kThreads;
  k.tile.stages = 2;
  k.tile.smem_bytes = Tile<BN>::kSmemBytes;
  k.desc.op_class = OpClass::kMmaSync;
  k.desc.types = mma_sync::sixteen_bit_types();
  k.desc.accumulator = DType::kF32;
  k.desc.align_a = 1;  // A and B read by elements or pairs, C written in pairs where it allows
  k.desc.align_b = 1;
  k.desc.align_c = 1;
  k.desc.min_cc = kCpAsyncMinCc;  // mma.sync and ldmatrix: sm_80
  k.desc.max_cc = 0;
  k.desc.split_k = true;
  k.summary = "16-bit A/B in one launch on mma.sync: 64 x " + std::to_string(BN) +
              " tiles, stages of 64 k read in place at any layout, pitch and base (element "
              "pairs as one word where base and pitch allow), K split over blocks and added in "
              "split order by the last block of each tile (deterministic), no copy, no tensor "
              "map, no second kernel";
  k.can_implement = can_implement_small_mma<BN>;
  k.launch = launch_small_mma<BN>;
  k.device_function = device_function_for(k.can_implement, device_function_small_mma<BN>);
  r.push_back(std::move(k));
}

}  // namespace

void register_small_mma(Registry& r) {
  register_instance<64>(r);
  register_instance<128>(r);
}

}  // namespace tilegemm::kernels
