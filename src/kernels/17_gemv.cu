// Rung 17: matrix-vector products (M = 1 or N = 1), in every element type, on the CUDA cores.
//
// With one row or one column of C a GEMM does 2 FLOP per element of the matrix operand it reads
// once: it is a stream of that operand through DRAM, and a tile kernel built for reuse wastes most
// of its tile (a 128-row tensor-core tile computes 127 rows of zeros). Idea: read the matrix at
// copy bandwidth with 16-byte loads, every SM busy, and nothing else.
//  - M = 1 is computed as its mirror C^T = B^T A^T, so the kernels see N = 1:
//    y = alpha A x + beta y
//    with A m x k, x and y vectors of any stride.
//  - A row-major (K contiguous): one warp per row, 16-byte loads along K, a shuffle reduction.
//  - A column-major (M contiguous): on a matrix of 16 MiB and more, a block owns
//    64 x (16 / element size) consecutive rows, two 16-byte pieces per lane and column; its 8
//    warps split the block's columns and add their partial sums in shared memory in a fixed
//    order. On smaller ones a block owns 32 rows, and a block with few rows inside M (a short
//    column) gives each column only the lanes its rows need and a warp step several columns.
//  - Too few rows to fill the GPU: K is split over blocks, each writes its partial sums into the
//    stream workspace, and the block that completes a row block's last split adds them in split
//    order (deterministic: the same result every run) and applies alpha and beta, in the same
//    launch (stream::last_split: a second kernel cost a launch on problems this small). The
//    column kernel splits only as far as that block's sum stays short (or 2 blocks per SM). A
//    short column's splits, where they fit one thread-block cluster, are that cluster instead and
//    add their sums through shared memory (cluster_split.cuh).
//  - Any alignment. 16-byte pieces in place wherever A's base and leading dimension allow it
//    (fp32 column-major A: also as two or four narrower loads at a pitch of 8 or 4 bytes). 16-bit
//    A at any other pitch or base is still read in aligned 16-byte pieces: row-major, each row in
//    the pieces inside it, a block's rows all of one shift, x staged in shared memory at that
//    shift; column-major, each warp's columns (all of one shift) in the pieces from that shift
//    before its block's rows, the sums realigned once in shared memory. fp32
//    accumulation in every type; tf32 problems are computed in fp32 (more precise than asked; the
//    matrix stream, not the math, sets the speed).
// Floor and outcome: docs/perf-notes.md, "Rung 17".
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "../core/device_runtime.hpp"
#include "cluster_split.cuh"
#include "predicated_loads.cuh"
#include "common.cuh"
#include "families.hpp"
#include "stream_common.cuh"
#include "tensor_common.cuh"

namespace tilegemm::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
// 16-byte loads each thread has in flight: the loop issues them all before it uses any, so a
// block keeps 256 x 16 x kUnroll bytes moving (a stream needs tens of KiB in flight per SM).
constexpr int kUnroll = 4;

struct GemvArgs {
  int m, k;
  float alpha, beta;
  const void* a;
  std::int64_t lda;  // elements between rows (row-major A) or columns (column-major A)
  const void* x;
  std::int64_t incx;
  void* y;
  std::int64_t incy;
  int k_chunk;         // K elements per split (a multiple of the vector width)
  float* partial;      // partial sums (splits > 1): splits x m (rows), runs of R (columns)
  unsigned* counters;  // an arrival counter per row block (splits > 1)
  int vec;             // 16-byte loads of A and x are aligned (row kernel); A's whole pieces
                       // are read W bytes a load (in-place column kernel)
  int clustered;       // the splits of an output block are one cluster (cluster_split.cuh)
  int col_rows;        // column kernel: rows a block owns (R = 64 V, or 32: column_rows; V
                       // fewer in the shifted kernel)
  int period;          // staged row kernel: rows from a row to the next at the same 16-byte shift
};

using stream::Load;
using stream::load_cut_piece;
using stream::load_stream;

template <class CT>
__device__ __forceinline__ void finish(const GemvArgs& g, int row, float sum) {
  store_c_one(static_cast<CT*>(g.y) + static_cast<std::int64_t>(row) * g.incy, sum, g.alpha,
              g.beta);
}

// Row `row`'s partial sums (row kernel) of splits first, first + step, ..., added in that order
// (in the last block to arrive), sixteen loads in flight.
__device__ __forceinline__ float sum_splits(const GemvArgs& g, int row, unsigned first,
                                            unsigned step) {
  float s = 0.0f;
  const float* p = g.partial + row;
#pragma unroll 16
  for (unsigned i = first; i < gridDim.y; i += step) {
    s += __ldcg(p + static_cast<std::int64_t>(i) * g.m);
  }
  return s;
}

// The row kernels' end: the warp's lanes' sums of row `row` (where `here`) added by a shuffle
// tree, then C's element finished, or with K split the split's partial sum written and, in the
// last block of the row block to arrive, every split's added in split order. Every thread of the
// block calls it (the split's arrival is a block barrier).
template <class CT>
__device__ __forceinline__ void finish_row(const GemvArgs& g, int row, bool here, int lane,
                                           float acc) {
#pragma unroll
  for (int off = 16; off > 0; off /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, off);
  const bool writes = here && lane == 0;
  if (gridDim.y == 1) {
    if (writes) finish<CT>(g, row, acc);
    return;
  }
  if (writes) g.partial[static_cast<std::int64_t>(blockIdx.y) * g.m + row] = acc;
  if (!stream::last_split(g.counters) || !here) return;
  // The warp adds its row's splits: lane l those congruent to l mod 32, then a fixed shuffle tree
  // (the same order every run).
  float s = sum_splits(g, row, static_cast<unsigned>(lane), 32u);
#pragma unroll
  for (int off = 16; off > 0; off /= 2) s += __shfl_xor_sync(0xffffffffu, s, off);
  if (lane == 0) finish<CT>(g, row, s);
}

