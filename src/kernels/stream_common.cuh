// What the matrix-stream families (rung 17's gemv, rung 21's narrow products) share: fp32 values
// of one element or of a 16-byte vector of any element type, the streaming 16-byte load, the
// split of K over blocks that keeps every SM reading, its partial sums, and their sum in the
// same launch by the last block to arrive.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../core/device_runtime.hpp"
#include "problem_views.hpp"
#include "tensor_common.cuh"

namespace tilegemm::kernels::stream {

// fp32 values of one element and of a 16-byte vector of elements (as pairs, through OutC, the
// element conversions the tensor-core families use).
template <class E>
struct Load {
  static constexpr int kVec = 16 / static_cast<int>(sizeof(E));
  __device__ __forceinline__ static float one(const E* p) { return OutC<E>::load1(p); }
  __device__ __forceinline__ static void vec(uint4 raw, float (&v)[kVec]) {
    const E* const e = reinterpret_cast<const E*>(&raw);
#pragma unroll
    for (int i = 0; i < kVec / 2; ++i) {
      const float2 f = OutC<E>::load2(e + 2 * i);
      v[2 * i] = f.x;
      v[2 * i + 1] = f.y;
    }
  }
};

// The matrix is read once: streaming loads keep it from displacing the small operand in the
// caches.
__device__ __forceinline__ uint4 load_stream(const void* p) {
  return __ldcs(reinterpret_cast<const uint4*>(p));
}

// The storage bits of the first n of the 16 / kBytes consecutive elements at p (element-aligned)
// as one 16-byte value, zero past them (zero bits are +0 in every type): a piece cut by the end
// of a line, or one that no aligned load reads, element by element (gemv's cut row pieces, the
// pad copy's line ends).
template <int kBytes>
__device__ __forceinline__ uint4 load_cut_piece(const void* p, int n) {
  using Elem = std::conditional_t<kBytes == 2, std::uint16_t, std::uint32_t>;
  constexpr int kPer = 16 / kBytes;
  Elem e[kPer];
#pragma unroll
  for (int x = 0; x < kPer; ++x) e[x] = x < n ? __ldg(static_cast<const Elem*>(p) + x) : Elem{0};
  uint4 piece;
  memcpy(&piece, e, sizeof(piece));
  return piece;
}

// t += v, component by component (partial sums added in 16-byte groups).
__device__ __forceinline__ void add4(float4& t, const float4& v) {
  t.x += v.x;
  t.y += v.y;
  t.z += v.z;
  t.w += v.w;
}

// The last block's sum of a tile's splits (one-launch split K): each split's kTileOut partial
// sums at tile_partial + s kTileOut, thread tid adding the 16-byte groups of outputs 4 (tid +
// kThreads q) .. + 3 for q < kQuads over every split in split order (the same sum every run),
// kBatch splits' loads in flight together.
template <int kTileOut, int kThreads, int kBatch>
__device__ __forceinline__ void sum_tile_splits(const float* tile_partial, int splits, int tid,
                                                float4 (&sum)[kTileOut / (4 * kThreads)]) {
  constexpr int kQuads = kTileOut / (4 * kThreads);
  static_assert(kQuads * 4 * kThreads == kTileOut, "whole 16-byte groups a thread");
#pragma unroll
  for (int q = 0; q < kQuads; ++q) sum[q] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll 1
  for (int s0 = 0; s0 < splits; s0 += kBatch) {
    float4 v[kBatch][kQuads];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
#pragma unroll
      for (int q = 0; q < kQuads; ++q) {
        v[u][q] = s0 + u < splits
                      ? __ldcg(reinterpret_cast<const float4*>(
                            tile_partial + static_cast<std::int64_t>(s0 + u) * kTileOut +
                            4 * (tid + kThreads * q)))
                      : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      }
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
#pragma unroll
      for (int q = 0; q < kQuads; ++q) add4(sum[q], v[u][q]);
    }
  }
}

// A group's sum over its shares of the splits, each share's sum left by its thread at
// share_sums[share * stride + slot]: `t`, share 0's own, plus the others in share order (a fixed
// order, the same sum every run).
__device__ __forceinline__ float4 add_shares(float4 t, const float4* share_sums, int shares,
                                             int stride, int slot) {
  for (int h = 1; h < shares; ++h) add4(t, share_sums[h * stride + slot]);
  return t;
}

