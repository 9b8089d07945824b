// Split K over the blocks of one thread-block cluster (Hopper), for the one-launch kernels that
// split a short problem's K (rung 17's gemv, rung 24's small products).
//
// The split of stream_common.cuh goes through global memory: every split writes its partial sums
// to the workspace, arrives on a counter with a GPU-scope acquire-release atomic, and the last
// block to arrive reads every split's sums back from the L2. On a problem of a few microseconds
// that chain (the release waiting for the writes, the atomic's round trip, the reads) is a large
// part of the kernel. Blocks of one cluster sit in one GPC and can read each other's shared memory:
// here the splits of an output block are the cluster (grid y = the cluster's y extent), each leaves
// its partial sums in its own shared memory, and after one cluster barrier each block adds a slice
// of the outputs over every block's shared memory, in rank (= split) order: the same sum every run.
// No workspace, no counter, no global round trip.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "../core/device_runtime.hpp"
#include "stream_common.cuh"

namespace tilegemm::kernels::cluster {

// The most splits a cluster takes: the non-portable cluster size of sm_90 (8 is the portable one),
// where the runtime allows it for the kernel (plan).
constexpr int kMaxSplits = 16;

// Called by every thread of every block of the cluster once each has written its `n` partial sums
// at `mine` (shared memory, the same offset in every block): output e is finished by
// finish(e, sum of the blocks' sums in rank order), in the block whose slice holds e. Returns
// when no block reads another's shared memory any more (a block must not exit before that).
template <class Finish>
__device__ __forceinline__ void sum_over_cluster(const float* mine, int n, Finish&& finish) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  cg::cluster_group cl = cg::this_cluster();
  const int ranks = static_cast<int>(cl.num_blocks());
  const int rank = static_cast<int>(cl.block_rank());
  cl.sync();  // every block's sums are written (release / acquire at cluster scope)
  const int slice = (n + ranks - 1) / ranks;
  const int end = min(n, (rank + 1) * slice);
  for (int e = rank * slice + static_cast<int>(threadIdx.x); e < end;
       e += static_cast<int>(blockDim.x)) {
    float v[kMaxSplits];
#pragma unroll
    for (int r = 0; r < kMaxSplits; ++r) {
      v[r] = r < ranks ? *cl.map_shared_rank(mine + e, static_cast<unsigned>(r)) : 0.0f;
    }
    float s = 0.0f;
#pragma unroll
    for (int r = 0; r < kMaxSplits; ++r) {
      if (r < ranks) s += v[r];
    }
    finish(e, s);
  }
  cl.sync();  // no block's shared memory is read any more
#else
  // Launchers group blocks into clusters only where the kernel's binary is sm_90 or later.
  (void)mine, (void)n, (void)finish;
  __trap();
#endif
}

// The runtime's answers on a kernel's clusters, asked once per device and kept
// (runtime::largest_cluster, runtime::resident_clusters): a function-local static beside the
// launch, one per kernel.
struct ClusterFit {
  runtime::PerDeviceCount largest;
  runtime::PerDeviceCount resident[kMaxSplits + 1];  // by the cluster's blocks
};

// Whether a launch of `tiles` output blocks with K split as `sp` runs as one cluster per output
// block, and then its split (sp rewritten where cut to the cluster's largest size): where `kernel`
// (1-D blocks of `threads`, static shared memory only) has clusters on this device, the splits
// fit one, or do once cut to at most `max_lengthening` times as long each (fewer, longer splits
// cost each block stages of its own, which past some length outweigh the global round trips the
// cluster saves), and every cluster of the grid is resident at once (a second wave of clusters
// cost more than the round trips saved).
inline bool plan(stream::Split& sp, std::int64_t tiles, std::int64_t k, int vec_width,
                 std::int64_t min_split, int max_lengthening, const void* kernel, int threads,
                 ClusterFit& fit) {
  if (sp.splits <= 1) return false;
  const int largest = runtime::largest_cluster(kernel, threads, kMaxSplits, fit.largest);
  if (largest < 2 || sp.splits > static_cast<std::int64_t>(largest) * max_lengthening) {
    return false;
  }
  const stream::Split s =
      sp.splits <= largest ? sp : stream::split_k_in(largest, k, vec_width, min_split);
  if (s.splits < 2 ||
      runtime::resident_clusters(kernel, threads, s.splits, fit.resident[s.splits]) < tiles) {
    return false;
  }
  sp = s;
  return true;
}

// The most splits of K, at most `want`, each a whole number of vec_width and at least min_split
// long, whose clusters (one per output block, `tiles` of them) are all resident at once; false
// where `kernel` has no clusters on this device or not even 2-block clusters of it are resident.
// (A cluster of more blocks than a GPC holds twice, 9..16 of them, left most of 9 or more such
// clusters waiting: plan keeps one size, this steps down to the size that fits.)
inline bool plan_resident(stream::Split& sp, std::int64_t tiles, std::int64_t k, int vec_width,
                          std::int64_t min_split, std::int64_t want, const void* kernel,
                          int threads, ClusterFit& fit) {
  const int largest = runtime::largest_cluster(kernel, threads, kMaxSplits, fit.largest);
  for (std::int64_t n = std::min<std::int64_t>(want, largest); n >= 2; --n) {
    const stream::Split s = stream::split_k_in(n, k, vec_width, min_split);
    if (s.splits >= 2 && s.splits <= largest &&
        runtime::resident_clusters(kernel, threads, s.splits, fit.resident[s.splits]) >= tiles) {
      sp = s;
      return true;
    }
  }
  return false;
}

// `kernel`<<<grid, threads>>>(args) on `stream`, its grid's y extent one cluster where
// `clustered` (each block's splits of an output block together).
template <class Args>
cudaError_t launch(void (*kernel)(Args), dim3 grid, int threads, cudaStream_t stream,
                   bool clustered, const Args& args) {
  if (!clustered) {
    kernel<<<grid, threads, 0, stream>>>(args);
    return cudaGetLastError();
  }
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = dim3(static_cast<unsigned>(threads));
  cfg.stream = stream;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = 1;
  attr.val.clusterDim.y = grid.y;
  attr.val.clusterDim.z = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, kernel, args);
}

}  // namespace tilegemm::kernels::cluster