// A whole 16-byte piece at p as 16 / W loads of W bytes (W = 16, 8 or 4: the widest access the
// base and pitch align; 16-bit elements at a pitch of 4 or 8 bytes read two or four at a time):
// streaming loads for the matrix (read once); Stream false, one cached 16-byte load, for the
// vector (every row block reads it).
template <int W, bool Stream = true>
__device__ __forceinline__ uint4 load_piece(const void* p) {
  static_assert(W == 16 || W == 8 || W == 4, "16, 8 or 4 bytes a load");
  static_assert(Stream || W == 16, "the vector is read in 16-byte loads");
  if constexpr (!Stream) {
    return *static_cast<const uint4*>(p);
  } else if constexpr (W == 16) {
    return load_stream(p);
  } else if constexpr (W == 8) {
    const uint2* const q = static_cast<const uint2*>(p);
    const uint2 lo = __ldcs(q), hi = __ldcs(q + 1);
    return make_uint4(lo.x, lo.y, hi.x, hi.y);
  } else {
    const unsigned* const q = static_cast<const unsigned*>(p);
    return make_uint4(__ldcs(q), __ldcs(q + 1), __ldcs(q + 2), __ldcs(q + 3));
  }
}

// acc += the dot product of a 16-byte piece of a row of A and the matching piece of x (the row
// kernels' products).
template <class E>
__device__ __forceinline__ float add_dot(float acc, uint4 a_piece, uint4 x_piece) {
  constexpr int V = Load<E>::kVec;
  float av[V], xv[V];
  Load<E>::vec(a_piece, av);
  Load<E>::vec(x_piece, xv);
#pragma unroll
  for (int i = 0; i < V; ++i) acc = fmaf(av[i], xv[i], acc);
  return acc;
}

// 16-bit element loads (row kernel): a round of kElemRound a lane, all issued before the first
// FMA. A row part of at most one round (32 kElemRound elements) is read that way whole: one round
// trip, where pieces and then the last elements took two.
constexpr int kElemRound = 8;

// A row-major: warp w of block b computes row 8 b + w over split blockIdx.y of K, in 16-byte
// pieces of A and x where both are 16-byte aligned (A's base and pitch, x's base, x contiguous:
// g.vec), else element by element: fp32, and 16-bit rows of at most one round of element loads or
// a strided x (longer 16-bit rows at a contiguous x run gemv_rows_staged_kernel).
template <class E, class CT>
__global__ void __launch_bounds__(kThreads) gemv_rows_kernel(const GemvArgs g) {
  using L = Load<E>;
  constexpr int V = L::kVec;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int row = static_cast<int>(blockIdx.x) * kWarps + warp;
  const bool here = row < g.m;  // the warp has a row (no early return: last_split syncs)
  const std::int64_t k0 = static_cast<std::int64_t>(blockIdx.y) * g.k_chunk;
  const std::int64_t k1 = here ? min(static_cast<std::int64_t>(g.k), k0 + g.k_chunk) : k0;
  const E* const a = static_cast<const E*>(g.a) + static_cast<std::int64_t>(here ? row : 0) * g.lda;
  const E* const x = static_cast<const E*>(g.x);
  float acc = 0.0f;
  std::int64_t tail = k0;
  if (g.vec && (sizeof(E) == 4 || k1 - k0 > 32 * kElemRound)) {
    const std::int64_t whole = k0 + (k1 - k0) / V * V;
    // The compiler's unrolling of this loop measured faster than loads gathered by hand.
#pragma unroll 4
    for (std::int64_t kk = k0 + lane * V; kk < whole; kk += 32 * V) {
      acc = add_dot<E>(acc, load_piece<16>(a + kk), load_piece<16, false>(x + kk));
    }
    tail = whole;
  }
  if constexpr (sizeof(E) == 4) {
    // fp32 elements: no conversion follows a load, and the compiler's loop measured faster than
    // rounds gathered by hand (or 4- and 8-byte pieces) on mid-sized rows.
    for (std::int64_t kk = tail + lane; kk < k1; kk += 32) {
      acc = fmaf(L::one(a + kk), L::one(x + kk * g.incx), acc);
    }
  } else {
    // 16-bit elements (the last elements of the pieces, or the whole row): as storage bits under
    // predicates, converted after the round (predicated_loads.cuh); one at a time, the loop left
    // a warp a round trip per few loads.
    const std::int64_t x_step = 32 * g.incx;
    for (std::int64_t kk = tail + lane; kk < k1; kk += 32 * kElemRound) {
      const E* const pa = a + kk;
      const E* const px = x + kk * g.incx;
      std::uint32_t ab[kElemRound], xb[kElemRound];
#pragma unroll
      for (int u = 0; u < kElemRound; ++u) {
        const bool in = kk + 32 * u < k1;
        ab[u] = ld_u16_if(pa + 32 * u, in);
        xb[u] = ld_u16_if(px + x_step * u, in);
      }
#pragma unroll
      for (int u = 0; u < kElemRound; ++u) {
        acc = fmaf(bits_to_float<E>(ab[u]), bits_to_float<E>(xb[u]), acc);
      }
    }
  }
  finish_row<CT>(g, row, here, lane, acc);
}

// Pieces of x a staged row-kernel block holds at once (8 KiB of shared memory).
constexpr int kStageWindow = 512;

