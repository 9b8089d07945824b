// `tilegemm profile` without a GPU: the raw-CSV parser on two real captures from an H200
// (tests/fixtures/ncu_raw_{wgmma,cublas}_h200.csv, taken without --nvtx) and on a synthetic one
// with NVTX ranges; the counters, the seed's targets, the join with the analysis model; the ncu
// command line; and the CLI's exits (bad input, no ncu, no GPU).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "tilegemm/analysis.hpp"
#include "tilegemm/device_info.hpp"
#include "tilegemm/gemm.hpp"
#include "tilegemm/profile.hpp"

namespace tb = tilegemm::bench;
namespace tp = tilegemm::profile;
using tilegemm::test::count_lines;
using tilegemm::test::run_cli;
using tilegemm::test::RunResult;

namespace {

std::string fixture(const std::string& name) {
  std::string here = __FILE__;
  here.erase(here.find_last_of('/'));      // tests/cpu
  here.erase(here.find_last_of('/') + 1);  // tests/
  return tilegemm::test::slurp(here + "fixtures/" + name);
}

const char* kWgmmaName =
    "void wgmma_kernel<Config<256, 4, 0>, Bf16, __nv_bfloat16, 1, 0>(CUtensorMap_st, "
    "CUtensorMap_st, Params)";

tilegemm::GemmTypes bf16() {
  return {tilegemm::DType::kBF16, tilegemm::DType::kBF16};
}

// The wgmma capture's kernel, rung 14's wgmma_128x256x64_s4 as the registry describes it:
// 128x256x64 block tile, 3 warpgroups, 197632 bytes of shared memory (ncu's
// launch__shared_mem_per_block_dynamic in the capture).
tilegemm::TileConfig wgmma_tile() {
  tilegemm::TileConfig t;
  t.bm = 128;
  t.bn = 256;
  t.bk = 64;
  t.threads = 384;
  t.smem_bytes = 197632;
  return t;
}

tb::BenchRow ok_row(const std::string& kernel, tb::Shape shape) {
  tb::BenchRow r;
  r.kernel = kernel;
  r.shape = shape;
  r.status = tb::RowStatus::kOk;
  return r;
}

}  // namespace

// --- numbers and the raw CSV -----------------------------------------------------------------

TEST(ProfileCsv, NumbersWithThousandsSeparatorsAndNa) {
  EXPECT_EQ(tp::ncu_number("194,624"), 194624.0);
  EXPECT_EQ(tp::ncu_number("145,140,992"), 145140992.0);
  EXPECT_EQ(tp::ncu_number("3,023,770.67"), 3023770.67);
  EXPECT_EQ(tp::ncu_number("14.01"), 14.01);
  EXPECT_EQ(tp::ncu_number("0"), 0.0);
  EXPECT_EQ(tp::ncu_number("n/a"), std::nullopt);
  EXPECT_EQ(tp::ncu_number(""), std::nullopt);
  EXPECT_EQ(tp::ncu_number("(384, 1, 1)"), std::nullopt);
  EXPECT_EQ(tp::ncu_number("PolicySpread"), std::nullopt);
}

