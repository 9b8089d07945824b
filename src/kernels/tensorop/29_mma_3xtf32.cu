// Rung 29: narrow fp32 products on mma.sync as three tf32 products, at any pitch and alignment
// (`mma_3xtf32_128x32`, `mma_3xtf32_64x64`).
//
// The class: fp32 with one side of C narrow (17..64 columns or rows) against a wide side and a
// long K, the wide operand at any pitch. Its floor is one read of the wide operand. Rung 21 (the
// CUDA cores' narrow kernel) streams it but is bound by its FMA issue past 16 columns; rung 22's
// in-kernel split has 64-row wgmma tiles whose N is the narrow side rounded up to 64 or 128, and a
// k-tile of element copies, splits and three wgmma with waits between them that ran far slower
// than the bytes (docs/perf-notes.md, "Rung 29").
// Idea: the wide side as mma.sync's M, the narrow side as its N (m16n8k8 tiles cover 8 columns at
// a time), fp32 split into tf32 parts in registers on their way into the tensor cores:
//  - The product is oriented so that the narrow side is N': as it is where C has at least as
//    many rows as columns, else its transpose C^T = B^T A^T, every operand through its strides
//    in either layout (the epilogue stores pairs where C' is contiguous along N', single
//    elements where it is contiguous along M').
//  - Block tile BM x BN (128 x 32: four warps of 32 rows; 64 x 64: four warps of 16 rows), every
//    warp over all BN columns. K in stages of 32 through a four-deep cp.async pipeline: 16-byte
//    copies where the operand's base and pitch allow, else 4-byte element copies (any pitch and
//    element-aligned base), zero-filled past the matrix. Each stage holds an operand in its own
//    orientation, lines padded (4 floats along K, 8 across) so that the fragments' 32-bit reads
//    and the copies' writes fall in distinct banks.
//  - Each fragment value x is split as big = tf32(x), small = tf32(x - big) (integer rounding,
//    the magnitude folded to take the guarded split for Inf, NaN and values near FLT_MAX, as rung
//    22's in-kernel split does), and a b ~ small(a) big(b) + big(a) small(b) + big(a) big(b), the
//    small terms first. The tensor cores' sum of a stage (96 products) is added into an fp32
//    accumulator with rounding adds, so the error stays fp32-class over any K (rung 22's
//    promotion: its tensor-core sums truncate). Eight warps with B split once a stage in shared
//    memory ran slower (docs/perf-notes.md, "Rung 29").
//  - K split over blocks (grid y) to fill one wave of resident blocks; each split writes its tile
//    of partial sums in C's orientation and the last block of a tile to arrive adds them in split
//    order (deterministic) and writes C; one launch, no copy, no tensor map.
#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <string>
#include <utility>

#include "../async_copy.cuh"
#include "../common.cuh"
#include "../families.hpp"
#include "../stream_common.cuh"
#include "../tensor_common.cuh"
#include "mma_sync.cuh"

namespace tilegemm::kernels {
namespace {

constexpr int kThreads = 128;
constexpr int kWarps = kThreads / 32;
constexpr int BK = 32;                // K per stage: four m16n8k8 steps
constexpr int kStages = 4;            // three stages in flight while one is read
constexpr int kSplitBlocksPerSm = 2;  // resident blocks per SM (shared memory: two of up to 92 KiB)

// One operand's X x BK part of a stage: K_CONTIG (A row-major, B column-major as the kernel sees
// them): X lines of BK floats; else BK lines of X floats. Lines are padded by 4 and 8 floats: the
// fragment reads (lanes g = lane / 4 along X, t = lane % 4 along K) fall in 32 distinct banks,
// 4 g + t with lines of BK + 4 and 8 t + g with lines of X + 8.
template <int X, bool K_CONTIG>
struct Operand {
  static constexpr int kLineElems = K_CONTIG ? BK : X;
  static constexpr int kLines = K_CONTIG ? X : BK;
  static constexpr int kLine = kLineElems + (K_CONTIG ? 4 : 8);
  static constexpr int kBytes = kLines * kLine * 4;
  static_assert(kThreads % kLineElems == 0 && kLines % (kThreads / kLineElems) == 0 &&
                    kLines % (kThreads / (kLineElems / 4)) == 0,
                "a thread keeps one position along its lines, every pass a whole set of lines");
  // Floats from the stage's origin to element (x, k).
  __device__ __forceinline__ static constexpr int at(int x, int k) {
    return K_CONTIG ? x * kLine + k : k * kLine + x;
  }

