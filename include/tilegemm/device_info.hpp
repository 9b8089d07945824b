// The one module that owns device facts: what the CUDA runtime says about the GPUs present
// (compute capability, SM count, shared memory and its opt-in limit, occupancy limits). The
// dispatcher, the launchers, the analysis and the benchmark all read it; `tilegemm devices`
// prints it and every benchmark result records it. Every query here is safe on a machine without a GPU: it reports
// "no device" instead of failing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilegemm {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int sm_clock_mhz = 0;   // maximum SM clock (cudaDevAttrClockRate)
  int mem_clock_mhz = 0;  // peak memory clock (cudaDevAttrMemoryClockRate)
  int mem_bus_width_bits = 0;
  std::int64_t global_mem_bytes = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t smem_per_sm_bytes = 0;
  std::int64_t smem_per_block_bytes = 0;        // without opting in
  std::int64_t smem_per_block_optin_bytes = 0;  // with cudaFuncAttributeMaxDynamicSharedMemorySize
  int regs_per_sm = 0;
  int regs_per_block = 0;
  int max_threads_per_sm = 0;
  int max_threads_per_block = 0;
  int max_blocks_per_sm = 0;
  int warp_size = 0;
  int driver_version = 0;   // as cudaDriverGetVersion: 1000 * major + 10 * minor
  int runtime_version = 0;  // as cudaRuntimeGetVersion

  std::string cuda_cc() const;  // "9.0"
  int compute_capability() const { return 10 * cc_major + cc_minor; }  // 90
};

// "13.0" for 13000.
std::string cuda_version_string(int version);

// Number of usable CUDA devices; 0 when the runtime reports an error (no driver, no device).
int cuda_device_count();

// The device's properties; nullopt when it cannot be queried.
std::optional<DeviceInfo> query_device(int index);
// 10 * major + minor of the current device (90 on an H100/H200), cached per device; 0 without a
// GPU. Leaves no sticky error behind.
int current_compute_capability();
// Streaming multiprocessors of the current device, cached per device; 0 without a GPU.
int current_sm_count();

// Every device present, in index order (empty without a GPU).
std::vector<DeviceInfo> query_devices();
// The device the calling thread uses (cudaGetDevice); nullopt without a GPU.
std::optional<DeviceInfo> current_device();

// Compiled attributes of a __global__ function (cudaFuncGetAttributes); nullopt without a GPU or
// for a null function.
struct FunctionAttributes {
  int regs_per_thread = 0;
  std::int64_t static_smem_bytes = 0;
  std::int64_t local_bytes_per_thread = 0;
  int max_threads_per_block = 0;
};
std::optional<FunctionAttributes> function_attributes(const void* device_function);

// Resident blocks per SM the runtime computes for this function (cudaOccupancy...), with the
// given block size and dynamic shared memory; nullopt without a GPU.
std::optional<int> runtime_blocks_per_sm(const void* device_function, int threads_per_block,
                                         std::int64_t dynamic_smem_bytes);

}  // namespace tilegemm
