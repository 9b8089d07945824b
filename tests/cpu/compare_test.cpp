// Result files read back, `compare`'s arithmetic and verdicts, bench's several outputs and
// providers: all without a GPU. The fixtures under tests/fixtures/ are hand-made rows whose
// numbers each aim at one verdict (compare_*.json) and slices of committed results
// (h200_slice.json).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "input_error.hpp"
#include "tilegemm/bench.hpp"
#include "tilegemm/compare.hpp"

namespace tb = tilegemm::bench;
using tilegemm::test_util::error_of;

namespace {

// tests/fixtures/, found from this file's own path: the tests run from any directory.
std::string fixture(const std::string& name) {
  std::string here = __FILE__;
  here.erase(here.find_last_of('/'));      // tests/cpu
  here.erase(here.find_last_of('/') + 1);  // tests/
  return here + "fixtures/" + name;
}

tb::BenchRow timed(const std::string& kernel, double median, double min, double max) {
  tb::BenchRow r;
  r.kernel = kernel;
  r.shape = {1024, 1024, 1024};
  r.median_ms = median;
  r.min_ms = min;
  r.max_ms = max;
  r.status = tb::RowStatus::kOk;
  return r;
}

const tb::CompareRow* find_row(const tb::CompareReport& report, const std::string& kernel,
                               tb::Verdict verdict) {
  for (const tb::CompareRow& r : report.rows) {
    if (r.any_row().kernel == kernel && r.verdict == verdict) return &r;
  }
  return nullptr;
}

}  // namespace

// --- reading results back -----------------------------------------------------------------------

TEST(ReadResults, RoundTripsWhatTheWriterWrites) {
  tb::BenchReport report;
  report.device.name = "NVIDIA H200";
  report.device.sm_count = 132;
  report.device.cc_major = 9;
  report.timestamp = "2026-11-22T01:38:40Z";
  tb::BenchRow r = timed("auto(tuned_small_64x64x16_w32x32_t8x4_s3_splitk)", 0.25, 0.24, 0.3);
  r.types = {tilegemm::DType::kBF16, tilegemm::DType::kF32};
  r.lb = tilegemm::Layout::kColMajor;
  r.alpha = -1.3f;
  r.beta = 0.5f;
  r.pads = {3, 1, 2};
  r.tflops = 8.5;
  report.rows.push_back(r);
  tb::BenchRow na = timed("naive", tb::kNoValue, tb::kNoValue, tb::kNoValue);
  na.status = tb::RowStatus::kNotApplicable;
  na.detail = "can_implement is false for this problem";
  report.rows.push_back(na);

  const tb::BenchReport back = tb::bench_report_from_json("OLD", "mem.json", tb::to_json(report));
  EXPECT_EQ(back.device.name, "NVIDIA H200");
  EXPECT_EQ(back.device.sm_count, 132);
  EXPECT_EQ(back.timestamp, "2026-11-22T01:38:40Z");
  ASSERT_EQ(back.rows.size(), 2u);
  const tb::BenchRow& b = back.rows[0];
  EXPECT_EQ(b.kernel, r.kernel);  // auto(...) kept as written
  EXPECT_EQ(b.types, r.types);
  EXPECT_EQ(b.lb, tilegemm::Layout::kColMajor);
  EXPECT_EQ(b.alpha, -1.3f);
  EXPECT_EQ(b.beta, 0.5f);
  EXPECT_EQ(b.pads.a, 3);
  EXPECT_EQ(b.pads.c, 2);
  EXPECT_DOUBLE_EQ(b.median_ms, 0.25);
  EXPECT_DOUBLE_EQ(b.max_ms, 0.3);
  EXPECT_EQ(tb::compare_key(b), tb::compare_key(r));
  EXPECT_EQ(back.rows[1].status, tb::RowStatus::kNotApplicable);
  EXPECT_TRUE(std::isnan(back.rows[1].median_ms));
  EXPECT_EQ(back.rows[1].detail, na.detail);
  EXPECT_TRUE(back.timing.block);
  report.timing.block = false;  // --no-block
  EXPECT_FALSE(tb::bench_report_from_json("OLD", "m.json", tb::to_json(report)).timing.block);
}

