// The cp.async group operations every pipelined family uses (the SIMT ladder's rungs 8-9, mma.sync,
// the realigning wgmma producer); each family keeps its own copy instruction wrappers (fp32
// pointers with a pre-sm_80 fallback, or shared addresses with an L2 prefetch hint).
#pragma once

namespace tilegemm::kernels {

// Closes the group of cp.async issued since the last commit (an empty group is legal and
// completes at once, so a pipeline step may always commit exactly one group).
__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits until at most PENDING of this thread's committed groups are still in flight.
template <int PENDING>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
#endif
}

}  // namespace tilegemm::kernels