TEST(ProfileCsv, RealWgmmaCaptureParses) {
  const tp::NcuTable t = tp::parse_ncu_csv(fixture("ncu_raw_wgmma_h200.csv"));
  ASSERT_EQ(t.headers.size(), 293u);
  ASSERT_EQ(t.rows.size(), 1u);  // the units row is not a launch
  EXPECT_EQ(t.headers.front(), "ID");
  EXPECT_EQ(t.nvtx_column, "");  // captured without --nvtx
  EXPECT_EQ(t.units.at("dram__bytes_read.sum"), "byte");
  EXPECT_EQ(t.units.at("gpu__time_duration.sum"), "ns");
  EXPECT_EQ(t.units.at("sm__warps_active.avg.pct_of_peak_sustained_active"), "%");
  EXPECT_EQ(t.units.at("lts__t_sectors_srcunit_tex_op_read.sum"), "sector");
  EXPECT_EQ(t.units.at("Kernel Name"), "");
  const tp::NcuRow& row = t.rows.front();
  EXPECT_EQ(row.cell("Kernel Name"), std::string(kWgmmaName));
  EXPECT_EQ(row.cell("Block Size"), std::string("(384, 1, 1)"));
  EXPECT_EQ(row.number("gpu__time_duration.sum"), 194624.0);
  EXPECT_EQ(row.number("dram__bytes_read.sum"), 145140992.0);
  EXPECT_EQ(row.number("dram__bytes_write.sum"), 27755264.0);
  EXPECT_EQ(row.number("dram__bytes_read.avg"), 3023770.67);
  EXPECT_EQ(row.number("launch__registers_per_thread"), 168.0);
  EXPECT_EQ(row.number("sm__warps_active.avg.pct_of_peak_sustained_active"), 14.01);
  EXPECT_EQ(row.number("sm__maximum_warps_per_active_cycle_pct"), 18.75);
  EXPECT_EQ(row.number("lts__t_sectors_srcunit_tex_op_read.sum"), 38322892.0);
  EXPECT_EQ(row.number("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"), 0.0);
  EXPECT_EQ(row.number("device__attribute_total_memory"), 150109880320.0);
  // Columns this capture did not ask for: absent, not zero.
  EXPECT_FALSE(t.has_column(tp::kFmaPipe));
  EXPECT_EQ(row.cell(tp::kFmaPipe), std::nullopt);
  EXPECT_EQ(row.number(tp::kFfmaThreadInst), std::nullopt);
  EXPECT_TRUE(t.has_column(tp::kDramRead));
}

TEST(ProfileCsv, RealCaptureCounters) {
  const tp::NcuTable wgmma = tp::parse_ncu_csv(fixture("ncu_raw_wgmma_h200.csv"));
  const tp::Counters c = tp::read_counters(wgmma.rows.front(), wgmma.units);
  EXPECT_EQ(c.duration_ns, 194624.0);
  EXPECT_EQ(c.registers, 168.0);
  EXPECT_EQ(c.achieved_occupancy_pct, 14.01);
  EXPECT_EQ(c.theoretical_occupancy_pct, 18.75);
  EXPECT_EQ(c.dram_read_bytes, 145140992.0);
  EXPECT_EQ(c.dram_write_bytes, 27755264.0);
  EXPECT_EQ(c.l2_to_sm_bytes, 38322892.0 * 32.0);
  EXPECT_EQ(c.bank_conflicts, 0.0);
  EXPECT_EQ(c.shared_wavefronts, std::nullopt);  // not captured: no percentage
  EXPECT_EQ(c.bank_conflict_pct, std::nullopt);
  EXPECT_EQ(c.fma_pipe_pct, std::nullopt);
  EXPECT_EQ(c.global_load_efficiency_pct, std::nullopt);
  EXPECT_EQ(c.tensor_metric, "");
  EXPECT_EQ(c.tensor_value, std::nullopt);
  EXPECT_TRUE(c.top_stalls.empty());

  const tp::NcuTable cublas = tp::parse_ncu_csv(fixture("ncu_raw_cublas_h200.csv"));
  ASSERT_EQ(cublas.rows.size(), 1u);
  EXPECT_EQ(cublas.rows.front().cell("Kernel Name"),
            std::string("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"));
  const tp::Counters b = tp::read_counters(cublas.rows.front(), cublas.units);
  EXPECT_EQ(b.duration_ns, 172672.0);
  EXPECT_EQ(b.dram_read_bytes, 149096704.0);
  EXPECT_EQ(b.dram_write_bytes, 27588864.0);
  EXPECT_EQ(b.bank_conflicts, 125052.0);
  EXPECT_EQ(b.achieved_occupancy_pct, 14.64);
  EXPECT_EQ(b.l2_to_sm_bytes, 25776172.0 * 32.0);
}

TEST(ProfileCsv, NoHeaderGivesAnEmptyTable) {
  const tp::NcuTable t =
      tp::parse_ncu_csv("==PROF== Connected to process 1\n==ERROR== something failed\n");
  EXPECT_TRUE(t.headers.empty());
  EXPECT_TRUE(t.rows.empty());
  EXPECT_TRUE(tp::parse_ncu_csv("").rows.empty());
}