// 16-bit A row-major at any pitch and base, x contiguous: the row kernel's 16-byte loop, each row
// read in the aligned 16-byte pieces that lie inside it. Row r starts (base + r lda) mod V
// elements past a 16-byte boundary, a shift that repeats every g.period rows (V / gcd(lda, V)),
// so block b takes rows of one shift only: group b / period of 8 period rows, warp w its row
// b % period + period w. All its rows then meet x at the same offsets: the block stages its
// split's x in shared memory as 16-byte pieces starting where the rows' pieces start (element
// loads, a window of kStageWindow pieces at a time), and each lane reads one aligned piece of A
// and one of shared memory a step, no shift in the loop; a window's first kUnroll pieces of A
// are loaded before x is staged, so that the staging's round trip overlaps theirs. The elements
// before a row's first boundary (the head, fewer than V) and after its last whole piece (the
// tail) are one element load a lane.
template <class E, class CT>
__global__ void __launch_bounds__(kThreads) gemv_rows_staged_kernel(const GemvArgs g) {
  using L = Load<E>;
  constexpr int V = L::kVec;
  static_assert(sizeof(E) == 2, "16-bit elements");
  __shared__ uint4 xs[kStageWindow];
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int group = static_cast<int>(blockIdx.x) / g.period;
  const int first = group * kWarps * g.period + static_cast<int>(blockIdx.x) % g.period;
  const int row = first + g.period * warp;
  const bool here = row < g.m;  // the warp has a row (no early return: the block syncs)
  const int k0 = static_cast<int>(blockIdx.y) * g.k_chunk;
  const int k1 = min(g.k, k0 + g.k_chunk);
  // The head: elements from k0 to the first 16-byte boundary, the same count in each of the
  // block's rows (computed from the address of its first row's, which need not be inside A).
  const std::uint64_t start = reinterpret_cast<std::uintptr_t>(g.a) +
                              (static_cast<std::uint64_t>(first) * g.lda + k0) * sizeof(E);
  const int head = min(static_cast<int>(((16 - (start & 15)) & 15) / sizeof(E)), k1 - k0);
  const int kp = k0 + head;  // the first piece
  const int pieces = (k1 - kp) / V;
  const int kt = kp + pieces * V;  // the tail
  const E* const a = static_cast<const E*>(g.a) + static_cast<std::int64_t>(here ? row : 0) * g.lda;
  const E* const x = static_cast<const E*>(g.x);
  float acc = 0.0f;
  if (here) {
    const int kh = lane < head ? k0 + lane : kt + lane - head;  // a head or a tail element
    if (kh < k1 && (lane < head || lane - head < k1 - kt)) {
      acc = L::one(a + kh) * L::one(x + kh);
    }
  }
  const std::uint16_t* const xb = static_cast<const std::uint16_t*>(g.x) + kp;  // x contiguous
  for (int w0 = 0; w0 < pieces; w0 += kStageWindow) {
    const int n = min(kStageWindow, pieces - w0);
    const E* const ap = a + kp + V * w0;
    // The window's first kUnroll pieces of A a lane are in flight while x is staged.
    uint4 ra[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int j = lane + 32 * u;
      ra[u] = here && j < n ? load_stream(ap + V * j) : make_uint4(0, 0, 0, 0);
    }
    __syncthreads();  // the window before is read
#pragma unroll 1
    for (int t = static_cast<int>(threadIdx.x); t < n; t += kThreads) {
      const std::uint16_t* const xp = xb + V * (w0 + t);
      std::uint16_t e[V];
#pragma unroll
      for (int i = 0; i < V; ++i) e[i] = __ldg(xp + i);
      uint4 piece;
      memcpy(&piece, e, sizeof(piece));
      xs[t] = piece;
    }
    __syncthreads();
    if (here) {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int j = lane + 32 * u;
        if (j < n) acc = add_dot<E>(acc, ra[u], xs[j]);
      }
#pragma unroll 4
      for (int j = lane + 32 * kUnroll; j < n; j += 32) {
        acc = add_dot<E>(acc, load_stream(ap + V * j), xs[j]);
      }
    }
  }
  finish_row<CT>(g, row, here, lane, acc);
}

// acc[i] += the V values of a 16-byte piece of a column times that column's element of x (the
// column kernels' products).
template <class E>
__device__ __forceinline__ void add_piece(float (&acc)[Load<E>::kVec], uint4 piece, float xk) {
  float av[Load<E>::kVec];
  Load<E>::vec(piece, av);
#pragma unroll
  for (int i = 0; i < Load<E>::kVec; ++i) acc[i] = fmaf(av[i], xk, acc[i]);
}

// A short column's row pieces: lanes `lanes` apart hold the same rows of different columns, added
// by a fixed shuffle tree (the same sum every run) into each of the first `lanes` lanes.
template <int V>
__device__ __forceinline__ void add_column_groups(float (&acc)[V], int lanes) {
  for (int off = lanes; off < 32; off *= 2) {
#pragma unroll
    for (int i = 0; i < V; ++i) acc[i] += __shfl_xor_sync(0xffffffffu, acc[i], off);
  }
}

// The lanes the column kernel gives a column of `live` rows at v rows a lane: the least power of
// two that covers them, at most 32 (every lane of the warp on one column). The launch sizes its
// split by it too.
__host__ __device__ constexpr int column_lanes(std::int64_t live, int v) {
  int lanes = 1;
  while (lanes < 32 && lanes * v < live) lanes *= 2;
  return lanes;
}