// Files written before the blocking kernel timed launches as the host enqueued them; compare
// says so when it sets one such file beside a blocked run.
TEST(ReadResults, FilesWithoutBlockWereNotBlockedAndCompareSaysSo) {
  tb::BenchReport blocked;
  blocked.rows = {timed("k", 1.0, 1.0, 1.0)};
  nlohmann::json doc = tb::to_json(blocked);
  doc["settings"].erase("block");
  const tb::BenchReport older = tb::bench_report_from_json("OLD", "o.json", doc);
  EXPECT_FALSE(older.timing.block);
  std::ostringstream os;
  tb::write_compare(os, tb::compare_reports(older, blocked, 5.0), tb::Format::kTable);
  EXPECT_NE(os.str().find("note: OLD timed launches as the host enqueued them (--no-block)"),
            std::string::npos)
      << os.str();
  std::ostringstream same;
  tb::write_compare(same, tb::compare_reports(blocked, blocked, 5.0), tb::Format::kTable);
  EXPECT_EQ(same.str().find("--no-block"), std::string::npos) << same.str();
}

TEST(ReadResults, OlderFilesWithoutDtypeCOrPadsTakeTheDefaults) {
  // The committed seeds run predates --dtype-c: its rows have no dtype_c.
  const tb::BenchReport r = tb::read_bench_file("--input", fixture("h200_slice.json"));
  ASSERT_EQ(r.rows.size(), 14u);
  EXPECT_EQ(r.device.name, "NVIDIA H200");
  EXPECT_EQ(r.rows[0].kernel, "cublas");
  EXPECT_EQ(r.rows[0].types, (tilegemm::GemmTypes{tilegemm::DType::kF32, tilegemm::DType::kF32}));
  EXPECT_EQ(r.rows.back().types,
            (tilegemm::GemmTypes{tilegemm::DType::kBF16, tilegemm::DType::kF32}));
  EXPECT_EQ(r.rows[10].status, tb::RowStatus::kNotApplicable);
}

TEST(ReadResults, ErrorsNameTheArgumentTheFileAndTheRow) {
  using nlohmann::json;
  auto parse = [](const json& doc) { tb::bench_report_from_json("NEW", "r.json", doc); };
  EXPECT_EQ(error_of([&] { parse(json::array()); }),
            "NEW: 'r.json': not a bench result (want a JSON object with \"results\")");
  EXPECT_NE(error_of([&] {
              parse(json{{"rows", json::array()}});
            }).find("no \"results\" array"),
            std::string::npos);
  json row = {{"kernel", "naive"}, {"m", 8},          {"n", 8}, {"k", 8},
              {"status", "ok"},    {"median_ms", 1.0}};
  EXPECT_EQ(error_of([&] { parse(json{{"results", {row}}}); }), "");
  json bad = row;
  bad["m"] = 0;
  EXPECT_EQ(error_of([&] {
              parse(json{{"results", {row, bad}}});
            }),
            "NEW: 'r.json': results[1].m: want an integer >= 1");
  bad = row;
  bad["dtype"] = "fp8";
  EXPECT_EQ(error_of([&] {
              parse(json{{"results", {bad}}});
            }),
            "NEW: 'r.json': results[0].dtype: 'fp8' is not a dtype (want f32, tf32, bf16 or f16)");
  bad = row;
  bad["status"] = "fast";
  EXPECT_NE(error_of([&] {
              parse(json{{"results", {bad}}});
            }).find("results[0].status"),
            std::string::npos);
  bad = row;
  bad.erase("kernel");
  EXPECT_EQ(error_of([&] {
              parse(json{{"results", {bad}}});
            }),
            "NEW: 'r.json': results[0].kernel: missing");
  bad = row;
  bad["median_ms"] = nullptr;  // an ok row without a time
  EXPECT_NE(error_of([&] {
              parse(json{{"results", {bad}}});
            }).find("median_ms"),
            std::string::npos);
}

TEST(ReadResults, MissingFileAndBadJsonNameTheArgument) {
  EXPECT_EQ(error_of([] { tb::read_bench_file("OLD", fixture("no_such_file.json")); }),
            "OLD: cannot read '" + fixture("no_such_file.json") + "'");
  const std::string path = ::testing::TempDir() + "compare_test_bad.json";
  std::ofstream(path) << "{\"results\": [1, 2,\n";
  const std::string e = error_of([&] { tb::read_bench_file("NEW", path); });
  EXPECT_EQ(e.rfind("NEW: '" + path + "' is not JSON: parse error at line 2", 0), 0u) << e;
  std::remove(path.c_str());
}

// --- compare's arithmetic -----------------------------------------------------------------------

