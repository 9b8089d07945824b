// The benchmark library without a GPU: input parsing and its errors, the sweep case lists, the
// timing statistics and the writers (table, CSV, markdown, JSON).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "input_error.hpp"
#include "tilegemm/bench.hpp"
#include "tilegemm/gemm.hpp"

namespace tb = tilegemm::bench;
using tilegemm::CaseSpec;
using tilegemm::Layout;

namespace {

std::vector<std::int64_t> sizes(const char* text) {
  return tb::parse_size_list("--m", text);
}

using tilegemm::test_util::error_of;

}  // namespace

// --- size lists and shapes --------------------------------------------------------------------

TEST(SizeList, SingleValuesAndCommaLists) {
  EXPECT_EQ(sizes("256"), (std::vector<std::int64_t>{256}));
  EXPECT_EQ(sizes("256,512,7"), (std::vector<std::int64_t>{256, 512, 7}));
}

TEST(SizeList, MultiplicativeRange) {
  EXPECT_EQ(sizes("256:4096:x2"), (std::vector<std::int64_t>{256, 512, 1024, 2048, 4096}));
  EXPECT_EQ(sizes("3:10:x2"), (std::vector<std::int64_t>{3, 6}));  // 12 is past the end
  EXPECT_EQ(sizes("1:1000:x10"), (std::vector<std::int64_t>{1, 10, 100, 1000}));
}

TEST(SizeList, AdditiveRange) {
  EXPECT_EQ(sizes("256:1024:256"), (std::vector<std::int64_t>{256, 512, 768, 1024}));
  EXPECT_EQ(sizes("1:10:4"), (std::vector<std::int64_t>{1, 5, 9}));
  EXPECT_EQ(sizes("64:64:1"), (std::vector<std::int64_t>{64}));
}

TEST(SizeList, MixedItems) {
  EXPECT_EQ(sizes("100,256:1024:x2"), (std::vector<std::int64_t>{100, 256, 512, 1024}));
}

TEST(SizeList, ErrorsNameTheFlagAndTheText) {
  EXPECT_EQ(error_of([] { sizes("256:x"); }),
            "--m: '256:x' is not a size list (want 256, 256:4096:256 or 256:4096:x2)");
  for (const char* bad : {"", "abc", "256:", "256:4096", "256:4096:x", "1:2:3:4", "+5", "5 ",
                          "256,,512", "25.6", "256:4096:y2"}) {
    const std::string e = error_of([&] { sizes(bad); });
    EXPECT_EQ(e.rfind("--m: '" + std::string(bad) + "' is not a size list", 0), 0u)
        << "input '" << bad << "' gave: " << e;
  }
  EXPECT_EQ(error_of([] { sizes("0"); }), "--m: '0': sizes must be >= 1");
  EXPECT_EQ(error_of([] { sizes("-4"); }), "--m: '-4': sizes must be >= 1");
  EXPECT_EQ(error_of([] { sizes("3000000000"); }),
            "--m: '3000000000': sizes must be <= 2147483647");
  EXPECT_EQ(error_of([] { sizes("99999999999999999999"); }),
            "--m: '99999999999999999999': sizes must be <= 2147483647");
  EXPECT_EQ(error_of([] { sizes("4096:256:x2"); }),
            "--m: '4096:256:x2': a range must not run backwards (start > end)");
  EXPECT_EQ(error_of([] { sizes("256:4096:x1"); }),
            "--m: '256:4096:x1': a range's factor must be >= 2");
  EXPECT_EQ(error_of([] { sizes("256:4096:0"); }),
            "--m: '256:4096:0': a range's step must be >= 1");
  EXPECT_EQ(error_of([] { sizes("1:100000:1"); }), "--m: '1:100000:1' has more than 4096 sizes");
}

TEST(Shape, ParsesAndPrints) {
  const tb::Shape s = tb::parse_shape("--shape", "4095x2048x7");
  EXPECT_EQ(s.m, 4095);
  EXPECT_EQ(s.n, 2048);
  EXPECT_EQ(s.k, 7);
  EXPECT_EQ(s.to_string(), "4095x2048x7");
}

TEST(Shape, Errors) {
  EXPECT_EQ(error_of([] { tb::parse_shape("--shape", "0x5x5"); }),
            "--shape: '0x5x5': sizes must be >= 1");
  for (const char* bad : {"", "4x4", "4x4x4x4", "axbxc", "4x4x", "4*4*4", "4 x4x4"}) {
    EXPECT_EQ(
        error_of([&] { tb::parse_shape("--shape", bad); }),
        "--shape: '" + std::string(bad) + "' is not a shape (want MxNxK, e.g. 4095x4095x4095)")
        << bad;
  }
}

TEST(Shape, CartesianProductMSlowest) {
  const std::vector<tb::Shape> shapes = tb::cartesian({1, 2}, {3}, {4, 5});
  ASSERT_EQ(shapes.size(), 4u);
  EXPECT_EQ(shapes[0], (tb::Shape{1, 3, 4}));
  EXPECT_EQ(shapes[1], (tb::Shape{1, 3, 5}));
  EXPECT_EQ(shapes[2], (tb::Shape{2, 3, 4}));
  EXPECT_EQ(shapes[3], (tb::Shape{2, 3, 5}));
}

// --- the other flags --------------------------------------------------------------------------

TEST(Flags, Layout) {
  EXPECT_EQ(tb::parse_layout("--layout-a", "row"), Layout::kRowMajor);
  EXPECT_EQ(tb::parse_layout("--layout-a", "col"), Layout::kColMajor);
  EXPECT_EQ(error_of([] { tb::parse_layout("--layout-b", "rows"); }),
            "--layout-b: 'rows' is not a layout (want row or col)");
  EXPECT_NE(error_of([] { tb::parse_layout("--layout-c", "ROW"); }), "");
}