// The column kernels' end: `sums` holds each warp's sums of the block's rows (rows 0..staged-1 of
// the block, those at or past M neither read nor written out), added over the warps; then C's
// elements finished, or with K split the split's run of partial sums written and, in the last
// block of the row block to arrive, every split's added in split order, or the sums of a
// cluster's splits added through shared memory. Every thread of the block calls it.
template <class CT, int R>
__device__ __forceinline__ void finish_cols(const GemvArgs& g, const float (*sums)[R], int staged,
                                            int live, int block_row) {
  __syncthreads();
  // Split K: the block's R sums (zero past M; those past `staged` neither written nor read) are
  // one contiguous run of its row block's partial sums, split y of row block x at
  // (x gridDim.y + y) R, so that the last block to arrive reads every split's run in 16-byte
  // pieces.
  const unsigned splits = gridDim.y;
  if (g.clustered) {
    // The block's sums of its rows inside M, added over the cluster's splits.
    __shared__ float mine[R];
    for (int r = static_cast<int>(threadIdx.x); r < live; r += kThreads) {
      float s = 0.0f;
#pragma unroll
      for (int w = 0; w < kWarps; ++w) s += sums[w][r];
      mine[r] = s;
    }
    cluster::sum_over_cluster(mine, live, [&](int e, float s) { finish<CT>(g, block_row + e, s); });
    return;
  }
  float* const runs = g.partial + static_cast<std::int64_t>(blockIdx.x) * splits * g.col_rows;
  for (int r = static_cast<int>(threadIdx.x); r < staged; r += kThreads) {
    const int row = block_row + r;
    float s = 0.0f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) s += sums[w][r];
    if (splits == 1) {
      if (row < g.m) finish<CT>(g, row, s);
    } else {
      runs[static_cast<std::int64_t>(blockIdx.y) * g.col_rows + r] = row < g.m ? s : 0.0f;
    }
  }
  if (splits == 1 || !stream::last_split(g.counters)) return;
  // Only the row block's rows inside M are added (R is 64 V rows; a short M uses a few of them):
  // its `groups` 16-byte groups, each over `shares` consecutive ranges of the splits. Thread t
  // adds group t mod groups over share t / groups (in split order), then the shares are added in
  // order: the same sum every run, with every thread of the block loading (hundreds of splits:
  // a thread per row, one load at a time, made the sum longer than the second launch it
  // replaced; docs/perf-notes.md, "One launch for split K").
  const int groups = (live + 3) / 4;
  const int shares = kThreads / groups;
  __shared__ float4 share_sums[kThreads];
  const int group = static_cast<int>(threadIdx.x) % groups;
  const int share = static_cast<int>(threadIdx.x) / groups;
  const unsigned per = (splits + shares - 1) / shares;
  const unsigned i0 = min(splits, share * per);
  const unsigned i1 = share < shares ? min(splits, i0 + per) : i0;
  const float4* const run4 = reinterpret_cast<const float4*>(runs) + group;
  float4 t = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll 8
  for (unsigned i = i0; i < i1; ++i) {
    stream::add4(t, __ldcg(run4 + static_cast<std::int64_t>(i) * (g.col_rows / 4)));
  }
  share_sums[threadIdx.x] = t;
  __syncthreads();
  if (share != 0) return;
  t = stream::add_shares(t, share_sums, shares, groups, group);
  const float out[4] = {t.x, t.y, t.z, t.w};
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const int row = block_row + 4 * group + e;
    if (row < g.m) finish<CT>(g, row, out[e]);
  }
}

