// Rung 21: narrow products (one side of C from 2 to 16 wide against a long other side or a long
// K), in every element type and any alignment, on the CUDA cores.
//
// With N (or M) of a few columns a GEMM is still, like rung 17's matrix-vector product, a
// stream of its one large operand: each element of A is used N times, 2 N FLOP per element read
// once. A tensor-core tile computes 64 or more columns of which all but N are zero, and an odd
// leading dimension costs rung 16 a copy of the whole operand first (docs/perf-notes.md, "Rung
// 21"). Idea: read A once at copy bandwidth, keep B's few columns on chip, and do the N FMAs per
// element on the CUDA cores (up to 8 columns in 16-bit types, 16 in fp32, the FMA rate keeps up
// with the stream).
//  - The narrow side is made N (an M-narrow problem is computed as its mirror, C^T = B^T A^T).
//  - K is walked in stages of 8192 / NC values: every block copies B's stage (any layout, element
//    by element, zero past K and past N) to shared memory as fp32 and then streams A against it.
//  - A row-major (K contiguous): a warp takes 4 rows at once, lanes along K (16-byte loads where
//    A's base and leading dimension allow, else coalesced element loads), B's stage read per lane
//    with 16-byte shared loads; the lanes' partial sums meet through warp shuffles.
//  - A column-major (M contiguous): a block owns 32 x 16 bytes of rows, a lane 16 bytes of them;
//    its 8 warps split the stage's K and add their sums in shared memory in a fixed order. B's
//    values are broadcast to the warp. Each lane keeps several columns' 16-byte pieces in flight
//    where A is aligned, else reads V coalesced elements a column (four columns at once in the
//    fp32 16-column kernel).
//  - Too few row blocks to fill the GPU: K is split over blocks, each writes its partial sums
//    into the stream workspace, and the block that completes a row block's last split adds them
//    in split order (deterministic) and applies alpha and beta, in the same launch
//    (stream::last_split), where that sum is short; a longer one (many splits of many outputs
//    per block) goes to a second kernel spread over the GPU.
//  - fp32 accumulation in every type; tf32 problems are computed in fp32 (more precise than
//    asked; the stream, not the math, sets the speed).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "../core/device_runtime.hpp"
#include "common.cuh"
#include "families.hpp"
#include "stream_common.cuh"
#include "tensor_common.cuh"