TEST(Flags, Format) {
  EXPECT_EQ(tb::parse_format("--format", "table"), tb::Format::kTable);
  EXPECT_EQ(tb::parse_format("--format", "csv"), tb::Format::kCsv);
  EXPECT_EQ(tb::parse_format("--format", "json"), tb::Format::kJson);
  EXPECT_EQ(tb::parse_format("--format", "md"), tb::Format::kMarkdown);
  EXPECT_EQ(error_of([] { tb::parse_format("--format", "xml"); }),
            "--format: 'xml' is not a format (want table, csv, json or md)");
}

TEST(Flags, Pads) {
  const tb::Pads p = tb::parse_pads("--pad", "0,1,3");
  EXPECT_EQ(p.a, 0);
  EXPECT_EQ(p.b, 1);
  EXPECT_EQ(p.c, 3);
  for (const char* bad : {"", "1,2", "1,2,3,4", "a,b,c", "1,,3"}) {
    EXPECT_EQ(error_of([&] { tb::parse_pads("--pad", bad); }),
              "--pad: '" + std::string(bad) + "' is not a pad triple (want a,b,c, e.g. 0,0,3)")
        << bad;
  }
  EXPECT_EQ(error_of([] { tb::parse_pads("--pad", "0,-1,0"); }),
            "--pad: '0,-1,0': pads must be >= 0");
  EXPECT_EQ(error_of([] { tb::parse_pads("--pad", "0,0,2000000"); }),
            "--pad: '0,0,2000000': pads must be <= 1048576");
}

TEST(Flags, IntegersSeedsScalars) {
  EXPECT_EQ(tb::parse_int("--reps", "50", 1, 100), 50);
  EXPECT_EQ(error_of([] { tb::parse_int("--reps", "0", 1, 100); }), "--reps: '0' must be >= 1");
  EXPECT_EQ(error_of([] { tb::parse_int("--reps", "101", 1, 100); }),
            "--reps: '101' must be <= 100");
  EXPECT_EQ(error_of([] { tb::parse_int("--reps", "5x", 1, 100); }),
            "--reps: '5x' is not an integer");
  EXPECT_EQ(error_of([] { tb::parse_int("--reps", "-99999999999999999999", 1, 100); }),
            "--reps: '-99999999999999999999' must be >= 1");

  EXPECT_EQ(tb::parse_seed("--seed", "18446744073709551615"), 18446744073709551615ull);
  EXPECT_NE(error_of([] { tb::parse_seed("--seed", "-1"); }), "");

  EXPECT_EQ(tb::parse_scalar("--alpha", "0.5"), 0.5f);
  EXPECT_EQ(tb::parse_scalar("--alpha", "-1.3"), -1.3f);
  EXPECT_EQ(tb::parse_scalar("--beta", "2e0"), 2.0f);
  EXPECT_EQ(error_of([] { tb::parse_scalar("--alpha", "abc"); }), "--alpha: 'abc' is not a number");
  EXPECT_EQ(error_of([] { tb::parse_scalar("--alpha", "1.5.2"); }),
            "--alpha: '1.5.2' is not a number");
  EXPECT_EQ(error_of([] { tb::parse_scalar("--beta", "inf"); }),
            "--beta: 'inf' must be a finite fp32 number");
  EXPECT_EQ(error_of([] { tb::parse_scalar("--beta", "1e39"); }),
            "--beta: '1e39' must be a finite fp32 number");
}

TEST(Flags, KernelGlobs) {
  // Without types and without a GPU filter: every kernel the globs match.
  auto names = [](const char* text) {
    return tb::select_kernels("--kernels", text, std::nullopt, 0).names;
  };
  const std::vector<tilegemm::KernelInfo>& all = tilegemm::all_kernels();
  const std::vector<std::string> every = names("*");
  ASSERT_EQ(every.size(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(every[i], all[i].name);

  const std::vector<std::string> tiled = names("smem_tiled_t*");
  ASSERT_FALSE(tiled.empty());
  for (const std::string& name : tiled) EXPECT_EQ(name.rfind("smem_tiled_t", 0), 0u) << name;

  // Duplicates collapse, ladder order is kept, "auto" comes last.
  EXPECT_EQ(names("auto,naive,nai*"), (std::vector<std::string>{"naive", "auto"}));
  EXPECT_EQ(error_of([&] { names("nomatch*"); }),
            "--kernels: 'nomatch*' matches no kernel (see `tilegemm list`)");
  EXPECT_EQ(error_of([&] { names("naive,,auto"); }), "--kernels: 'naive,,auto' has an empty item");
  EXPECT_TRUE(tb::select_kernels("--kernels", "*", std::nullopt, 0).skipped.empty());
}

// --- sweeps -----------------------------------------------------------------------------------

TEST(Sweep, StandardSweepIsLargeAndCoversEveryCombination) {
  const std::vector<CaseSpec> cases = tb::standard_sweep(1);
  EXPECT_GE(cases.size(), 300u);
  EXPECT_LE(cases.size(), 600u);  // stays a sweep of seconds, not minutes
  const std::set<std::int64_t> allowed(tb::sweep_sizes().begin(), tb::sweep_sizes().end());
  // (layout mix, alpha, beta, position, size) tuples seen.
  std::set<std::tuple<int, int, int, float, float, int, std::int64_t>> seen;
  for (const CaseSpec& c : cases) {
    EXPECT_EQ(c.seed, 1u);
    const std::int64_t dims[3] = {c.m, c.n, c.k};
    for (int p = 0; p < 3; ++p) {
      EXPECT_EQ(allowed.count(dims[p]), 1u) << c.to_string();
      seen.insert({static_cast<int>(c.la), static_cast<int>(c.lb), static_cast<int>(c.lc), c.alpha,
                   c.beta, p, dims[p]});
    }
  }
  for (const tb::LayoutMix& mix : tb::sweep_layouts()) {
    for (const auto& [alpha, beta] : tb::sweep_scalars()) {
      for (int p = 0; p < 3; ++p) {
        for (std::int64_t edge : {1, 1025}) {
          EXPECT_EQ(seen.count({static_cast<int>(mix.a), static_cast<int>(mix.b),
                                static_cast<int>(mix.c), alpha, beta, p, edge}),
                    1u)
              << "layout " << layout_name(mix.a) << layout_name(mix.b) << layout_name(mix.c)
              << " alpha " << alpha << " beta " << beta << " position " << p << " size " << edge;
        }
      }
    }
  }
}

TEST(Sweep, StandardSweepPairsEverySizeInEveryPositionPair) {
  const std::vector<CaseSpec> cases = tb::standard_sweep(3);
  std::set<std::tuple<int, std::int64_t, std::int64_t>> pairs;  // (position pair, a, b)
  for (const CaseSpec& c : cases) {
    pairs.insert({0, c.m, c.n});
    pairs.insert({1, c.m, c.k});
    pairs.insert({2, c.n, c.k});
  }
  const std::size_t n = tb::sweep_sizes().size();
  EXPECT_EQ(pairs.size(), 3 * n * n);
  // Some cases pad their leading dimensions.
  EXPECT_TRUE(std::any_of(cases.begin(), cases.end(),
                          [](const CaseSpec& c) { return c.pad_a + c.pad_b + c.pad_c > 0; }));
}

TEST(Sweep, StandardSweepIsDeterministic) {
  const std::vector<CaseSpec> a = tb::standard_sweep(5), b = tb::standard_sweep(5);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].to_string(), b[i].to_string());
}