TEST(Compare, SpreadAndNoiseAreTheRowsMinMaxOverMedian) {
  EXPECT_DOUBLE_EQ(tb::relative_spread(timed("a", 2.0, 1.9, 2.3)), 0.2);
  EXPECT_TRUE(std::isnan(tb::relative_spread(timed("a", 2.0, tb::kNoValue, 2.3))));
  // ratio 1.1; spreads 0.02 and 0.02 -> noise sqrt(0.0008) = 0.0283: slower, beyond 5%.
  tb::CompareRow c =
      tb::compare_pair(timed("a", 10.0, 9.9, 10.1), timed("a", 11.0, 10.89, 11.11), 5.0);
  EXPECT_NEAR(c.ratio, 1.1, 1e-12);
  EXPECT_NEAR(c.noise, std::sqrt(0.0008), 1e-12);
  EXPECT_EQ(c.verdict, tb::Verdict::kSlower);
  EXPECT_TRUE(c.regression);
  // The same pair at a 12% threshold: still slower, no longer a regression.
  c = tb::compare_pair(timed("a", 10.0, 9.9, 10.1), timed("a", 11.0, 10.89, 11.11), 12.0);
  EXPECT_EQ(c.verdict, tb::Verdict::kSlower);
  EXPECT_FALSE(c.regression);
  // +15% inside a 21.8% combined spread: noise, whatever the threshold.
  c = tb::compare_pair(timed("a", 2.0, 1.8, 2.2), timed("a", 2.3, 2.2, 2.4), 5.0);
  EXPECT_NEAR(c.noise, std::hypot(0.2, 0.2 / 2.3), 1e-12);
  EXPECT_EQ(c.verdict, tb::Verdict::kNoise);
  EXPECT_FALSE(c.regression);
  // Faster beyond the noise.
  c = tb::compare_pair(timed("a", 4.0, 3.98, 4.02), timed("a", 3.0, 2.985, 3.015), 5.0);
  EXPECT_DOUBLE_EQ(c.ratio, 0.75);
  EXPECT_EQ(c.verdict, tb::Verdict::kFaster);
  EXPECT_FALSE(c.regression);
  // No min/max: no spread to hide behind, a 1% change is a change.
  c = tb::compare_pair(timed("a", 1.0, tb::kNoValue, tb::kNoValue),
                       timed("a", 1.01, tb::kNoValue, tb::kNoValue), 0.5);
  EXPECT_EQ(c.verdict, tb::Verdict::kSlower);
  EXPECT_TRUE(c.regression);
}

TEST(Compare, FailedInNewIsARegressionNotApplicableIsNot) {
  tb::BenchRow failed = timed("a", tb::kNoValue, tb::kNoValue, tb::kNoValue);
  failed.status = tb::RowStatus::kFailed;
  tb::CompareRow c = tb::compare_pair(timed("a", 1.0, 1.0, 1.0), failed, 5.0);
  EXPECT_EQ(c.verdict, tb::Verdict::kNewFailed);
  EXPECT_TRUE(c.regression);
  tb::BenchRow na = failed;
  na.status = tb::RowStatus::kNotApplicable;
  c = tb::compare_pair(na, na, 5.0);
  EXPECT_EQ(c.verdict, tb::Verdict::kNotTimed);
  EXPECT_FALSE(c.regression);
  EXPECT_TRUE(std::isnan(c.ratio));
}