namespace tilegemm::kernels {
namespace {

using stream::Load;
using stream::load_stream;

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kRowsPerWarp = 4;  // row-major A: rows a warp streams at once (B's reads shared)
constexpr int kRowsPerBlock = kWarps * kRowsPerWarp;
// The most partial sums a thread of the last block to arrive adds (a split in one launch).
constexpr std::int64_t kMaxLastSum = 32;
constexpr int kStageFloats = 8192;  // B's stage: 32 KiB of fp32, NC columns x 8192 / NC of K
// Column-major A: 16-byte loads each lane has in flight (more where the sums take fewer
// registers).
template <int NC>
constexpr int kColUnroll = NC <= 4 ? 8 : 4;
// The element path's columns in flight (V loads each): 4 in the fp32 16-column kernel of element
// loads, where that was faster than one; one elsewhere: in 16-bit types four were slower (fewer
// blocks per SM, each load waiting longer) and in fp32 with fewer columns they moved nothing
// (docs/perf-notes.md, "Rung 21's element path"). The 16-byte kernel reads only a cut last row
// block by elements.
template <class E, int NC, bool VEC>
constexpr int kElemUnroll = !VEC && sizeof(E) == 4 && NC >= 16 ? 4 : 1;

struct NarrowArgs {
  int m, n, k;
  float alpha, beta;
  const void* a;
  std::int64_t lda;  // elements between rows (row-major A) or columns (column-major A)
  const void* b;
  std::int64_t b_k, b_col;  // element strides of B along K and along N
  void* c;
  std::int64_t c_row, c_col;  // element strides of C along M and along N
  int k_chunk;                // K per split (a multiple of 16 bytes of elements)
  float* partial;             // splits planes of m x n partial sums (splits > 1), ...
  std::int64_t plane;         // ... each m n rounded up to 4 floats (16-byte aligned planes)
  unsigned* counters;         // an arrival counter per row block (split in one launch), or null
};

// Where k of a row-major-A stage sits in its column's shared-memory row. A lane reads the V
// values of its 16-byte piece of A; with V = 8 (16-bit types) the row is split into halves of 4
// values each (k mod 8 < 4 in the first), so that both the lanes' 16-byte reads (a warp reads 512
// consecutive bytes of a half) and the element path's single reads (lane l, k = l + 32 i) hit 32
// different banks; the second half starts 16 floats further along for the latter.
template <int V, int KS>
__device__ __forceinline__ int stage_pos(int k) {
  if constexpr (V == 4) {
    return k;
  } else {
    return ((k % 8) / 4) * (KS / 2 + 16) + (k / 8) * 4 + k % 4;
  }
}

// B's values for k in [ks, ks + len) and the first n columns, as fp32, in the order the kernel
// reads them: per column (ROWS, stage_pos within a row of KP floats) or per k (NC consecutive
// floats). Nothing else of the stage is written: the kernels never multiply what lies past len,
// and the sums of columns from n up are dropped. Consecutive threads walk B's contiguous
// dimension, kStageBatch loads in flight per thread before their stores.
constexpr int kStageBatch = 8;
template <class E, int NC, int KS, int KP, bool ROWS>
__device__ __forceinline__ void stage_b(const NarrowArgs& g, float* bs, std::int64_t ks, int len) {
  constexpr int V = Load<E>::kVec;
  const E* const b = static_cast<const E*>(g.b) + ks * g.b_k;
  const bool k_contiguous = g.b_k == 1;
  const int total = len * g.n;
  for (int base = static_cast<int>(threadIdx.x); base < total; base += kThreads * kStageBatch) {
    float v[kStageBatch];
    int pos[kStageBatch];
#pragma unroll
    for (int u = 0; u < kStageBatch; ++u) {
      const int i = base + kThreads * u;
      const int kk = k_contiguous ? i % len : i / g.n;
      const int c = k_contiguous ? i / len : i % g.n;
      v[u] = i < total ? Load<E>::one(b + kk * g.b_k + c * g.b_col) : 0.0f;
      if constexpr (ROWS) {
        pos[u] = c * KP + stage_pos<V, KS>(kk);
      } else {
        pos[u] = kk * NC + c;
      }
    }
#pragma unroll
    for (int u = 0; u < kStageBatch; ++u) {
      if (base + kThreads * u < total) bs[pos[u]] = v[u];
    }
  }
}

// One finished sum of C(row, c): to C (one split) or to the split's partial sums.
template <class CT>
__device__ __forceinline__ void put(const NarrowArgs& g, int row, int c, float sum) {
  if (gridDim.y == 1) {
    CT* const out = static_cast<CT*>(g.c) + row * g.c_row + c * g.c_col;
    store_c_one(out, sum, g.alpha, g.beta);
  } else {
    g.partial[blockIdx.y * g.plane + static_cast<std::int64_t>(row) * g.n + c] = sum;
  }
}

// C(row, c) for the `rows` rows from row0 (those below M), each the sum of every split's partial
// sum in split order: the last block of a split row block to arrive (stream::last_split).
template <class CT>
__device__ __forceinline__ void finish_splits(const NarrowArgs& g, int row0, int rows) {
  const int count = min(rows, g.m - row0) * g.n;
  for (int e = static_cast<int>(threadIdx.x); e < count; e += kThreads) {
    const int row = row0 + e / g.n;
    const int c = e % g.n;
    const float* p = g.partial + static_cast<std::int64_t>(row) * g.n + c;
    float s = 0.0f;
#pragma unroll 16  // loads in flight: a load at a time made long sums slow (as gemv's)
    for (unsigned j = 0; j < gridDim.y; ++j) s += __ldcg(p + j * g.plane);
    store_c_one(static_cast<CT*>(g.c) + row * g.c_row + c * g.c_col, s, g.alpha, g.beta);
  }
}

// A row-major: warp w of block b streams rows 32 b + 4 w .. + 3 over split blockIdx.y of K.
template <class E, class CT, int NC, bool VEC>
__global__ void __launch_bounds__(kThreads) narrow_rows_kernel(const NarrowArgs g) {
  using L = Load<E>;
  constexpr int V = L::kVec;
  constexpr int kStep = 32 * V;  // K a warp covers with one 16-byte piece per lane
  constexpr int KS = kStageFloats / NC;
  constexpr int KP = KS + 32;
  static_assert(KS % kStep == 0, "a stage is whole warp steps");
  __shared__ __align__(16) float bs[NC * KP];
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int row0 = static_cast<int>(blockIdx.x) * kRowsPerBlock + warp * kRowsPerWarp;
  const E* arow[kRowsPerWarp];
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r) {
    // Rows past M read row M - 1 again (their sums are dropped): no branch in the stream.
    arow[r] =
        static_cast<const E*>(g.a) + static_cast<std::int64_t>(min(row0 + r, g.m - 1)) * g.lda;
  }
  const std::int64_t k0 = static_cast<std::int64_t>(blockIdx.y) * g.k_chunk;
  const std::int64_t k1 = min(static_cast<std::int64_t>(g.k), k0 + g.k_chunk);
  float acc[kRowsPerWarp][NC] = {};
  for (std::int64_t ks = k0; ks < k1; ks += KS) {
    const int len = static_cast<int>(min(static_cast<std::int64_t>(KS), k1 - ks));
    __syncthreads();  // the previous stage is read
    stage_b<E, NC, KS, KP, true>(g, bs, ks, len);
    __syncthreads();
    int kk = 0;
    if constexpr (VEC) {
      for (; kk + kStep <= len; kk += kStep) {
        uint4 raw[kRowsPerWarp];
#pragma unroll
        for (int r = 0; r < kRowsPerWarp; ++r) raw[r] = load_stream(arow[r] + ks + kk + lane * V);
        float av[kRowsPerWarp][V];
#pragma unroll
        for (int r = 0; r < kRowsPerWarp; ++r) L::vec(raw[r], av[r]);
        const int pos = stage_pos<V, KS>(kk + lane * V);
#pragma unroll
        for (int c = 0; c < NC; ++c) {
          float bv[V];
#pragma unroll
          for (int h = 0; h < V / 4; ++h) {
            const float4 f =
                *reinterpret_cast<const float4*>(bs + c * KP + pos + h * (KS / 2 + 16));
            bv[4 * h] = f.x;
            bv[4 * h + 1] = f.y;
            bv[4 * h + 2] = f.z;
            bv[4 * h + 3] = f.w;
          }
#pragma unroll
          for (int r = 0; r < kRowsPerWarp; ++r) {
#pragma unroll
            for (int i = 0; i < V; ++i) acc[r][c] = fmaf(av[r][i], bv[i], acc[r][c]);
          }
        }
      }
    }
    // Element loads, lane l reading k = kk + l + 32 i (each load instruction is 32 consecutive
    // elements of a row): whole warp steps without predicates (all of the stage without VEC),
    // then what is left 32 at a time, so that a short K runs no more of a step than it needs.
    if constexpr (!VEC) {
      for (; kk + kStep <= len; kk += kStep) {
        float av[kRowsPerWarp][V];
#pragma unroll
        for (int i = 0; i < V; ++i) {
#pragma unroll
          for (int r = 0; r < kRowsPerWarp; ++r)
            av[r][i] = L::one(arow[r] + ks + kk + lane + 32 * i);
        }
#pragma unroll
        for (int c = 0; c < NC; ++c) {
#pragma unroll
          for (int i = 0; i < V; ++i) {
            const float bv = bs[c * KP + stage_pos<V, KS>(kk + lane + 32 * i)];
#pragma unroll
            for (int r = 0; r < kRowsPerWarp; ++r) acc[r][c] = fmaf(av[r][i], bv, acc[r][c]);
          }
        }
      }
    }
#pragma unroll 4
    for (; kk < len; kk += 32) {
      const int kl = kk + lane;
      const bool in = kl < len;
      float av[kRowsPerWarp];
#pragma unroll
      for (int r = 0; r < kRowsPerWarp; ++r) av[r] = in ? L::one(arow[r] + ks + kl) : 0.0f;
#pragma unroll
      for (int c = 0; c < NC; ++c) {
        const float bv = in ? bs[c * KP + stage_pos<V, KS>(kl)] : 0.0f;
#pragma unroll
        for (int r = 0; r < kRowsPerWarp; ++r) acc[r][c] = fmaf(av[r], bv, acc[r][c]);
      }
    }
  }
  // Every lane ends with every sum; lane j writes sums j, j + 32, ...
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r) {
#pragma unroll
    for (int c = 0; c < NC; ++c) {
      float s = acc[r][c];
#pragma unroll
      for (int off = 16; off > 0; off /= 2) s += __shfl_xor_sync(0xffffffffu, s, off);
      if ((r * NC + c) % 32 == lane && row0 + r < g.m && c < g.n) put<CT>(g, row0 + r, c, s);
    }
  }
  if (gridDim.y > 1 && g.counters != nullptr && stream::last_split(g.counters)) {
    finish_splits<CT>(g, static_cast<int>(blockIdx.x) * kRowsPerBlock, kRowsPerBlock);
  }
}

