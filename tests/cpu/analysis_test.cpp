// The analysis models against hand-computed numbers: the seeds' traffic and intensity examples,
// the roofline on the public device specs, and the occupancy calculator.
#include <gtest/gtest.h>

#include <sstream>

#include "tilegemm/analysis.hpp"
#include "tilegemm/gemm.hpp"

namespace ta = tilegemm::analysis;

namespace {

const ta::DeviceSpec& spec(const char* key) {
  const ta::DeviceSpec* s = ta::find_device_spec(key);
  EXPECT_NE(s, nullptr) << key;
  return *s;
}

}  // namespace

TEST(Traffic, SeedExample1024Tile32) {
  const ta::TrafficModel t = ta::traffic({1024, 1024, 1024}, {32, 32, 32});
  EXPECT_EQ(t.naive_bytes, 8589934592.0);
  EXPECT_EQ(t.tiled_bytes, 268435456.0);
  EXPECT_EQ(t.minimum_bytes, 8388608.0);
  EXPECT_EQ(t.reduction, 32.0);
  EXPECT_EQ(t.max_reduction, 32.0);
  EXPECT_EQ(t.c_store_bytes, 4194304.0);
  EXPECT_EQ(t.blocks_m, 32);
  // The seed's print formats.
  EXPECT_EQ(ta::seed_gb2(t.naive_bytes), "8.59 GB");
  EXPECT_EQ(ta::seed_gb3(t.tiled_bytes), "0.268 GB");
  EXPECT_EQ(ta::seed_mb2(t.minimum_bytes), "8.39 MB");
  EXPECT_EQ(ta::seed_factor(t.reduction), "32.0x");
}

TEST(Traffic, SquareTileReductionIsT) {
  for (std::int64_t tile : {8, 16, 64}) {
    const ta::TrafficModel t = ta::traffic({2048, 2048, 2048}, {tile, tile, tile});
    EXPECT_DOUBLE_EQ(t.reduction, static_cast<double>(tile)) << tile;
  }
}

TEST(Traffic, RectangularTilesAndEdges) {
  // 1000^3 with 32x16x16: ceil(1000/32) = 32 row blocks, ceil(1000/16) = 63 column blocks and
  // 63 K steps; edge tiles count whole.
  const ta::TrafficModel t = ta::traffic({1000, 1000, 1000}, {32, 16, 16});
  EXPECT_EQ(t.blocks_m, 32);
  EXPECT_EQ(t.blocks_n, 63);
  EXPECT_EQ(t.blocks_k, 63);
  EXPECT_EQ(t.tiled_a_bytes, 32.0 * 63 * 63 * 32 * 16 * 4);
  EXPECT_EQ(t.tiled_b_bytes, 32.0 * 63 * 63 * 16 * 16 * 4);
  EXPECT_EQ(t.tiled_bytes, t.tiled_a_bytes + t.tiled_b_bytes);
  EXPECT_DOUBLE_EQ(t.max_reduction, 2.0 * 32 * 16 / (32 + 16));
  EXPECT_EQ(t.naive_bytes, 1000.0 * 1000 * 2000 * 4);
}

TEST(Traffic, NoKTileMeansNaiveOnly) {
  const ta::TrafficModel t = ta::traffic({64, 64, 64}, {8, 32, 0});
  EXPECT_FALSE(t.has_tiled);
  EXPECT_EQ(t.tiled_bytes, 0.0);
  EXPECT_EQ(t.naive_bytes, 64.0 * 64 * 128 * 4);
}

TEST(Intensity, SeedExample) {
  const double ai = ta::arithmetic_intensity({1024, 1024, 1024});
  EXPECT_NEAR(ai, 2147483648.0 / 12582912.0, 1e-12);
  EXPECT_EQ(tilegemm::bench::fixed(ai, 2), "170.67");
  EXPECT_EQ(ta::flops({1024, 1024, 1024}), 2147483648.0);
  EXPECT_DOUBLE_EQ(ta::intensity_of({1024, 1024, 1024}, 2147483648.0), 1.0);
}

