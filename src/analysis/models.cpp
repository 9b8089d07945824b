// The analysis models: traffic (seed 004), arithmetic intensity (seed 002), roofline, and the
// occupancy calculator, with the device table they are evaluated on. Pure arithmetic, no GPU.
#include <algorithm>
#include <climits>

#include "tilegemm/analysis.hpp"

namespace tilegemm::analysis {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

double d(std::int64_t v) {
  return static_cast<double>(v);
}

// Dense tensor-core peaks of a device and where they come from.
struct TensorPeaks {
  double tf32 = 0.0, bf16 = 0.0, fp16 = 0.0, fp8 = 0.0;
  std::string source;
};

void set_tensor(DeviceSpec* s, TensorPeaks peaks) {
  s->tf32_tflops = peaks.tf32;
  s->bf16_tflops = peaks.bf16;
  s->fp16_tflops = peaks.fp16;
  s->fp8_tflops = peaks.fp8;
  s->tensor_source = std::move(peaks.source);
}

DeviceSpec hopper(std::string key, std::string name, double tflops, double gbs, std::string source,
                  bool measured, TensorPeaks peaks) {
  DeviceSpec s;
  s.key = std::move(key);
  s.name = std::move(name);
  s.fp32_tflops = tflops;
  s.bandwidth_gbs = gbs;
  s.source = std::move(source);
  s.measured = measured;
  set_tensor(&s, std::move(peaks));
  s.cc = "9.0";
  s.sm_count = 132;
  s.smem_per_sm_bytes = 228 * 1024;
  s.max_smem_per_block_bytes = 227 * 1024;
  s.limits_source =
      "CUDA C++ Programming Guide, technical specifications per compute capability (9.0)";
  return s;
}

DeviceSpec ampere(std::string key, std::string name, double tflops, double gbs, std::string source,
                  TensorPeaks peaks) {
  DeviceSpec s;
  s.key = std::move(key);
  s.name = std::move(name);
  s.fp32_tflops = tflops;
  s.bandwidth_gbs = gbs;
  s.source = std::move(source);
  set_tensor(&s, std::move(peaks));
  s.cc = "8.0";
  s.sm_count = 108;
  s.smem_per_sm_bytes = 164 * 1024;
  s.max_smem_per_block_bytes = 163 * 1024;
  s.limits_source =
      "CUDA C++ Programming Guide, technical specifications per compute capability (8.0)";
  return s;
}

}  // namespace

TrafficModel traffic(const GemmSize& size, const TileDims& tile, GemmTypes types) {
  TrafficModel t;
  t.ab_bytes = static_cast<double>(dtype_bytes(types.ab));
  t.c_bytes = static_cast<double>(dtype_bytes(types.c));
  const double m = d(size.m), n = d(size.n), k = d(size.k);
  t.naive_bytes = m * n * (k + k) * t.ab_bytes;
  t.minimum_bytes = (m * k + k * n) * t.ab_bytes;
  t.c_store_bytes = m * n * t.c_bytes;
  t.has_tiled = tile.bm > 0 && tile.bn > 0 && tile.bk > 0;
  if (!t.has_tiled) return t;
  t.blocks_m = ceil_div(size.m, tile.bm);
  t.blocks_n = ceil_div(size.n, tile.bn);
  t.blocks_k = ceil_div(size.k, tile.bk);
  // Every block loads, per K step, its BM x BK slice of A and its BK x BN slice of B (edge tiles
  // counted whole, as the seed does: a zero-padded load still costs its instructions).
  const double steps = d(t.blocks_m) * d(t.blocks_n) * d(t.blocks_k);
  t.tiled_a_bytes = steps * d(tile.bm) * d(tile.bk) * t.ab_bytes;
  t.tiled_b_bytes = steps * d(tile.bk) * d(tile.bn) * t.ab_bytes;
  t.tiled_bytes = t.tiled_a_bytes + t.tiled_b_bytes;
  t.reduction = t.naive_bytes / t.tiled_bytes;
  t.max_reduction = 2.0 * d(tile.bm) * d(tile.bn) / (d(tile.bm) + d(tile.bn));
  return t;
}

double flops(const GemmSize& size) {
  return 2.0 * d(size.m) * d(size.n) * d(size.k);
}

double ideal_bytes(const GemmSize& size, GemmTypes types) {
  const double m = d(size.m), n = d(size.n), k = d(size.k);
  return static_cast<double>(dtype_bytes(types.ab)) * (m * k + k * n) +
         static_cast<double>(dtype_bytes(types.c)) * (m * n);
}

