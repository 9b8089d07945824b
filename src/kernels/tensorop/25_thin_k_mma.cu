// Rung 25: thin K (K up to 64) for 16-bit operands on the tensor cores, at any pitch and
// alignment, in one launch; its strip walk also for fp32 and tf32 (K up to 32, three tf32
// products).
//
// Rung 19 (thin_k) computes thin K on the CUDA cores, whose FMA rate bounds it from K of about
// 16; the wgmma tiles need tensor maps (16-byte pitches), so an odd pitch took rung 16's copies:
// a second launch, and an epilogue whose staged stores go only as wide as C's pitch allows (an
// odd ldc: one element at a time). docs/perf-notes.md, "Rung 25", has the floor and the runs.
// Idea: C is the cost, so a block spends its time on one write of a 128-column strip of C:
//  - A's BM x K and B's K x 128 slices are read element by element through the operands'
//    strides (any layout, pitch and base; consecutive threads along the contiguous dimension)
//    into shared memory, K-contiguous, zero past K up to a whole number of 16-k steps.
//  - mma.sync m16n8k16 (fp32 accumulation) from ldmatrix fragments: at most 4 k-steps, one
//    instance per k-step count so that every loop has a fixed trip count.
//  - The epilogue stages alpha * acc in C's type with each row shifted by its own offset from a
//    16-byte boundary of C, so that every 16 bytes of C is a 16-byte aligned run of the staged
//    row whatever ldc is. On sm_90 each row's aligned middle leaves as one bulk copy (the TMA
//    engine, no tensor map), before it as 16-byte stores; only the cut ends of a row are written
//    element by element. beta != 0 stages fp32 and reads C in the same pieces; beta = 0 never
//    reads it.
//  - C is made row-major first (a column-major C is computed as its mirror, C^T = B^T A^T).
// Two instances: a 64 x 128 tile per block (a 128 x 128 one measured slower on the odd-pitch
// shapes `auto` sends here: docs/perf-notes.md, "Rung 25"), and a strip walk for a large C
// (namespace strip below): a block keeps B's slice for 512 columns and writes them 16 rows at a
// time, rows of 1 KiB of a 16-bit C, which leave faster than the tile's 256-byte rows
// (docs/perf-notes.md, "Rung 25's strip walk").
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <type_traits>

#include "../common.cuh"
#include "../families.hpp"
#include "../tensor_common.cuh"
#include "mma_sync.cuh"