// A column-major: block b owns rows R b .. R b + R - 1 (R = 64 V; on smaller matrices 32 rows,
// g.col_rows, read as a short column below): lane l the V rows at R b + V (l + 32 j) for
// j = 0, 1, so a warp reads 2 x 512 contiguous bytes of a column; warp w
// takes columns k0 + w, k0 + w + 8, ... of split blockIdx.y. W: the bytes a load of A's whole
// pieces takes (16, 8 or 4, as its base and pitch allow; load_piece); where none does (16-bit
// elements at an odd pitch) g.vec is clear and the pieces are read element by element. Most 16-bit
// A that 16-byte loads cannot read in place runs gemv_cols_shifted_kernel instead (cols_shifted).
constexpr int kColPieces = 2;
// The rows of a full column-kernel block (R): 32 lanes of kColPieces pieces of v rows.
__host__ __device__ constexpr int full_block_rows(int v) { return 32 * v * kColPieces; }
// The rows of a short block (column_rows): a few lanes on each column.
constexpr int kShortBlockRows = 32;
template <class E, class CT, int W>
__global__ void __launch_bounds__(kThreads) gemv_cols_kernel(const GemvArgs g) {
  using L = Load<E>;
  constexpr int V = L::kVec;
  constexpr int R = full_block_rows(V);
  __shared__ float sums[kWarps][R];
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const std::int64_t k0 = static_cast<std::int64_t>(blockIdx.y) * g.k_chunk;
  const std::int64_t k1 = min(static_cast<std::int64_t>(g.k), k0 + g.k_chunk);
  const E* const a = static_cast<const E*>(g.a);
  const E* const x = static_cast<const E*>(g.x);
  float acc[kColPieces][V] = {};
  const int block_row = static_cast<int>(blockIdx.x) * g.col_rows;
  const int live = min(g.col_rows, g.m - block_row);  // the block's rows inside M
  const int lanes = column_lanes(live, V);
  int staged = R;  // rows of sums[] the warps write
  if (lanes < 32) {
    // At most 16 V rows (a short M, the last row block, or a 32-row block): a lane per V rows
    // took a warp per column with most lanes idle. Here a warp step covers `cols` = 32 / lanes
    // columns, lane l the V rows (l % lanes) V .. of column l / lanes, load_piece where the piece
    // is whole and A allows it, else element loads; kUnroll steps' loads before their FMAs. The
    // lanes of a row piece are then added by a fixed shuffle tree.
    const int cols = 32 / lanes;
    const int piece = lane % lanes;
    const int r = block_row + V * piece;
    const bool whole = g.vec && V * piece + V <= live;
    const int n = max(0, min(V, g.m - r));
    const std::int64_t step = static_cast<std::int64_t>(kWarps) * cols;
    if constexpr (sizeof(E) == 4) {
      // fp32: no conversion follows a load, so the loads of a round go out together as they are.
      for (std::int64_t k = k0 + warp * cols + lane / lanes; k < k1; k += step * kUnroll) {
        uint4 ra[kUnroll];
        float xk[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const std::int64_t kk = k + step * u;
          const E* const col = a + kk * g.lda + r;
          ra[u] = kk >= k1 ? make_uint4(0, 0, 0, 0)
                  : whole  ? load_piece<W>(col)
                           : load_cut_piece<sizeof(E)>(col, n);
          xk[u] = kk < k1 ? L::one(x + kk * g.incx) : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) add_piece<E>(acc[0], ra[u], xk[u]);
      }
    } else {
      // A cut piece's elements (or every piece's, where A allows no whole-piece load) are loaded
      // as storage bits under predicates and converted after the round (predicated_loads.cuh).
      for (std::int64_t k = k0 + warp * cols + lane / lanes; k < k1; k += step * kUnroll) {
        uint4 ra[kUnroll];
        std::uint32_t bits[kUnroll][V];
        std::uint32_t xb[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const std::int64_t kk = k + step * u;
          const bool in = kk < k1;
          const E* const col = a + (in ? kk : 0) * g.lda + r;
          ra[u] = in && whole ? load_piece<W>(col) : make_uint4(0, 0, 0, 0);
#pragma unroll
          for (int i = 0; i < V; ++i) bits[u][i] = ld_u16_if(col + i, in && !whole && i < n);
          xb[u] = ld_u16_if(x + (in ? kk : 0) * g.incx, in);
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          float av[V];
          L::vec(ra[u], av);
          const float xk = bits_to_float<E>(xb[u]);
#pragma unroll
          for (int i = 0; i < V; ++i) {
            acc[0][i] = fmaf(whole ? av[i] : bits_to_float<E>(bits[u][i]), xk, acc[0][i]);
          }
        }
      }
    }
    add_column_groups(acc[0], lanes);
    if (lane < lanes) {
#pragma unroll
      for (int i = 0; i < V; ++i) sums[warp][V * piece + i] = acc[0][i];
    }
    staged = V * lanes;
  } else if (g.vec && block_row + R <= g.m) {
    for (std::int64_t k = k0 + warp; k < k1; k += kWarps * kUnroll) {
      uint4 ra[kUnroll][kColPieces];
      float xk[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const std::int64_t kk = k + kWarps * u;
        const E* const col = a + kk * g.lda + block_row + lane * V;
#pragma unroll
        for (int j = 0; j < kColPieces; ++j) {
          ra[u][j] = kk < k1 ? load_piece<W>(col + 32 * V * j) : make_uint4(0, 0, 0, 0);
        }
        xk[u] = kk < k1 ? L::one(x + kk * g.incx) : 0.0f;
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
        for (int j = 0; j < kColPieces; ++j) add_piece<E>(acc[j], ra[u][j], xk[u]);
      }
    }
  } else {
    // Element loads (16-bit A at an odd pitch, or the block's last rows): kElemUnroll columns'
    // loads issued before their FMAs, as above (a column at a time waited a round trip per
    // column; kUnroll columns of 16-bit elements took 128 registers, a quarter of the blocks per
    // SM). (A cut block reading its whole pieces with load_piece raised the kernel's registers and
    // lost more on every other block than it won, and as an instance of its own for one-block
    // matrices lost on those too: docs/perf-notes.md, "Rung 17's pitch classes" and "Rung 17's one
    // cut row block".)
    if constexpr (sizeof(E) == 4) {
      constexpr int kElemUnroll = 2;
      for (std::int64_t k = k0 + warp; k < k1; k += kWarps * kElemUnroll) {
        float av[kElemUnroll][kColPieces][V];
        float xk[kElemUnroll];
#pragma unroll
        for (int u = 0; u < kElemUnroll; ++u) {
          const std::int64_t kk = k + kWarps * u;
          xk[u] = kk < k1 ? L::one(x + kk * g.incx) : 0.0f;
#pragma unroll
          for (int j = 0; j < kColPieces; ++j) {
            const int r = block_row + V * (lane + 32 * j);
            const E* const col = a + kk * g.lda + r;
#pragma unroll
            for (int i = 0; i < V; ++i) av[u][j][i] = kk < k1 && r + i < g.m ? L::one(col + i) : 0.0f;
          }
        }
#pragma unroll
        for (int u = 0; u < kElemUnroll; ++u) {
#pragma unroll
          for (int j = 0; j < kColPieces; ++j) {
#pragma unroll
            for (int i = 0; i < V; ++i) acc[j][i] = fmaf(av[u][j][i], xk[u], acc[j][i]);
          }
        }
      }
    } else {
      // The elements are loaded as storage bits under predicates and converted once every load
      // of the round is issued (predicated_loads.cuh).
      constexpr int kElemUnroll = 2;
      for (std::int64_t k = k0 + warp; k < k1; k += kWarps * kElemUnroll) {
        std::uint32_t bits[kElemUnroll][kColPieces][V];
        std::uint32_t xb[kElemUnroll];
#pragma unroll
        for (int u = 0; u < kElemUnroll; ++u) {
          const std::int64_t kk = k + kWarps * u;
          xb[u] = ld_u16_if(x + (kk < k1 ? kk : 0) * g.incx, kk < k1);
#pragma unroll
          for (int j = 0; j < kColPieces; ++j) {
            const int r = block_row + V * (lane + 32 * j);
            const E* const col = a + (kk < k1 ? kk : 0) * g.lda + r;
#pragma unroll
            for (int i = 0; i < V; ++i) bits[u][j][i] = ld_u16_if(col + i, kk < k1 && r + i < g.m);
          }
        }
#pragma unroll
        for (int u = 0; u < kElemUnroll; ++u) {
          const float xk = bits_to_float<E>(xb[u]);
#pragma unroll
          for (int j = 0; j < kColPieces; ++j) {
#pragma unroll
            for (int i = 0; i < V; ++i) {
              acc[j][i] = fmaf(bits_to_float<E>(bits[u][j][i]), xk, acc[j][i]);
            }
          }
        }
      }
    }
  }
  if (lanes == 32) {
#pragma unroll
    for (int j = 0; j < kColPieces; ++j) {
#pragma unroll
      for (int i = 0; i < V; ++i) sums[warp][V * (lane + 32 * j) + i] = acc[j][i];
    }
  }
  finish_cols<CT, R>(g, sums, staged, live, block_row);
}

// A whole 16-byte piece of A at p (16-byte aligned), or its elements before `end` (A's last
// element + 1) where it reaches past A: the shifted column kernel's pieces reach past their
// column, and past A in its last column only.
template <class E>
__device__ __forceinline__ uint4 load_piece_in(const E* p, const E* end) {
  constexpr int V = Load<E>::kVec;
  if (p + V <= end) return load_stream(p);
  return load_cut_piece<sizeof(E)>(p,
                                   static_cast<int>(max(end - p, static_cast<std::ptrdiff_t>(0))));
}

