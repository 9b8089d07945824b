#include "device_runtime.hpp"

#include "tilegemm/device_info.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

namespace tilegemm::runtime {

int sm_count() {
  constexpr int kFallback = 132;  // H100/H200 SXM, so shape rules stay defined without a GPU
  const int count = current_sm_count();
  return count > 0 ? count : kFallback;
}

cudaError_t opt_in_smem(const void* kernel, int smem_bytes,
                        std::atomic<std::uint64_t>& done_devices) {
  if (smem_bytes <= 48 * 1024) return cudaSuccess;
  int device = 0;
  if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return err;
  const std::uint64_t bit = device < 64 ? (std::uint64_t{1} << device) : 0;
  if (bit != 0 && (done_devices.load(std::memory_order_relaxed) & bit) != 0) return cudaSuccess;
  const cudaError_t err =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
  if (err == cudaSuccess && bit != 0) done_devices.fetch_or(bit, std::memory_order_relaxed);
  return err;
}

namespace {

// `cache`'s answer for the current device, asked through `ask` where it has none yet and kept;
// where `ask` has no answer (0) or there is no device, `fallback`, not kept (the next launch asks
// again).
template <class Ask>
int per_device(PerDeviceCount& cache, int fallback, Ask&& ask) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return fallback;
  }
  std::atomic<int>* const slot = cache.slot(device);
  if (slot != nullptr) {
    if (const int known = slot->load(std::memory_order_relaxed); known > 0) return known;
  }
  const int answer = ask();
  cudaGetLastError();  // leave no error behind: a failed query only means no answer
  if (answer <= 0) return fallback;
  if (slot != nullptr) slot->store(answer, std::memory_order_relaxed);
  return answer;
}

}  // namespace

int resident_blocks(const void* kernel, int threads, PerDeviceCount& cache) {
  return per_device(cache, 1, [&] {
    const std::optional<int> blocks = runtime_blocks_per_sm(kernel, threads, 0);
    return blocks ? *blocks : 0;
  });
}

int largest_cluster(const void* kernel, int threads, int at_most, PerDeviceCount& cache) {
  return per_device(cache, 1, [&] {
    cudaFuncAttributes fa{};
    if (cudaFuncGetAttributes(&fa, kernel) != cudaSuccess || fa.binaryVersion < 90) return 1;
    if (at_most > 8) {
      cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
      cudaGetLastError();
    }
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(1, static_cast<unsigned>(at_most));
    cfg.blockDim = dim3(static_cast<unsigned>(threads));
    int potential = 0;
    if (cudaOccupancyMaxPotentialClusterSize(&potential, kernel, &cfg) != cudaSuccess) return 0;
    return std::clamp(potential, 1, at_most);
  });
}

int resident_clusters(const void* kernel, int threads, int blocks, PerDeviceCount& cache) {
  return per_device(cache, 0, [&] {
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(1, static_cast<unsigned>(blocks));
    cfg.blockDim = dim3(static_cast<unsigned>(threads));
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = 1;
    attr.val.clusterDim.y = static_cast<unsigned>(blocks);
    attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    int n = 0;
    return cudaOccupancyMaxActiveClusters(&n, kernel, &cfg) == cudaSuccess ? n : 0;
  });
}

namespace {

class WorkspaceCache {
 public:
  ~WorkspaceCache() {
    // At exit the runtime may already be shutting down; an error here changes nothing.
    for (auto& entry : buffers_) static_cast<void>(cudaFree(entry.second.ptr));
  }

  // `zeroed`: a new buffer is set to zero in stream order before it is handed out.
  cudaError_t get(std::size_t bytes, cudaStream_t stream, void** out, bool zeroed = false) {
    int device = 0;
    if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return err;
    std::lock_guard<std::mutex> lock(mutex_);
    Buffer& buffer = buffers_[{device, stream}];
    if (buffer.bytes < bytes) {
      // Grow by half again at least, so that a sweep of rising sizes reallocates rarely.
      const std::size_t want = std::max(bytes, buffer.bytes + buffer.bytes / 2);
      if (buffer.ptr != nullptr) {
        if (cudaError_t err = cudaFreeAsync(buffer.ptr, stream); err != cudaSuccess) return err;
        buffer = Buffer{};
      }
      void* ptr = nullptr;
      if (cudaError_t err = cudaMallocAsync(&ptr, want, stream); err != cudaSuccess) return err;
      if (zeroed) {
        if (cudaError_t err = cudaMemsetAsync(ptr, 0, want, stream); err != cudaSuccess) {
          static_cast<void>(cudaFreeAsync(ptr, stream));
          return err;
        }
      }
      buffer = Buffer{ptr, want};
    }
    *out = buffer.ptr;
    return cudaSuccess;
  }

 private:
  struct Buffer {
    void* ptr = nullptr;
    std::size_t bytes = 0;
  };
  std::mutex mutex_;
  std::map<std::pair<int, cudaStream_t>, Buffer> buffers_;
};

}  // namespace

cudaError_t stream_workspace(std::size_t bytes, cudaStream_t stream, void** out) {
  static WorkspaceCache cache;
  return cache.get(bytes, stream, out);
}

cudaError_t operand_workspace(std::size_t a_bytes, std::size_t b_bytes, std::size_t tail_bytes,
                              cudaStream_t stream, OperandWorkspace* out) {
  *out = OperandWorkspace{};
  if (a_bytes + b_bytes + tail_bytes == 0) return cudaSuccess;
  void* ws = nullptr;
  if (cudaError_t err = stream_workspace(a_bytes + b_bytes + tail_bytes, stream, &ws);
      err != cudaSuccess) {
    return err;
  }
  unsigned char* const base = static_cast<unsigned char*>(ws);
  out->a = a_bytes > 0 ? base : nullptr;
  out->b = b_bytes > 0 ? base + a_bytes : nullptr;
  out->tail = tail_bytes > 0 ? base + a_bytes + b_bytes : nullptr;
  return cudaSuccess;
}

cudaError_t stream_counters(std::size_t count, cudaStream_t stream, unsigned** out) {
  static WorkspaceCache cache;
  void* ptr = nullptr;
  const cudaError_t err = cache.get(count * sizeof(unsigned), stream, &ptr, true);
  *out = static_cast<unsigned*>(ptr);
  return err;
}

}  // namespace tilegemm::runtime