TEST(Roofline, PublicSpecsAndMeasuredCeilings) {
  EXPECT_EQ(spec("a100").fp32_tflops, 19.5);
  EXPECT_EQ(spec("a100").bandwidth_gbs, 2039.0);
  EXPECT_EQ(spec("a100-40gb").bandwidth_gbs, 1555.0);
  EXPECT_EQ(spec("h100").fp32_tflops, 67.0);
  EXPECT_EQ(spec("h100").bandwidth_gbs, 3350.0);
  EXPECT_EQ(spec("h100").sm_count, 132);
  EXPECT_EQ(spec("h100").smem_per_sm_bytes, 228 * 1024);
  EXPECT_EQ(spec("h200").fp32_tflops, 67.0);
  EXPECT_EQ(spec("h200").bandwidth_gbs, 4800.0);
  EXPECT_EQ(spec("h200").max_smem_per_block_bytes, 227 * 1024);
  EXPECT_EQ(spec("a100").smem_per_sm_bytes, 164 * 1024);
  const ta::DeviceSpec* measured = ta::measured_spec_for("h200");
  ASSERT_NE(measured, nullptr);
  EXPECT_TRUE(measured->measured);
  EXPECT_EQ(measured->fp32_tflops, 63.8);
  EXPECT_EQ(measured->bandwidth_gbs, 4300.0);
  EXPECT_EQ(ta::measured_spec_for("h100"), nullptr);
  EXPECT_EQ(ta::find_device_spec("b200"), nullptr);
  for (const ta::DeviceSpec& s : ta::device_specs()) {
    EXPECT_FALSE(s.source.empty()) << s.key;
    EXPECT_FALSE(s.limits_source.empty()) << s.key;
  }
}

TEST(Roofline, VerdictAndAttainable) {
  // The seed's A100 numbers: ridge 19.5e12 / 1555e9 = 12.54 FLOP/byte.
  const ta::Roofline big = ta::roofline(170.67, spec("a100-40gb"));
  EXPECT_NEAR(big.ridge, 12.540192926, 1e-8);
  EXPECT_TRUE(big.compute_bound);
  EXPECT_EQ(big.attainable_tflops, 19.5);
  const ta::Roofline small = ta::roofline(1.0, spec("h200"));
  EXPECT_FALSE(small.compute_bound);
  EXPECT_DOUBLE_EQ(small.attainable_tflops, 4.8);
  EXPECT_NEAR(ta::roofline(1.0, spec("h200")).ridge, 67.0 / 4.8, 1e-12);
}

TEST(Occupancy, SquareTilesOnH200) {
  const ta::DeviceSpec& h200 = spec("h200");
  // T=32: 1024 threads (32 warps), 8 KB + 1 KB reserved per block, 32 registers per thread.
  ta::Occupancy o = ta::occupancy(1024, 8192, 32, h200);
  EXPECT_EQ(o.warps_per_block, 32);
  EXPECT_EQ(o.by_smem, 25);  // 233472 / 9216
  EXPECT_EQ(o.by_threads, 2);
  EXPECT_EQ(o.by_registers, 2);  // 65536 / 1024 regs per warp = 64 warps
  EXPECT_EQ(o.by_block_limit, 32);
  EXPECT_EQ(o.blocks, 2);
  EXPECT_EQ(o.limiter, "threads, registers");
  EXPECT_DOUBLE_EQ(o.occupancy, 1.0);
  // T=16: 256 threads, 2 KB.
  o = ta::occupancy(256, 2048, 32, h200);
  EXPECT_EQ(o.by_smem, 76);  // 233472 / 3072
  EXPECT_EQ(o.blocks, 8);
  // T=8: 64 threads: the 32-block cap binds with the thread and register limits.
  o = ta::occupancy(64, 512, 32, h200);
  EXPECT_EQ(o.blocks, 32);
  EXPECT_EQ(o.limiter, "threads, registers, block limit");
}

TEST(Occupancy, RegisterGranularityAndSharedMemory) {
  const ta::DeviceSpec& h200 = spec("h200");
  // 33 registers: 1056 per warp rounds up to 1280, 65536 / 1280 = 51 warps, 6 blocks of 8 warps.
  ta::Occupancy o = ta::occupancy(256, 0, 33, h200);
  EXPECT_EQ(o.by_registers, 6);
  EXPECT_EQ(o.blocks, 6);
  EXPECT_EQ(o.limiter, "registers");
  EXPECT_DOUBLE_EQ(o.occupancy, 48.0 / 64.0);
  // 64 registers at 256 threads: 2048 per warp, 32 warps, 4 blocks: half occupancy.
  o = ta::occupancy(256, 0, 64, h200);
  EXPECT_EQ(o.blocks, 4);
  EXPECT_DOUBLE_EQ(o.occupancy, 0.5);
  // 48 KB per block: (49152 + 1024) = 50176 bytes; 233472 / 50176 = 4 blocks.
  o = ta::occupancy(128, 48 * 1024, 32, h200);
  EXPECT_EQ(o.by_smem, 4);
  EXPECT_EQ(o.limiter, "smem");
  // A100: 164 KB per SM.
  EXPECT_EQ(ta::occupancy(1024, 8192, 32, spec("a100")).by_smem, 18);  // 167936 / 9216
  // Blocks that cannot launch.
  EXPECT_EQ(ta::occupancy(1025, 0, 32, h200).blocks, 0);
  EXPECT_EQ(ta::occupancy(256, 228 * 1024, 32, h200).blocks, 0);
  EXPECT_EQ(ta::occupancy(256, 0, 256, h200).blocks, 0);
}