double arithmetic_intensity(const GemmSize& size, GemmTypes types) {
  return flops(size) / ideal_bytes(size, types);
}

double intensity_of(const GemmSize& size, double bytes) {
  return flops(size) / bytes;
}

// The ceilings. Every datasheet number is from NVIDIA's product datasheets (A100, H100 and H200
// Tensor Core GPU), SXM parts. The datasheets print tensor-core peaks with structured sparsity
// (marked "*"); the dense peaks here are half of those, which is what a dense GEMM can reach:
// A100 TF32 156, BF16/FP16 312 TFLOP/s (no FP8 unit); H100 and H200 SXM (the same compute) TF32
// 495, BF16/FP16 989, FP8 1979 TFLOP/s. The measured entry holds no tensor-core peak: none was
// measured, and the datasheet's does not belong in a measured row.
namespace {

std::vector<DeviceSpec> build_device_specs() {
  const TensorPeaks ampere_peaks{156.0, 312.0, 312.0, 0.0,
                                 "NVIDIA A100 Tensor Core GPU datasheet: dense TF32 156, BF16 "
                                 "312, FP16 312 TFLOPS (half the sheet's with-sparsity figures)"};
  const TensorPeaks hopper_peaks{495.0, 989.0, 989.0, 1979.0, ""};
  auto hopper_sheet = [&](const char* gpu, const char* part) {
    TensorPeaks p = hopper_peaks;
    p.source = std::string("NVIDIA ") + gpu +
               " Tensor Core GPU datasheet: dense TF32 495, BF16 989, FP16 989, FP8 1979 TFLOPS "
               "(half the sheet's with-sparsity figures, " +
               part + ")";
    return p;
  };
  return {
      ampere("a100", "NVIDIA A100 SXM4 80GB", 19.5, 2039.0,
             "NVIDIA A100 Tensor Core GPU datasheet: FP32 19.5 TFLOPS, 2,039 GB/s (SXM4 80GB)",
             ampere_peaks),
      hopper("h100", "NVIDIA H100 SXM5", 67.0, 3350.0,
             "NVIDIA H100 Tensor Core GPU datasheet: FP32 67 TFLOPS, 3.35 TB/s (SXM5)", false,
             hopper_sheet("H100", "SXM5")),
      hopper("h200", "NVIDIA H200 SXM", 67.0, 4800.0,
             "NVIDIA H200 Tensor Core GPU datasheet: FP32 67 TFLOPS, 4.8 TB/s (SXM)", false,
             hopper_sheet("H200", "SXM")),
      ampere("a100-40gb", "NVIDIA A100 SXM4 40GB", 19.5, 1555.0,
             "NVIDIA A100 Tensor Core GPU datasheet: FP32 19.5 TFLOPS, 1,555 GB/s (40GB); "
             "the numbers seed 002 uses",
             ampere_peaks),
      hopper("h200-measured", "NVIDIA H200 (measured ceilings)", 63.8, 4300.0,
             "measured on an H200, 2026-11-21, before tilegemm had a ceiling benchmark of its own: "
             "FFMA throughput "
             "63.8 TFLOP/s, copy bandwidth 4.30 TB/s",
             true, TensorPeaks{}),
  };
}

}  // namespace

const std::vector<DeviceSpec>& device_specs() {
  static const std::vector<DeviceSpec> specs = build_device_specs();
  return specs;
}

const DeviceSpec* find_device_spec(std::string_view key) {
  for (const DeviceSpec& s : device_specs()) {
    if (s.key == key) return &s;
  }
  return nullptr;
}

const DeviceSpec* measured_spec_for(std::string_view key) {
  if (key == "h200") return find_device_spec("h200-measured");
  return nullptr;
}

OpClass default_op_class(DType ab) {
  return ab == DType::kF32 ? OpClass::kSimt : OpClass::kMmaSync;
}

