// Rung 24: small products in one launch (`small_32x32x32`, `small_64x64x32`), in every element
// type, layout, alignment and pitch, on the CUDA cores.
//
// A product of a few million multiply-adds is done by the GPU in a few microseconds; what its
// call costs is the host's enqueue and the chain of memory round trips inside the kernel. The
// tensor-core paths pay for their speed there: an operand no tensor map describes is copied
// first (a second launch, tensor maps encoded on the host), a long K over few tiles is split into
// partial tiles that a further kernel adds; measured, those calls spent as much time on the host
// as cuBLAS's or more (docs/perf-notes.md, "Rung 24"). Idea: one launch, no workspace copy, no
// tensor map; every operand read in place element by element; K split over blocks so that many
// SMs take the round trips side by side; the partial sums added in the same launch.
//  - The problem is oriented to a row-major C (a column-major C computed as C^T = B^T A^T).
//  - Block tile BM x BN (32x32: 2x2 per thread; 64x64: 4x4), 256 threads, K in stages of BK.
//    A stage's elements go global -> registers -> shared memory as fp32: consecutive threads
//    read consecutive elements along each operand's contiguous dimension (coalesced at any
//    pitch or base), the next stage's loads in flight while the current one is multiplied
//    (two shared buffers, one barrier per stage).
//  - K of more than four stages split over blocks (grid y) until about two blocks per SM are
//    busy, bounded so that the last block's sum stays short (at most kMaxLastSum partial sums
//    per thread). Where a tile's splits fit one thread-block cluster (cut to its size where they
//    are at most kClusterLengthening times as many) and the grid's clusters are all resident at
//    once, they are that cluster: each leaves its partial sums in shared memory and the cluster
//    adds them in split order (cluster_split.cuh). Elsewhere each split writes its partial sums
//    into the stream workspace; the last block of a tile to arrive (stream::last_split) adds them
//    in split order. Either way deterministic, one launch.
//  - fp32 accumulation; tf32 problems are computed in fp32 (more precise than asked, as rungs
//    17-21).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "cluster_split.cuh"
#include "common.cuh"
#include "families.hpp"
#include "stream_common.cuh"
#include "tensor_common.cuh"

namespace tilegemm::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 2;   // the split target: blocks per SM over the whole grid
constexpr int kPad = 4;           // floats past each stage line (keeps 16-byte reads aligned)
// The most partial sums a thread of the last block to arrive adds.
constexpr std::int64_t kMaxLastSum = 64;
// A split of up to this many times a cluster's largest size is cut to one cluster, each split
// that much longer (docs/perf-notes.md, "Split K in a cluster").
constexpr int kClusterLengthening = 4;

struct SmallArgs : StridedProblem {
  int tiles_n;
  int k_chunk;         // K per split, a multiple of the stage's K
  float* partial;      // splits x m x n partial sums (splits > 1)
  unsigned* counters;  // an arrival counter per tile (splits > 1)
  int clustered;       // the splits of a tile are one cluster (cluster_split.cuh)
};

// One element's storage bits, loaded through the read-only path, and their fp32 value: a stage's
// loads are kept as bits until they are stored to shared memory, so that nothing waits for them
// before the stage in flight is multiplied (converting at the load made every load wait at once).
// 16-bit types: the bits as an unsigned short, converted by OutC; fp32: the value itself.
template <class E>
struct Raw {
  using T = unsigned short;
  __device__ __forceinline__ static T load(const E* p) {
    return __ldg(reinterpret_cast<const unsigned short*>(p));
  }
  __device__ __forceinline__ static float value(T v) { return value_of_bits<E>(v); }
};
template <>
struct Raw<float> {
  using T = float;
  __device__ __forceinline__ static T load(const float* p) { return __ldg(p); }
  __device__ __forceinline__ static float value(T v) { return v; }
};