// acc[i][c] += av[i] * b[c] for V rows and NC columns: one k of the column kernel, b the stage's
// NC values of that k (16-byte aligned: read as float4).
template <int V, int NC>
__device__ __forceinline__ void add_outer(float (&acc)[V][NC], const float (&av)[V],
                                          const float* b) {
#pragma unroll
  for (int c4 = 0; c4 < NC / 4; ++c4) {
    const float4 f = *reinterpret_cast<const float4*>(b + 4 * c4);
    const float bv[4] = {f.x, f.y, f.z, f.w};
#pragma unroll
    for (int j = 0; j < 4; ++j) {
#pragma unroll
      for (int i = 0; i < V; ++i) acc[i][4 * c4 + j] = fmaf(av[i], bv[j], acc[i][4 * c4 + j]);
    }
  }
}

// A column-major: block b owns rows R b .. R b + R - 1 (R = 32 V). With VEC and a whole block of
// rows lane l holds rows R b + V l .. + V - 1 (one 16-byte piece of each column), else rows
// R b + l + 32 i (element loads, each instruction 32 consecutive rows). Warp w takes the stage's
// columns kk = w, w + 8, ... of A.
template <class E, class CT, int NC, bool VEC>
__global__ void __launch_bounds__(kThreads) narrow_cols_kernel(const NarrowArgs g) {
  using L = Load<E>;
  constexpr int V = L::kVec;
  constexpr int R = 32 * V;
  constexpr int KS = kStageFloats / NC;
  __shared__ __align__(16) float bs[KS * NC];
  __shared__ float sums[kWarps][R];
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int block_row = static_cast<int>(blockIdx.x) * R;
  const bool whole = VEC && block_row + R <= g.m;
  const E* const a = static_cast<const E*>(g.a);
  const std::int64_t k0 = static_cast<std::int64_t>(blockIdx.y) * g.k_chunk;
  const std::int64_t k1 = min(static_cast<std::int64_t>(g.k), k0 + g.k_chunk);
  float acc[V][NC] = {};
  for (std::int64_t ks = k0; ks < k1; ks += KS) {
    const int len = static_cast<int>(min(static_cast<std::int64_t>(KS), k1 - ks));
    __syncthreads();
    stage_b<E, NC, KS, KS, false>(g, bs, ks, len);
    __syncthreads();
    if (whole) {
      for (int kk = warp; kk < len; kk += kWarps * kColUnroll<NC>) {
        uint4 raw[kColUnroll<NC>];
#pragma unroll
        for (int u = 0; u < kColUnroll<NC>; ++u) {
          const int kq = kk + kWarps * u;
          raw[u] = kq < len ? load_stream(a + (ks + kq) * g.lda + block_row + lane * V)
                            : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int u = 0; u < kColUnroll<NC>; ++u) {
          const int kq = kk + kWarps * u;
          if (kq >= len) break;  // warp-uniform; B past the stage is not read (nor multiplied)
          float av[V];
          L::vec(raw[u], av);
          add_outer<V, NC>(acc, av, bs + kq * NC);
        }
      }
    } else {
      // Element loads, kElemUnroll columns in flight (V loads each).
      for (int kk = warp; kk < len; kk += kWarps * kElemUnroll<E, NC, VEC>) {
        float av[kElemUnroll<E, NC, VEC>][V];
#pragma unroll
        for (int u = 0; u < kElemUnroll<E, NC, VEC>; ++u) {
          const int kq = kk + kWarps * u;
          const E* const col = a + (ks + kq) * g.lda + block_row + lane;
#pragma unroll
          for (int i = 0; i < V; ++i) {
            av[u][i] = kq < len && block_row + lane + 32 * i < g.m ? L::one(col + 32 * i) : 0.0f;
          }
        }
#pragma unroll
        for (int u = 0; u < kElemUnroll<E, NC, VEC>; ++u) {
          const int kq = kk + kWarps * u;
          if (kq >= len) break;  // warp-uniform
          add_outer<V, NC>(acc, av[u], bs + kq * NC);
        }
      }
    }
  }
  // The warps' sums, one column at a time, added in warp order.
#pragma unroll
  for (int c = 0; c < NC; ++c) {
    __syncthreads();
#pragma unroll
    for (int i = 0; i < V; ++i) sums[warp][whole ? V * lane + i : lane + 32 * i] = acc[i][c];
    __syncthreads();
    if (c < g.n) {
      for (int r = static_cast<int>(threadIdx.x); r < R; r += kThreads) {
        const int row = block_row + r;
        if (row >= g.m) continue;
        float s = 0.0f;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) s += sums[w][r];
        put<CT>(g, row, c, s);
      }
    }
  }
  if (gridDim.y > 1 && g.counters != nullptr && stream::last_split(g.counters)) {
    finish_splits<CT>(g, block_row, R);
  }
}