TEST(Sweep, FuzzCasesAreReproducibleAndInRange) {
  const std::vector<CaseSpec> a = tb::fuzz_cases(300, 7), b = tb::fuzz_cases(300, 7);
  const std::vector<CaseSpec> other = tb::fuzz_cases(300, 8);
  ASSERT_EQ(a.size(), 300u);
  std::size_t differ = 0;
  std::set<int> mixes;
  bool alpha0 = false, alpha1 = false, beta0 = false, beta1 = false;
  std::size_t aligned = 0, aligned_odd = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].to_string(), b[i].to_string());
    if (a[i].to_string() != other[i].to_string()) ++differ;
    for (std::int64_t d : {a[i].m, a[i].n, a[i].k}) {
      EXPECT_GE(d, 1);
      EXPECT_LE(d, 2048);
    }
    for (std::int64_t p : {a[i].pad_a, a[i].pad_b, a[i].pad_c}) {
      EXPECT_GE(p, 0);
      EXPECT_LE(p, 15);
    }
    // About half the cases have every leading dimension a multiple of 8 (what the aligned
    // tensor-core instances take), whatever the extents.
    const std::int64_t lda = (a[i].la == Layout::kRowMajor ? a[i].k : a[i].m) + a[i].pad_a;
    const std::int64_t ldb = (a[i].lb == Layout::kRowMajor ? a[i].n : a[i].k) + a[i].pad_b;
    const std::int64_t ldc = (a[i].lc == Layout::kRowMajor ? a[i].n : a[i].m) + a[i].pad_c;
    if (lda % 8 == 0 && ldb % 8 == 0 && ldc % 8 == 0) {
      ++aligned;
      if (a[i].m % 8 != 0 || a[i].n % 8 != 0 || a[i].k % 8 != 0) ++aligned_odd;
    }
    mixes.insert(static_cast<int>(a[i].la) * 4 + static_cast<int>(a[i].lb) * 2 +
                 static_cast<int>(a[i].lc));
    // Replay flags print alpha and beta; they must read back as the same floats.
    for (float v : {a[i].alpha, a[i].beta}) {
      std::ostringstream os;
      os << v;
      EXPECT_EQ(tb::parse_scalar("--alpha", os.str()), v);
    }
    alpha0 = alpha0 || a[i].alpha == 0.0f;
    alpha1 = alpha1 || a[i].alpha == 1.0f;
    beta0 = beta0 || a[i].beta == 0.0f;
    beta1 = beta1 || a[i].beta == 1.0f;
  }
  EXPECT_GT(differ, 290u);
  EXPECT_GT(aligned, 120u);
  EXPECT_LT(aligned, 180u);
  EXPECT_GT(aligned_odd, 100u);
  EXPECT_EQ(mixes.size(), 8u);
  EXPECT_TRUE(alpha0 && alpha1 && beta0 && beta1);
  EXPECT_TRUE(tb::fuzz_cases(0, 1).empty());
}

TEST(Sweep, CaseListsCarryTheirTypes) {
  const tilegemm::GemmTypes bf16_f32{tilegemm::DType::kBF16, tilegemm::DType::kF32};
  for (const CaseSpec& c : tb::standard_sweep(1)) EXPECT_TRUE(c.types == tilegemm::GemmTypes{});
  const std::vector<CaseSpec> f32 = tb::standard_sweep(1);
  const std::vector<CaseSpec> typed = tb::standard_sweep(1, bf16_f32);
  ASSERT_EQ(typed.size(), f32.size());
  for (std::size_t i = 0; i < typed.size(); ++i) {
    EXPECT_TRUE(typed[i].types == bf16_f32);
    // Only the types differ: the same shapes, layouts, scalars and pads.
    EXPECT_EQ(typed[i].m, f32[i].m);
    EXPECT_EQ(typed[i].k, f32[i].k);
    EXPECT_EQ(typed[i].lb, f32[i].lb);
    EXPECT_EQ(typed[i].pad_c, f32[i].pad_c);
  }
  const std::vector<CaseSpec> fuzz = tb::fuzz_cases(50, 3);
  const std::vector<CaseSpec> fuzz_typed = tb::fuzz_cases(50, 3, bf16_f32);
  ASSERT_EQ(fuzz_typed.size(), fuzz.size());
  for (std::size_t i = 0; i < fuzz.size(); ++i) {
    EXPECT_TRUE(fuzz[i].types == tilegemm::GemmTypes{});
    EXPECT_TRUE(fuzz_typed[i].types == bf16_f32);
    EXPECT_EQ(fuzz_typed[i].n, fuzz[i].n);
    EXPECT_EQ(fuzz_typed[i].alpha, fuzz[i].alpha);
  }
}