TEST(ProfileCsv, UnitsRowScalesToBaseUnits) {
  // Without --print-units base ncu may print Kbyte and usecond.
  const std::string csv =
      "\"ID\",\"Kernel Name\",\"dram__bytes_read.sum\",\"gpu__time_duration.sum\"\r\n"
      "\"\",\"\",\"Kbyte\",\"usecond\"\r\n"
      "\"0\",\"k\",\"1,500.5\",\"2.5\"\r\n";
  const tp::NcuTable t = tp::parse_ncu_csv(csv);
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows.front().number(tp::kDramRead), 1500.5);  // the raw cell
  const tp::Counters c = tp::read_counters(t.rows.front(), t.units);
  EXPECT_DOUBLE_EQ(*c.dram_read_bytes, 1500500.0);
  EXPECT_DOUBLE_EQ(*c.duration_ns, 2500.0);
}

TEST(ProfileCsv, SyntheticNvtxCaptureMapsRanges) {
  const tp::NcuTable t = tp::parse_ncu_csv(fixture("ncu_raw_synthetic_nvtx.csv"));
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.nvtx_column,
            "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg");
  const auto range = [&](std::size_t i) {
    return tp::nvtx_range_in(*t.rows[i].cell(t.nvtx_column), tb::kNvtxDomain);
  };
  EXPECT_EQ(range(0), "naive 256x256x256");  // inside a default-domain range
  EXPECT_EQ(range(1), "cublas 256x256x256");
  EXPECT_EQ(range(2), "smem_tiled_t32 512x512x512");
  EXPECT_EQ(tp::nvtx_range_in("7  \"<default domain>:outer:none\"", "tilegemm"), "");
  EXPECT_EQ(tp::nvtx_range_in("", "tilegemm"), "");
  EXPECT_EQ(tb::nvtx_range_name("auto(naive)", {64, 32, 16}), "auto(naive) 64x32x16");
}

TEST(ProfileCsv, SyntheticCountersNaTensorAndStalls) {
  const tp::NcuTable t = tp::parse_ncu_csv(fixture("ncu_raw_synthetic_nvtx.csv"));
  const tp::Counters naive = tp::read_counters(t.rows[0], t.units);
  EXPECT_DOUBLE_EQ(*naive.dram_read_bytes, 1048580.0);  // 1,048.58 Kbyte
  EXPECT_EQ(naive.dram_write_bytes, 262144.0);
  EXPECT_EQ(naive.duration_ns, 12345.0);
  EXPECT_DOUBLE_EQ(*naive.bank_conflict_pct, 3.0);  // 3,000 of 100,000 wavefronts
  EXPECT_EQ(naive.fma_pipe_pct, 41.25);
  // hgmma reads n/a; the gmma instruction count (0) is the first candidate with a value.
  EXPECT_EQ(
      t.rows[0].number("sm__pipe_tensor_op_hgmma_cycles_active.avg.pct_of_peak_sustained_active"),
      std::nullopt);
  EXPECT_EQ(naive.tensor_metric, "sm__inst_executed_pipe_tensor_op_gmma.sum");
  EXPECT_EQ(naive.tensor_value, 0.0);
  // Top three stall ratios, largest first; math_pipe_throttle reads n/a and is left out.
  ASSERT_EQ(naive.top_stalls.size(), 3u);
  EXPECT_EQ(naive.top_stalls[0].reason, "long_scoreboard");
  EXPECT_EQ(naive.top_stalls[0].ratio, 5.25);
  EXPECT_EQ(naive.top_stalls[1].reason, "short_scoreboard");
  EXPECT_EQ(naive.top_stalls[2].reason, "barrier");

  const tp::Counters cublas = tp::read_counters(t.rows[1], t.units);
  EXPECT_EQ(cublas.tensor_value, 1024.0);
  ASSERT_EQ(cublas.top_stalls.size(), 3u);
  EXPECT_EQ(cublas.top_stalls[0].reason, "math_pipe_throttle");
  EXPECT_EQ(cublas.top_stalls[1].reason, "barrier");
  EXPECT_EQ(cublas.top_stalls[2].reason, "short_scoreboard");
  EXPECT_EQ(cublas.bank_conflict_pct, 0.0);

  const tp::Counters empty = tp::read_counters(t.rows[2], t.units);
  EXPECT_EQ(empty.dram_read_bytes, std::nullopt);  // "n/a"
  EXPECT_EQ(empty.bank_conflict_pct, std::nullopt);
  EXPECT_EQ(empty.registers, 32.0);
  EXPECT_TRUE(empty.top_stalls.empty());
}