  // Copies the stage whose corner is src (element (0, 0) of the lines; consecutive positions of
  // a line are consecutive in memory, lines `ld` apart) into shared address `dst`: positions at
  // or past `pos_left` and lines at or past `lines_left` are written as zero. vec: base and pitch
  // allow 16-byte copies.
  __device__ __forceinline__ static void copy(std::uint32_t dst, const float* src, std::int64_t ld,
                                              int lines_left, int pos_left, bool vec, int tid) {
    if (vec) {
      constexpr int kChunks = kLineElems / 4;
      constexpr int kStep = kThreads / kChunks;  // lines apart
      const int pos = 4 * (tid % kChunks);
      const int line0 = tid / kChunks;
      const int bytes = 4 * min(max(pos_left - pos, 0), 4);
      const float* g = src + line0 * ld + pos;
      mma_sync::opaque(g);
#pragma unroll
      for (int i = 0; i < kLines / kStep; ++i) {
        const int line = line0 + kStep * i;
        const int n = line < lines_left ? bytes : 0;
        cp_async_16_zfill(dst + 4 * (line * kLine + pos), n > 0 ? g : src, n);
        g += kStep * ld;
        mma_sync::opaque(g);
      }
    } else {
      constexpr int kStep = kThreads / kLineElems;
      const int pos = tid % kLineElems;
      const int line0 = tid / kLineElems;
      const bool pos_in = pos < pos_left;
      const float* g = src + line0 * ld + pos;
      mma_sync::opaque(g);
#pragma unroll
      for (int i = 0; i < kLines / kStep; ++i) {
        const int line = line0 + kStep * i;
        const bool in = pos_in && line < lines_left;
        cp_async_4_zfill(dst + 4 * (line * kLine + pos), in ? g : src, in ? 4 : 0);
        g += kStep * ld;
        mma_sync::opaque(g);
      }
    }
  }
};

// The kernel's arguments: the oriented product C' = A' B' (M' >= N' unless the caller names the
// kernel on a wider N) by its element strides (GemmArgs); K per split, and for a split K the
// partial sums (tiles x splits x BM x BN floats, tile-major) and a counter per tile.
struct NarrowArgs : GemmArgs {
  int tiles_n;
  int k_chunk;
  int a_vec, b_vec;  // 16-byte copies: base and pitch multiples of 16 bytes
  int c_pairs;       // C' row-major (c_cs == 1) with base and pitch allowing 2-float accesses
  float* partial;
  unsigned* counters;
};

/// C' = alpha A' B' + beta C' for block tile blockIdx.x over split blockIdx.y of K.
/// @tparam BM, BN  block tile (four warps of BM / 4 rows, each over all BN columns)
/// @tparam A_K     A' is K-contiguous (a_cs == 1); else M'-contiguous (a_rs == 1)
/// @tparam B_K     B' is K-contiguous (b_rs == 1); else N'-contiguous (b_cs == 1)
template <int BM, int BN, bool A_K, bool B_K>
__global__ void __launch_bounds__(kThreads, kSplitBlocksPerSm)
    mma_3xtf32_kernel(const NarrowArgs g) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  __trap();  // mma.sync m16n8k8 tf32 and cp.async need sm_80 (min_cc is 80)
#else
  using LA = Operand<BM, A_K>;
  using LB = Operand<BN, B_K>;
  constexpr int kStageBytes = LA::kBytes + LB::kBytes;
  constexpr int WM = BM / kWarps;
  constexpr int MT = WM / 16;  // m16 tiles per warp
  constexpr int NT = BN / 8;   // n8 tiles per warp
  static_assert(WM % 16 == 0 && BN % 8 == 0, "whole mma tiles");

  extern __shared__ __align__(16) unsigned char smem[];
  const std::uint32_t smem_base = smem_addr(smem);
  const float* const sf = reinterpret_cast<const float*>(smem);
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / 32;
  const int lane = tid % 32;
  const int gq = lane / 4;  // the fragment's row (A) or column (B) within an 8
  const int tq = lane % 4;  // its k within a 4

  const int tile = static_cast<int>(blockIdx.x);
  const int m0 = (tile / g.tiles_n) * BM;
  const int n0 = (tile % g.tiles_n) * BN;
  const int rows_left = g.m - m0;
  const int cols_left = g.n - n0;
  const int k_begin = static_cast<int>(blockIdx.y) * g.k_chunk;
  const int k_end = min(g.k, k_begin + g.k_chunk);
  const int k_tiles = k_begin < k_end ? (k_end - k_begin - 1) / BK + 1 : 0;