TEST(Sweep, ReplayCommand) {
  CaseSpec c;
  c.m = 33;
  c.n = 65;
  c.k = 7;
  c.alpha = 0.5f;
  c.beta = 2.0f;
  c.lb = Layout::kColMajor;
  c.pad_c = 3;
  EXPECT_EQ(tb::replay_command("smem_tiled_t32", c),
            "tilegemm verify --kernels smem_tiled_t32 " + c.replay_flags());
  EXPECT_NE(c.replay_flags().find("--shape 33x65x7"), std::string::npos);
}

// --- timing statistics ------------------------------------------------------------------------

TEST(Timing, MedianMinMax) {
  tb::TimingStats t = tb::summarize_ms({3.0f, 1.0f, 2.0f});
  EXPECT_EQ(t.median_ms, 2.0);
  EXPECT_EQ(t.min_ms, 1.0);
  EXPECT_EQ(t.max_ms, 3.0);
  EXPECT_EQ(t.reps, 3);
  t = tb::summarize_ms({4.0f, 1.0f, 3.0f, 2.0f});
  EXPECT_EQ(t.median_ms, 2.5);
  t = tb::summarize_ms({});
  EXPECT_TRUE(std::isnan(t.median_ms));
}

TEST(Timing, Tflops) {
  EXPECT_DOUBLE_EQ(tb::tflops({1024, 1024, 1024}, 1.0), 2.147483648);
  EXPECT_DOUBLE_EQ(tb::tflops({4096, 4096, 4096}, 2.0), 68.719476736);
  EXPECT_TRUE(std::isnan(tb::tflops({1, 1, 1}, 0.0)));
}

TEST(Timing, TestbedBytes) {
  CaseSpec c;
  c.m = 10;
  c.n = 20;
  c.k = 30;
  c.pad_c = 2;  // row-major C: ld 22
  EXPECT_DOUBLE_EQ(tb::testbed_bytes(c), 4.0 * (10 * 30 + 30 * 20 + 3 * 10 * 22) + 8.0 * 200);
  // Element sizes: A/B in bf16 (2 bytes), C in f32 (4), then C in bf16 too; the fp64 reference
  // stays 8 bytes an element.
  c.types = {tilegemm::DType::kBF16, tilegemm::DType::kF32};
  EXPECT_DOUBLE_EQ(tb::testbed_bytes(c), 2.0 * (10 * 30 + 30 * 20) + 4.0 * 3 * 10 * 22 + 8.0 * 200);
  c.types = {tilegemm::DType::kBF16, tilegemm::DType::kBF16};
  EXPECT_DOUBLE_EQ(tb::testbed_bytes(c), 2.0 * (10 * 30 + 30 * 20) + 2.0 * 3 * 10 * 22 + 8.0 * 200);
  c.types = {tilegemm::DType::kTF32, tilegemm::DType::kF32};  // fp32 storage
  EXPECT_DOUBLE_EQ(tb::testbed_bytes(c), 4.0 * (10 * 30 + 30 * 20 + 3 * 10 * 22) + 8.0 * 200);
}

TEST(Runner, BenchCaseCarriesTheRequest) {
  tb::BenchRequest request;
  request.types = {tilegemm::DType::kF16, tilegemm::DType::kF32};
  request.alpha = 0.5f;
  request.lb = Layout::kColMajor;
  request.pads = {1, 2, 3};
  request.seed = 11;
  const CaseSpec c = tb::bench_case(request, {64, 32, 16});
  EXPECT_TRUE(c.types == request.types);
  EXPECT_EQ(c.m, 64);
  EXPECT_EQ(c.n, 32);
  EXPECT_EQ(c.k, 16);
  EXPECT_EQ(c.alpha, 0.5f);
  EXPECT_EQ(c.lb, Layout::kColMajor);
  EXPECT_EQ(c.pad_c, 3);
  EXPECT_EQ(c.seed, 11u);
  EXPECT_TRUE(tb::bench_case(tb::BenchRequest{}, {8, 8, 8}).types == tilegemm::GemmTypes{});
}

// --- writers ----------------------------------------------------------------------------------

TEST(Writers, TextTableAlignsColumns) {
  tb::Table t;
  t.add_column("name");
  t.add_column("ms", true);
  t.add_row({"a", "1.5"});
  t.add_row({"long", "10.25"});
  std::ostringstream os;
  tb::write_text(os, t);
  EXPECT_EQ(os.str(),
            "name     ms\n"
            "----  -----\n"
            "a       1.5\n"
            "long  10.25\n");
  EXPECT_THROW(t.add_row({"only one"}), std::logic_error);
}