// The second pass of a split too long for one block: C = alpha * (the splits' partial sums added
// in a fixed order) + beta * C. A thread takes a group of 4 consecutive outputs (one 16-byte piece
// of every plane) over one share of the splits, `per` consecutive ones, all its loads in flight
// together; the `shares` threads of a group meet in shared memory and the first adds their sums
// in share order. A thread per output adding every split, one round trip after another, took
// longer than the stream on long sums (docs/perf-notes.md, "Rung 21's second pass").
constexpr int kReduceLoads = 8;  // 16-byte partial sums a thread has in flight
template <class CT>
__global__ void __launch_bounds__(kThreads) narrow_reduce_kernel(const NarrowArgs g, int splits,
                                                                 int shares) {
  __shared__ float4 share_sums[kThreads];
  const std::int64_t total = static_cast<std::int64_t>(g.m) * g.n;
  const std::int64_t groups = (total + 3) / 4;
  const int per_block = kThreads / shares;  // groups a block adds at once
  const int slot = static_cast<int>(threadIdx.x) % per_block;
  const int share = static_cast<int>(threadIdx.x) / per_block;
  const int per = (splits + shares - 1) / shares;
  const int s0 = min(splits, share * per);
  const int s1 = min(splits, s0 + per);
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * per_block;
  // The loop bound is the block's (every thread reaches the barriers); a group past the last is
  // added as zeros and not stored.
  for (std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * per_block; first < groups;
       first += stride) {
    const std::int64_t group = first + slot;
    const std::int64_t o = 4 * group;  // the group's first output
    const bool whole = o + 4 <= total;
    float4 t = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int s = s0; s < s1; s += kReduceLoads) {
      float4 v[kReduceLoads];
#pragma unroll
      for (int u = 0; u < kReduceLoads; ++u) {
        v[u] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (s + u < s1 && group < groups) {
          const float* const p = g.partial + (s + u) * g.plane + o;
          if (whole) {
            v[u] = *reinterpret_cast<const float4*>(p);
          } else {  // the last group: only the outputs inside M N were written
            v[u].x = p[0];
            if (o + 1 < total) v[u].y = p[1];
            if (o + 2 < total) v[u].z = p[2];
          }
        }
      }
#pragma unroll
      for (int u = 0; u < kReduceLoads; ++u) stream::add4(t, v[u]);
    }
    share_sums[threadIdx.x] = t;
    __syncthreads();
    if (share == 0 && group < groups) {
      t = stream::add_shares(t, share_sums, shares, per_block, slot);
      const float out[4] = {t.x, t.y, t.z, t.w};
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        if (o + e < total) {
          const std::int64_t row = (o + e) / g.n;
          const std::int64_t c = (o + e) % g.n;
          store_c_one(static_cast<CT*>(g.c) + row * g.c_row + c * g.c_col, out[e], g.alpha,
                      g.beta);
        }
      }
    }
    __syncthreads();  // share_sums is written again in the next round
  }
}