  // Each operand's corner of stage 0; a stage's K later, BK strides further.
  const float* const a0 = g.a + m0 * g.a_rs + k_begin * g.a_cs;
  const float* const b0 = g.b + n0 * g.b_cs + k_begin * g.b_rs;
  const std::int64_t lda = A_K ? g.a_rs : g.a_cs;  // between lines of the stage
  const std::int64_t ldb = B_K ? g.b_cs : g.b_rs;
  const bool a_vec = g.a_vec != 0;
  const bool b_vec = g.b_vec != 0;
  auto load = [&](int t, int stage) {
    const int k_left = k_end - k_begin - t * BK;
    const std::uint32_t sa = smem_base + stage * kStageBytes;
    LA::copy(sa, a0 + static_cast<std::int64_t>(t) * BK * g.a_cs, lda, A_K ? rows_left : k_left,
             A_K ? k_left : rows_left, a_vec, tid);
    LB::copy(sa + LA::kBytes, b0 + static_cast<std::int64_t>(t) * BK * g.b_rs, ldb,
             B_K ? cols_left : k_left, B_K ? k_left : cols_left, b_vec, tid);
  };

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < k_tiles) load(s, s);
    cp_async_commit();
  }

  float acc[MT][NT][4] = {};  // rounding fp32 sums of the stages
  const int wm0 = warp * WM;
  for (int t = 0; t < k_tiles; ++t) {
    cp_async_wait<kStages - 2>();
    __syncthreads();  // stage t has landed everywhere; every warp is done with stage t - 1
    if (t + kStages - 1 < k_tiles) load(t + kStages - 1, (t + kStages - 1) % kStages);
    cp_async_commit();

    const float* const sa = sf + (t % kStages) * (kStageBytes / 4);
    const float* const sb = sa + LA::kBytes / 4;
    float part[MT][NT][4] = {};  // the tensor cores' sum of this stage
#pragma unroll
    for (int ks = 0; ks < BK / 8; ++ks) {
      const int k = 8 * ks + tq;
      // m16n8k8 tf32 fragments: a = A(g, t), A(g + 8, t), A(g, t + 4), A(g + 8, t + 4);
      // b = B(t, g), B(t + 4, g).
      std::uint32_t a_raw[MT][4], b_raw[NT][2];
#pragma unroll
      for (int i = 0; i < MT; ++i) {
        const int row = wm0 + 16 * i + gq;
        a_raw[i][0] = __float_as_uint(sa[LA::at(row, k)]);
        a_raw[i][1] = __float_as_uint(sa[LA::at(row + 8, k)]);
        a_raw[i][2] = __float_as_uint(sa[LA::at(row, k + 4)]);
        a_raw[i][3] = __float_as_uint(sa[LA::at(row + 8, k + 4)]);
      }
#pragma unroll
      for (int j = 0; j < NT; ++j) {
        b_raw[j][0] = __float_as_uint(sb[LB::at(8 * j + gq, k)]);
        b_raw[j][1] = __float_as_uint(sb[LB::at(8 * j + gq, k + 4)]);
      }
      mma_sync::mma_3xtf32_step(part, a_raw, b_raw);
    }
#pragma unroll
    for (int i = 0; i < MT; ++i) {
#pragma unroll
      for (int j = 0; j < NT; ++j) {
#pragma unroll
        for (int r = 0; r < 4; ++r) acc[i][j][r] += part[i][j][r];
      }
    }
  }
  cp_async_wait<0>();  // only empty groups can remain; no copy may outlive the block

  // C'(r, c) of the tile, r and c block-relative.
  const bool row_major = g.c_cs == 1;
  float* const c_tile = g.c + m0 * g.c_rs + n0 * g.c_cs;
  auto store_one = [&](int r, int c, float v) {
    if (r < rows_left && c < cols_left) {
      store_c_one(c_tile + r * g.c_rs + c * g.c_cs, v, g.alpha, g.beta);
    }
  };
  // Each accumulator pair: row r, columns c and c + 1 (mma.sync's m16n8 layout).
  auto for_each_pair = [&](auto&& f) {
#pragma unroll
    for (int i = 0; i < MT; ++i) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
#pragma unroll
        for (int j = 0; j < NT; ++j) {
          f(wm0 + 16 * i + 8 * h + gq, 8 * j + 2 * tq, acc[i][j][2 * h], acc[i][j][2 * h + 1]);
        }
      }
    }
  };
  if (gridDim.y == 1) {
    const bool vec2 = g.c_pairs != 0;
    for_each_pair([&](int r, int c, float x, float y) {
      if (row_major) {
        if (r < rows_left) {
          store_c_pair(c_tile + r * g.c_rs, c, cols_left, x, y, g.alpha, g.beta, vec2);
        }
      } else {
        store_one(r, c, x);
        store_one(r, c + 1, y);
      }
    });
    return;
  }

  // Split K: this split's tile of partial sums, laid out as C' is (row-major, or column-major
  // where C' is contiguous along M'), then the last block of the tile adds every split's in split
  // order and writes C'.
  constexpr int kTileOut = BM * BN;
  const int splits = static_cast<int>(gridDim.y);
  float* const tile_partial = g.partial + static_cast<std::int64_t>(tile) * splits * kTileOut;
  float* const mine = tile_partial + static_cast<std::int64_t>(blockIdx.y) * kTileOut;
  for_each_pair([&](int r, int c, float x, float y) {
    if (row_major) {
      *reinterpret_cast<float2*>(mine + r * BN + c) = make_float2(x, y);
    } else {
      mine[c * BM + r] = x;
      mine[(c + 1) * BM + r] = y;
    }
  });
  if (!stream::last_split(g.counters)) return;
  constexpr int kQuads = kTileOut / (4 * kThreads);
  float4 sum[kQuads];
  stream::sum_tile_splits<kTileOut, kThreads, 1>(tile_partial, splits, tid, sum);
