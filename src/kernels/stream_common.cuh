// What the matrix-stream families (rung 17's gemv, rung 21's narrow products) share: fp32 values
// of one element or of a 16-byte vector of any element type, the streaming 16-byte load, the
// split of K over blocks that keeps every SM reading, and its partial sums and second pass.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

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

// K split over blocks: enough blocks (`blocks_per_sm` per SM over `tiles` output blocks) to keep
// every SM streaming, each split at least min_split_k elements of K and a multiple of
// vec_width.
struct Split {
  int splits;
  int k_chunk;
};
inline Split plan_split(std::int64_t tiles, std::int64_t k, int vec_width, std::int64_t min_split_k,
                        int blocks_per_sm) {
  const std::int64_t target = std::int64_t{blocks_per_sm} * runtime::sm_count();
  std::int64_t s = std::max<std::int64_t>(1, views::ceil_div(target, tiles));
  s = std::min(s, std::max<std::int64_t>(1, k / min_split_k));
  s = std::min<std::int64_t>(s, 65535);
  const std::int64_t chunk = views::round_up(views::ceil_div(k, s), vec_width);
  return Split{static_cast<int>(views::ceil_div(k, chunk)), static_cast<int>(chunk)};
}

// The partial sums of a split launch (`sp.splits` x `outputs` floats) in the stream workspace;
// null (and nothing requested) when K is not split.
inline cudaError_t partial_sums(const Split& sp, std::int64_t outputs, cudaStream_t stream,
                                float** partial) {
  *partial = nullptr;
  if (sp.splits <= 1) return cudaSuccess;
  void* ws = nullptr;
  const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(sp.splits) *
                            static_cast<std::size_t>(outputs);
  if (cudaError_t err = runtime::stream_workspace(bytes, stream, &ws); err != cudaSuccess) {
    return err;
  }
  *partial = static_cast<float*>(ws);
  return cudaSuccess;
}

// Blocks of the second pass that adds `outputs` partial sums (a grid-stride loop of `threads` per
// block, at most 4 blocks per SM).
inline unsigned reduce_blocks(std::int64_t outputs, int threads) {
  return static_cast<unsigned>(
      std::min<std::int64_t>(views::ceil_div(outputs, threads), 4LL * runtime::sm_count()));
}

}  // namespace tilegemm::kernels::stream