TEST(Compare, FixturesGiveOneVerdictPerRow) {
  const tb::CompareReport r =
      tb::compare_reports(tb::read_bench_file("OLD", fixture("compare_old.json")),
                          tb::read_bench_file("NEW", fixture("compare_new.json")), 5.0);
  ASSERT_EQ(r.rows.size(), 11u);  // 7 matched, 2 only in OLD, 2 only in NEW
  EXPECT_EQ(r.count(tb::Verdict::kNoise), 2u);
  EXPECT_EQ(r.count(tb::Verdict::kSlower), 2u);
  EXPECT_EQ(r.count(tb::Verdict::kFaster), 1u);
  EXPECT_EQ(r.count(tb::Verdict::kNewFailed), 1u);
  EXPECT_EQ(r.count(tb::Verdict::kNotTimed), 1u);
  EXPECT_EQ(r.count(tb::Verdict::kOnlyOld), 2u);
  EXPECT_EQ(r.count(tb::Verdict::kOnlyNew), 2u);
  EXPECT_EQ(r.regressions(), 2u);
  EXPECT_FALSE(r.passed());
  // The old-format cuBLAS row (no dtype_c, no pads) matched NEW's full one.
  const tb::CompareRow* cublas = find_row(r, "cublas", tb::Verdict::kNoise);
  ASSERT_NE(cublas, nullptr);
  EXPECT_DOUBLE_EQ(cublas->ratio, 1.0);
  EXPECT_NEAR(cublas->noise, std::hypot(0.02, 0.01), 1e-12);
  const tb::CompareRow* blocktile = find_row(r, "blocktile_128x128x8_8x8", tb::Verdict::kSlower);
  ASSERT_NE(blocktile, nullptr);
  EXPECT_NEAR(blocktile->ratio, 1.03, 1e-12);
  EXPECT_FALSE(blocktile->regression);  // 3% is under the 5% threshold
  // auto kept its chosen kernel in the key: a different choice does not match.
  EXPECT_NE(find_row(r, "auto(tuned_small_64x64x16_w32x32_t8x4_s3_splitk)", tb::Verdict::kOnlyOld),
            nullptr);
  EXPECT_NE(find_row(r, "auto(cp_async_128x256x8_w64x64_t8x16_s3_lean_mid)", tb::Verdict::kOnlyNew),
            nullptr);
  // Layout and beta are part of the key.
  EXPECT_NE(find_row(r, "naive", tb::Verdict::kOnlyOld), nullptr);
  const tb::CompareRow* beta = find_row(r, "naive", tb::Verdict::kOnlyNew);
  ASSERT_NE(beta, nullptr);
  EXPECT_EQ(beta->new_row->beta, 0.5f);

  EXPECT_EQ(tb::regression_lines(r),
            (std::vector<std::string>{
                "slower: naive 1024x1024x1024 row,row,row f32: new/old 1.100 (+10.0%, noise 2.8%), "
                "beyond 5.0%",
                "FAILED in NEW: warptile_128x128x8_w32x64_t8x8 1024x1024x1024 row,row,row f32: "
                "max rel error 1.0e+00 > tolerance 1.6e-04"}));
  EXPECT_EQ(tb::compare_summary(r),
            "7 matched: 1 faster, 2 slower, 2 noise, 1 FAILED in NEW, 1 not timed; 2 only in OLD, "
            "2 only in NEW; 2 regressions beyond 5.0%");

  // At 12% the naive row is no regression; the FAILED one still is.
  const tb::CompareReport lax = tb::compare_reports(r.old_report, r.new_report, 12.0);
  EXPECT_EQ(lax.regressions(), 1u);
}

TEST(Compare, RepeatedKeysMatchInOrder) {
  tb::BenchReport a, b;
  a.rows = {timed("k", 1.0, 1.0, 1.0), timed("k", 2.0, 2.0, 2.0)};
  b.rows = {timed("k", 1.0, 1.0, 1.0), timed("k", 4.0, 4.0, 4.0), timed("k", 9.0, 9.0, 9.0)};
  const tb::CompareReport r = tb::compare_reports(a, b, 5.0);
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_DOUBLE_EQ(r.rows[0].ratio, 1.0);
  EXPECT_DOUBLE_EQ(r.rows[1].ratio, 2.0);
  EXPECT_EQ(r.rows[2].verdict, tb::Verdict::kOnlyNew);
  EXPECT_DOUBLE_EQ(r.rows[2].new_row->median_ms, 9.0);
}

TEST(Compare, JsonAndCsvCarryTheVerdicts) {
  tb::CompareReport r =
      tb::compare_reports(tb::read_bench_file("OLD", fixture("compare_old.json")),
                          tb::read_bench_file("NEW", fixture("compare_new.json")), 5.0);
  const nlohmann::json j = tb::to_json(r);
  EXPECT_FALSE(j["passed"].get<bool>());
  ASSERT_EQ(j["rows"].size(), 11u);
  EXPECT_EQ(j["rows"][1]["kernel"], "naive");
  EXPECT_EQ(j["rows"][1]["verdict"], "slower");
  EXPECT_TRUE(j["rows"][1]["regression"].get<bool>());
  EXPECT_NEAR(j["rows"][1]["ratio"].get<double>(), 1.1, 1e-12);
  EXPECT_TRUE(j["rows"][5]["new"].is_null());  // only in OLD
  std::ostringstream csv;
  tb::write_compare(csv, r, tb::Format::kCsv);
  std::size_t lines = 0;
  for (char ch : csv.str()) lines += ch == '\n' ? 1 : 0;
  EXPECT_EQ(lines, 12u);  // header + 11 rows
  EXPECT_NE(csv.str().find("naive,1024,1024,1024,\"row,row,row\",f32,\"1,0\",10.0000,11.0000"),
            std::string::npos)
      << csv.str();
}