// Thread t of the block copies element (line0 + j * kStep, pos) of a stage's X x BK operand tile
// for j < kLoads, where a line is a row of A (column of B) when the operand is
// K-contiguous (pos along K) and a k otherwise (pos along M or N): consecutive threads take
// consecutive elements of memory. X is the tile's M (N) extent.
template <int X, int BK, bool K_CONTIGUOUS>
struct StageCopy {
  static constexpr int kLineElems = K_CONTIGUOUS ? BK : X;
  static_assert(kThreads % kLineElems == 0, "a thread keeps one position along its lines");
  static constexpr int kStep = kThreads / kLineElems;  // lines a pass covers
  static constexpr int kLoads = X * BK / kThreads;
  static_assert(X * BK % kThreads == 0, "the tile's elements split evenly");
  int line0, pos;
  __device__ __forceinline__ explicit StageCopy(int tid)
      : line0(tid / kLineElems), pos(tid % kLineElems) {}
  // x and k of load j, relative to the tile's corner.
  __device__ __forceinline__ int x(int j) const { return K_CONTIGUOUS ? line0 + j * kStep : pos; }
  __device__ __forceinline__ int k(int j) const { return K_CONTIGUOUS ? pos : line0 + j * kStep; }
};

// A thread's 2 or 4 consecutive values of a stage line (16-byte aligned): one vector load.
template <int T>
__device__ __forceinline__ void read_line(const float* p, float (&v)[T]) {
  static_assert(T == 2 || T == 4, "2 or 4 values");
  if constexpr (T == 4) {
    const float4 f = *reinterpret_cast<const float4*>(p);
    v[0] = f.x, v[1] = f.y, v[2] = f.z, v[3] = f.w;
  } else {
    const float2 f = *reinterpret_cast<const float2*>(p);
    v[0] = f.x, v[1] = f.y;
  }
}