// --- ncu's log -------------------------------------------------------------------------------

TEST(ProfileLog, PermissionAndMissingMetrics) {
  const std::string denied =
      "==PROF== Connected to process 1 (tilegemm)\n"
      "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
      "Performance Counters on the target device 0.\n";
  EXPECT_TRUE(tp::counters_not_permitted(denied));
  EXPECT_FALSE(tp::counters_not_permitted("==PROF== Disconnected from process 1\n"));
  ASSERT_EQ(tp::ncu_errors(denied).size(), 1u);
  EXPECT_EQ(tp::ncu_errors(denied).front().rfind("ERR_NVGPUCTRPERM - The user", 0), 0u);

  const std::vector<std::string> requested = tp::requested_metrics();
  const std::string log =
      "==ERROR== Failed to find metric "
      "regex:^sm__pipe_tensor_op_hgmma_cycles_active\\.avg\\.pct_of_peak_sustained_active$\n"
      "==ERROR== Failed to find metric sm__inst_executed_pipe_tensor_op_hmma.sum\n"
      "==ERROR== Failed to find metric regex:^dram__bytes_read\\.(sum|avg|min|max)$\n"
      "==ERROR== Failed to find metric regex:^not_asked_for\\.(sum)$\n";
  const std::vector<std::string> missing = tp::metrics_not_found(log, requested);
  ASSERT_EQ(missing.size(), 3u);
  EXPECT_EQ(missing[0], "sm__pipe_tensor_op_hgmma_cycles_active.avg.pct_of_peak_sustained_active");
  EXPECT_EQ(missing[1], "sm__inst_executed_pipe_tensor_op_hmma.sum");
  EXPECT_EQ(missing[2], "dram__bytes_read.sum");
  EXPECT_TRUE(tp::metrics_not_found("==PROF== fine\n", requested).empty());
}

// --- metrics and the command line ------------------------------------------------------------

TEST(ProfileCommand, MetricsHoldTheSeedsAndTheRest) {
  const std::vector<std::string> m = tp::requested_metrics();
  for (const char* name :
       {tp::kFfmaThreadInst, tp::kGlobalLoadSectors, tp::kGlobalLoadEfficiency, tp::kRegisters,
        tp::kAchievedOccupancy, tp::kTheoreticalOccupancy, tp::kFmaPipe, tp::kBankConflicts,
        tp::kSharedWavefronts, tp::kDramRead, tp::kDramWrite, tp::kL2ToSmSectors, tp::kDuration,
        "sm__inst_executed_pipe_tensor_op_gmma.sum",
        "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
        "smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio"}) {
    EXPECT_EQ(std::count(m.begin(), m.end(), name), 1) << name;
  }
  EXPECT_EQ(tp::stall_reasons().size(), 18u);
  EXPECT_EQ(m.size(), 13u + tp::tensor_metrics().size() + 18u);
}

TEST(ProfileCommand, NcuArgv) {
  tp::ProfileRequest request;
  request.kernels = "wgmma_*";
  request.shapes = {{4096, 4096, 4096}, {256, 512, 128}};
  request.types = {tilegemm::DType::kBF16, tilegemm::DType::kF32};
  request.lb = tilegemm::Layout::kColMajor;
  const std::vector<std::string> argv =
      tp::ncu_command("/usr/bin/ncu", "/x/tilegemm", request, {"a.sum", "b.pct"}, "L", "J");
  const std::vector<std::string> want = {"/usr/bin/ncu",
                                         "--clock-control",
                                         "none",
                                         "--print-units",
                                         "base",
                                         "--csv",
                                         "--page",
                                         "raw",
                                         "--nvtx",
                                         "--nvtx-include",
                                         "regex:tilegemm@.+/",
                                         "--metrics",
                                         "a.sum,b.pct",
                                         "--log-file",
                                         "L",
                                         "/x/tilegemm",
                                         "bench",
                                         "--kernels",
                                         "wgmma_*",
                                         "--shape",
                                         "4096x4096x4096",
                                         "--shape",
                                         "256x512x128",
                                         "--warmup",
                                         "1",
                                         "--reps",
                                         "1",
                                         "--rounds",
                                         "1",
                                         "--nvtx",
                                         "--no-block",
                                         "--format",
                                         "json",
                                         "--output",
                                         "J",
                                         "--dtype",
                                         "bf16",
                                         "--dtype-c",
                                         "f32",
                                         "--layout-b",
                                         "col"};
  EXPECT_EQ(argv, want);
  // cuBLAS alone: bench's own --providers, no kernels; f32 and row-major add no flags.
  tp::ProfileRequest cublas_only;
  cublas_only.shapes = {{64, 64, 64}};
  const std::vector<std::string> b = tp::ncu_command("ncu", "t", cublas_only, {"a"}, "L", "J");
  EXPECT_EQ(std::vector<std::string>(b.begin() + 17, b.begin() + 19),
            (std::vector<std::string>{"--providers", "cublas"}));
  EXPECT_EQ(std::count(b.begin(), b.end(), "--dtype"), 0);
  EXPECT_EQ(std::count(b.begin(), b.end(), "--layout-a"), 0);
}