#pragma unroll
  for (int q = 0; q < kQuads; ++q) {
    const int e = 4 * (tid + kThreads * q);
    if (row_major) {
      const int r = e / BN;
      if (r >= rows_left) continue;
      float* const c_row = c_tile + r * g.c_rs;
      const bool vec2 = g.c_pairs != 0;
      store_c_pair(c_row, e % BN, cols_left, sum[q].x, sum[q].y, g.alpha, g.beta, vec2);
      store_c_pair(c_row, e % BN + 2, cols_left, sum[q].z, sum[q].w, g.alpha, g.beta, vec2);
    } else {
      const int c = e / BM;
      const int r = e % BM;
      store_one(r, c, sum[q].x);
      store_one(r + 1, c, sum[q].y);
      store_one(r + 2, c, sum[q].z);
      store_one(r + 3, c, sum[q].w);
    }
  }
#endif
}

template <int BM, int BN>
constexpr int smem_bytes(bool a_k, bool b_k) {
  const int a = a_k ? Operand<BM, true>::kBytes : Operand<BM, false>::kBytes;
  const int b = b_k ? Operand<BN, true>::kBytes : Operand<BN, false>::kBytes;
  return kStages * (a + b);
}

// The product as the kernel runs it, the narrow side as N' (views::narrow_as_n: C^T = B^T A^T
// where C has fewer rows than columns, B^T then the wide operand A').
NarrowArgs orient(const Problem& p) {
  const Problem q = views::narrow_as_n(p);
  NarrowArgs g{};
  static_cast<GemmArgs&>(g) = make_args(q);
  g.a_vec = views::aligned(q.a, 16);
  g.b_vec = views::aligned(q.b, 16);
  g.c_pairs = g.c_cs == 1 && views::aligned(q.c, 2 * sizeof(float));
  return g;
}
// A' (B') K-contiguous: the kernel's A_K (B_K).
bool a_k_contiguous(const NarrowArgs& g) {
  return g.a_cs == 1;
}
bool b_k_contiguous(const NarrowArgs& g) {
  return g.b_rs == 1;
}

// fp32 A, B and C with the narrow side at most twice the tile's columns (the kernel's class; a
// wider C runs, but other families serve it); sizes and a 1-D grid of tiles under 2^31 (offsets
// are 64-bit).
template <int BM, int BN>
bool can_implement_narrow(const Problem& p) {
  if (p.types() != GemmTypes{DType::kF32, DType::kF32}) return false;
  if (!views::dims_fit_int(p, 2 * BM + BK)) return false;
  const NarrowArgs g = orient(p);
  return g.n <= 2 * BN && ceil_div(std::int64_t{g.m}, std::int64_t{BM}) *
                                  ceil_div(std::int64_t{g.n}, std::int64_t{BN}) <=
                              INT_MAX;
}

