// The cp.async group operations every pipelined family uses (the SIMT ladder's rungs 8-9, mma.sync,
// the realigning wgmma producer); each family keeps its own copy instruction wrappers (fp32
// pointers with a pre-sm_80 fallback, or shared addresses with an L2 prefetch hint). Below them,
// the bulk (TMA engine) group operations of the sm_90 families.
#pragma once

#include <cstdint>

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

// ---- Bulk copies (TMA engine, sm_90) ---------------------------------------------------------
// The tensor-map stores of the wgmma families and rung 25's row copies. Bulk operations exist
// only from sm_90: built for an older architecture they trap (their callers guard them).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define TILEGEMM_SM90_ONLY(statement) statement
#else
#define TILEGEMM_SM90_ONLY(statement) __trap()
#endif

// `bytes` (a multiple of 16) from shared address src to global dst, both 16-byte aligned, in the
// thread's current bulk group.
__device__ __forceinline__ void bulk_store(void* dst, std::uint32_t src, int bytes) {
  TILEGEMM_SM90_ONLY(asm volatile(
      "cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n" ::"l"(dst), "r"(src),
      "r"(bytes)
      : "memory"));
  (void)dst, (void)src, (void)bytes;
}
__device__ __forceinline__ void bulk_commit() {
  TILEGEMM_SM90_ONLY(asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"));
}
// Waits until the thread's bulk stores have read their shared memory (not yet written global).
__device__ __forceinline__ void bulk_wait_read_all() {
  TILEGEMM_SM90_ONLY(asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory"));
}
__device__ __forceinline__ void bulk_wait_all() {
  TILEGEMM_SM90_ONLY(asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"));
}
// Orders this thread's generic-proxy shared-memory writes before later async-proxy (TMA) reads.
__device__ __forceinline__ void fence_proxy_async_smem() {
  TILEGEMM_SM90_ONLY(asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"));
}

#undef TILEGEMM_SM90_ONLY

}  // namespace tilegemm::kernels