namespace tilegemm::kernels {
namespace {

using mma_sync::Bf16Op;
using mma_sync::F16Op;
using mma_sync::Tf32Op;
using mma_sync::ldsm_x4;
using mma_sync::opaque;

constexpr int kThreads = 256;
constexpr int kWarpsM = 2;  // warps along M; 4 along N, each 32 columns
constexpr int kWarpsN = 4;
constexpr int BM = 64;  // C rows per block
constexpr int BN = 128;
constexpr int kWarpM = BM / kWarpsM;   // rows per warp
constexpr int kMf = kWarpM / 16;       // m16 fragments per warp
constexpr int kNf = BN / kWarpsN / 8;  // n8 fragments per warp
constexpr int kMaxK = 64;              // the family's bound (4 mma k-steps)
constexpr int kLine = kMaxK + 8;       // a slice line: 144 bytes, 9 chunks (ldmatrix: 8 groups)
constexpr int kStageLine = BN + 12;    // a staged row of fp32: room for the 0..7 shift, 16B rows
constexpr int kSliceBytes = (BM + BN) * kLine * 2;
constexpr int kStageBytes = BM * kStageLine * 4;  // beta != 0: the tile staged as fp32
constexpr int kSmemBytes = kSliceBytes > kStageBytes ? kSliceBytes : kStageBytes;
constexpr int kMinBlocks = 4;  // at most 64 registers a thread

// K values per mma k-step: m16n8k16 for 16-bit elements, m16n8k8 for tf32 (32-bit storage).
template <class T>
constexpr int kStepK = sizeof(T) == 2 ? 16 : 8;

// One operand's X x K slice (X rows of A, or X columns of B), into s[x * Line + k] as storage
// bits T (16-bit, or the 32-bit fp32 of the tf32 instances), zero past K up to KP = kStepK<T> KS
// and past `rows` (the rows left in the problem): element (x, k) of the operand is at
// base[x * sx + k * sk]. Consecutive lanes walk the operand's contiguous dimension; every load of
// a thread is issued before its stores (fixed trip counts, sized by KS). Offsets from base are
// 32-bit (can_implement bounds the leading dimensions): 64-bit address arithmetic per load had
// made the stage instruction-bound.
template <int X, int KS, int Line = kLine, class T = std::uint16_t>
__device__ __forceinline__ void stage_slice(T* s, const T* base, int sx, int sk, int rows, int k,
                                            int warp, int lane) {
  constexpr int kWarps = kThreads / 32;
  constexpr int KP = kStepK<T> * KS;
  opaque(base);
  if (sk == 1) {
    // K-contiguous: lanes along k, a warp on kLanesPerLine-lane pieces of 32 / kLanesPerLine
    // lines at once (two lines of 16 k where KP <= 16, else one line in passes of 32 k).
    constexpr int kLanesPerLine = KP <= 16 ? 16 : 32;
    constexpr int kLinesAtOnce = 32 / kLanesPerLine;
    constexpr int kSteps = X / kWarps / kLinesAtOnce;
    constexpr int kHalves = KP > 32 ? 2 : 1;
    const int kk0 = lane % kLanesPerLine;
    const int x0 = warp + kWarps * (lane / kLanesPerLine);
    T v[kSteps][kHalves];
#pragma unroll
    for (int i = 0; i < kSteps; ++i) {
      const int x = x0 + kWarps * kLinesAtOnce * i;
#pragma unroll
      for (int h = 0; h < kHalves; ++h) {
        const int kk = kk0 + 32 * h;
        v[i][h] = x < rows && kk < k ? __ldg(base + (x * sx + kk)) : T{0};
      }
    }
#pragma unroll
    for (int i = 0; i < kSteps; ++i) {
#pragma unroll
      for (int h = 0; h < kHalves; ++h) {
        const int kk = kk0 + 32 * h;
        if (kk < KP) s[(x0 + kWarps * kLinesAtOnce * i) * Line + kk] = v[i][h];
      }
    }
  } else if constexpr (sizeof(T) == 2) {
    // X-contiguous: a warp per pair of k (KS pairs per warp cover KP), lanes along x; each pair
    // is one 32-bit shared store.
    constexpr int kPerLane = X / 32;
    std::uint32_t v[KS][kPerLane];
#pragma unroll
    for (int j = 0; j < KS; ++j) {
      const int kk = 2 * (warp + kWarps * j);
#pragma unroll
      for (int i = 0; i < kPerLane; ++i) {
        const int x = lane + 32 * i;
        const int off = x * sx + kk * sk;
        const std::uint32_t lo = x < rows && kk < k ? __ldg(base + off) : 0u;
        const std::uint32_t hi = x < rows && kk + 1 < k ? __ldg(base + (off + sk)) : 0u;
        v[j][i] = lo | (hi << 16);
      }
    }
#pragma unroll
    for (int j = 0; j < KS; ++j) {
#pragma unroll
      for (int i = 0; i < kPerLane; ++i) {
        *reinterpret_cast<std::uint32_t*>(s + (lane + 32 * i) * Line + 2 * (warp + kWarps * j)) =
            v[j][i];
      }
    }
  } else {
    // X-contiguous 32-bit elements: a warp per k (KS of them per warp cover KP), lanes along x.
    constexpr int kPerLane = X / 32;
    T v[KS][kPerLane];
#pragma unroll
    for (int j = 0; j < KS; ++j) {
      const int kk = warp + kWarps * j;
#pragma unroll
      for (int i = 0; i < kPerLane; ++i) {
        const int x = lane + 32 * i;
        v[j][i] = x < rows && kk < k ? __ldg(base + (x * sx + kk * sk)) : T{0};
      }
    }
#pragma unroll
    for (int j = 0; j < KS; ++j) {
#pragma unroll
      for (int i = 0; i < kPerLane; ++i) s[(lane + 32 * i) * Line + warp + kWarps * j] = v[j][i];
    }
  }
}

// How many elements p lies past a 16-byte boundary.
template <class CT>
__device__ __forceinline__ int shift_of(const CT* p) {
  return static_cast<int>(reinterpret_cast<std::uintptr_t>(p) % 16) /
         static_cast<int>(sizeof(CT));
}

// How many elements row `row` of C, from column n0, lies past a 16-byte boundary: the address
// modulo 16 in 32-bit arithmetic (only its low bits matter).
template <class CT>
__device__ __forceinline__ int row_shift(const CT* c, std::int64_t ldc, int row, int n0) {
  const auto base = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(c));
  const std::uint32_t offset =
      (static_cast<std::uint32_t>(row) * static_cast<std::uint32_t>(ldc) +
       static_cast<std::uint32_t>(n0)) *
      static_cast<std::uint32_t>(sizeof(CT));
  return static_cast<int>((base + offset) % 16 / sizeof(CT));
}

// Staging of two consecutive outputs x, y of C's type at p, which is aligned to one element
// only (the row's shift): converted as a pair (a 16-bit pair by one packing conversion), then
// stored as two elements.
template <class CT>
__device__ __forceinline__ void stage_pair(CT* p, float x, float y) {
  alignas(2 * sizeof(CT)) CT pair[2];
  OutC<CT>::store2(pair, x, y);
  p[0] = pair[0];
  p[1] = pair[1];
}

// Word i of a 16-byte value (i known at compile time after unrolling).
__device__ __forceinline__ std::uint32_t word_of(const uint4& v, int i) {
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

// The 16 bytes v of a staged row, into C's row c_row at columns first .. first + kEpc - 1: one
// 16-byte store where the piece lies whole within columns 0 .. cols - 1 (then 16-byte aligned in
// C: the staging put it there), else its elements within them one by one.
template <class CT>
__device__ __forceinline__ void store_piece(CT* c_row, int first, int cols, const uint4& v) {
  constexpr int kEpc = 16 / static_cast<int>(sizeof(CT));
  if (first >= 0 && first + kEpc <= cols) {
    *reinterpret_cast<uint4*>(c_row + first) = v;
    return;
  }
#pragma unroll
  for (int e = 0; e < kEpc; ++e) {
    const int col = first + e;
    if (col < 0 || col >= cols) continue;
    const std::uint32_t word = word_of(v, e * static_cast<int>(sizeof(CT)) / 4);
    if constexpr (sizeof(CT) == 2) {
      *reinterpret_cast<std::uint16_t*>(c_row + col) =
          static_cast<std::uint16_t>(word >> (16 * (e % 2)));
    } else {
      *reinterpret_cast<std::uint32_t*>(c_row + col) = word;
    }
  }
}

// beta != 0: the 16 bytes of C at p, alpha * acc read from a 16-byte aligned run of kEpc staged
// fp32 values, plus beta times C as it was, rounded once to C's type.
template <class CT>
struct Chunk {
  static constexpr int kEpc = 16 / static_cast<int>(sizeof(CT));
  __device__ __forceinline__ static void store(CT* p, const float* staged, float beta) {
    float v[kEpc];
#pragma unroll
    for (int i = 0; i < kEpc; i += 4) {
      const float4 f = *reinterpret_cast<const float4*>(staged + i);
      v[i] = f.x;
      v[i + 1] = f.y;
      v[i + 2] = f.z;
      v[i + 3] = f.w;
    }
    const uint4 old_bits = *reinterpret_cast<const uint4*>(p);
    std::uint32_t w[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const std::uint32_t ow = word_of(old_bits, i);
      if constexpr (sizeof(CT) == 2) {
        const float lo = fmaf(beta, value_of_bits<CT>(ow & 0xffffu), v[2 * i]);
        const float hi = fmaf(beta, value_of_bits<CT>(ow >> 16), v[2 * i + 1]);
        w[i] = bits_of_value<CT>(lo) | (static_cast<std::uint32_t>(bits_of_value<CT>(hi)) << 16);
      } else {
        w[i] = __float_as_uint(fmaf(beta, __uint_as_float(ow), v[i]));
      }
    }
    *reinterpret_cast<uint4*>(p) = make_uint4(w[0], w[1], w[2], w[3]);
  }
};

// Calls f(row, col, x, y) for each pair of accumulators a thread holds: alpha times C's elements
// (row, col) and (row, col + 1) of the block tile (mma.sync's m16n8 layout: lane / 4 picks the
// row within 8, lane % 4 the column pair).
template <class Acc, class F>
__device__ __forceinline__ void for_each_pair(const Acc& acc, float alpha, int warp, int lane,
                                              F&& f) {
  const int wm = warp / kWarpsN;
  const int wn = warp % kWarpsN;
#pragma unroll
  for (int i = 0; i < kMf; ++i) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = kWarpM * wm + 16 * i + 8 * h + lane / 4;
#pragma unroll
      for (int j = 0; j < kNf; ++j) {
        f(row, 32 * wn + 8 * j + 2 * (lane % 4), alpha * acc[i][j][2 * h],
          alpha * acc[i][j][2 * h + 1]);
      }
    }
  }
}