TEST(ProfileCommand, FindExecutable) {
  EXPECT_EQ(tp::find_executable("sh", "/nonexistent-dir:/bin"), std::string("/bin/sh"));
  EXPECT_EQ(tp::find_executable("/nonexistent/ncu", "/bin"), std::nullopt);
  EXPECT_EQ(tp::find_executable("/bin", "/bin"), std::nullopt);  // a directory
  EXPECT_EQ(tp::find_executable("no-such-program-here", "/bin:/usr/bin"), std::nullopt);
  EXPECT_EQ(tp::find_executable("", "/bin"), std::nullopt);
}

// --- targets ---------------------------------------------------------------------------------

TEST(ProfileTargets, MetAndNotMet) {
  tp::Counters c;
  c.fma_pipe_pct = 85.0;
  c.global_load_efficiency_pct = 50.0;
  c.bank_conflict_pct = 4.9;
  c.achieved_occupancy_pct = 50.0;  // the seed wants more than 50%
  std::vector<tp::TargetResult> t = tp::judge_targets(c, true);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].name, "FMA utilisation");
  EXPECT_EQ(t[0].verdict, tp::Verdict::kMet);
  EXPECT_EQ(t[1].verdict, tp::Verdict::kNotMet);
  EXPECT_EQ(t[2].verdict, tp::Verdict::kMet);
  EXPECT_EQ(t[3].verdict, tp::Verdict::kNotMet);
  EXPECT_EQ(t[3].measured, 50.0);

  c.fma_pipe_pct = 80.0;
  c.bank_conflict_pct = 5.0;
  c.global_load_efficiency_pct = 80.5;
  c.achieved_occupancy_pct = std::nullopt;
  t = tp::judge_targets(c, true);
  EXPECT_EQ(t[0].verdict, tp::Verdict::kNotMet);  // strictly above 80
  EXPECT_EQ(t[1].verdict, tp::Verdict::kMet);
  EXPECT_EQ(t[2].verdict, tp::Verdict::kNotMet);  // strictly below 5
  EXPECT_EQ(t[3].verdict, tp::Verdict::kNoReading);
  // Not an fp32 SIMT kernel: the FMA target does not apply, whatever it reads.
  t = tp::judge_targets(c, false);
  EXPECT_EQ(t[0].verdict, tp::Verdict::kNotApplicable);
  EXPECT_STREQ(tp::verdict_name(t[0].verdict), "n/a");
  EXPECT_STREQ(tp::verdict_name(tp::Verdict::kNotMet), "not met");
}

// A cp.async or TMA kernel issues no LSU global loads (ncu reads 0 sectors and a 0% efficiency),
// a kernel without shared memory no shared wavefronts: those targets are n/a, not "not met".
TEST(ProfileTargets, NoLsuLoadsOrSharedAccessesIsNotApplicable) {
  tp::Counters c;
  c.global_load_sectors = 0.0;
  c.global_load_efficiency_pct = 0.0;
  c.shared_wavefronts = 0.0;
  c.bank_conflict_pct = 0.0;
  c.achieved_occupancy_pct = 14.0;
  const std::vector<tp::TargetResult> t = tp::judge_targets(c, false);
  EXPECT_EQ(t[1].verdict, tp::Verdict::kNotApplicable);
  EXPECT_EQ(t[2].verdict, tp::Verdict::kNotApplicable);
  EXPECT_EQ(t[3].verdict, tp::Verdict::kNotMet);
  // Sectors, but an efficiency of exactly 0: cp.async's LDGSTS moved them, outside the metric
  // (what ncu read for the cp_async rung on an H200).
  c.global_load_sectors = 1.7e6;
  EXPECT_EQ(tp::judge_targets(c, false)[1].verdict, tp::Verdict::kNotApplicable);
  c.global_load_efficiency_pct = 62.5;  // LDG loads: judged again
  EXPECT_EQ(tp::judge_targets(c, false)[1].verdict, tp::Verdict::kNotMet);
}

