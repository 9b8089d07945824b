// Host-side support every launcher and the dispatcher share: the SM count of the current device,
// the dynamic shared-memory opt-in above 48 KiB, a per-stream scratch workspace and per-stream
// arrival counters. Written once here so that kernel files hold kernels and their launch
// geometry, nothing of the framework.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace tilegemm::runtime {

// Streaming multiprocessors of the current device, cached per device; 132 (H100/H200 SXM) when
// the runtime cannot say (no device), so shape rules stay defined and testable on a CPU machine.
// Leaves no sticky error behind.
int sm_count();

// Kernels with more than 48 KiB of dynamic shared memory must opt in, once per device. The
// caller keeps one `done_devices` word per kernel (a function-local static beside the launch), a
// bit per device set after a successful opt-in; a race only repeats the idempotent call.
cudaError_t opt_in_smem(const void* kernel, int smem_bytes,
                        std::atomic<std::uint64_t>& done_devices);

// An instance's kernel and its opt-in word for opt_in_smem: what a launcher's lookup of the
// instantiation for a problem returns.
struct SmemKernel {
  const void* fn;
  std::atomic<std::uint64_t>* opted_in;
};

// A count a launcher asks the runtime once per device (an occupancy answer), kept beside the
// launch as a function-local static: 0 where not asked yet; devices past kDevices are not kept
// (slot: null), and asked every time.
struct PerDeviceCount {
  static constexpr int kDevices = 64;
  std::atomic<int> per_device[kDevices] = {};
  std::atomic<int>* slot(int device) {
    return device >= 0 && device < kDevices ? &per_device[device] : nullptr;
  }
};

// Blocks of `threads` threads of `kernel` (static shared memory only) that fit on one SM of the
// current device at once, asked once per device (`cache`: one per kernel). 1 where the runtime
// cannot say.
int resident_blocks(const void* kernel, int threads, PerDeviceCount& cache);

// The largest thread-block cluster of 1-D blocks of `threads` that `kernel` may launch in on the
// current device, at most `at_most` blocks (beyond 8 a non-portable size, which this allows for
// the kernel first): 1 where its binary predates sm_90 or the runtime cannot say. Asked once per
// device (`cache`: one per kernel).
int largest_cluster(const void* kernel, int threads, int at_most, PerDeviceCount& cache);

// Clusters of `blocks` blocks (along y) of `kernel`, 1-D blocks of `threads`, resident on the
// current device at once; 0 where none fit or the runtime cannot say. Asked once per device
// (`cache`: one per kernel and cluster size).
int resident_clusters(const void* kernel, int threads, int blocks, PerDeviceCount& cache);

// A device buffer of at least `bytes` for work enqueued on `stream` of the current device, owned
// by the library: one buffer per (device, stream), grown with stream-ordered cudaFreeAsync /
// cudaMallocAsync (a kernel still reading the old buffer on that stream finishes first), freed at
// exit. Valid until the next call for the same stream.
cudaError_t stream_workspace(std::size_t bytes, cudaStream_t stream, void** out);

// The workspace of a launch that copies its operands first: A's copy, B's copy and, behind them,
// `tail_bytes` more (a split-K launch's partial tiles), in one stream_workspace request; a part
// of 0 bytes is null, and with all three 0 nothing is requested.
struct OperandWorkspace {
  unsigned char* a = nullptr;
  unsigned char* b = nullptr;
  unsigned char* tail = nullptr;
};
cudaError_t operand_workspace(std::size_t a_bytes, std::size_t b_bytes, std::size_t tail_bytes,
                              cudaStream_t stream, OperandWorkspace* out);

// At least `count` arrival counters for work enqueued on `stream` of the current device, zero
// when the call returns (in stream order) and left zero by every kernel that uses them (the last
// arrival resets its counter): one buffer per (device, stream), apart from the workspace (which
// other work overwrites), grown and zeroed in stream order, freed at exit.
cudaError_t stream_counters(std::size_t count, cudaStream_t stream, unsigned** out);

}  // namespace tilegemm::runtime