TEST(Occupancy, SeedSimplifiedNumbers) {
  EXPECT_EQ(ta::seed_occupancy(1024, 8192).by_smem_48kb, 6);
  EXPECT_EQ(ta::seed_occupancy(1024, 8192).by_threads_1024, 1);
  EXPECT_EQ(ta::seed_occupancy(256, 2048).by_smem_48kb, 24);
  EXPECT_EQ(ta::seed_occupancy(64, 512).by_smem_48kb, 96);
  EXPECT_EQ(ta::seed_occupancy(64, 512).by_threads_1024, 16);
}

TEST(Analyze, DefaultReport) {
  const ta::AnalysisReport r = ta::analyze(ta::AnalyzeRequest{});
  EXPECT_EQ(r.traffic.naive_bytes, 8589934592.0);
  EXPECT_EQ(r.traffic.tiled_bytes, 268435456.0);
  ASSERT_EQ(r.tiles.size(), 3u);
  EXPECT_EQ(r.tiles[0].label, "T=8");
  EXPECT_EQ(r.tiles[2].threads, 1024);
  EXPECT_EQ(r.tiles[2].smem_bytes, 8192);
  EXPECT_EQ(r.tiles[2].occupancy.blocks, 2);
  EXPECT_EQ(r.tiles[2].seed.by_smem_48kb, 6);
  // h200 brings its measured ceilings as a second roofline.
  ASSERT_EQ(r.rooflines.size(), 2u);
  EXPECT_EQ(r.rooflines[0].device.key, "h200");
  EXPECT_EQ(r.rooflines[1].device.key, "h200-measured");
  EXPECT_TRUE(r.rooflines[0].rows[0].roofline.compute_bound);

  std::ostringstream os;
  ta::write_analysis(os, r, tilegemm::bench::Format::kTable);
  for (const char* text : {"8.59 GB", "0.268 GB", "8.39 MB", "32.0x", "170.67", "NVIDIA H200 SXM",
                           "measured on an H200"}) {
    EXPECT_NE(os.str().find(text), std::string::npos) << text;
  }
  const nlohmann::json j = ta::to_json(r);
  EXPECT_EQ(j["traffic"]["naive_bytes"], 8589934592.0);
  EXPECT_EQ(j["traffic"]["tiled"], "0.268 GB");
  EXPECT_EQ(j["tiles"].size(), 3u);
}

TEST(Analyze, KernelTileFromTheRegistry) {
  const tilegemm::KernelInfo* k = tilegemm::find_kernel("smem_tiled_t16");
  ASSERT_NE(k, nullptr);
  ta::AnalyzeRequest req;
  req.kernel = k;
  req.device_key = "h100";
  req.kernel_regs = 40;
  req.kernel_regs_source = "cudaFuncGetAttributes on a test GPU";
  const ta::AnalysisReport r = ta::analyze(req);
  EXPECT_EQ(r.tile.bm, 16);
  EXPECT_DOUBLE_EQ(r.traffic.reduction, 16.0);
  ASSERT_EQ(r.tiles.size(), 4u);
  EXPECT_EQ(r.tiles.back().label, "smem_tiled_t16");
  EXPECT_EQ(r.tiles.back().regs_per_thread, 40);
  EXPECT_EQ(r.tiles.back().threads, k->tile.threads);
  EXPECT_EQ(r.rooflines.size(), 1u);  // no measured ceilings for the H100
}

// --- element types --------------------------------------------------------------------------

namespace {

constexpr tilegemm::GemmTypes kF32{tilegemm::DType::kF32, tilegemm::DType::kF32};
constexpr tilegemm::GemmTypes kTF32{tilegemm::DType::kTF32, tilegemm::DType::kF32};
constexpr tilegemm::GemmTypes kBF16{tilegemm::DType::kBF16, tilegemm::DType::kBF16};
constexpr tilegemm::GemmTypes kBF16F32{tilegemm::DType::kBF16, tilegemm::DType::kF32};
constexpr tilegemm::GemmTypes kF16{tilegemm::DType::kF16, tilegemm::DType::kF16};

}  // namespace