template <int BM, int BN>
runtime::SmemKernel kernel_for(const NarrowArgs& g) {
  return views::dispatch_layouts(a_k_contiguous(g), b_k_contiguous(g), [](auto a_k, auto b_k) {
    static std::atomic<std::uint64_t> opted_in{0};
    return runtime::SmemKernel{
        kernel_address(&mma_3xtf32_kernel<BM, BN, decltype(a_k)::value, decltype(b_k)::value>),
        &opted_in};
  });
}

template <int BM, int BN>
const void* device_function_narrow(const Problem& p) {
  return kernel_for<BM, BN>(orient(p)).fn;
}

template <int BM, int BN>
cudaError_t launch_narrow(const Problem& p, cudaStream_t stream) {
  NarrowArgs g = orient(p);
  const runtime::SmemKernel k = kernel_for<BM, BN>(g);
  const int smem = smem_bytes<BM, BN>(a_k_contiguous(g), b_k_contiguous(g));
  if (const cudaError_t e = runtime::opt_in_smem(k.fn, smem, *k.opted_in); e != cudaSuccess) {
    return e;
  }
  const std::int64_t tiles_n = ceil_div(std::int64_t{g.n}, std::int64_t{BN});
  const std::int64_t tiles = ceil_div(std::int64_t{g.m}, std::int64_t{BM}) * tiles_n;
  g.tiles_n = static_cast<int>(tiles_n);
  const stream::Split sp =
      stream::short_k(g.k, BK)
          ? stream::whole_k(g.k, BK)
          : stream::plan_split_wave(tiles, g.k, BK, stream::kUnsplitStages * BK, kSplitBlocksPerSm);
  g.k_chunk = sp.k_chunk;
  if (const cudaError_t e =
          stream::partial_sums(sp, tiles * BM * BN, tiles, stream, &g.partial, &g.counters);
      e != cudaSuccess) {
    return e;
  }
  void* args[] = {&g};
  const cudaError_t e =
      cudaLaunchKernel(k.fn, dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(sp.splits)),
                       dim3(kThreads), args, static_cast<std::size_t>(smem), stream);
  return e != cudaSuccess ? e : cudaGetLastError();
}

template <int BM, int BN>
void register_instance(Registry& r) {
  KernelInfo k;
  k.name = "mma_3xtf32_" + std::to_string(BM) + "x" + std::to_string(BN);
  k.family = "mma_3xtf32";
  k.rung = 29;
  k.tile = TileConfig{};
  k.tile.bm = BM;
  k.tile.bn = BN;
  k.tile.bk = BK;
  k.tile.wm = BM / kWarps;
  k.tile.wn = BN;
  k.tile.tm = 16;
  k.tile.tn = 8;
  k.tile.threads = kThreads;
  k.tile.stages = kStages;
  k.tile.smem_bytes = std::max({smem_bytes<BM, BN>(true, true), smem_bytes<BM, BN>(true, false),
                                smem_bytes<BM, BN>(false, true), smem_bytes<BM, BN>(false, false)});
  k.desc.op_class = OpClass::kMmaSync;
  k.desc.types = {GemmTypes{DType::kF32, DType::kF32}};
  k.desc.accumulator = DType::kF32;
  k.desc.align_a = 1;  // 16-byte copies where base and pitch allow, else element copies
  k.desc.align_b = 1;
  k.desc.align_c = 1;
  k.desc.min_cc = kCpAsyncMinCc;  // mma.sync m16n8k8 tf32 and cp.async: sm_80
  k.desc.max_cc = 0;
  k.desc.split_k = true;
  k.summary = "fp32 as three tf32 products on mma.sync for a narrow C (its narrow side up to " +
              std::to_string(2 * BN) + "): the wide side as the MMA's M, " + std::to_string(BM) +
              " x " + std::to_string(BN) +
              " tiles, a 4-stage cp.async pipeline of 16-byte or element copies (any pitch and "
              "base), fragments split into tf32 parts in registers, each stage's sum added into "
              "rounding fp32 accumulators; K split over blocks and added in split order by the "
              "last block of each tile (deterministic); one launch";
  k.can_implement = can_implement_narrow<BM, BN>;
  k.launch = launch_narrow<BM, BN>;
  k.device_function = device_function_for(k.can_implement, device_function_narrow<BM, BN>);
  r.push_back(std::move(k));
}

}  // namespace

void register_mma_3xtf32(Registry& r) {
  register_instance<128, 32>(r);
  register_instance<64, 64>(r);
}

}  // namespace tilegemm::kernels
