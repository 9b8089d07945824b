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
