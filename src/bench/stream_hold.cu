#include "stream_hold.hpp"

namespace tilegemm::bench {

namespace {

__device__ unsigned long long global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void hold_kernel(HoldWords* words, unsigned ticket, unsigned long long timeout_ns) {
  const volatile HoldWords* shared = words;
  const unsigned long long start = global_timer_ns();
  // Wrapping order: the host's release counter may pass 2^32.
  while (static_cast<int>(shared->release - ticket) < 0) {
    if (global_timer_ns() - start > timeout_ns) {
      const_cast<volatile HoldWords*>(shared)->timed_out = ticket;
      return;
    }
  }
}

}  // namespace

cudaError_t enqueue_hold(cudaStream_t stream, HoldWords* words, unsigned ticket,
                         unsigned long long timeout_ns) {
  hold_kernel<<<1, 1, 0, stream>>>(words, ticket, timeout_ns);
  return cudaGetLastError();
}

}  // namespace tilegemm::bench