// K split over blocks (grid y): the splits and the K each takes.
struct Split {
  int splits;
  int k_chunk;
};
// K in `s` splits or fewer: at most k / min_split_k of them, each a whole number of vec_width.
inline Split split_k_in(std::int64_t s, std::int64_t k, int vec_width,
                        std::int64_t min_split_k) {
  s = std::min(s, std::max<std::int64_t>(1, k / min_split_k));
  s = std::max<std::int64_t>(1, std::min<std::int64_t>(s, 65535));
  const std::int64_t chunk = views::round_up(views::ceil_div(k, s), vec_width);
  return Split{static_cast<int>(views::ceil_div(k, chunk)), static_cast<int>(chunk)};
}
// The one-launch small kernels (rungs 24 and 27) leave a K of at most kUnsplitStages of their
// stages unsplit: there the split's arrival and sum cost more than the stages they take off a
// block (docs/perf-notes.md, "Split counts by GPU time").
constexpr std::int64_t kUnsplitStages = 4;
inline bool short_k(std::int64_t k, int stage_k) { return k <= kUnsplitStages * stage_k; }
inline Split whole_k(std::int64_t k, int stage_k) { return split_k_in(1, k, stage_k, stage_k); }
// Enough blocks (`blocks_per_sm` per SM over `tiles` output blocks) to keep every SM streaming,
// each split at least min_split_k elements of K and a multiple of vec_width.
inline Split plan_split(std::int64_t tiles, std::int64_t k, int vec_width, std::int64_t min_split_k,
                        int blocks_per_sm) {
  const std::int64_t target = std::int64_t{blocks_per_sm} * runtime::sm_count();
  return split_k_in(views::ceil_div(target, tiles), k, vec_width, min_split_k);
}
// The same for a kernel of which `resident` blocks fit on an SM at once: the splits that fill at
// most one wave of them, the count rounded down. Rounding up (plan_split) can leave a second
// wave of a few blocks, each as long as the first wave's: 32 row blocks split 17 ways on 528
// slots ran about a third longer than split 33 ways, and 16 ways ran faster than both
// (docs/perf-notes.md, "Rung 21's split: one wave").
inline Split plan_split_wave(std::int64_t tiles, std::int64_t k, int vec_width,
                             std::int64_t min_split_k, int resident) {
  const std::int64_t slots = std::int64_t{std::max(resident, 1)} * runtime::sm_count();
  return split_k_in(slots / tiles, k, vec_width, min_split_k);
}

// The partial sums of a split launch (`sp.splits` x `outputs` floats) in the stream workspace
// and an arrival counter per output block (`blocks`, the grid's x extent); null (and nothing
// requested) when K is not split.
inline cudaError_t partial_sums(const Split& sp, std::int64_t outputs, std::int64_t blocks,
                                cudaStream_t stream, float** partial, unsigned** counters) {
  *partial = nullptr;
  *counters = nullptr;
  if (sp.splits <= 1) return cudaSuccess;
  void* ws = nullptr;
  const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(sp.splits) *
                            static_cast<std::size_t>(outputs);
  if (cudaError_t err = runtime::stream_workspace(bytes, stream, &ws); err != cudaSuccess) {
    return err;
  }
  *partial = static_cast<float*>(ws);
  return runtime::stream_counters(static_cast<std::size_t>(blocks), stream, counters);
}

// Split K in one launch: called by every thread of a block after it wrote its partial sums of
// split blockIdx.y, true in the block that completes output block blockIdx.x (the last of its
// `gridDim.y` splits to arrive), which then adds every split's partial sums in split order (the
// same order whichever block arrives last: deterministic) and finishes the outputs, reading the
// partial sums with __ldcg (from L2, where the other blocks' writes are). The last arrival resets
// the counter for the next launch on the stream. One thread arrives, after the barrier that orders
// the block's writes before it (a fence in every thread cost more than the second launch saved:
// docs/perf-notes.md, "One launch for split K").
// arrive: the arrival itself, by one thread of the block (or, in the wgmma kernels, of its
// consumer warpgroup) after the barrier that orders their partial sums before it; sets `last`
// (shared memory, read by the others after the next barrier) for the last of `splits` arrivals on
// `counter`, which it leaves at zero. The arrival is an acquire-release atomic at GPU scope: its
// release orders the partial sums the barrier made this thread's before the count, its acquire
// orders the last block's reads of the other splits' sums (its threads', after the next barrier)
// after it; CUTLASS's split-K semaphore is the same handshake. In the SASS that is one
// MEMBAR.ALL.GPU and an L1 invalidation, where __threadfence() on each side was two
// MEMBAR.SC.GPU, a sequentially consistent fence this handshake does not need
// (docs/perf-notes.md, "The split arrival's fences").
template <class Flag>
__device__ __forceinline__ void arrive(unsigned* counter, unsigned splits, Flag& last) {
  unsigned prior;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;"
               : "=r"(prior)
               : "l"(counter)
               : "memory");
  last = prior == splits - 1;
  if (last) *counter = 0u;  // every split has arrived: none reads it again in this launch
}
__device__ __forceinline__ bool last_split(unsigned* counters) {
  __shared__ bool last;
  __syncthreads();  // the block's partial sums are written
  if (threadIdx.x == 0) arrive(counters + blockIdx.x, gridDim.y, last);
  __syncthreads();
  return last;
}

}  // namespace tilegemm::kernels::stream