// beta = 0: the tile is staged in C's type, row r shifted by its own offset s(r) (in elements)
// from a 16-byte boundary of C, column j at j + s(r), so that each 16 bytes of C is a 16-byte
// aligned chunk of the staged row (rows of BN + 16 / sizeof(CT) elements: room for the shift,
// and the element pairs of 8 rows land in different banks). An element pair goes in as one
// shared store where the shift keeps it aligned, else as two. On sm_90 each row then leaves as a
// bulk copy of its whole 16-byte pieces and its cut ends element by element (below); before it,
// a warp takes rows warp, warp + 8, ...; lane q (and q + 32 for fp32 C) writes piece q of the
// row, columns q kEpc - s .. + kEpc - 1, as one 16-byte store, the pieces the tile's edges cut
// (the first and last of a shifted row, columns past N) element by element.
template <class CT, class Acc>
__device__ __forceinline__ void store_tile(const Acc& acc, unsigned char* smem, CT* c,
                                           const StridedProblem& g, int m0, int n0, int warp,
                                           int lane) {
  constexpr int kEpc = 16 / static_cast<int>(sizeof(CT));
  constexpr int kRowBytes = BN * static_cast<int>(sizeof(CT)) + 16;
  for_each_pair(acc, g.alpha, warp, lane, [&](int row, int col, float x, float y) {
    const int sh = shift_of(c + static_cast<std::int64_t>(m0 + row) * g.ldc + n0);
    CT* const line = reinterpret_cast<CT*>(smem + row * kRowBytes) + sh;
    if (sh % 2 == 0) {
      OutC<CT>::store2(line + col, x, y);
    } else {
      OutC<CT>::store1(line + col, x);
      OutC<CT>::store1(line + col + 1, y);
    }
  });
  const int cols = min(BN, g.n - n0);
  const int rows = min(BM, g.m - m0);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // sm_90: each row's 16-byte aligned middle leaves as one bulk copy (the TMA engine reads the
  // staged row: no loads and stores of it by the threads), issued by one lane per row; the
  // elements before its first and after its last 16-byte boundary by the warp's lanes.
  constexpr int kRowsPerWarp = BM / (kThreads / 32);
  constexpr int kEnds = 2 * (kEpc - 1);  // at most kEpc - 1 elements at each end of a row
  fence_proxy_async_smem();  // the staging writes, before the bulk copies read them
  __syncthreads();
  // The row's head (elements before its first 16-byte boundary) and body (whole 16 bytes).
  const auto split = [&](int row, CT*& c_row, int& head, int& body) {
    c_row = c + static_cast<std::int64_t>(m0 + row) * g.ldc + n0;
    head = min((kEpc - shift_of(c_row)) % kEpc, cols);
    body = (cols - head) / kEpc * kEpc;
  };
  const int first_row = kRowsPerWarp * warp;
  if (lane < kRowsPerWarp && first_row + lane < rows) {
    CT* c_row;
    int head, body;
    split(first_row + lane, c_row, head, body);
    if (body > 0) {
      // the body starts at staged element head + shift: 0, or kEpc where the row is shifted
      const int staged = head == 0 ? 0 : 16;
      bulk_store(c_row + head, smem_addr(smem + (first_row + lane) * kRowBytes + staged),
                 body * static_cast<int>(sizeof(CT)));
      bulk_commit();
    }
  }
#pragma unroll
  for (int item = lane; item < kRowsPerWarp * kEnds; item += 32) {
    const int row = first_row + item / kEnds;
    const int e = item % kEnds;
    if (row >= rows) continue;
    CT* c_row;
    int head, body;
    split(row, c_row, head, body);
    const int col = e < kEpc - 1 ? e : head + body + (e - (kEpc - 1));
    if (col >= cols || (e < kEpc - 1 && col >= head)) continue;
    const CT* const line = reinterpret_cast<const CT*>(smem + row * kRowBytes);
    c_row[col] = line[col + shift_of(c_row)];
  }
  if (lane < kRowsPerWarp) bulk_wait_read_all();  // the staged rows outlive the copies' reads
#else
  constexpr int kPieces = BN / kEpc + 1;
  __syncthreads();
  CT* c_row = c + static_cast<std::int64_t>(m0 + warp) * g.ldc + n0;
  const std::int64_t row_step = static_cast<std::int64_t>(kThreads / 32) * g.ldc;
  for (int row = warp; row < rows; row += kThreads / 32, c_row += row_step) {
    const int sh = shift_of(c_row);
#pragma unroll
    for (int q = lane; q < kPieces; q += 32) {
      const int first = q * kEpc - sh;  // the piece's first column (may be negative)
      if (first >= cols) continue;
      store_piece(c_row, first, cols,
                  *reinterpret_cast<const uint4*>(smem + row * kRowBytes + 16 * q));
    }
  }
#endif
}