// --- model beside measurement ----------------------------------------------------------------

TEST(ProfileModel, RealWgmmaCaptureBesideTheModel) {
  // The capture is wgmma_kernel<Config<256, 4, 0>, Bf16, ...> (grid 132: persistent) at 4096^3
  // bf16: 194.6 us, 706 TFLOP/s.
  const tp::NcuTable t = tp::parse_ncu_csv(fixture("ncu_raw_wgmma_h200.csv"));
  const tp::Counters c = tp::read_counters(t.rows.front(), t.units);
  const tilegemm::analysis::DeviceSpec* h200 = tilegemm::analysis::find_device_spec("h200");
  ASSERT_NE(h200, nullptr);
  const std::vector<tp::ModelComparison> m =
      tp::compare_with_model(c, {4096, 4096, 4096}, bf16(), wgmma_tile(), h200);
  ASSERT_EQ(m.size(), 4u);
  // Tile loads: 32 x 16 blocks x 64 K steps x (128x64 + 64x256) x 2 bytes.
  EXPECT_EQ(m[0].quantity, "L2->SM load bytes");
  EXPECT_EQ(m[0].predicted, 32.0 * 16 * 64 * (128 * 64 + 64 * 256) * 2);
  EXPECT_EQ(m[0].measured, 38322892.0 * 32);
  EXPECT_DOUBLE_EQ(*m[0].ratio, 38322892.0 * 32 / 1610612736.0);
  EXPECT_NEAR(*m[0].ratio, 0.7614, 1e-4);
  // DRAM: A and B read once, C written once, 2 bytes each.
  EXPECT_EQ(m[1].predicted, 3.0 * 4096 * 4096 * 2);
  EXPECT_EQ(m[1].measured, 145140992.0 + 27755264.0);
  EXPECT_NEAR(*m[1].ratio, 1.7176, 1e-4);
  // Intensity: the inverse ratio.
  EXPECT_DOUBLE_EQ(*m[2].predicted, 2.0 * 4096 * 4096 * 4096 / (3.0 * 4096 * 4096 * 2));
  EXPECT_DOUBLE_EQ(*m[2].ratio, 100663296.0 / 172896256.0);
  // Occupancy: 168 registers x 384 threads leave one block of 12 warps: 12/64.
  EXPECT_EQ(m[3].predicted, 18.75);
  EXPECT_EQ(m[3].measured, 18.75);
  EXPECT_EQ(m[3].ratio, 1.0);
  EXPECT_NE(m[3].model.find("168 registers/thread"), std::string::npos);
  // Without per-SM limits, no occupancy row; without the counters, no ratios.
  EXPECT_EQ(tp::compare_with_model(c, {4096, 4096, 4096}, bf16(), wgmma_tile(), nullptr).size(),
            3u);
  const std::vector<tp::ModelComparison> none =
      tp::compare_with_model(tp::Counters{}, {4096, 4096, 4096}, bf16(), wgmma_tile(), h200);
  ASSERT_EQ(none.size(), 3u);
  EXPECT_EQ(none[0].ratio, std::nullopt);
  EXPECT_EQ(none[1].measured, std::nullopt);
}