// 16-bit A column-major at a base or pitch that gemv_cols_kernel cannot read in 16-byte pieces in
// place (cols_shifted).
// Column k starts (base + k lda) mod V elements past a 16-byte boundary; warp w's columns
// k0 + w + 8 j (k0 a multiple of 8) all start at the same shift s, so the warp reads them in the
// aligned 16-byte pieces from row s before the block's first row: a lane's piece covers rows
// V p - s .. V p - s + V - 1 of the block in every column, and its sums go to those rows of
// sums[] once, after the loop (the slots outside the block's rows, which belong to its
// neighbours, are dropped). So that the pieces still cover a block's rows at any shift, a block
// owns V rows fewer than the pieces span (g.col_rows: 63 V or 24 rows), and a short
// column's lanes cover V - 1 rows more than its live rows. A piece reaching past the matrix (the
// last column's last rows) is read element by element up to its end; one wholly past the block's
// rows is not read. Every element is read as part of a 16-byte load but those.
template <class E, class CT>
__global__ void __launch_bounds__(kThreads) gemv_cols_shifted_kernel(const GemvArgs g) {
  using L = Load<E>;
  constexpr int V = L::kVec;
  constexpr int R = full_block_rows(V);
  __shared__ float sums[kWarps][R];
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int k0 = static_cast<int>(blockIdx.y) * g.k_chunk;
  const int k1 = min(g.k, k0 + g.k_chunk);
  const E* const a = static_cast<const E*>(g.a);
  const E* const x = static_cast<const E*>(g.x);
  const E* const a_end = a + static_cast<std::int64_t>(g.k - 1) * g.lda + g.m;
  const int block_row = static_cast<int>(blockIdx.x) * g.col_rows;
  const int live = min(g.col_rows, g.m - block_row);  // the block's rows inside M
  // The warp's shift, from its first column's address (k0 + warp may be past K: the same shift).
  const std::uint64_t first_col =
      reinterpret_cast<std::uintptr_t>(a) +
      (static_cast<std::uint64_t>(k0 + warp) * g.lda + block_row) * sizeof(E);
  const int shift = static_cast<int>((first_col & 15) / sizeof(E));
  const E* const base = a + block_row - shift;  // the block's first aligned piece in column 0
  const int lanes = column_lanes(live + V - 1, V);
  // Every column but A's last in the loops, in whole pieces; the last column apart (its pieces
  // loaded before the loops, added after them).
  const int k_whole = min(k1, g.k - 1);
  float acc[kColPieces][V] = {};
  int staged;
  if (lanes < 32) {
    // A warp step covers `cols` = 32 / lanes of the warp's columns, 8 apart, lane l piece
    // l % lanes of column l / lanes; kUnroll steps' loads before their FMAs; the lanes of a row
    // piece then added by a fixed shuffle tree (all of them at the warp's shift).
    const int cols = 32 / lanes;
    const int piece = lane % lanes;
    const int first = V * piece - shift;  // the piece's first row in the block
    const bool reads = first < live;
    const int step = kWarps * cols;
    const int k_first = k0 + warp + kWarps * (lane / lanes);
    // A's last column, if it is this lane's: loaded first, so that its round trip overlaps the
    // loop's (after the loop it cost short columns a round trip of their own).
    const int kl = g.k - 1;
    const bool last = kl >= k_first && kl < k1 && (kl - k_first) % step == 0 && reads;
    const uint4 rl =
        last ? load_piece_in(base + static_cast<std::int64_t>(kl) * g.lda + V * piece, a_end)
             : make_uint4(0, 0, 0, 0);
    const float xl = last ? L::one(x + static_cast<std::int64_t>(kl) * g.incx) : 0.0f;
    for (int k = k_first; k < k_whole; k += step * kUnroll) {
      uint4 ra[kUnroll];
      float xk[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int kk = k + step * u;
        ra[u] = kk < k_whole && reads
                    ? load_stream(base + static_cast<std::int64_t>(kk) * g.lda + V * piece)
                    : make_uint4(0, 0, 0, 0);
        xk[u] = kk < k_whole ? L::one(x + static_cast<std::int64_t>(kk) * g.incx) : 0.0f;
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) add_piece<E>(acc[0], ra[u], xk[u]);
    }
    add_piece<E>(acc[0], rl, xl);
    add_column_groups(acc[0], lanes);
    staged = min(V * lanes, g.col_rows);
    if (lane < lanes) {
#pragma unroll
      for (int i = 0; i < V; ++i) {
        const int r = first + i;
        if (r >= 0 && r < staged) sums[warp][r] = acc[0][i];
      }
    }
  } else {
    // Lane l: pieces l and l + 32 of each of the warp's columns, kUnroll columns' loads before
    // their FMAs.
    // A's last column, if it is this warp's: loaded first, as above.
    const int kl = g.k - 1;
    const bool last = kl >= k0 + warp && kl < k1 && (kl - k0 - warp) % kWarps == 0;
    uint4 rl[kColPieces];
#pragma unroll
    for (int j = 0; j < kColPieces; ++j) {
      rl[j] = last && V * (lane + 32 * j) - shift < live
                  ? load_piece_in(
                        base + static_cast<std::int64_t>(kl) * g.lda + V * lane + 32 * V * j, a_end)
                  : make_uint4(0, 0, 0, 0);
    }
    const float xl = last ? L::one(x + static_cast<std::int64_t>(kl) * g.incx) : 0.0f;
    for (int k = k0 + warp; k < k_whole; k += kWarps * kUnroll) {
      uint4 ra[kUnroll][kColPieces];
      float xk[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int kk = k + kWarps * u;
        const E* const col = base + static_cast<std::int64_t>(kk) * g.lda + V * lane;
#pragma unroll
        for (int j = 0; j < kColPieces; ++j) {
          ra[u][j] = kk < k_whole && V * (lane + 32 * j) - shift < live
                         ? load_stream(col + 32 * V * j)
                         : make_uint4(0, 0, 0, 0);
        }
        xk[u] = kk < k_whole ? L::one(x + static_cast<std::int64_t>(kk) * g.incx) : 0.0f;
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
        for (int j = 0; j < kColPieces; ++j) add_piece<E>(acc[j], ra[u][j], xk[u]);
      }
    }
#pragma unroll
    for (int j = 0; j < kColPieces; ++j) add_piece<E>(acc[j], rl[j], xl);
    staged = g.col_rows;
#pragma unroll
    for (int j = 0; j < kColPieces; ++j) {
#pragma unroll
      for (int i = 0; i < V; ++i) {
        const int r = V * (lane + 32 * j) - shift + i;
        if (r >= 0 && r < staged) sums[warp][r] = acc[j][i];
      }
    }
  }
  finish_cols<CT, R>(g, sums, staged, live, block_row);
}

