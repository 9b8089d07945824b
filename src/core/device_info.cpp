// Device queries through the CUDA runtime. Each call clears the runtime's sticky "last error"
// after a failure, so a machine without a GPU leaves no trace for later calls to trip on.
#include "tilegemm/device_info.hpp"

#include <cuda_runtime_api.h>

#include <atomic>

namespace tilegemm {

namespace {

bool ok(cudaError_t err) {
  if (err == cudaSuccess) return true;
  cudaGetLastError();
  return false;
}

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  return ok(cudaDeviceGetAttribute(&value, attr, device)) ? value : 0;
}

}  // namespace

std::string DeviceInfo::cuda_cc() const {
  return std::to_string(cc_major) + "." + std::to_string(cc_minor);
}

std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

int cuda_device_count() {
  int count = 0;
  if (!ok(cudaGetDeviceCount(&count))) return 0;
  return count > 0 ? count : 0;
}

std::optional<DeviceInfo> query_device(int index) {
  if (index < 0 || index >= cuda_device_count()) return std::nullopt;
  cudaDeviceProp prop{};
  if (!ok(cudaGetDeviceProperties(&prop, index))) return std::nullopt;
  DeviceInfo d;
  d.index = index;
  d.name = prop.name;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  // Clock rates are attributes in kHz (cudaDeviceProp lost its clock fields in CUDA 13).
  d.sm_clock_mhz = attribute(cudaDevAttrClockRate, index) / 1000;
  d.mem_clock_mhz = attribute(cudaDevAttrMemoryClockRate, index) / 1000;
  d.mem_bus_width_bits = prop.memoryBusWidth;
  d.global_mem_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
  d.l2_bytes = prop.l2CacheSize;
  d.smem_per_sm_bytes = static_cast<std::int64_t>(prop.sharedMemPerMultiprocessor);
  d.smem_per_block_bytes = static_cast<std::int64_t>(prop.sharedMemPerBlock);
  d.smem_per_block_optin_bytes = static_cast<std::int64_t>(prop.sharedMemPerBlockOptin);
  d.regs_per_sm = prop.regsPerMultiprocessor;
  d.regs_per_block = prop.regsPerBlock;
  d.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  d.max_threads_per_block = prop.maxThreadsPerBlock;
  d.max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
  d.warp_size = prop.warpSize;
  if (!ok(cudaDriverGetVersion(&d.driver_version))) d.driver_version = 0;
  if (!ok(cudaRuntimeGetVersion(&d.runtime_version))) d.runtime_version = 0;
  return d;
}

namespace {

// The two facts every launch and every `auto` decision reads, cached per device (an attribute
// query per GEMM call would cost more than a small kernel). 0 means not yet read.
struct CachedFacts {
  std::atomic<int> cc{0};
  std::atomic<int> sms{0};
};
constexpr int kMaxCachedDevices = 64;

// The current device's cache slot, or null without a device.
CachedFacts* current_facts(int* device_out) {
  static CachedFacts facts[kMaxCachedDevices];
  int device = 0;
  if (!ok(cudaGetDevice(&device)) || device < 0 || device >= kMaxCachedDevices) return nullptr;
  *device_out = device;
  return &facts[device];
}

}  // namespace

int current_compute_capability() {
  int device = 0;
  CachedFacts* f = current_facts(&device);
  if (f == nullptr) return 0;
  int cc = f->cc.load(std::memory_order_relaxed);
  if (cc > 0) return cc;
  const int major = attribute(cudaDevAttrComputeCapabilityMajor, device);
  const int minor = attribute(cudaDevAttrComputeCapabilityMinor, device);
  cc = 10 * major + minor;
  if (cc > 0) f->cc.store(cc, std::memory_order_relaxed);
  return cc;
}

int current_sm_count() {
  int device = 0;
  CachedFacts* f = current_facts(&device);
  if (f == nullptr) return 0;
  int sms = f->sms.load(std::memory_order_relaxed);
  if (sms > 0) return sms;
  sms = attribute(cudaDevAttrMultiProcessorCount, device);
  if (sms > 0) f->sms.store(sms, std::memory_order_relaxed);
  return sms;
}

std::vector<DeviceInfo> query_devices() {
  std::vector<DeviceInfo> out;
  const int count = cuda_device_count();
  for (int i = 0; i < count; ++i) {
    if (std::optional<DeviceInfo> d = query_device(i)) out.push_back(*d);
  }
  return out;
}

std::optional<DeviceInfo> current_device() {
  if (cuda_device_count() == 0) return std::nullopt;
  int index = 0;
  if (!ok(cudaGetDevice(&index))) return std::nullopt;
  return query_device(index);
}

std::optional<FunctionAttributes> function_attributes(const void* device_function) {
  if (device_function == nullptr || cuda_device_count() == 0) return std::nullopt;
  cudaFuncAttributes attr{};
  if (!ok(cudaFuncGetAttributes(&attr, device_function))) return std::nullopt;
  FunctionAttributes out;
  out.regs_per_thread = attr.numRegs;
  out.static_smem_bytes = static_cast<std::int64_t>(attr.sharedSizeBytes);
  out.local_bytes_per_thread = static_cast<std::int64_t>(attr.localSizeBytes);
  out.max_threads_per_block = attr.maxThreadsPerBlock;
  return out;
}

std::optional<int> runtime_blocks_per_sm(const void* device_function, int threads_per_block,
                                         std::int64_t dynamic_smem_bytes) {
  if (device_function == nullptr || threads_per_block <= 0 || dynamic_smem_bytes < 0 ||
      cuda_device_count() == 0) {
    return std::nullopt;
  }
  // Above 48 KiB of dynamic shared memory the kernel must have opted in, or the runtime counts
  // it as unlaunchable (0 blocks); launchers opt in on first launch, which may not have run.
  constexpr std::int64_t kDefaultDynamicSmem = 48 * 1024;
  if (dynamic_smem_bytes > kDefaultDynamicSmem &&
      !ok(cudaFuncSetAttribute(device_function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(dynamic_smem_bytes)))) {
    return std::nullopt;
  }
  int blocks = 0;
  if (!ok(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &blocks, device_function, threads_per_block,
          static_cast<std::size_t>(dynamic_smem_bytes)))) {
    return std::nullopt;
  }
  return blocks;
}

}  // namespace tilegemm