// beta != 0: alpha * acc staged in fp32, so that beta * C is added before the one rounding to
// C's type. Row r is staged shifted by its own offset s(r) from a 16-byte boundary of C, column j
// at j + s(r), so that each 16 bytes of C is a 16-byte aligned run of the staged row; a warp takes
// rows warp, warp + 8, ..., its lanes consecutive pieces, each read from C, added and written
// back as one 16-byte access (the cut pieces element by element).
template <class CT, class Acc>
__device__ __forceinline__ void store_tile_beta(const Acc& acc, float* stage, CT* c,
                                                const StridedProblem& g, int m0, int n0,
                                                int warp, int lane) {
  constexpr int kEpc = Chunk<CT>::kEpc;
  for_each_pair(acc, g.alpha, warp, lane, [&](int row, int col, float x, float y) {
    float* const line =
        stage + row * kStageLine + shift_of(c + static_cast<std::int64_t>(m0 + row) * g.ldc + n0);
    line[col] = x;
    line[col + 1] = y;
  });
  __syncthreads();

  constexpr int kPieces = BN / kEpc + 1;
  const int cols = min(BN, g.n - n0);
  const int rows = min(BM, g.m - m0);
  CT* c_row = c + static_cast<std::int64_t>(m0 + warp) * g.ldc + n0;
  const std::int64_t row_step = static_cast<std::int64_t>(kThreads / 32) * g.ldc;
  for (int row = warp; row < rows; row += kThreads / 32, c_row += row_step) {
    const int s = shift_of(c_row);
#pragma unroll
    for (int q = lane; q < kPieces; q += 32) {
      const int first = q * kEpc - s;  // the piece's first column (may be negative)
      const float* const staged = stage + row * kStageLine + q * kEpc;
      if (first >= 0 && first + kEpc <= cols) {
        Chunk<CT>::store(c_row + first, staged, g.beta);
        continue;
      }
#pragma unroll
      for (int e = 0; e < kEpc; ++e) {
        const int col = first + e;
        if (col < 0 || col >= cols) continue;
        OutC<CT>::store1(c_row + col, fmaf(g.beta, OutC<CT>::load1(c_row + col), staged[e]));
      }
    }
  }
}

// Block (blockIdx.y, blockIdx.x) writes C rows BM blockIdx.y .. + BM - 1, columns 128
// blockIdx.x .. + 127. Warp (wm, wn) computes rows kWarpM wm .., columns 32 wn .. of the tile.
template <class Op, class E, class CT, int KS>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    thin_k_mma_kernel(const StridedProblem g) {
  extern __shared__ __align__(16) unsigned char smem[];
  std::uint16_t* const a_s = reinterpret_cast<std::uint16_t*>(smem);
  std::uint16_t* const b_s = a_s + BM * kLine;
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / 32;
  const int lane = tid % 32;
  const int m0 = static_cast<int>(blockIdx.y) * BM;
  const int n0 = static_cast<int>(blockIdx.x) * BN;

  const std::uint16_t* const a = static_cast<const std::uint16_t*>(g.a);
  const std::uint16_t* const b = static_cast<const std::uint16_t*>(g.b);
  stage_slice<BM, KS>(a_s, a + m0 * g.a_m, static_cast<int>(g.a_m), static_cast<int>(g.a_k),
                      g.m - m0, g.k, warp, lane);
  stage_slice<BN, KS>(b_s, b + n0 * g.b_n, static_cast<int>(g.b_n), static_cast<int>(g.b_k),
                      g.n - n0, g.k, warp, lane);
  __syncthreads();

  const int wm = warp / kWarpsN;
  const int wn = warp % kWarpsN;
  float acc[kMf][kNf][4] = {};
  // ldmatrix addresses: A matrix j = lane / 8 is (rows 8 (j % 2) .., k 8 (j / 2) ..); B matrix j
  // is (columns 8 (j / 2) .., k 8 (j % 2) ..), two n8 fragments per x4.
  const std::uint32_t a_base =
      smem_addr(a_s + (kWarpM * wm + lane % 16) * kLine + 8 * (lane / 16));
  const std::uint32_t b_base =
      smem_addr(b_s + (32 * wn + 8 * (lane / 16) + lane % 8) * kLine + 8 * ((lane / 8) % 2));
#pragma unroll
  for (int ks = 0; ks < KS; ++ks) {
    std::uint32_t af[kMf][4];
    std::uint32_t bf[kNf / 2][4];
#pragma unroll
    for (int f = 0; f < kMf; ++f) ldsm_x4(af[f], a_base + 2 * (16 * f * kLine + 16 * ks));
#pragma unroll
    for (int f = 0; f < kNf / 2; ++f) ldsm_x4(bf[f], b_base + 2 * (16 * f * kLine + 16 * ks));
#pragma unroll
    for (int i = 0; i < kMf; ++i) {
#pragma unroll
      for (int j = 0; j < kNf; ++j) {
        const std::uint32_t bj[2] = {bf[j / 2][2 * (j % 2)], bf[j / 2][2 * (j % 2) + 1]};
        Op::mma(acc[i][j], af[i], bj);
      }
    }
  }

  __syncthreads();  // the slices are read
  CT* const c = static_cast<CT*>(g.c);
  if (g.beta == 0.0f) {
    store_tile<CT>(acc, smem, c, g, m0, n0, warp, lane);
  } else {
    store_tile_beta<CT>(acc, reinterpret_cast<float*>(smem), c, g, m0, n0, warp, lane);
  }
}