// --- bench: several outputs, providers ---------------------------------------------------------

TEST(BenchOutputs, FormatFromExtension) {
  EXPECT_EQ(tb::format_from_extension("r.json"), tb::Format::kJson);
  EXPECT_EQ(tb::format_from_extension("dir.v2/R.CSV"), tb::Format::kCsv);
  EXPECT_EQ(tb::format_from_extension("r.md"), tb::Format::kMarkdown);
  EXPECT_EQ(tb::format_from_extension("r.txt"), tb::Format::kTable);
  EXPECT_EQ(tb::format_from_extension("r.table"), tb::Format::kTable);
  EXPECT_EQ(tb::format_from_extension("r.dat"), std::nullopt);
  EXPECT_EQ(tb::format_from_extension("dir.json/results"), std::nullopt);
  EXPECT_EQ(tb::format_from_extension(".json"), std::nullopt);  // a hidden file, no extension
}

TEST(BenchOutputs, PlanKeepsTheSingleOutputBehaviourAndReadsExtensions) {
  using V = std::vector<std::string>;
  auto plan = [](const V& paths, const char* format, bool given) {
    return tb::plan_outputs("--output", paths, "--format", format, given);
  };
  // One file with --format: that format, whatever the extension (as before).
  auto p = plan({"r.txt"}, "json", true);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].format, tb::Format::kJson);
  // One file without --format: its extension; an unknown one keeps the old default, table.
  EXPECT_EQ(plan({"r.csv"}, "table", false)[0].format, tb::Format::kCsv);
  EXPECT_EQ(plan({"results"}, "table", false)[0].format, tb::Format::kTable);
  // Several: each its own.
  p = plan({"r.json", "r.md", "r.csv"}, "table", false);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].format, tb::Format::kJson);
  EXPECT_EQ(p[1].format, tb::Format::kMarkdown);
  EXPECT_EQ(p[2].format, tb::Format::kCsv);
  EXPECT_TRUE(plan({}, "md", true).empty());

  EXPECT_EQ(error_of([&] {
              plan({"r.json", "r.dat"}, "table", false);
            }),
            "--output: 'r.dat': no format for this extension (want .json, .csv, .md or .txt; or "
            "one --output with --format)");
  EXPECT_EQ(error_of([&] {
              plan({"r.json", "r.md"}, "json", true);
            }),
            "--format: give it with a single --output; with several, each file's format comes "
            "from its extension (.json, .csv, .md, .txt)");
  EXPECT_EQ(error_of([&] {
              plan({"r.json", "r.json"}, "table", false);
            }),
            "--output: 'r.json' given twice");
  EXPECT_NE(error_of([&] { plan({"r.json"}, "xml", true); }).find("--format"), std::string::npos);
}

TEST(BenchOutputs, Providers) {
  tb::Providers p = tb::parse_providers("--providers", "tilegemm,cublas");
  EXPECT_TRUE(p.tilegemm && p.cublas);
  p = tb::parse_providers("--providers", "cublas");
  EXPECT_FALSE(p.tilegemm);
  EXPECT_TRUE(p.cublas);
  EXPECT_EQ(error_of([] { tb::parse_providers("--providers", "cutlass"); }),
            "--providers: 'cutlass' is not a provider (want tilegemm, cublas or tilegemm,cublas)");
  EXPECT_NE(error_of([] { tb::parse_providers("--providers", ""); }), "");

  tb::BenchReport r;
  r.rows = {timed("cublas", 1, 1, 1), timed("naive", 2, 2, 2), timed("auto(naive)", 2, 2, 2)};
  tb::BenchReport only_ours = r;
  tb::keep_providers(&only_ours, {true, false});
  ASSERT_EQ(only_ours.rows.size(), 2u);
  EXPECT_EQ(only_ours.rows[0].kernel, "naive");
  tb::BenchReport only_cublas = r;
  tb::keep_providers(&only_cublas, {false, true});
  ASSERT_EQ(only_cublas.rows.size(), 1u);
  EXPECT_EQ(only_cublas.rows[0].kernel, "cublas");
}