TEST(ProfileModel, BuildReportJoinsByRange) {
  const tp::NcuTable t = tp::parse_ncu_csv(fixture("ncu_raw_synthetic_nvtx.csv"));
  tb::BenchReport bench;
  bench.device.name = "NVIDIA H200";
  bench.rows.push_back(ok_row("cublas", {256, 256, 256}));
  bench.rows.push_back(ok_row("naive", {256, 256, 256}));
  tb::BenchRow failed = ok_row("smem_tiled_t32", {256, 256, 256});
  failed.status = tb::RowStatus::kFailed;
  failed.detail = "rel error 1";
  bench.rows.push_back(failed);
  const tp::ProfileReport r = tp::build_report(t, bench, tb::Providers{});
  EXPECT_EQ(r.device_key, "h200");
  // ncu's order is naive first: the ranges, not the order, name the rows.
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].kernel, "naive");
  EXPECT_EQ(r.kernels[0].mapped_by, "nvtx");
  EXPECT_EQ(r.kernels[0].ncu_kernel, "void naive_kernel<(Layout)0, (Layout)0, (Layout)0>(Params)");
  EXPECT_EQ(r.kernels[1].kernel, "cublas");
  EXPECT_TRUE(r.kernels[1].model.empty());  // no model of cuBLAS
  // naive has no K tile: DRAM, intensity and occupancy, no tile-load row.
  const std::vector<tp::ModelComparison>& m = r.kernels[0].model;
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].quantity, "DRAM bytes (read + write)");
  EXPECT_DOUBLE_EQ(*m[0].measured, 1048580.0 + 262144.0);
  EXPECT_EQ(m[0].predicted, 3.0 * 256 * 256 * 4);
  // 256 threads, 38 registers (1280 per warp after rounding): 6 blocks, 48 of 64 warps.
  EXPECT_EQ(m[2].predicted, 75.0);
  EXPECT_DOUBLE_EQ(*m[2].ratio, 12.5 / 75.0);
  // naive is fp32 SIMT: its FMA target applies (41.25%: not met); cuBLAS f32 too (85.5%: met).
  EXPECT_EQ(r.kernels[0].targets[0].verdict, tp::Verdict::kNotMet);
  EXPECT_EQ(r.kernels[1].targets[0].verdict, tp::Verdict::kMet);
  ASSERT_EQ(r.notes.size(), 2u);
  EXPECT_EQ(r.notes[0], "not profiled: smem_tiled_t32 256x256x256 is FAILED (rel error 1)");
  EXPECT_EQ(r.notes[1],
            "launch 2 (void smem_tiled_kernel<32>(Params)) maps to no bench row (range "
            "'smem_tiled_t32 512x512x512')");

  // --providers cublas keeps cuBLAS's launches only.
  const tp::ProfileReport c = tp::build_report(t, bench, tb::Providers{false, true});
  ASSERT_EQ(c.kernels.size(), 1u);
  EXPECT_EQ(c.kernels[0].kernel, "cublas");
}

TEST(ProfileModel, BuildReportFallsBackToOrder) {
  // The real captures hold no NVTX column: launches go to the ok rows in run order.
  const tp::NcuTable t = tp::parse_ncu_csv(fixture("ncu_raw_wgmma_h200.csv"));
  tb::BenchReport bench;
  bench.device.name = "NVIDIA H200";
  tb::BenchRow na = ok_row("naive", {4096, 4096, 4096});
  na.status = tb::RowStatus::kNotApplicable;
  bench.rows.push_back(na);
  tb::BenchRow row = ok_row("auto(no_such_kernel)", {4096, 4096, 4096});
  row.types = bf16();
  bench.rows.push_back(row);
  bench.rows.push_back(ok_row("cublas", {4096, 4096, 4096}));
  const tp::ProfileReport r = tp::build_report(t, bench, tb::Providers{});
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].kernel, "auto(no_such_kernel)");
  EXPECT_EQ(r.kernels[0].mapped_by, "order");
  EXPECT_EQ(r.kernels[0].counters.duration_ns, 194624.0);
  EXPECT_TRUE(r.kernels[0].model.empty());  // not in the registry: nothing to predict with
  // bf16 is not fp32 SIMT: the FMA target does not apply.
  EXPECT_EQ(r.kernels[0].targets[0].verdict, tp::Verdict::kNotApplicable);
  ASSERT_EQ(r.notes.size(), 2u);
  EXPECT_EQ(r.notes[0], "not profiled: naive 4096x4096x4096 is N/A");
  EXPECT_EQ(r.notes[1], "no launch profiled for cublas 4096x4096x4096");
}