/// C = alpha * A B + beta * C for block tile blockIdx.x over split blockIdx.y of K.
/// @tparam E, CT  the A/B and C storage types
/// @tparam BM, BN block tile; each thread keeps (BM / 16) x (BN / 16) sums
/// @tparam BK     K of a shared-memory stage
/// @tparam A_K    A is K-contiguous (row-major); else M-contiguous
/// @tparam B_K    B is K-contiguous (column-major); else N-contiguous
template <class E, class CT, int BM, int BN, int BK, bool A_K, bool B_K>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm) small_kernel(const SmallArgs g) {
  constexpr int TM = BM / 16, TN = BN / 16;
  static_assert(TM * TN * 256 == BM * BN && (TM == 2 || TM == 4) && (TN == 2 || TN == 4),
                "16 x 16 threads of 2 or 4 sums a side");
  using CopyA = StageCopy<BM, BK, A_K>;
  using CopyB = StageCopy<BN, BK, B_K>;
  constexpr int kLA = BM + kPad, kLB = BN + kPad;  // stage line lengths (one line per k)
  __shared__ __align__(16) float as[2][BK * kLA];
  __shared__ __align__(16) float bs[2][BK * kLB];

  const int tid = static_cast<int>(threadIdx.x);
  const int tile = static_cast<int>(blockIdx.x);
  const int m0 = (tile / g.tiles_n) * BM;
  const int n0 = (tile % g.tiles_n) * BN;
  const int k_begin = static_cast<int>(blockIdx.y) * g.k_chunk;
  const int k_end = static_cast<int>(
      min(static_cast<std::int64_t>(g.k), static_cast<std::int64_t>(k_begin) + g.k_chunk));

  const CopyA ca(tid);
  const CopyB cb(tid);
  const E* const a = static_cast<const E*>(g.a);
  const E* const b = static_cast<const E*>(g.b);
  // The next stage's elements.
  using R = typename Raw<E>::T;
  R ra[CopyA::kLoads], rb[CopyB::kLoads];
  // Stage ks's elements into registers, zero (all bits clear) outside the matrix and past this
  // split's K.
  auto load = [&](int ks) {
#pragma unroll
    for (int j = 0; j < CopyA::kLoads; ++j) {
      const int row = m0 + ca.x(j);
      const int kk = ks + ca.k(j);
      ra[j] = row < g.m && kk < k_end ? Raw<E>::load(a + row * g.a_m + kk * g.a_k) : R(0);
    }
#pragma unroll
    for (int j = 0; j < CopyB::kLoads; ++j) {
      const int col = n0 + cb.x(j);
      const int kk = ks + cb.k(j);
      rb[j] = col < g.n && kk < k_end ? Raw<E>::load(b + kk * g.b_k + col * g.b_n) : R(0);
    }
  };

  const int ty = tid / 16, tx = tid % 16;  // rows ty TM .. + TM - 1, columns tx TN .. + TN - 1
  float acc[TM][TN] = {};
  int buf = 0;
  if (k_begin < k_end) load(k_begin);
  for (int ks = k_begin; ks < k_end; ks += BK) {
    // Stage lines are one k each: line k holds the tile's BM values of A (BN of B) at that k.
#pragma unroll
    for (int j = 0; j < CopyA::kLoads; ++j) {
      as[buf][ca.k(j) * kLA + ca.x(j)] = Raw<E>::value(ra[j]);
    }
#pragma unroll
    for (int j = 0; j < CopyB::kLoads; ++j) {
      bs[buf][cb.k(j) * kLB + cb.x(j)] = Raw<E>::value(rb[j]);
    }
    __syncthreads();  // the stage is written; with two buffers, one barrier per stage suffices
    if (ks + BK < k_end) load(ks + BK);  // in flight while this stage is multiplied
    const float* const pa = as[buf] + ty * TM;
    const float* const pb = bs[buf] + tx * TN;
#pragma unroll 8
    for (int kk = 0; kk < BK; ++kk) {
      float av[TM], bv[TN];
      read_line(pa + kk * kLA, av);
      read_line(pb + kk * kLB, bv);
#pragma unroll
      for (int i = 0; i < TM; ++i) {
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
      }
    }
    buf ^= 1;
  }

  if (g.clustered) {
    // The tile's partial sums (its rows and columns inside C, packed) in the stage buffers, free
    // once every thread is past the last stage, added over the cluster's splits.
    static_assert(2 * BK * kLA >= BM * BN, "a tile of sums fits in A's stage buffers");
    float* const mine = &as[0][0];
    const int rows = min(BM, g.m - m0);
    const int cols = min(BN, g.n - n0);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < TM; ++i) {
#pragma unroll
      for (int j = 0; j < TN; ++j) {
        const int r = ty * TM + i, c = tx * TN + j;
        if (r < rows && c < cols) mine[r * cols + c] = acc[i][j];
      }
    }
    cluster::sum_over_cluster(mine, rows * cols, [&](int e, float s) {
      store_c_one(static_cast<CT*>(g.c) + (m0 + e / cols) * g.ldc + n0 + e % cols, s, g.alpha,
                  g.beta);
    });
    return;
  }
  // One split: C directly. Several: this split's partial sums, then the last block of the tile
  // to arrive adds every split's in split order and writes C.
  const bool split = gridDim.y > 1;
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = m0 + ty * TM + i;
    if (row >= g.m) continue;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int col = n0 + tx * TN + j;
      if (col >= g.n) continue;
      if (split) {
        g.partial[(static_cast<std::int64_t>(blockIdx.y) * g.m + row) * g.n + col] = acc[i][j];
      } else {
        store_c_one(static_cast<CT*>(g.c) + row * g.ldc + col, acc[i][j], g.alpha, g.beta);
      }
    }
  }
  if (!split || !stream::last_split(g.counters)) return;
  // The last block: output e = tid + kThreads j of the tile (j < kOuts) adds its gridDim.y partial
  // sums in split order. kGroup outputs at a time, kBatch splits of each in flight together (a
  // loop over the splits of one output waits a round trip per partial sum).
  constexpr int kOuts = BM * BN / kThreads;
  constexpr int kGroup = kOuts < 4 ? kOuts : 4;
  constexpr int kBatch = (BM * BN <= 1024 ? 32 : 16) / kGroup;
  const int rows = min(BM, g.m - m0);
  const int cols = min(BN, g.n - n0);
  const std::int64_t total = static_cast<std::int64_t>(g.m) * g.n;
  const int splits = static_cast<int>(gridDim.y);