TEST(Writers, CsvQuotesAndMarkdownAligns) {
  EXPECT_EQ(tb::csv_field("plain"), "plain");
  EXPECT_EQ(tb::csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(tb::csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  tb::Table t;
  t.add_column("k");
  t.add_column("v", true);
  t.add_row({"x|y", "1"});
  std::ostringstream md, csv;
  tb::write_markdown(md, t);
  tb::write_csv(csv, t);
  EXPECT_EQ(md.str(),
            "| k    |   v |\n"
            "| ---- | --: |\n"
            "| x\\|y |   1 |\n");
  EXPECT_EQ(csv.str(), "k,v\nx|y,1\n");
}

TEST(Writers, Helpers) {
  EXPECT_EQ(tb::fixed(1.23456, 2), "1.23");
  EXPECT_EQ(tb::fixed(std::nan(""), 2), "-");
  EXPECT_EQ(tb::scientific(0.000123, 2), "1.23e-04");
  EXPECT_TRUE(
      std::regex_match(tb::utc_timestamp(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  const char* argv[] = {"tilegemm", "bench", "--kernels", "smem_*", "--shape", "it's"};
  EXPECT_EQ(tb::join_command(6, argv), "tilegemm bench --kernels 'smem_*' --shape 'it'\\''s'");
}

namespace {

tilegemm::DeviceInfo fake_h200() {
  tilegemm::DeviceInfo d;
  d.name = "NVIDIA H200";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.sm_clock_mhz = 1980;
  d.mem_clock_mhz = 3201;
  d.l2_bytes = 62914560;
  d.smem_per_sm_bytes = 233472;
  d.driver_version = 13000;
  d.runtime_version = 13000;
  return d;
}

tb::BenchReport fake_report() {
  tb::BenchReport r;
  r.device = fake_h200();
  r.command = "tilegemm bench --shape 256x256x256";
  r.timestamp = "2026-11-21T10:00:00Z";
  r.timing.warmup = 3;
  r.timing.reps = 7;
  r.seed = 9;
  tb::BenchRow cublas;
  cublas.kernel = "cublas";
  cublas.shape = {256, 256, 256};
  cublas.alpha = -1.3f;
  cublas.median_ms = 0.01;
  cublas.min_ms = 0.009;
  cublas.max_ms = 0.02;
  cublas.tflops = 3.3554432;
  cublas.cublas_ms = 0.01;
  cublas.cublas_ratio = 1.0;
  cublas.rel_error = 1e-7;
  cublas.tolerance = 1.6e-4;
  tb::BenchRow failed = cublas;
  failed.kernel = "smem_tiled_t32";
  failed.median_ms = failed.min_ms = failed.max_ms = failed.tflops = tb::kNoValue;
  failed.cublas_ratio = tb::kNoValue;
  failed.rel_error = 0.5;
  failed.status = tb::RowStatus::kFailed;
  failed.detail = "rel error 0.5 > tolerance, 3 non-finite";
  tb::BenchRow na = failed;
  na.kernel = "vectorized";
  na.rel_error = tb::kNoValue;
  na.status = tb::RowStatus::kNotApplicable;
  na.detail = "can_implement is false for this problem";
  r.rows = {cublas, failed, na};
  return r;
}

}  // namespace

namespace {

// The fake report in bf16 -> f32, with one kernel skipped for the GPU.
tb::BenchReport fake_bf16_report() {
  tb::BenchReport r = fake_report();
  for (tb::BenchRow& row : r.rows) row.types = {tilegemm::DType::kBF16, tilegemm::DType::kF32};
  r.skipped = {"skipped mma_x: needs sm_90a (this GPU is sm_80)"};
  return r;
}

}  // namespace

TEST(Writers, BenchCarriesTheTypesInEveryFormat) {
  const tb::BenchReport r = fake_bf16_report();
  const nlohmann::json j = tb::to_json(r);
  for (const nlohmann::json& row : j["results"]) {
    EXPECT_EQ(row["dtype"], "bf16");
    EXPECT_EQ(row["dtype_c"], "f32");
  }
  ASSERT_EQ(j["skipped"].size(), 1u);
  EXPECT_EQ(j["skipped"][0], "skipped mma_x: needs sm_90a (this GPU is sm_80)");

  std::ostringstream csv;
  tb::write_bench(csv, r, tb::Format::kCsv);
  std::istringstream lines(csv.str());
  std::string header, row1;
  std::getline(lines, header);
  std::getline(lines, row1);
  EXPECT_EQ(header.rfind("kernel,dtype,dtype_c,m,n,k,", 0), 0u) << header;
  EXPECT_EQ(row1.rfind("cublas,bf16,f32,256,256,256,", 0), 0u) << row1;

  std::ostringstream md;
  tb::write_bench(md, r, tb::Format::kMarkdown);
  const std::string m = md.str();
  // The header names the types; each row carries them; the skipped kernel is noted.
  const std::string header_md = m.substr(0, m.find("| kernel"));
  EXPECT_NE(header_md.find("A/B bf16, C f32 (fp32 accumulation)"), std::string::npos) << m;
  EXPECT_NE(m.find("| types "), std::string::npos) << m;
  EXPECT_NE(m.find("| bf16->f32 "), std::string::npos) << m;
  EXPECT_NE(m.find("- skipped mma_x: needs sm_90a"), std::string::npos) << m;

  std::ostringstream text;
  tb::write_bench(text, r, tb::Format::kTable);
  const std::string t = text.str();
  EXPECT_NE(t.find("A/B bf16, C f32 (fp32 accumulation)"), std::string::npos) << t;
  EXPECT_NE(t.find("bf16->f32"), std::string::npos) << t;
  EXPECT_NE(t.find("skipped mma_x"), std::string::npos) << t;

  const tb::Table table = tb::bench_table(r);
  const auto col = std::find(table.headers.begin(), table.headers.end(), "types");
  ASSERT_NE(col, table.headers.end());
  for (const auto& row : table.rows) {
    EXPECT_EQ(row[static_cast<std::size_t>(col - table.headers.begin())], "bf16->f32");
  }
}

TEST(Writers, BenchJsonHasDeviceSettingsAndResults) {
  const nlohmann::json j = tb::to_json(fake_report());
  for (const char* key : {"device", "command", "timestamp", "settings", "results"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  const nlohmann::json& d = j["device"];
  for (const char* key : {"name", "sm_count", "sm_clock_mhz", "mem_clock_mhz", "l2_bytes",
                          "smem_per_sm", "driver_version", "runtime_version", "cuda_cc"}) {
    EXPECT_TRUE(d.contains(key)) << key;
  }
  EXPECT_EQ(d["cuda_cc"], "9.0");
  EXPECT_EQ(d["sm_clock_mhz"], 1980);
  EXPECT_EQ(d["driver_version"], "13.0");
  EXPECT_EQ(j["settings"]["warmup"], 3);
  EXPECT_EQ(j["settings"]["reps"], 7);
  EXPECT_EQ(j["settings"]["rounds"], 1);
  EXPECT_EQ(j["settings"]["min_time_s"], 0.0);
  EXPECT_EQ(j["settings"]["max_noise_pct"], 0.0);
  EXPECT_EQ(j["settings"]["cold"], false);
  EXPECT_EQ(j["settings"]["block"], true);  // TimingOptions' default, the blocking kernel
  EXPECT_EQ(j["settings"]["seed"], 9);
  {
    // settings.fp32_math is the setting at the time the JSON is written
    const tilegemm::Fp32Math saved = tilegemm::fp32_math();
    tilegemm::set_fp32_math(tilegemm::Fp32Math::kSimt);
    EXPECT_EQ(tb::to_json(fake_report())["settings"]["fp32_math"], "simt");
    tilegemm::set_fp32_math(tilegemm::Fp32Math::kThreeTf32);
    EXPECT_EQ(tb::to_json(fake_report())["settings"]["fp32_math"], "3xtf32");
    tilegemm::set_fp32_math(saved);
  }
  ASSERT_EQ(j["results"].size(), 3u);
  for (const nlohmann::json& row : j["results"]) {
    for (const char* key :
         {"kernel",    "dtype",        "dtype_c",   "m",         "n",      "k",      "layout_a",
          "layout_b",  "layout_c",     "alpha",     "beta",      "median_ms", "min_ms", "max_ms",
          "tflops",    "cublas_ms",    "cublas_ratio", "rel_error", "tolerance", "status",
          "detail",    "host_us"}) {
      EXPECT_TRUE(row.contains(key)) << key;
    }
  }
  EXPECT_EQ(j["results"][0]["alpha"], -1.3);  // the float's shortest decimal
  EXPECT_EQ(j["results"][0]["dtype"], "f32");
  EXPECT_EQ(j["results"][0]["dtype_c"], "f32");
  EXPECT_TRUE(j["skipped"].empty());
  EXPECT_EQ(j["results"][0]["status"], "ok");
  EXPECT_EQ(j["results"][1]["status"], "FAILED");
  EXPECT_TRUE(j["results"][1]["median_ms"].is_null());
  EXPECT_EQ(j["results"][2]["status"], "N/A");
  EXPECT_DOUBLE_EQ(j["results"][1]["cublas_ms"].get<double>(), 0.01);
}

TEST(Writers, BenchCsvAndMarkdown) {
  const tb::BenchReport r = fake_report();
  std::ostringstream csv;
  tb::write_bench(csv, r, tb::Format::kCsv);
  std::istringstream lines(csv.str());
  std::string header, row1, row2;
  std::getline(lines, header);
  std::getline(lines, row1);
  std::getline(lines, row2);
  EXPECT_EQ(header,
            "kernel,dtype,dtype_c,m,n,k,layout_a,layout_b,layout_c,alpha,beta,pad_a,pad_b,pad_c,"
            "median_ms,min_ms,max_ms,tflops,cublas_ms,cublas_ratio,rel_error,tolerance,status,"
            "detail");
  EXPECT_EQ(row1.rfind("cublas,f32,f32,256,256,256,row,row,row,-1.3,0,0,0,0,0.01,", 0), 0u)
      << row1;
  // The failed row: no times, the detail quoted (it has a comma).
  EXPECT_NE(row2.find(",,,,"), std::string::npos) << row2;
  EXPECT_NE(row2.find(",FAILED,\"rel error 0.5 > tolerance, 3 non-finite\""), std::string::npos)
      << row2;

  std::ostringstream md;
  tb::write_bench(md, r, tb::Format::kMarkdown);
  const std::string m = md.str();
  EXPECT_EQ(m.rfind("## tilegemm bench on NVIDIA H200 (cc 9.0, 132 SMs", 0), 0u) << m;
  EXPECT_NE(m.find("| kernel "), std::string::npos);
  EXPECT_NE(m.find("| median (ms) |"), std::string::npos);
  EXPECT_NE(m.find("| smem_tiled_t32 "), std::string::npos);
  EXPECT_NE(m.find("- FAILED smem_tiled_t32 256x256x256: rel error"), std::string::npos);

  std::ostringstream text;
  tb::write_bench(text, r, tb::Format::kTable);
  const std::string t = text.str();
  for (const char* col : {"kernel", "layout A,B,C", "types", "median (ms)", "min (ms)",
                          "max (ms)", "TFLOP/s", "% of cuBLAS", "rel error", "status"}) {
    EXPECT_NE(t.find(col), std::string::npos) << col;
  }
  EXPECT_NE(t.find("100.0"), std::string::npos);  // cuBLAS is 100% of itself
  EXPECT_NE(t.find("N/A"), std::string::npos);
}

TEST(Writers, KernelListCarriesTheRegistry) {
  const std::vector<tilegemm::KernelInfo>& all = tilegemm::all_kernels();
  const tb::Table t = tb::kernel_table(all, 0);
  ASSERT_EQ(t.rows.size(), all.size());
  EXPECT_EQ(t.rows[0][0], all[0].name);
  const nlohmann::json j = tb::kernels_json(all, 0);
  ASSERT_EQ(j["kernels"].size(), all.size());
  for (const char* key : {"name", "family", "rung", "op_class", "types", "accumulator", "align_a",
                          "align_b", "align_c", "min_cc", "max_cc", "needs", "runs_here",
                          "runs_here_text", "bm", "bn", "bk", "wm", "wn", "tm", "tn", "threads",
                          "stages", "cluster_m", "cluster_n", "smem_bytes"}) {
    EXPECT_TRUE(j["kernels"][0].contains(key)) << key;
  }
  EXPECT_EQ(j["kernels"][0]["threads"], all[0].tile.threads);
  EXPECT_TRUE(j["kernels"][0]["runs_here"].is_null());  // no GPU given
  EXPECT_EQ(j["kernels"][0]["runs_here_text"], "no GPU");
  EXPECT_EQ(j["kernels"][0]["types"].size(), all[0].desc.types.size());
}

namespace {

// A registry-shaped entry with a made-up description, for the list columns.
tilegemm::KernelInfo fake_tensor_kernel() {
  tilegemm::KernelInfo k;
  k.name = "mma_fake_128x128x32";
  k.family = "mma_fake";
  k.rung = 13;
  k.desc.op_class = tilegemm::OpClass::kWgmma;
  k.desc.types = {{tilegemm::DType::kBF16, tilegemm::DType::kBF16},
                  {tilegemm::DType::kBF16, tilegemm::DType::kF32},
                  {tilegemm::DType::kF16, tilegemm::DType::kF16},
                  {tilegemm::DType::kF16, tilegemm::DType::kF32}};
  k.desc.align_a = 8;
  k.desc.align_b = 8;
  k.desc.align_c = 4;
  k.desc.min_cc = 90;
  k.desc.max_cc = 90;
  k.tile.cluster_m = 2;
  k.summary = "made up";
  return k;
}

std::size_t column(const tb::Table& t, const std::string& header) {
  const auto it = std::find(t.headers.begin(), t.headers.end(), header);
  EXPECT_NE(it, t.headers.end()) << header;
  return static_cast<std::size_t>(it - t.headers.begin());
}

}  // namespace

TEST(Writers, KernelListColumnsInEveryFormat) {
  const std::vector<tilegemm::KernelInfo> kernels = {fake_tensor_kernel()};
  EXPECT_EQ(tb::types_list(kernels[0].desc), "bf16,bf16->f32,f16,f16->f32");
  for (int cc : {0, 80, 90}) {
    const tb::Table t = tb::kernel_table(kernels, cc);
    ASSERT_EQ(t.rows.size(), 1u);
    const std::vector<std::string>& row = t.rows[0];
    EXPECT_EQ(row[column(t, "op class")], "wgmma");
    EXPECT_EQ(row[column(t, "types")], "bf16,bf16->f32,f16,f16->f32");
    EXPECT_EQ(row[column(t, "align A,B,C")], "8,8,4");
    EXPECT_EQ(row[column(t, "needs")], "sm_90a");
    EXPECT_EQ(row[column(t, "runs here")],
              cc == 0 ? "no GPU" : cc == 90 ? "yes" : "no (needs sm_90a)");
  }
  const nlohmann::json j = tb::kernels_json(kernels, 80)["kernels"][0];
  EXPECT_EQ(j["op_class"], "wgmma");
  ASSERT_EQ(j["types"].size(), 4u);
  EXPECT_EQ(j["types"][1]["dtype"], "bf16");
  EXPECT_EQ(j["types"][1]["dtype_c"], "f32");
  EXPECT_EQ(j["types"][1]["name"], "bf16->f32");
  EXPECT_EQ(j["align_a"], 8);
  EXPECT_EQ(j["align_c"], 4);
  EXPECT_EQ(j["min_cc"], 90);
  EXPECT_EQ(j["max_cc"], 90);
  EXPECT_EQ(j["needs"], "sm_90a");
  EXPECT_EQ(j["runs_here"], false);
  EXPECT_EQ(j["runs_here_text"], "no (needs sm_90a)");
  EXPECT_EQ(j["cluster_m"], 2);
  EXPECT_EQ(tb::kernels_json(kernels, 90)["kernels"][0]["runs_here"], true);

  std::ostringstream csv, md, text;
  tb::write_kernels(csv, kernels, 80, tb::Format::kCsv);
  tb::write_kernels(md, kernels, 80, tb::Format::kMarkdown);
  tb::write_kernels(text, kernels, 80, tb::Format::kTable);
  // Cells with commas are quoted (RFC 4180).
  EXPECT_EQ(csv.str().rfind("kernel,family,rung,op class,types,\"align A,B,C\",needs,runs here,", 0),
            0u)
      << csv.str();
  EXPECT_NE(csv.str().find(",wgmma,\"bf16,bf16->f32,f16,f16->f32\",\"8,8,4\",sm_90a,"
                           "no (needs sm_90a),"),
            std::string::npos)
      << csv.str();
  for (const std::string& out : {md.str(), text.str()}) {
    for (const char* cell : {"wgmma", "bf16,bf16->f32,f16,f16->f32", "8,8,4", "sm_90a",
                             "no (needs sm_90a)"}) {
      EXPECT_NE(out.find(cell), std::string::npos) << cell << "\n" << out;
    }
  }
}

TEST(Writers, DevicesAndVerify) {
  std::ostringstream os;
  tb::write_devices(os, {fake_h200()}, tb::Format::kTable);
  EXPECT_NE(os.str().find("GPU 0"), std::string::npos);
  EXPECT_NE(os.str().find("NVIDIA H200"), std::string::npos);
  EXPECT_NE(os.str().find("233472 (228 KiB)"), std::string::npos);

  tb::VerifyReport v;
  tb::KernelSummary s;
  s.kernel = "naive";
  s.cases = 4;
  s.passed = 3;
  s.failed = 1;
  s.worst_rel_error = 0.25;
  s.worst_ratio = 2500.0;
  v.kernels.push_back(s);
  tb::VerifyFailure f;
  f.kernel = "naive";
  f.spec.m = f.spec.n = f.spec.k = 7;
  f.check.detail = "wrong";
  v.failures.push_back(f);
  const nlohmann::json j = tb::to_json(v);
  EXPECT_EQ(j["passed"], false);
  EXPECT_EQ(j["dtype"], "f32");
  EXPECT_EQ(j["dtype_c"], "f32");
  EXPECT_EQ(j["failures"][0]["dtype"], "f32");
  EXPECT_EQ(j["kernels"][0]["failed"], 1);
  EXPECT_EQ(j["failures"][0]["replay"], tb::replay_command("naive", f.spec));
  std::ostringstream text;
  tb::write_verify(text, v, tb::Format::kTable);
  EXPECT_NE(text.str().find("2.50e-01"), std::string::npos);
}

TEST(Writers, VerifyCarriesTheTypes) {
  tb::VerifyReport v;
  v.types = {tilegemm::DType::kF16, tilegemm::DType::kF32};
  tb::KernelSummary s;
  s.kernel = "mma_x";
  s.cases = 2;
  s.passed = 1;
  s.failed = 1;
  v.kernels.push_back(s);
  tb::VerifyFailure f;
  f.kernel = "mma_x";
  f.spec.m = f.spec.n = f.spec.k = 7;
  f.spec.types = v.types;
  v.failures.push_back(f);
  v.skipped = {"skipped mma_y: needs sm_90a (this GPU is sm_80)"};
  const nlohmann::json j = tb::to_json(v);
  EXPECT_EQ(j["dtype"], "f16");
  EXPECT_EQ(j["dtype_c"], "f32");
  EXPECT_EQ(j["types"], "f16->f32");
  EXPECT_EQ(j["failures"][0]["dtype"], "f16");
  EXPECT_EQ(j["failures"][0]["dtype_c"], "f32");
  EXPECT_NE(j["failures"][0]["replay"].get<std::string>().find("--dtype f16"), std::string::npos)
      << j["failures"][0]["replay"];
  EXPECT_EQ(j["skipped"].size(), 1u);
  const tb::Table t = tb::verify_table(v);
  EXPECT_EQ(t.rows[0][column(t, "types")], "f16->f32");
  for (tb::Format format : {tb::Format::kTable, tb::Format::kCsv, tb::Format::kMarkdown}) {
    std::ostringstream os;
    tb::write_verify(os, v, format);
    EXPECT_NE(os.str().find("f16->f32"), std::string::npos) << os.str();
  }
}

// The stopping rule: noise is the samples' relative standard deviation (n - 1), and a round goes
// on while it has covered less than --min-time or is noisier than --max-noise, until --max-time.
TEST(StoppingRule, NoiseAndWhenToStop) {
  EXPECT_DOUBLE_EQ(tb::noise_pct({}), 0.0);
  EXPECT_DOUBLE_EQ(tb::noise_pct({2.0f}), 0.0);
  EXPECT_DOUBLE_EQ(tb::noise_pct({1.0f, 1.0f, 1.0f}), 0.0);
  // mean 2, sample stdev sqrt(((1)^2 + (1)^2) / 1) = sqrt(2): 70.71%
  EXPECT_NEAR(tb::noise_pct({1.0f, 3.0f}), 100.0 * std::sqrt(2.0) / 2.0, 1e-9);

  tb::TimingOptions o;
  const std::vector<float> quiet(10, 1.0f);  // 10 ms of kernel time, no noise
  EXPECT_FALSE(tb::keep_sampling(quiet, o));  // no rule: one batch
  o.min_time_s = 0.02;
  EXPECT_TRUE(tb::keep_sampling(quiet, o));  // 10 ms < 20 ms
  o.min_time_s = 0.01;
  EXPECT_FALSE(tb::keep_sampling(quiet, o));  // covered, and no noise criterion
  o.max_noise_pct = 1.0;
  const std::vector<float> noisy = {1.0f, 1.2f, 0.8f, 1.0f};  // 16.3%, 4 ms
  EXPECT_TRUE(tb::keep_sampling(noisy, o));  // short of 10 ms, and noisy
  o.min_time_s = 0.0;
  EXPECT_TRUE(tb::keep_sampling(noisy, o));  // noisy
  o.max_noise_pct = 20.0;
  EXPECT_FALSE(tb::keep_sampling(noisy, o));  // quiet enough
  o.min_time_s = 0.01;
  EXPECT_TRUE(tb::keep_sampling(noisy, o));  // quiet enough, but short of 10 ms
  o.max_noise_pct = 1.0;
  o.max_time_s = 0.0035;  // the noisy samples already cover 4 ms: the cap ends the round
  EXPECT_FALSE(tb::keep_sampling(noisy, o));
  o.min_time_s = 1.0;  // even when --min-time is not reached
  EXPECT_FALSE(tb::keep_sampling(noisy, o));
}

// bench --random: reproducible, inside 1..max, log-uniform (as many draws below sqrt(max) as
// above), every layout of every operand drawn.
TEST(Sweep, RandomShapesAreReproducibleLogUniformAndMixLayouts) {
  const std::vector<tb::RandomShape> a = tb::random_shapes(2000, 7, 4096);
  const std::vector<tb::RandomShape> b = tb::random_shapes(2000, 7, 4096);
  ASSERT_EQ(a.size(), 2000u);
  int below_64 = 0, col_a = 0, col_b = 0, col_c = 0;
  std::int64_t smallest = 1 << 30, largest = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].shape.to_string(), b[i].shape.to_string());
    for (std::int64_t d : {a[i].shape.m, a[i].shape.n, a[i].shape.k}) {
      smallest = std::min(smallest, d);
      largest = std::max(largest, d);
      below_64 += d < 64 ? 1 : 0;
    }
    col_a += a[i].layouts.a == tilegemm::Layout::kColMajor ? 1 : 0;
    col_b += a[i].layouts.b == tilegemm::Layout::kColMajor ? 1 : 0;
    col_c += a[i].layouts.c == tilegemm::Layout::kColMajor ? 1 : 0;
  }
  EXPECT_EQ(smallest, 1);
  EXPECT_LE(largest, 4096);
  EXPECT_GT(largest, 3000);
  // ln(64) / ln(4097) = 0.50 of 6000 draws, within a few standard deviations (39).
  EXPECT_NEAR(below_64, 3000, 200);
  for (int c : {col_a, col_b, col_c}) EXPECT_NEAR(c, 1000, 150);
  EXPECT_NE(tb::random_shapes(5, 8, 4096)[0].shape.to_string(),
            tb::random_shapes(5, 7, 4096)[0].shape.to_string());
  for (const tb::RandomShape& r : tb::random_shapes(50, 3, 1)) {
    EXPECT_EQ(r.shape.to_string(), "1x1x1");
  }
}