// The problem as the kernels see it: N = 1 (an M = 1 problem mirrored).
Problem as_column(const Problem& p) { return p.n == 1 ? p : views::mirrored(p); }

// The kernel's W (q as the kernels see it). Column kernel: the widest of 16, 8 and 4 bytes, at
// least an element, that A's base and pitch align; 0 where none does (16-bit A at an odd pitch).
// Below 16, 16-bit A mostly runs the shifted kernel (cols_shifted). Row kernel: 16 where A's base
// and pitch and x's base are 16-byte aligned and x is contiguous, else 0 (elements, or the staged
// kernel).
int piece_width(const Problem& q, bool rows) {
  if (rows) {
    return strides_of(q.b.layout, q.b.ld).row == 1 && views::aligned(q.a, 16) &&
                   views::aligned(q.b.data, 16)
               ? 16
               : 0;
  }
  const int elem = static_cast<int>(dtype_bytes(q.a.dtype));
  for (int w : {16, 8, 4}) {
    if (w >= elem && views::aligned(q.a, w)) return w;
  }
  return 0;
}

// The staged row kernel's period where it runs (V / gcd(lda, V) rows: 1, 2, 4 or 8), 0 elsewhere.
// It runs on 16-bit A that the row kernel cannot read in 16-byte pieces in place, x contiguous,
// K longer than one round of element loads: there the row kernel read an element a load (two or
// four a piece at pitches of 8 and 4 bytes). fp32 keeps the row kernel's element loop: staged, it
// was faster on some shapes and slower on others, no faster overall (docs/perf-notes.md, "gemv's
// row kernel by shift class").
int staged_period(const Problem& q, bool rows, int w) {
  const int elem = static_cast<int>(dtype_bytes(q.a.dtype));
  if (!rows || w == 16 || elem != 2 || q.k <= 32 * kElemRound ||
      strides_of(q.b.layout, q.b.ld).row != 1) {
    return 0;
  }
  constexpr int v = 8;  // 16-bit elements a piece
  return v / std::gcd(static_cast<int>(q.a.ld % v), v);
}

// Whether the column kernel runs shifted: 16-bit A that 16-byte loads cannot read in place, over a
// K of at least 128 and at least 16 rows. fp32 shifted was no faster than its 8- and 4-byte loads;
// a short K or M ran slower shifted than in place, the pieces' extra rows and a block's smaller
// share of them costing more than the loads saved (docs/perf-notes.md, "gemv's column kernel by
// shift class").
bool cols_shifted(const Problem& q, bool rows, int w) {
  return !rows && w != 16 && dtype_bytes(q.a.dtype) == 2 && q.k >= 128 && q.m >= 16;
}

// The column kernel: shifted, or in place at W bytes a load (W = 0: element loads, in the W = 16
// kernel with g.vec clear).
template <class E, class CT>
auto cols_kernel(int w, bool shifted) {
  if constexpr (sizeof(E) == 2) {
    if (shifted) return &gemv_cols_shifted_kernel<E, CT>;
  }
  return w == 8   ? &gemv_cols_kernel<E, CT, 8>
         : w == 4 ? &gemv_cols_kernel<E, CT, 4>
                  : &gemv_cols_kernel<E, CT, 16>;
}

template <class E, class CT>
auto gemv_kernel(bool rows, int w, int period, bool shifted) {
  if (!rows) return cols_kernel<E, CT>(w, shifted);
  if constexpr (sizeof(E) == 2) {
    if (period > 0) return &gemv_rows_staged_kernel<E, CT>;
  }
  return &gemv_rows_kernel<E, CT>;
}

// The rows a column-kernel block owns: R = 64 V (two 16-byte pieces a lane, a warp on a column)
// where A holds at least 16 MiB over K of at least 512, else 32 (a few lanes on each column, a
// warp step over several columns: 8 (fp32) or 16 (16-bit) times the row blocks, each split fewer
// ways). Measured over M of 33..8192 and K of 240..8192 in bf16 and fp32, R-row blocks on the
// smaller matrices split K so far that the last block's sum of the splits, or a second wave, cost
// more than the longer column reads save (docs/perf-notes.md, "Rung 17's row blocks").
int column_rows(std::int64_t m, std::int64_t k, int elem_bytes, int v) {
  constexpr std::int64_t kLongStream = std::int64_t{16} << 20;
  return k >= 512 && m * k * elem_bytes >= kLongStream ? full_block_rows(v) : kShortBlockRows;
}

bool can_implement_gemv(const Problem& p) {
  if (p.m != 1 && p.n != 1) return false;
  const Problem q = as_column(p);
  return views::dims_fit_int(q) && q.m <= (std::int64_t{1} << 30);
}