TEST(ProfileModel, WritersCarryEveryLaunch) {
  const tp::NcuTable t = tp::parse_ncu_csv(fixture("ncu_raw_synthetic_nvtx.csv"));
  tb::BenchReport bench;
  bench.device.name = "NVIDIA H200";
  bench.rows.push_back(ok_row("cublas", {256, 256, 256}));
  bench.rows.push_back(ok_row("naive", {256, 256, 256}));
  const tp::ProfileReport r = tp::build_report(t, bench, tb::Providers{});
  const std::vector<tb::Section> sections = tp::profile_sections(r);
  ASSERT_EQ(sections.size(), 3u);
  EXPECT_EQ(sections[0].table.rows.size(), 2u);
  EXPECT_EQ(sections[1].table.rows.size(), 8u);  // four targets each
  EXPECT_EQ(sections[2].table.rows.size(), 3u);  // naive's model rows
  EXPECT_EQ(sections[0].table.rows[0][0], "naive");
  EXPECT_EQ(sections[0].table.rows[0][6], "12.35");  // 12,345 ns in us
  const nlohmann::json j = tp::to_json(r);
  ASSERT_EQ(j["kernels"].size(), 2u);
  EXPECT_EQ(j["kernels"][0]["counters"]["duration_ns"], 12345.0);
  EXPECT_TRUE(j["kernels"][0]["counters"]["global_load_sectors"].is_null());
  EXPECT_EQ(j["kernels"][0]["model"][2]["predicted"], 75.0);
  EXPECT_EQ(j["kernels"][1]["targets"][0]["verdict"], "met");
  EXPECT_EQ(j["model_device"], "h200");
}

// --- the CLI -----------------------------------------------------------------------------------

TEST(ProfileCli, BadInputIsOneLineNamingTheFlagAndExit2) {
  const std::pair<const char*, const char*> cases[] = {
      {"profile --shape 64x64x64", "--kernels"},
      {"profile --kernels naive", "--shape"},
      {"profile --kernels naive --shape 0x5x5", "--shape"},
      {"profile --kernels naive --shape 64x64", "--shape"},
      {"profile --kernels 'nomatch*' --shape 64x64x64", "--kernels"},
      {"profile --kernels naive --shape 64x64x64 --format xml", "--format"},
      {"profile --kernels naive --shape 64x64x64 --layout-b diag", "--layout-b"},
      {"profile --kernels naive --shape 64x64x64 --dtype fp8", "--dtype"},
      {"profile --kernels naive --shape 64x64x64 --dtype f32 --dtype-c bf16", "--dtype-c"},
      {"profile --kernels naive --shape 64x64x64 --providers cutlass", "--providers"},
      {"profile --kernels naive --shape 64x64x64 --providers cublas", "--kernels"},
      {"profile --kernels naive --shape 64x64x64 --output /nonexistent-dir/r.json", "--output"},
      {"profile --kernels naive --bogus", "--bogus"},
  };
  for (const auto& [args, flag] : cases) {
    const RunResult r = run_cli(std::string(args) + " --ncu /nonexistent/ncu");
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("tilegemm: ", 0), 0u) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(flag), std::string::npos) << args << "\n" << r.err;
    EXPECT_EQ(r.out, "") << args;
  }
}

TEST(ProfileCli, NoNcuExit4) {
  const RunResult r = run_cli("profile --kernels naive --shape 64x64x64 --ncu /nonexistent/ncu");
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.err,
            "tilegemm: profile: ncu not found (install Nsight Compute or pass --ncu PATH)\n");
  EXPECT_EQ(r.out, "");
}

TEST(ProfileCli, NoGpuExit3) {
  if (tilegemm::cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  // An executable stand-in for ncu: the missing GPU is found before it would run.
  const std::string fake = tilegemm::test::temp_path("fake-ncu");
  {
    std::ofstream out(fake);
    out << "#!/bin/sh\nexit 0\n";
  }
  ASSERT_EQ(::chmod(fake.c_str(), 0755), 0);
  const RunResult r = run_cli("profile --kernels naive --shape 64x64x64 --ncu '" + fake + "'");
  std::remove(fake.c_str());
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err,
            "tilegemm profile: no CUDA device found; nothing to profile. Without a GPU, "
            "`tilegemm analyze`, `tilegemm list` and the CPU tests work.\n");
  EXPECT_EQ(r.out, "");
}