// ---- The strip walk: 16 x 512 steps of C, B's slice read once per block -------------------------
// The 64 x 128 tile writes C in rows of 256 bytes (of a 16-bit C), and the rate at which such
// pieces leave is well under a memset's; rows of 1 KiB write near it (docs/perf-notes.md, "What
// sets the write rate of C"). A block of this instance owns a strip of 512 columns of C: it
// reads B's K x 512 slice once into shared memory, then walks the strip's 16-row steps
// (step blockIdx.y, + gridDim.y, ...: at any moment the grid writes one band of whole rows of
// C), reading each step's 16 x K rows of A a step ahead into registers. Each warp computes 16 x 64
// of the step; the step is staged at each row's shift from a 16-byte boundary and written in
// 16-byte pieces by all threads, consecutive threads along a row.
namespace strip {

constexpr int kRows = 16;                          // C rows per step
constexpr int kCols = 512;                         // C columns per strip (per block)
constexpr int kWarpCols = kCols / (kThreads / 32);  // 64: columns per warp
constexpr int kNf = kWarpCols / 8;                  // n8 fragments per warp
constexpr int kMaxBlocks = 3;                       // at most 85 registers a thread

// Shared memory of the instance with storage type T, C type CT and KS k-steps: B's slice (512
// lines), two buffers of A's 16 rows, one staged step. A line of 32 KS + 16 bytes (16 KS + 8
// 16-bit elements, 8 KS + 4 fp32) keeps ldmatrix's eight 16-byte rows in distinct banks at every
// KS; the byte geometry is the same for both storage sizes (a k-step is 32 bytes of a line).
template <class T, class CT, int KS>
struct Smem {
  static constexpr int kLine = (32 * KS + 16) / static_cast<int>(sizeof(T));
  static constexpr int kBBytes = kCols * kLine * static_cast<int>(sizeof(T));
  static constexpr int kABytes = kRows * kLine * static_cast<int>(sizeof(T));
  static constexpr int kRowBytes = kCols * static_cast<int>(sizeof(CT)) + 16;
  static constexpr int kBytes = kBBytes + 2 * kABytes + kRows * kRowBytes;
  // Blocks one SM holds by shared memory (227 KiB, 1 KiB reserved per block), at most kMaxBlocks
  // (the launch bounds: registers for that many).
  static constexpr int kBlocksPerSm =
      (227 * 1024) / (kBytes + 1024) < kMaxBlocks ? (227 * 1024) / (kBytes + 1024) : kMaxBlocks;
};

// A step's 16 x K rows of A, loaded into registers (16 KP elements: KS a thread for 16-bit
// elements, KS / 2 rounded up for fp32) and stored into s[x * Line + k], zero past K up to
// KP = kStepK<T> KS and past `rows`. Consecutive threads walk A's contiguous dimension.
template <class T, int KS, int Line>
struct ARows {
  static constexpr int KP = kStepK<T> * KS;
  static constexpr int kPer = (kRows * KP + kThreads - 1) / kThreads;
  T v[kPer];
  __device__ __forceinline__ static void place(int idx, bool k_contiguous, int& x, int& kk) {
    x = k_contiguous ? idx / KP : idx % kRows;
    kk = k_contiguous ? idx % KP : idx / kRows;
  }
  __device__ __forceinline__ void load(const T* base, int sx, int sk, int rows, int k, int tid) {
    opaque(base);
#pragma unroll
    for (int i = 0; i < kPer; ++i) {
      const int idx = tid + kThreads * i;
      int x, kk;
      place(idx, sk == 1, x, kk);
      const bool in = idx < kRows * KP && x < rows && kk < k;
      v[i] = in ? __ldg(base + (x * sx + kk * sk)) : T{0};
    }
  }
  __device__ __forceinline__ void store(T* s, bool k_contiguous, int tid) const {
#pragma unroll
    for (int i = 0; i < kPer; ++i) {
      const int idx = tid + kThreads * i;
      int x, kk;
      place(idx, k_contiguous, x, kk);
      if (idx < kRows * KP) s[x * Line + kk] = v[i];
    }
  }
};

// fp32 as three tf32 products (fp32 storage, the tf32 instances): x = big + small with big =
// tf32(x) and small = tf32(x - big), and a b ~ a_small b_big + a_big b_small + a_big b_big, the
// small terms first (rung 22's split, on mma.sync m16n8k8), on the fragments' fp32 bit patterns.
// Unlike tensor_common.cuh's split_tf32, nothing here guards the edges: a finite x whose tf32
// rounding overflows (|x| within half a tf32 ulp of the largest float) gives a NaN product where
// rung 22 keeps its truncation. Those guards, in this loop that splits every fragment value,
// made the walk 27-53% slower on an H100 (docs/perf-notes.md, "Review of rungs 25 and 27").
__device__ __forceinline__ void split_bits(std::uint32_t x, std::uint32_t& big,
                                           std::uint32_t& small) {
  big = mma_sync::to_tf32(x);
  small = mma_sync::to_tf32(__float_as_uint(__uint_as_float(x) - __uint_as_float(big)));
}
__device__ __forceinline__ void mma_3xtf32(float (&d)[4], const std::uint32_t (&a_big)[4],
                                           const std::uint32_t (&a_small)[4],
                                           const std::uint32_t (&b)[2]) {
  std::uint32_t b_big[2], b_small[2];
  split_bits(b[0], b_big[0], b_small[0]);
  split_bits(b[1], b_big[1], b_small[1]);
  Tf32Op::mma(d, a_small, b_big);
  Tf32Op::mma(d, a_big, b_small);
  Tf32Op::mma(d, a_big, b_big);
}

// Block (blockIdx.y, blockIdx.x) writes C columns 512 blockIdx.x .. + 511, rows 16 t .. + 15
// for t = blockIdx.y, blockIdx.y + gridDim.y, ...; warp w computes columns 64 w .. + 63 of each
// step. beta != 0 reads C at the accumulators' own places before the staging (one rounding).
template <class Op, class T, class CT, int KS>
__global__ void __launch_bounds__(kThreads, Smem<T, CT, KS>::kBlocksPerSm)
    thin_k_strip_kernel(const StridedProblem g) {
  using S = Smem<T, CT, KS>;
  constexpr int kLine = S::kLine;
  constexpr int kEpc = 16 / static_cast<int>(sizeof(CT));
  constexpr int kPieces = kCols / kEpc + 1;  // 16-byte pieces of a staged row (with its shift)
  extern __shared__ __align__(16) unsigned char smem[];
  T* const b_s = reinterpret_cast<T*>(smem);
  T* const a_s = reinterpret_cast<T*>(smem + S::kBBytes);
  unsigned char* const stage = smem + S::kBBytes + 2 * S::kABytes;
  constexpr int kChunk = 16 / static_cast<int>(sizeof(T));  // elements in 16 bytes
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / 32;
  const int lane = tid % 32;
  const int n0 = static_cast<int>(blockIdx.x) * kCols;
  const int cols = min(kCols, g.n - n0);
  const int steps = (g.m + kRows - 1) / kRows;
  const int stride = static_cast<int>(gridDim.y);
  const bool a_k_contiguous = g.a_k == 1;
  const T* const a = static_cast<const T*>(g.a);
  const T* const b = static_cast<const T*>(g.b);
  const auto a_rows = [&](int t) { return a + static_cast<std::int64_t>(kRows) * t * g.a_m; };

  int t = static_cast<int>(blockIdx.y);
  ARows<T, KS, kLine> next;
  next.load(a_rows(t), static_cast<int>(g.a_m), static_cast<int>(g.a_k), g.m - kRows * t, g.k,
            tid);
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int x0 = n0 + 256 * half;
    stage_slice<256, KS, kLine, T>(b_s + 256 * half * kLine, b + x0 * g.b_n,
                                static_cast<int>(g.b_n), static_cast<int>(g.b_k), g.n - x0, g.k,
                                warp, lane);
  }
  next.store(a_s, a_k_contiguous, tid);
  __syncthreads();