template <class E, class CT>
cudaError_t launch_typed(const Problem& p, cudaStream_t stream) {
  constexpr int V = Load<E>::kVec;
  const Problem q = as_column(p);
  GemvArgs g{};
  g.m = static_cast<int>(q.m);
  g.k = static_cast<int>(q.k);
  g.alpha = q.alpha;
  g.beta = q.beta;
  g.a = q.a.data;
  g.lda = q.a.ld;
  g.x = q.b.data;
  g.incx = strides_of(q.b.layout, q.b.ld).row;
  g.y = q.c.data;
  g.incy = strides_of(q.c.layout, q.c.ld).row;
  const bool rows = views::a_k_contiguous(q);
  const int w = piece_width(q, rows);  // the kernel's load width
  const int period = staged_period(q, rows, w);
  g.vec = w > 0;
  g.period = period;
  // Row-major: a warp per row, splits of at least one unrolled round of vectors per lane, whole
  // lane-rounds; column-major: a block per col_rows rows, splits of at most one unrolled round of
  // columns per warp where they fit, and few enough that each thread of the last block to
  // arrive adds at most kMaxColSum 16-byte pieces of partial sums (its row block's rows inside
  // M, in 4-row pieces, over 256 threads; with a split per 8 blocks per SM that sum took longer
  // than the stream on mid-sized matrices), unless that leaves fewer than 2 blocks per SM (few
  // row blocks: the stream then lost more than the sum saved).
  constexpr std::int64_t kMaxColSum = 16;
  // The shifted column kernel's pieces span V rows more than its blocks own.
  const bool shifted = cols_shifted(q, rows, w);
  const int col_rows = rows ? 0 : column_rows(q.m, q.k, sizeof(E), V) - (shifted ? V : 0);
  g.col_rows = col_rows;
  // Staged row kernel: each group of 8 period rows is `period` blocks, one a shift.
  const std::int64_t tiles = period > 0 ? ceil_div(q.m, kWarps * period) * period
                             : rows     ? ceil_div(q.m, kWarps)
                                        : ceil_div(q.m, col_rows);
  // The column kernel's first row block: its rows inside M.
  const std::int64_t block_rows = std::min<std::int64_t>(q.m, col_rows);
  // A short M's warp step covers 32 / column_lanes columns: a round is kUnroll steps of them.
  const int block_lanes = column_lanes(block_rows + (shifted ? V - 1 : 0), V);
  const std::int64_t col_round = kUnroll * kWarps * (32 / block_lanes);
  const auto kernel = gemv_kernel<E, CT>(rows, w, period, shifted);
  const int wi = shifted ? 3 : w == 8 ? 1 : w == 4 ? 2 : 0;  // the column kernel's instance
  // Row kernel: enough splits for 8 blocks an SM, the count rounded up (planned for the blocks
  // resident, rounded down, it measured no faster: docs/perf-notes.md, "Rung 17's split: one
  // wave"). Column kernel: splits until one wave of its resident blocks is full, the count
  // rounded down (its registers leave room for fewer than 8 blocks of 256 threads on an SM, and
  // a split planned for 8 ran a partial second wave as long as the first), at most col_cap, and
  // at most one a round of columns, counted up (a split of a round and a few columns more spent
  // a second round trip of loads on those few); a K of under two rounds stays whole.
  stream::Split sp;
  if (rows) {
    sp = stream::plan_split(tiles, q.k, 32 * V, kUnroll * 32LL * V, 8);
  } else {
    static runtime::PerDeviceCount resident[4];
    const int per_sm =
        runtime::resident_blocks(reinterpret_cast<const void*>(kernel), kThreads, resident[wi]);
    const std::int64_t wave = std::int64_t{per_sm} * runtime::sm_count() / tiles;
    const std::int64_t rounds = q.k >= 2 * col_round ? ceil_div(q.k, col_round) : 1;
    const std::int64_t col_groups = ceil_div(block_rows, 4);
    const std::int64_t col_cap =
        std::max(kMaxColSum * kThreads / col_groups, ceil_div(2LL * runtime::sm_count(), tiles));
    sp = stream::split_k_in(std::min({wave, col_cap, rounds}), q.k, kWarps, kWarps);
  }
  // A short column's splits (the column kernel's, at most 16 V rows) as one cluster where they
  // fit one as planned; elsewhere the cluster measured no faster, or slower: the row kernel, full
  // row blocks, splits cut to a cluster's size (docs/perf-notes.md, "Split K in a cluster").
  static cluster::ClusterFit cols_fit[4];
  const bool clustered =
      !rows && block_lanes < 32 &&
      cluster::plan(sp, tiles, q.k, kWarps, col_round, 1, reinterpret_cast<const void*>(kernel),
                    kThreads, cols_fit[wi]);
  g.clustered = clustered ? 1 : 0;
  g.k_chunk = sp.k_chunk;
  // Partial sums: splits x M for the row kernel, a run of a block's rows per split and row block
  // for the column kernel.
  const std::int64_t outputs = rows ? q.m : tiles * col_rows;
  if (!clustered) {
    if (cudaError_t err = stream::partial_sums(sp, outputs, tiles, stream, &g.partial, &g.counters);
        err != cudaSuccess) {
      return err;
    }
  }
  const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(sp.splits));
  return cluster::launch(kernel, grid, kThreads, stream, clustered, g);
}

cudaError_t launch_gemv(const Problem& p, cudaStream_t stream) {
  return with_types(p.types(), [&](auto e, auto ct) {
    return launch_typed<typename decltype(e)::type, typename decltype(ct)::type>(p, stream);
  });
}

const void* device_function_gemv(const Problem& p) {
  const Problem q = as_column(p);
  const bool rows = views::a_k_contiguous(q);
  const int w = piece_width(q, rows);
  return with_types(p.types(), [&](auto e, auto ct) {
    using E = typename decltype(e)::type;
    using CT = typename decltype(ct)::type;
    return kernel_address(
        gemv_kernel<E, CT>(rows, w, staged_period(q, rows, w), cols_shifted(q, rows, w)));
  });
}

}  // namespace

void register_gemv(Registry& r) {
  KernelInfo k;
  k.name = "gemv";
  k.family = "gemv";
  k.rung = 17;
  k.tile = TileConfig{};
  k.tile.bm = kWarps;  // row-major A: a warp per row (column-major A: 32 x 16 bytes of rows)
  k.tile.bn = 1;
  k.tile.threads = kThreads;
  k.desc = simt_f32_desc(1, 1, 1, kMinBuiltCc);  // 16-byte loads where aligned, else elements
  k.desc.types = every_type_combination();
  k.desc.split_k = true;
  k.summary =
      "M = 1 or N = 1: the matrix streamed once with 16-byte loads, a warp per row (K "
      "contiguous) or 16 bytes of rows per lane (M contiguous; a short column takes only the "
      "lanes its rows need, several columns a warp step), K split over blocks when the rows are "
      "too few, added in split order through shared memory where a short column's splits are "
      "one thread-block cluster, else by the last block of each row block (one launch, "
      "deterministic); every type, fp32 accumulation";
  k.can_implement = can_implement_gemv;
  k.launch = launch_gemv;
  k.device_function = device_function_for(k.can_implement, device_function_gemv);
  r.push_back(std::move(k));
}

}  // namespace tilegemm::kernels