TEST(Traffic, BytesPerElementFollowTheTypes) {
  const ta::GemmSize s{4096, 4096, 4096};
  const ta::TrafficModel f32 = ta::traffic(s, {128, 128, 32}, kF32);
  const ta::TrafficModel bf16 = ta::traffic(s, {128, 128, 32}, kBF16);
  // bf16 4096^3: the minimum DRAM bytes are half of f32's, exactly.
  EXPECT_EQ(f32.minimum_bytes, 2.0 * 4096 * 4096 * 4);
  EXPECT_EQ(bf16.minimum_bytes, 2.0 * 4096 * 4096 * 2);
  EXPECT_EQ(bf16.minimum_bytes * 2.0, f32.minimum_bytes);
  EXPECT_EQ(bf16.naive_bytes * 2.0, f32.naive_bytes);
  EXPECT_EQ(bf16.tiled_bytes * 2.0, f32.tiled_bytes);
  EXPECT_EQ(bf16.c_store_bytes * 2.0, f32.c_store_bytes);
  EXPECT_EQ(bf16.ab_bytes, 2.0);
  EXPECT_EQ(bf16.c_bytes, 2.0);
  // The reduction is a ratio of loads: the same in every type.
  EXPECT_EQ(bf16.reduction, f32.reduction);
  // bf16 -> f32: operands at 2 bytes, C at 4.
  const ta::TrafficModel mixed = ta::traffic(s, {128, 128, 32}, kBF16F32);
  EXPECT_EQ(mixed.minimum_bytes, bf16.minimum_bytes);
  EXPECT_EQ(mixed.c_store_bytes, f32.c_store_bytes);
  // tf32 is fp32 storage: the f32 bytes.
  const ta::TrafficModel tf32 = ta::traffic(s, {128, 128, 32}, kTF32);
  EXPECT_EQ(tf32.minimum_bytes, f32.minimum_bytes);
  // The default is f32: the seed's numbers.
  EXPECT_EQ(ta::traffic({1024, 1024, 1024}, {32, 32, 32}).naive_bytes, 8589934592.0);
}

TEST(Intensity, FollowsTheTypes) {
  const ta::GemmSize s{4096, 4096, 4096};
  EXPECT_EQ(ta::ideal_bytes(s), 3.0 * 4096 * 4096 * 4);
  EXPECT_EQ(ta::ideal_bytes(s, kBF16), 3.0 * 4096 * 4096 * 2);
  EXPECT_EQ(ta::ideal_bytes(s, kBF16F32), 2.0 * 4096 * 4096 * 2 + 4096.0 * 4096 * 4);
  EXPECT_DOUBLE_EQ(ta::arithmetic_intensity(s, kBF16), 2.0 * ta::arithmetic_intensity(s, kF32));
  EXPECT_DOUBLE_EQ(ta::arithmetic_intensity(s, kF16), ta::arithmetic_intensity(s, kBF16));
  EXPECT_DOUBLE_EQ(ta::arithmetic_intensity(s, kBF16F32), ta::flops(s) / (4096.0 * 4096 * 8));
  EXPECT_DOUBLE_EQ(ta::arithmetic_intensity(s), ta::arithmetic_intensity(s, kF32));
}