  // ldmatrix addresses (as the 64 x 128 tile's): A's matrix j = lane / 8 is rows 8 (j % 2) ..,
  // k 8 (j / 2) ..; B's is columns 8 (j / 2) .., k 8 (j % 2) .., two n8 fragments per x4.
  // A k-step is 32 bytes of a line in both storage sizes; an 8-row ldmatrix matrix 16 bytes.
  const std::uint32_t a_base = smem_addr(a_s + (lane % 16) * kLine + kChunk * (lane / 16));
  const std::uint32_t b_base = smem_addr(
      b_s + (kWarpCols * warp + 8 * (lane / 16) + lane % 8) * kLine + kChunk * ((lane / 8) % 2));
  constexpr int kLineBytes = kLine * static_cast<int>(sizeof(T));
  CT* const c = static_cast<CT*>(g.c);
  int buf = 0;
  for (; t < steps; t += stride, buf ^= 1) {
    const int m0 = kRows * t;
    const bool more = t + stride < steps;
    if (more) {
      next.load(a_rows(t + stride), static_cast<int>(g.a_m), static_cast<int>(g.a_k),
                g.m - kRows * (t + stride), g.k, tid);
    }
    float acc[kNf][4] = {};
#pragma unroll
    for (int ks = 0; ks < KS; ++ks) {
      std::uint32_t af[4];
      ldsm_x4(af, a_base + buf * kRows * kLineBytes + 32 * ks);
      std::uint32_t a_big[4], a_small[4];
      if constexpr (Op::kTf32) {
#pragma unroll
        for (int r = 0; r < 4; ++r) split_bits(af[r], a_big[r], a_small[r]);
      }
#pragma unroll
      for (int f = 0; f < kNf / 2; ++f) {
        std::uint32_t bf[4];
        ldsm_x4(bf, b_base + 16 * f * kLineBytes + 32 * ks);
        const std::uint32_t b0[2] = {bf[0], bf[1]};
        const std::uint32_t b1[2] = {bf[2], bf[3]};
        if constexpr (Op::kTf32) {
          mma_3xtf32(acc[2 * f], a_big, a_small, b0);
          mma_3xtf32(acc[2 * f + 1], a_big, a_small, b1);
        } else {
          Op::mma(acc[2 * f], af, b0);
          Op::mma(acc[2 * f + 1], af, b1);
        }
      }
    }
    __syncthreads();  // the previous step's staged rows are written out

    // Stage alpha * acc (+ beta * C) in C's type, row r at its shift s(r) from a 16-byte boundary,
    // each element on its own (an element pair is aligned in the staged row only at an even
    // shift; a branch on it per pair had cost more than the second store).
    const int rows = min(kRows, g.m - m0);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = 8 * h + lane / 4;
      CT* const line =
          reinterpret_cast<CT*>(stage + row * S::kRowBytes) + row_shift(c, g.ldc, m0 + row, n0);
      const CT* const c_row = c + static_cast<std::int64_t>(m0 + row) * g.ldc + n0;
#pragma unroll
      for (int j = 0; j < kNf; ++j) {
        const int col = kWarpCols * warp + 8 * j + 2 * (lane % 4);
        float x = g.alpha * acc[j][2 * h];
        float y = g.alpha * acc[j][2 * h + 1];
        if (g.beta != 0.0f && row < rows) {
          if (col < cols) x = fmaf(g.beta, OutC<CT>::load1(c_row + col), x);
          if (col + 1 < cols) y = fmaf(g.beta, OutC<CT>::load1(c_row + col + 1), y);
        }
        stage_pair(line + col, x, y);
      }
    }
    if (more) next.store(a_s + (buf ^ 1) * kRows * kLine, a_k_contiguous, tid);
    __syncthreads();  // the step is staged; the next step's A rows are in place