#pragma unroll 1
  for (int j0 = 0; j0 < kOuts; j0 += kGroup) {
    float sum[kGroup];
    const float* src[kGroup];
#pragma unroll
    for (int j = 0; j < kGroup; ++j) {
      const int e = tid + kThreads * (j0 + j);
      sum[j] = 0.0f;
      // Outputs past the tile's edge read the tile's first output instead (never stored).
      const int row = m0 + (e < rows * cols ? e / cols : 0);
      const int col = n0 + (e < rows * cols ? e % cols : 0);
      src[j] = g.partial + static_cast<std::int64_t>(row) * g.n + col;
    }
    for (int y0 = 0; y0 < splits; y0 += kBatch) {
      float v[kGroup][kBatch];
#pragma unroll
      for (int j = 0; j < kGroup; ++j) {
#pragma unroll
        for (int u = 0; u < kBatch; ++u) {
          v[j][u] = y0 + u < splits ? __ldcg(src[j] + (y0 + u) * total) : 0.0f;
        }
      }
#pragma unroll
      for (int j = 0; j < kGroup; ++j) {
#pragma unroll
        for (int u = 0; u < kBatch; ++u) {
          if (y0 + u < splits) sum[j] += v[j][u];
        }
      }
    }
#pragma unroll
    for (int j = 0; j < kGroup; ++j) {
      const int e = tid + kThreads * (j0 + j);
      if (e >= rows * cols) continue;
      store_c_one(static_cast<CT*>(g.c) + (m0 + e / cols) * g.ldc + n0 + e % cols, sum[j],
                  g.alpha, g.beta);
    }
  }
}

// K per split: none up to stream::kUnsplitStages stages; past that stream::plan_split's (about
// kBlocksPerSm blocks per SM over the tiles, whole stages of bk), with splits of at least
// ceil(k / cap) so that the last block adds at most kMaxLastSum partial sums per thread.
stream::Split plan_split(std::int64_t tiles, std::int64_t k, int bk, std::int64_t tile_outputs) {
  if (stream::short_k(k, bk)) return stream::whole_k(k, bk);
  const std::int64_t cap =
      std::max<std::int64_t>(1, kMaxLastSum / views::ceil_div(tile_outputs, kThreads));
  return stream::plan_split(tiles, k, bk, std::max<std::int64_t>(bk, views::ceil_div(k, cap)),
                            kBlocksPerSm);
}

// The kernel's indices are int (offsets are formed in 64 bits): m, n and k with two stages to
// spare, and the number of tiles.
template <int BM, int BN, int BK>
bool can_implement_small(const Problem& p) {
  const Problem q = views::row_major_c(p);
  return views::dims_fit_int(q, 2 * BK) && views::linear_tile_grid_fits(q, BM, BN);
}

using KernelFn = void (*)(SmallArgs);

// The instantiation for a row-major-C problem's layouts.
template <class E, class CT, int BM, int BN, int BK>
KernelFn kernel_for(const Problem& q) {
  return views::dispatch_layouts(q, [](auto a_k, auto b_k) -> KernelFn {
    return &small_kernel<E, CT, BM, BN, BK, decltype(a_k)::value, decltype(b_k)::value>;
  });
}

