// Why a kernel is as fast as it is, without a GPU: the seeds' memory-traffic model (naive vs
// tiled vs minimum), arithmetic intensity and the roofline on a device's public specs, and the
// occupancy a tile configuration allows (blocks per SM as limited by shared memory, threads and
// registers), next to the seed's simplified numbers. Bytes follow the element types (A/B and C
// each in their own size); the roofline's peak follows the instructions that do the math (the
// FP32 FFMA peak for SIMT kernels, the tensor-core peak of the A/B type for mma.sync and wgmma).
//
// Byte counts are doubles: exact for every integer below 2^53, and a 2^31-sized problem's naive
// traffic does not overflow.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilegemm/bench.hpp"
#include "tilegemm/kernel.hpp"

namespace tilegemm::analysis {

struct GemmSize {
  std::int64_t m = 1024, n = 1024, k = 1024;
};

// Block tile of the traffic model. bk == 0 means the kernel has no K tile (naive): it reads its
// operands straight from global memory and only the naive model applies.
struct TileDims {
  std::int64_t bm = 32, bn = 32, bk = 32;
};

// Seed 004 (analyze_tiled_traffic), generalised to rectangular BM x BN x BK tiles and to any
// element types: E = bytes of an A/B element (4 for f32 and tf32, 2 for bf16 and f16), EC = bytes
// of a C element. Loads of A and B only; C's store is reported apart (c_store_bytes) as the seed
// leaves it out. The seed's fp32 formulas are E = EC = 4.
struct TrafficModel {
  double ab_bytes = 4.0;  // E
  double c_bytes = 4.0;   // EC
  std::int64_t blocks_m = 0, blocks_n = 0, blocks_k = 0;  // ceil(M/BM), ceil(N/BN), ceil(K/BK)
  double naive_bytes = 0.0;  // M * N * (K + K) * E: every thread reads a row of A, a column of B
  bool has_tiled = false;
  double tiled_a_bytes = 0.0;  // blocks_m * blocks_n * blocks_k * BM * BK * E
  double tiled_b_bytes = 0.0;  // blocks_m * blocks_n * blocks_k * BK * BN * E
  double tiled_bytes = 0.0;    // their sum; = blocks_m*blocks_n*2*blocks_k*T*T*E for BM=BN=BK=T
  double minimum_bytes = 0.0;  // (M*K + K*N) * E: each operand element read once
  double c_store_bytes = 0.0;  // M * N * EC
  double reduction = 0.0;      // naive / tiled
  double max_reduction = 0.0;  // 2*BM*BN / (BM + BN): T for a square tile
};
TrafficModel traffic(const GemmSize& size, const TileDims& tile, GemmTypes types = {});

// Each operand moved once: (M*K + K*N) * E + M*N * EC bytes.
double ideal_bytes(const GemmSize& size, GemmTypes types = {});
// Seed 002: AI = 2MNK / (4 (MK + KN + MN)) FLOP per byte for fp32, every operand moved once;
// 2MNK / ideal_bytes(size, types) for any types.
double arithmetic_intensity(const GemmSize& size, GemmTypes types = {});
// FLOP per byte moved for a traffic total (loads + C store).
double intensity_of(const GemmSize& size, double bytes);
double flops(const GemmSize& size);

// A device's ceilings and per-SM limits, from a named public source or from a measurement
// (measured == true). A peak of 0 means none is known (or the GPU has no such unit).
struct DeviceSpec {
  std::string key;  // the --device value: "a100", "h100", "h200", ...
  std::string name;
  double fp32_tflops = 0.0;    // peak FP32 (FFMA) throughput
  double bandwidth_gbs = 0.0;  // DRAM bandwidth, GB/s (1e9 bytes/s)
  std::string source;          // where the FP32 peak and the bandwidth come from
  // Dense tensor-core peaks (fp32 accumulation, no structured sparsity).
  double tf32_tflops = 0.0;
  double bf16_tflops = 0.0;
  double fp16_tflops = 0.0;
  double fp8_tflops = 0.0;
  std::string tensor_source;  // where the tensor-core peaks come from
  bool measured = false;
  // Per-SM limits of the compute capability.
  std::string cc;
  int sm_count = 0;
  int max_threads_per_sm = 2048;
  int max_warps_per_sm = 64;
  int max_blocks_per_sm = 32;
  int max_threads_per_block = 1024;
  int regs_per_sm = 65536;
  int reg_alloc_unit = 256;  // registers are handed to warps in units of 256
  int max_regs_per_thread = 255;
  std::int64_t smem_per_sm_bytes = 0;                 // at the largest shared-memory carveout
  std::int64_t max_smem_per_block_bytes = 0;          // with opt-in
  std::int64_t smem_reserved_per_block_bytes = 1024;  // the runtime's own share per block
  std::string limits_source;
};
// Every known device, the --device choices first (a100, h100, h200), then the variants.
const std::vector<DeviceSpec>& device_specs();
const DeviceSpec* find_device_spec(std::string_view key);
// The ceilings this project measured on the same kind of GPU, if any (h200 -> "h200-measured").
const DeviceSpec* measured_spec_for(std::string_view key);

// The op class that computes an A/B type when no kernel is named: f32 on the FP32 pipe (SIMT),
// tf32, bf16 and f16 on tensor cores (mma.sync).
OpClass default_op_class(DType ab);

// The compute ceiling of one (device, A/B type, op class).
struct Peak {
  std::string label;  // "FP32", "TF32 tensor", "BF16 tensor", "FP16 tensor"
  double tflops = 0.0;
  std::string source;  // the device's source of that number
  bool tensor = false;
};
// SIMT: the FP32 FFMA peak whatever the storage type (the math is fp32). mma.sync and wgmma:
// the tensor-core peak of the A/B type; for fp32 A/B (three tf32 products, rung 22) a third of
// the TF32 tensor peak.
Peak peak_for(const DeviceSpec& device, DType ab, OpClass op);

struct Roofline {
  double intensity = 0.0;          // FLOP/byte
  double ridge = 0.0;              // peak / bandwidth, FLOP/byte
  double attainable_tflops = 0.0;  // min(peak, intensity * bandwidth)
  bool compute_bound = false;      // intensity >= ridge
};
Roofline roofline(double intensity, double peak_tflops, double bandwidth_gbs);
// With the device's FP32 peak.
Roofline roofline(double intensity, const DeviceSpec& device);

// Blocks of one configuration resident on an SM.
struct Occupancy {
  int warps_per_block = 0;
  int by_smem = 0;         // floor(smem/SM / (smem/block + reserved)), 0 if the block does not fit
  int by_threads = 0;      // floor(max warps/SM / warps/block)
  int by_registers = 0;    // floor(floor(regs/SM / regs per warp) / warps/block)
  int by_block_limit = 0;  // the hardware's blocks/SM cap
  int blocks = 0;          // the minimum of the four
  std::string limiter;     // which limit binds: "smem", "threads", "registers", "block limit", or
                           // why the block cannot launch at all
  double occupancy = 0.0;  // resident warps / max warps per SM
};
Occupancy occupancy(int threads_per_block, std::int64_t smem_bytes, int regs_per_thread,
                    const DeviceSpec& device);

// The seed's simplified numbers (004 analyze_tile_sizes): 48 KB of shared memory and 1024
// threads as the only limits.
struct SeedOccupancy {
  int by_smem_48kb = 0;     // 48 * 1024 // smem
  int by_threads_1024 = 0;  // 1024 // threads
};
SeedOccupancy seed_occupancy(int threads_per_block, std::int64_t smem_bytes);

// One row of the tile-size table.
struct TileRow {
  std::string label;  // "T=8" or the kernel name
  TileDims tile;
  int threads = 0;
  std::int64_t smem_bytes = 0;
  double reuse = 0.0;  // uses of each loaded element: T, or 2*BM*BN/(BM+BN)
  int regs_per_thread = 0;
  std::string regs_source;  // "assumed (--regs)" or "cudaFuncGetAttributes on <GPU>"
  Occupancy occupancy;
  SeedOccupancy seed;
};

struct AnalyzeRequest {
  GemmSize size;
  GemmTypes types;  // A/B and C element types: bytes per element and the peak
  Layout la = Layout::kRowMajor, lb = Layout::kRowMajor, lc = Layout::kRowMajor;
  TileDims tile;
  // When given, its tile config replaces `tile` and its op class picks the peak; it must compute
  // `types`.
  const KernelInfo* kernel = nullptr;
  int regs_per_thread = 32;            // assumption for rows without a measured count
  std::optional<int> kernel_regs;      // from cudaFuncGetAttributes, when a GPU is present
  std::string kernel_regs_source;
  std::optional<int> runtime_blocks_per_sm;  // cudaOccupancyMaxActiveBlocksPerMultiprocessor
  std::string runtime_device;                // the GPU those two came from
  std::string runtime_plan;  // KernelInfo::plan on that GPU: how launch() would run the problem
  std::string device_key = "h200";
};

struct RooflineRow {
  std::string model;  // "ideal (seed 002)", "tiled loads + C store", "naive loads + C store"
  double bytes = 0.0;
  Roofline roofline;
};
struct RooflineSet {
  DeviceSpec device;
  Peak peak;
  std::vector<RooflineRow> rows;
};

struct AnalysisReport {
  AnalyzeRequest request;
  TileDims tile;           // the tile analysed (the kernel's, when one was named)
  std::string tile_label;  // "32x32x32 (square T=32)" or "<kernel> 64x64x8"
  TrafficModel traffic;
  double intensity = 0.0;              // seed 002, in the request's element sizes
  OpClass op_class = OpClass::kSimt;   // the kernel's, else default_op_class(types.ab)
  // The chosen device, then its measured entry if that has a peak for this op class and type.
  std::vector<RooflineSet> rooflines;
  std::vector<std::string> roofline_notes;  // why a measured entry is left out
  DeviceSpec device;
  std::vector<TileRow> tiles;  // T = 8, 16, 32, then the kernel's row
};

// Throws bench::InputError for an unknown device key, an invalid tile, unsupported types or a
// kernel that does not compute the types (naming --kernel).
AnalysisReport analyze(const AnalyzeRequest& request);

// The seed's print formats: "8.59 GB" (naive), "0.268 GB" (tiled), "8.39 MB" (minimum), "32.0x".
std::string seed_gb2(double bytes);
std::string seed_gb3(double bytes);
std::string seed_mb2(double bytes);
std::string seed_factor(double factor);

std::vector<bench::Section> analysis_sections(const AnalysisReport& report);
nlohmann::json to_json(const AnalysisReport& report);
void write_analysis(std::ostream& os, const AnalysisReport& report, bench::Format format);

}  // namespace tilegemm::analysis