    // The rows leave in whole 16-byte pieces: a warp per kRows / 8 rows, lane q on pieces q,
    // q + 32, ... (a warp's stores cover 512 contiguous bytes of the row); then the cut ends, at
    // most kEpc - 1 elements before a row's first 16-byte boundary and after its last, one
    // element a thread (16 threads a row). Handled apart, the ends cost no divergence in the
    // pieces' loop.
#pragma unroll
    for (int r = 0; r < kRows / (kThreads / 32); ++r) {
      const int row = kRows / (kThreads / 32) * warp + r;
      if (row >= rows) break;
      CT* const c_row = c + static_cast<std::int64_t>(m0 + row) * g.ldc + n0;
      const int shift = row_shift(c, g.ldc, m0 + row, n0);
      const unsigned char* const line = stage + row * S::kRowBytes;
#pragma unroll
      for (int i = 0; i < (kPieces + 31) / 32; ++i) {
        const int q = lane + 32 * i;
        const int first = q * kEpc - shift;  // the piece's first column (may be negative)
        if (q < kPieces && first >= 0 && first + kEpc <= cols) {
          *reinterpret_cast<uint4*>(c_row + first) =
              *reinterpret_cast<const uint4*>(line + 16 * q);
        }
      }
    }
    static_assert(kThreads == 16 * kRows, "16 threads a row for the cut ends");
    {
      const int row = tid / 16;
      const int slot = tid % 16;  // 0..7: the head's elements, 8..15: the tail's
      if (row < rows) {
        CT* const c_row = c + static_cast<std::int64_t>(m0 + row) * g.ldc + n0;
        const int shift = row_shift(c, g.ldc, m0 + row, n0);
        const int head = min((kEpc - shift) % kEpc, cols);
        const int tail = head + (cols - head) / kEpc * kEpc;  // the first column after the body
        const int col = slot < 8 ? slot : tail + (slot - 8);
        if (slot < 8 ? col < head : col < cols) {
          c_row[col] = reinterpret_cast<const CT*>(stage + row * S::kRowBytes)[col + shift];
        }
      }
    }
  }
}

}  // namespace strip

template <class E>
struct OpOf;
template <>
struct OpOf<__nv_bfloat16> {
  using type = Bf16Op;
};
template <>
struct OpOf<__half> {
  using type = F16Op;
};
template <>
struct OpOf<float> {  // fp32 and tf32 problems: three tf32 products (the strip walk only)
  using type = Tf32Op;
};
// The storage bits the slices are copied as.
template <class E>
using StorageOf = std::conditional_t<sizeof(E) == 2, std::uint16_t, std::uint32_t>;

// fp32 and tf32 A/B (the strip walk only; K up to 32: four m16n8k8 steps).
bool is_32bit(const GemmTypes& t) { return t.ab == DType::kF32 || t.ab == DType::kTF32; }

// K up to 64, and leading dimensions of A and B under 2^24 elements (a block's slice offsets
// are 32-bit: at most 128 lines and 64 k of them); the strip's slices of 256 lines, under 2^23.
template <bool Strip>
bool can_implement_thin_k_mma(const Problem& p) {
  const Problem q = views::row_major_c(p);
  constexpr std::int64_t kMaxLd = std::int64_t{1} << (Strip ? 23 : 24);
  const std::int64_t max_k = Strip && is_32bit(q.types()) ? 4 * kStepK<std::uint32_t> : kMaxK;
  return q.k <= max_k && q.a.ld < kMaxLd && q.b.ld < kMaxLd &&
         (Strip ? views::tile_grid_fits(q, strip::kRows, strip::kCols)
                : views::tile_grid_fits(q, BM, BN));
}

// An instance's kernel, its dynamic shared memory, the blocks one SM holds of it and its
// shared-memory opt-in word (runtime::opt_in_smem).
struct KernelRef {
  const void* fn;
  int smem;
  int blocks_per_sm;
  std::atomic<std::uint64_t>* opted_in;
};

template <bool Strip, class E, class CT, int KS>
KernelRef typed_kernel() {
  static std::atomic<std::uint64_t> opted_in{0};
  using Op = typename OpOf<E>::type;
  if constexpr (Strip) {
    using T = StorageOf<E>;
    using S = strip::Smem<T, CT, KS>;
    return {kernel_address(&strip::thin_k_strip_kernel<Op, T, CT, KS>), S::kBytes,
            S::kBlocksPerSm, &opted_in};
  } else {
    return {kernel_address(&thin_k_mma_kernel<Op, E, CT, KS>), kSmemBytes, kMinBlocks,
            &opted_in};
  }
}