template <class E, class CT, int BM, int BN, int BK>
cudaError_t launch_typed(const Problem& p, cudaStream_t stream) {
  const Problem q = views::row_major_c(p);
  SmallArgs g{};
  static_cast<StridedProblem&>(g) = strided_problem(q);
  const std::int64_t tiles_m = views::ceil_div(q.m, BM);
  const std::int64_t tiles_n = views::ceil_div(q.n, BN);
  g.tiles_n = static_cast<int>(tiles_n);
  const std::int64_t tiles = tiles_m * tiles_n;
  stream::Split sp =
      plan_split(tiles, q.k, BK, std::min<std::int64_t>(q.m, BM) * std::min<std::int64_t>(q.n, BN));
  const KernelFn kernel = kernel_for<E, CT, BM, BN, BK>(q);
  // One per instance (A and B K-contiguous or not).
  static cluster::ClusterFit fit[2][2];
  const bool clustered = cluster::plan(
      sp, tiles, q.k, BK, BK, kClusterLengthening, reinterpret_cast<const void*>(kernel), kThreads,
      fit[views::a_k_contiguous(q) ? 1 : 0][views::b_k_contiguous(q) ? 1 : 0]);
  g.clustered = clustered ? 1 : 0;
  g.k_chunk = sp.k_chunk;
  if (!clustered) {
    if (cudaError_t err =
            stream::partial_sums(sp, q.m * q.n, tiles, stream, &g.partial, &g.counters);
        err != cudaSuccess) {
      return err;
    }
  }
  return cluster::launch(kernel,
                         dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(sp.splits)),
                         kThreads, stream, clustered, g);
}

template <int BM, int BN, int BK>
cudaError_t launch_small(const Problem& p, cudaStream_t stream) {
  return with_types(p.types(), [&](auto e, auto ct) {
    return launch_typed<typename decltype(e)::type, typename decltype(ct)::type, BM, BN, BK>(
        p, stream);
  });
}

template <int BM, int BN, int BK>
const void* device_function_small(const Problem& p) {
  return with_types(p.types(), [&](auto e, auto ct) {
    return kernel_address(kernel_for<typename decltype(e)::type, typename decltype(ct)::type, BM,
                                     BN, BK>(views::row_major_c(p)));
  });
}

template <int BM, int BN, int BK>
void register_one(Registry& r, const char* why) {
  KernelInfo k;
  k.name = "small_" + std::to_string(BM) + "x" + std::to_string(BN) + "x" + std::to_string(BK);
  k.family = "small";
  k.rung = 24;
  k.tile = TileConfig{};
  k.tile.bm = BM;
  k.tile.bn = BN;
  k.tile.bk = BK;
  k.tile.tm = BM / 16;
  k.tile.tn = BN / 16;
  k.tile.threads = kThreads;
  k.tile.stages = 2;
  k.tile.smem_bytes =
      static_cast<int>(sizeof(float)) * 2 * BK * (BM + kPad + BN + kPad);
  k.desc = simt_f32_desc(1, 1, 1, kMinBuiltCc);  // element loads: any alignment and pitch
  k.desc.types = every_type_combination();
  k.desc.split_k = true;
  k.summary = std::string("small products in one launch: ") + why +
              "; every operand read in place element by element (any type, layout, alignment "
              "and pitch), K split over blocks and added in split order, through shared memory "
              "where a tile's splits are one thread-block cluster, else by the last block of "
              "each tile (deterministic), no copy, no tensor map, no second kernel";
  k.can_implement = can_implement_small<BM, BN, BK>;
  k.launch = launch_small<BM, BN, BK>;
  k.device_function = device_function_for(k.can_implement, device_function_small<BM, BN, BK>);
  r.push_back(std::move(k));
}

}  // namespace

void register_small(Registry& r) {
  register_one<32, 32, 32>(r, "32x32 tiles, 2x2 sums per thread, stages of 32 k");
  register_one<64, 64, 32>(r, "64x64 tiles, 4x4 sums per thread, stages of 32 k");
}

}  // namespace tilegemm::kernels