Peak peak_for(const DeviceSpec& device, DType ab, OpClass op) {
  Peak p;
  if (op != OpClass::kSimt && ab == DType::kF32) {
    // Each fp32 multiply-add is three tf32 ones on the tensor cores (rung 22).
    p.label = "3xTF32 tensor";
    p.tflops = device.tf32_tflops / 3.0;
    p.source = device.tensor_source;
    p.tensor = true;
    return p;
  }
  if (op == OpClass::kSimt || ab == DType::kF32) {
    p.label = "FP32";
    p.tflops = device.fp32_tflops;
    p.source = device.source;
    return p;
  }
  p.tensor = true;
  p.source = device.tensor_source;
  switch (ab) {
    case DType::kTF32:
      p.label = "TF32 tensor";
      p.tflops = device.tf32_tflops;
      break;
    case DType::kBF16:
      p.label = "BF16 tensor";
      p.tflops = device.bf16_tflops;
      break;
    case DType::kF16:
      p.label = "FP16 tensor";
      p.tflops = device.fp16_tflops;
      break;
    case DType::kF32:
      break;
  }
  return p;
}

Roofline roofline(double intensity, double peak_tflops, double bandwidth_gbs) {
  Roofline r;
  r.intensity = intensity;
  r.ridge = peak_tflops * 1e12 / (bandwidth_gbs * 1e9);
  r.attainable_tflops = std::min(peak_tflops, intensity * bandwidth_gbs * 1e-3);
  r.compute_bound = intensity >= r.ridge;
  return r;
}

Roofline roofline(double intensity, const DeviceSpec& device) {
  return roofline(intensity, device.fp32_tflops, device.bandwidth_gbs);
}

Occupancy occupancy(int threads_per_block, std::int64_t smem_bytes, int regs_per_thread,
                    const DeviceSpec& device) {
  Occupancy o;
  if (threads_per_block < 1 || threads_per_block > device.max_threads_per_block) {
    o.limiter = "cannot launch: " + std::to_string(threads_per_block) + " threads per block (1.." +
                std::to_string(device.max_threads_per_block) + ")";
    return o;
  }
  if (smem_bytes < 0 || smem_bytes > device.max_smem_per_block_bytes) {
    o.limiter = "cannot launch: " + std::to_string(smem_bytes) + " bytes of smem per block (max " +
                std::to_string(device.max_smem_per_block_bytes) + ")";
    return o;
  }
  if (regs_per_thread < 1 || regs_per_thread > device.max_regs_per_thread) {
    o.limiter = "cannot launch: " + std::to_string(regs_per_thread) +
                " registers per thread (max " + std::to_string(device.max_regs_per_thread) + ")";
    return o;
  }
  const int warp = 32;
  o.warps_per_block = (threads_per_block + warp - 1) / warp;
  // Shared memory: the block's bytes plus the runtime's per-block reservation, in 128-byte units.
  const std::int64_t smem_unit = 128;
  const std::int64_t smem_alloc =
      ceil_div(smem_bytes + device.smem_reserved_per_block_bytes, smem_unit) * smem_unit;
  o.by_smem =
      static_cast<int>(std::min<std::int64_t>(device.smem_per_sm_bytes / smem_alloc, INT_MAX));
  o.by_threads = device.max_warps_per_sm / o.warps_per_block;
  // Registers go to warps in units of reg_alloc_unit.
  const int regs_per_warp = static_cast<int>(
      ceil_div(static_cast<std::int64_t>(regs_per_thread) * warp, device.reg_alloc_unit) *
      device.reg_alloc_unit);
  o.by_registers = (device.regs_per_sm / regs_per_warp) / o.warps_per_block;
  o.by_block_limit = device.max_blocks_per_sm;
  o.blocks = std::min({o.by_smem, o.by_threads, o.by_registers, o.by_block_limit});
  const std::pair<int, const char*> limits[] = {{o.by_threads, "threads"},
                                                {o.by_registers, "registers"},
                                                {o.by_smem, "smem"},
                                                {o.by_block_limit, "block limit"}};
  for (const auto& [value, name] : limits) {
    if (value != o.blocks) continue;
    if (!o.limiter.empty()) o.limiter += ", ";
    o.limiter += name;
  }
  o.occupancy = static_cast<double>(o.blocks * o.warps_per_block) /
                static_cast<double>(device.max_warps_per_sm);
  return o;
}

SeedOccupancy seed_occupancy(int threads_per_block, std::int64_t smem_bytes) {
  SeedOccupancy s;
  s.by_smem_48kb = smem_bytes > 0 ? static_cast<int>(48 * 1024 / smem_bytes) : -1;
  s.by_threads_1024 = threads_per_block > 0 ? 1024 / threads_per_block : 0;
  return s;
}

}  // namespace tilegemm::analysis