// The instance for the problem's K steps (K rounded up to the mma's k: 1..4).
template <bool Strip, class E, class CT>
KernelRef kernel_for_k(std::int64_t k) {
  constexpr int kStep = kStepK<StorageOf<E>>;
  switch ((k + kStep - 1) / kStep) {
    case 0:
    case 1:
      return typed_kernel<Strip, E, CT, 1>();
    case 2:
      return typed_kernel<Strip, E, CT, 2>();
    case 3:
      return typed_kernel<Strip, E, CT, 3>();
    default:
      return typed_kernel<Strip, E, CT, 4>();
  }
}

// The instance for the problem's A/B type (16-bit; fp32 and tf32 only in the strip walk), C type
// and K.
template <bool Strip>
KernelRef kernel_for(const Problem& p) {
  const GemmTypes t = p.types();
  if constexpr (Strip) {
    if (is_32bit(t)) return kernel_for_k<true, float, float>(p.k);
  }
  if (t.ab == DType::kBF16) {
    return t.c == DType::kF32 ? kernel_for_k<Strip, __nv_bfloat16, float>(p.k)
                              : kernel_for_k<Strip, __nv_bfloat16, __nv_bfloat16>(p.k);
  }
  return t.c == DType::kF32 ? kernel_for_k<Strip, __half, float>(p.k)
                            : kernel_for_k<Strip, __half, __half>(p.k);
}

template <bool Strip>
const void* device_function_thin_k_mma(const Problem& p) {
  return kernel_for<Strip>(views::row_major_c(p)).fn;
}

// The 64 x 128 tile: a block per tile. The strip: a block per strip and row group, as many row
// groups as fill the SMs' block slots once (each group at least one step).
template <bool Strip>
cudaError_t launch_thin_k_mma(const Problem& p, cudaStream_t stream) {
  const Problem q = views::row_major_c(p);
  const KernelRef k = kernel_for<Strip>(q);
  if (const cudaError_t e = runtime::opt_in_smem(k.fn, k.smem, *k.opted_in); e != cudaSuccess) {
    return e;
  }
  dim3 grid = tile_grid(q, BM, BN);
  if constexpr (Strip) {
    const std::int64_t strips = ceil_div(q.n, std::int64_t{strip::kCols});
    const std::int64_t steps = ceil_div(q.m, std::int64_t{strip::kRows});
    const std::int64_t slots = std::int64_t{k.blocks_per_sm} * runtime::sm_count();
    const std::int64_t groups = std::clamp<std::int64_t>(slots / strips, 1, steps);
    grid = dim3(static_cast<unsigned>(strips), static_cast<unsigned>(groups));
  }
  StridedProblem g = strided_problem(q);
  void* args[] = {&g};
  const cudaError_t e = cudaLaunchKernel(k.fn, grid, dim3(kThreads), args, k.smem, stream);
  return e != cudaSuccess ? e : cudaGetLastError();
}

// The registry entry of the 64 x 128 tile (Strip false) or of the strip walk.
template <bool Strip>
void register_instance(Registry& r) {
  KernelInfo k;
  const int bm = Strip ? strip::kRows : BM;
  const int bn = Strip ? strip::kCols : BN;
  k.name = "thin_k_mma_" + std::to_string(bm) + "x" + std::to_string(bn);
  k.family = "thin_k_mma";
  k.rung = 25;
  k.tile = TileConfig{};
  k.tile.bm = bm;
  k.tile.bn = bn;
  k.tile.bk = kMaxK;
  k.tile.wm = Strip ? strip::kRows : kWarpM;
  k.tile.wn = Strip ? strip::kWarpCols : BN / kWarpsN;
  k.tile.threads = kThreads;
  k.desc.op_class = OpClass::kMmaSync;
  k.desc.types = mma_sync::sixteen_bit_types();
  if (Strip) {
    k.desc.types.push_back(GemmTypes{DType::kF32, DType::kF32});
    k.desc.types.push_back(GemmTypes{DType::kTF32, DType::kF32});
  }
  k.desc.accumulator = DType::kF32;
  k.desc.align_a = 1;  // element reads of A and B, C written in whole 16-byte pieces at any pitch
  k.desc.align_b = 1;
  k.desc.align_c = 1;
  k.desc.min_cc = kCpAsyncMinCc;  // mma.sync and ldmatrix: sm_80
  k.desc.max_cc = 0;
  k.summary =
      Strip ? "K up to 64 for 16-bit A/B, up to 32 for fp32 and tf32 (three tf32 products): a "
              "block per 512-column strip of C on mma.sync, B's slice read once, the strip "
              "walked in 16-row steps with A's rows read a step ahead, each row of C staged at "
              "its own shift from a 16-byte boundary and written in whole 16-byte pieces (1 KiB "
              "rows of a 16-bit C) at any pitch"
            : "K up to 64, 16-bit A/B: 64 x 128 tiles of C on mma.sync, A's and B's slices read "
              "element by element at any pitch, each row of C staged at its own shift from a "
              "16-byte boundary and written in whole 16-byte pieces (one bulk copy a row on "
              "sm_90) at any pitch";
  k.can_implement = can_implement_thin_k_mma<Strip>;
  k.launch = launch_thin_k_mma<Strip>;
  k.device_function = device_function_for(k.can_implement, device_function_thin_k_mma<Strip>);
  r.push_back(std::move(k));
}

}  // namespace

void register_thin_k_mma(Registry& r) {
  register_instance<false>(r);
  register_instance<true>(r);
}

}  // namespace tilegemm::kernels