TEST(Roofline, PeaksPerType) {
  using tilegemm::DType;
  using tilegemm::OpClass;
  for (const char* key : {"h100", "h200"}) {
    const ta::DeviceSpec& d = spec(key);
    EXPECT_EQ(ta::peak_for(d, DType::kBF16, OpClass::kMmaSync).tflops, 989.0) << key;
    EXPECT_EQ(ta::peak_for(d, DType::kF16, OpClass::kWgmma).tflops, 989.0) << key;
    EXPECT_EQ(ta::peak_for(d, DType::kTF32, OpClass::kMmaSync).tflops, 495.0) << key;
    EXPECT_EQ(d.fp8_tflops, 1979.0) << key;
    EXPECT_EQ(ta::peak_for(d, DType::kF32, OpClass::kSimt).tflops, 67.0) << key;
    EXPECT_NE(d.tensor_source.find("NVIDIA"), std::string::npos) << key;
  }
  for (const char* key : {"a100", "a100-40gb"}) {
    const ta::DeviceSpec& d = spec(key);
    EXPECT_EQ(ta::peak_for(d, DType::kBF16, OpClass::kMmaSync).tflops, 312.0) << key;
    EXPECT_EQ(ta::peak_for(d, DType::kF16, OpClass::kMmaSync).tflops, 312.0) << key;
    EXPECT_EQ(ta::peak_for(d, DType::kTF32, OpClass::kMmaSync).tflops, 156.0) << key;
    EXPECT_EQ(ta::peak_for(d, DType::kF32, OpClass::kSimt).tflops, 19.5) << key;
    EXPECT_EQ(d.fp8_tflops, 0.0) << key;  // no FP8 unit
  }
  // A SIMT kernel does fp32 math whatever its storage type: the FP32 peak.
  const ta::Peak simt = ta::peak_for(spec("h200"), DType::kBF16, OpClass::kSimt);
  EXPECT_EQ(simt.tflops, 67.0);
  EXPECT_EQ(simt.label, "FP32");
  EXPECT_FALSE(simt.tensor);
  const ta::Peak tensor = ta::peak_for(spec("h200"), DType::kBF16, OpClass::kMmaSync);
  EXPECT_EQ(tensor.label, "BF16 tensor");
  EXPECT_TRUE(tensor.tensor);
  // fp32 on the tensor cores is three tf32 products (rung 22): a third of the TF32 peak.
  const ta::Peak x3 = ta::peak_for(spec("h200"), DType::kF32, OpClass::kWgmma);
  EXPECT_EQ(x3.tflops, 495.0 / 3.0);
  EXPECT_EQ(x3.label, "3xTF32 tensor");
  EXPECT_TRUE(x3.tensor);
  // Without a kernel: f32 on the FP32 pipe, the tensor types on tensor cores.
  EXPECT_EQ(ta::default_op_class(DType::kF32), OpClass::kSimt);
  for (DType d : {DType::kTF32, DType::kBF16, DType::kF16}) {
    EXPECT_NE(ta::default_op_class(d), OpClass::kSimt);
  }
  // The measured entry measured FP32 only.
  EXPECT_EQ(ta::peak_for(spec("h200-measured"), DType::kBF16, OpClass::kMmaSync).tflops, 0.0);
  EXPECT_EQ(ta::peak_for(spec("h200-measured"), DType::kF32, OpClass::kSimt).tflops, 63.8);
  // The roofline on an explicit peak.
  const ta::Roofline r = ta::roofline(100.0, 989.0, 4800.0);
  EXPECT_NEAR(r.ridge, 989.0 / 4.8, 1e-9);
  EXPECT_FALSE(r.compute_bound);
  EXPECT_DOUBLE_EQ(r.attainable_tflops, 480.0);
}

TEST(Analyze, Bf16OnH200UsesTheTensorPeak) {
  ta::AnalyzeRequest req;
  req.size = {4096, 4096, 4096};
  req.types = kBF16;
  req.device_key = "h200";
  const ta::AnalysisReport r = ta::analyze(req);
  EXPECT_EQ(r.traffic.minimum_bytes, 2.0 * 4096 * 4096 * 2);
  EXPECT_EQ(r.op_class, tilegemm::OpClass::kMmaSync);
  // The measured entry has no bf16 peak: left out, with a note saying so.
  ASSERT_EQ(r.rooflines.size(), 1u);
  EXPECT_EQ(r.rooflines[0].peak.tflops, 989.0);
  EXPECT_EQ(r.rooflines[0].rows[0].bytes, 3.0 * 4096 * 4096 * 2);
  EXPECT_TRUE(r.rooflines[0].rows[0].roofline.compute_bound);
  EXPECT_EQ(r.rooflines[0].rows[0].roofline.attainable_tflops, 989.0);
  ASSERT_EQ(r.roofline_notes.size(), 1u);
  EXPECT_NE(r.roofline_notes[0].find("h200-measured"), std::string::npos);
  // Square tiles of bf16: half the shared memory.
  EXPECT_EQ(r.tiles[2].smem_bytes, 2 * 32 * 32 * 2);

  std::ostringstream os;
  ta::write_analysis(os, r, tilegemm::bench::Format::kTable);
  for (const char* text : {"bf16, loads of A and B", "M*N*(K+K)*2", "(M*K + K*N)*2",
                           "BF16 tensor peak (TFLOP/s)", "989.0", "AI = 2MNK / (2(MK + KN + MN))",
                           "dense TF32 495, BF16 989, FP16 989, FP8 1979"}) {
    EXPECT_NE(os.str().find(text), std::string::npos) << text << "\n" << os.str();
  }
  const nlohmann::json j = ta::to_json(r);
  EXPECT_EQ(j["problem"]["dtype"], "bf16");
  EXPECT_EQ(j["problem"]["dtype_c"], "bf16");
  EXPECT_EQ(j["traffic"]["ab_bytes_per_element"], 2.0);
  EXPECT_EQ(j["rooflines"][0]["peak"]["tflops"], 989.0);
  EXPECT_EQ(j["rooflines"][0]["device"]["bf16_tflops"], 989.0);
  EXPECT_EQ(j["op_class"], "mma.sync");
}