// The second pass's shares per group: enough that each thread loads at most about kReduceLoads
// partial sums (a power of two, so that a block holds whole groups), at most 64.
inline int reduce_shares(std::int64_t splits) {
  int shares = 1;
  while (shares < 64 && shares * kReduceLoads < splits) shares *= 2;
  return shares;
}

template <int NC>
bool can_implement_narrow(const Problem& p) {
  const Problem q = views::narrow_as_n(p);
  // int sizes; K rounded up to a split's granularity (at most 8 elements) still fits an int.
  return q.n <= NC && views::dims_fit_int(q, 8) && q.m <= (std::int64_t{1} << 30);
}

// The kernel of a problem's read class: row-major A (K contiguous) or column-major, 16-byte or
// element loads.
template <class E, class CT, int NC>
const void* kernel_of(bool rows, bool vec) {
  if (rows) {
    return vec ? kernel_address(&narrow_rows_kernel<E, CT, NC, true>)
               : kernel_address(&narrow_rows_kernel<E, CT, NC, false>);
  }
  return vec ? kernel_address(&narrow_cols_kernel<E, CT, NC, true>)
             : kernel_address(&narrow_cols_kernel<E, CT, NC, false>);
}

template <class E, class CT, int NC>
cudaError_t launch_typed(const Problem& p, cudaStream_t stream) {
  constexpr int V = Load<E>::kVec;
  const Problem q = views::narrow_as_n(p);
  NarrowArgs g{};
  g.m = static_cast<int>(q.m);
  g.n = static_cast<int>(q.n);
  g.k = static_cast<int>(q.k);
  g.alpha = q.alpha;
  g.beta = q.beta;
  g.a = q.a.data;
  g.lda = q.a.ld;
  g.b = q.b.data;
  const Strides sb = strides_of(q.b.layout, q.b.ld);
  g.b_k = sb.row;
  g.b_col = sb.col;
  g.c = q.c.data;
  const Strides sc = strides_of(q.c.layout, q.c.ld);
  g.c_row = sc.row;
  g.c_col = sc.col;
  const bool rows = views::a_k_contiguous(q);
  const bool vec = views::aligned(q.a, 16);
  // K split until one wave of the kernel's resident blocks is full, the count rounded down: short
  // splits, since a small problem's time is the round trips of its loads and more blocks take
  // them side by side, but no partial second wave of blocks as long as the first (it cost more
  // than the split saved: docs/perf-notes.md, "Rung 21's split: one wave"). Row-major A: blocks
  // of 32 rows, splits of at least one warp step (whole 16-byte pieces); column-major A: blocks
  // of 32 V rows, splits of at least one round of unrolled columns per warp.
  const std::int64_t tiles = rows ? ceil_div(q.m, kRowsPerBlock) : ceil_div(q.m, 32 * V);
  static runtime::PerDeviceCount resident[2][2];
  const int per_sm = runtime::resident_blocks(kernel_of<E, CT, NC>(rows, vec), kThreads,
                                              resident[rows ? 1 : 0][vec ? 1 : 0]);
  const stream::Split sp =
      rows ? stream::plan_split_wave(tiles, q.k, V, 32LL * V, per_sm)
           : stream::plan_split_wave(tiles, q.k, kWarps, 1LL * kWarps * kColUnroll<NC>, per_sm);
  g.k_chunk = sp.k_chunk;
  g.plane = views::round_up(q.m * q.n, 4);
  if (cudaError_t err =
          stream::partial_sums(sp, g.plane, tiles, stream, &g.partial, &g.counters);
      err != cudaSuccess) {
    return err;
  }
  // One launch where the last block's sum is short: each of its threads adds at most
  // kMaxLastSum partial sums (more made the tail longer than a second launch costs:
  // docs/perf-notes.md, "One launch for split K").
  const std::int64_t block_rows = std::min<std::int64_t>(rows ? kRowsPerBlock : 32 * V, q.m);
  const std::int64_t block_outputs = block_rows * q.n;
  const bool one_launch = sp.splits * views::ceil_div(block_outputs, kThreads) <= kMaxLastSum;
  if (!one_launch) g.counters = nullptr;
  const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(sp.splits));
  if (rows) {
    if (vec) {
      narrow_rows_kernel<E, CT, NC, true><<<grid, kThreads, 0, stream>>>(g);
    } else {
      narrow_rows_kernel<E, CT, NC, false><<<grid, kThreads, 0, stream>>>(g);
    }
  } else {
    if (vec) {
      narrow_cols_kernel<E, CT, NC, true><<<grid, kThreads, 0, stream>>>(g);
    } else {
      narrow_cols_kernel<E, CT, NC, false><<<grid, kThreads, 0, stream>>>(g);
    }
  }
  if (sp.splits > 1 && !one_launch) {
    const int shares = reduce_shares(sp.splits);
    const std::int64_t groups = ceil_div(q.m * q.n, 4);
    const auto blocks = static_cast<unsigned>(std::min<std::int64_t>(
        ceil_div(groups, kThreads / shares), 8LL * runtime::sm_count()));
    narrow_reduce_kernel<CT><<<blocks, kThreads, 0, stream>>>(g, sp.splits, shares);
  }
  return cudaGetLastError();
}