TEST(Analyze, F32KeepsTheFp32PeakAndTheMeasuredRow) {
  ta::AnalyzeRequest req;
  req.types = kF32;
  const ta::AnalysisReport r = ta::analyze(req);
  ASSERT_EQ(r.rooflines.size(), 2u);
  EXPECT_EQ(r.rooflines[0].peak.label, "FP32");
  EXPECT_EQ(r.rooflines[0].peak.tflops, 67.0);
  EXPECT_EQ(r.rooflines[1].peak.tflops, 63.8);
  EXPECT_TRUE(r.roofline_notes.empty());
  std::ostringstream os;
  ta::write_analysis(os, r, tilegemm::bench::Format::kTable);
  for (const char* text : {"fp32, loads of A and B", "M*N*(K+K)*4", "FP32 peak (TFLOP/s)",
                           "AI = 2MNK / (4(MK + KN + MN))"}) {
    EXPECT_NE(os.str().find(text), std::string::npos) << text;
  }
  EXPECT_EQ(os.str().find("Peak: "), std::string::npos);  // today's f32 output
}

TEST(Analyze, KernelPicksThePeakAndMustComputeTheTypes) {
  const tilegemm::KernelInfo* naive = tilegemm::find_kernel("naive");
  ASSERT_NE(naive, nullptr);
  ta::AnalyzeRequest req;
  req.kernel = naive;
  for (tilegemm::GemmTypes t : {kTF32, kBF16, kBF16F32, kF16}) {
    req.types = t;
    if (naive->desc.computes(t)) {
      // A SIMT kernel computing a narrow type: the FP32 peak, not the tensor one.
      const ta::AnalysisReport r = ta::analyze(req);
      EXPECT_EQ(r.rooflines[0].peak.label, "FP32");
      continue;
    }
    try {
      ta::analyze(req);
      ADD_FAILURE() << "naive accepted " << tilegemm::gemm_types_name(t);
    } catch (const tilegemm::bench::InputError& e) {
      EXPECT_EQ(e.flag(), "--kernel");
      EXPECT_NE(std::string(e.what()).find("'naive' does not compute"), std::string::npos)
          << e.what();
    }
  }
  // A tensor-core kernel from the registry (if one is registered) gets the tensor peak.
  for (const tilegemm::KernelInfo& k : tilegemm::all_kernels()) {
    if (k.desc.op_class == tilegemm::OpClass::kSimt) continue;
    for (tilegemm::GemmTypes t : k.desc.types) {
      ta::AnalyzeRequest tr;
      tr.kernel = &k;
      tr.types = t;
      const ta::AnalysisReport r = ta::analyze(tr);
      EXPECT_TRUE(r.rooflines[0].peak.tensor) << k.name;
      EXPECT_EQ(r.rooflines[0].peak.tflops,
                ta::peak_for(spec("h200"), t.ab, k.desc.op_class).tflops);
    }
  }
  // Unsupported types name --dtype-c.
  ta::AnalyzeRequest bad;
  bad.types = {tilegemm::DType::kF32, tilegemm::DType::kBF16};
  try {
    ta::analyze(bad);
    ADD_FAILURE() << "f32 -> bf16 accepted";
  } catch (const tilegemm::bench::InputError& e) {
    EXPECT_EQ(e.flag(), "--dtype-c");
  }
}

TEST(Analyze, BadInputs) {
  ta::AnalyzeRequest req;
  req.device_key = "b200";
  EXPECT_THROW(ta::analyze(req), tilegemm::bench::InputError);
  req = ta::AnalyzeRequest{};
  req.tile = {0, 0, 0};
  EXPECT_THROW(ta::analyze(req), tilegemm::bench::InputError);
  req = ta::AnalyzeRequest{};
  req.regs_per_thread = 0;
  EXPECT_THROW(ta::analyze(req), tilegemm::bench::InputError);
}