template <int NC>
cudaError_t launch_narrow(const Problem& p, cudaStream_t stream) {
  return with_types(p.types(), [&](auto e, auto ct) {
    return launch_typed<typename decltype(e)::type, typename decltype(ct)::type, NC>(p, stream);
  });
}

template <int NC>
const void* device_function_narrow(const Problem& p) {
  const Problem q = views::narrow_as_n(p);
  const bool rows = views::a_k_contiguous(q);
  const bool vec = views::aligned(q.a, 16);
  return with_types(p.types(), [&](auto e, auto ct) {
    return kernel_of<typename decltype(e)::type, typename decltype(ct)::type, NC>(rows, vec);
  });
}

template <int NC>
void register_one(Registry& r) {
  KernelInfo k;
  k.name = "narrow_n" + std::to_string(NC);
  k.family = "narrow";
  k.rung = 21;
  k.tile = TileConfig{};
  k.tile.bm = kRowsPerBlock;  // row-major A (column-major A: 32 x 16 bytes of rows)
  k.tile.bn = NC;
  k.tile.bk = kStageFloats / NC;
  k.tile.threads = kThreads;
  k.tile.smem_bytes = static_cast<int>(sizeof(float)) * NC * (kStageFloats / NC + 32);
  k.desc = simt_f32_desc(1, 1, 1, kMinBuiltCc);  // 16-byte loads of A where aligned, else elements
  k.desc.types = every_type_combination();
  k.desc.split_k = true;
  k.summary = "M or N of at most " + std::to_string(NC) +
              ": the large operand streamed once (16-byte loads where aligned, else coalesced "
              "elements), B's columns staged in shared memory as fp32, K split when the rows "
              "are few, added in split order by the last block of each row block (one launch) "
              "or, for long sums, by a second pass; deterministic; every type, any alignment";
  k.can_implement = can_implement_narrow<NC>;
  k.launch = launch_narrow<NC>;
  k.device_function = device_function_for(k.can_implement, device_function_narrow<NC>);
  r.push_back(std::move(k));
}

}  // namespace

void register_narrow(Registry& r) {
  register_one<4>(r);
  register_one<8>(r);
  register_one<16>(r);
}

}  // namespace tilegemm::kernels
