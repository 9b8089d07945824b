// The `tilegemm` binary's compare and plot subcommands and bench's new output flags: exit codes
// (0 clean, 1 regression, 2 bad input naming the argument), what they print, the files they
// write. No GPU needed (bench's checks run before it looks for one).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_run.hpp"
#include "tilegemm/device_info.hpp"
#include "xml_check.hpp"

using tilegemm::test::count_lines;
using tilegemm::test::run_cli;
using tilegemm::test::RunResult;
using tilegemm::test::slurp;
using tilegemm::test::temp_path;

namespace {

std::string fixture(const std::string& name) {
  std::string here = __FILE__;
  here.erase(here.find_last_of('/'));
  here.erase(here.find_last_of('/') + 1);
  return "'" + here + "fixtures/" + name + "'";
}

}  // namespace

TEST(CliCompare, IdenticalFilesPass) {
  const RunResult r =
      run_cli("compare " + fixture("compare_old.json") + " " + fixture("compare_old.json"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0 regressions beyond 5.0%"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("(regression)"), std::string::npos);
  EXPECT_EQ(r.err, "");
}

TEST(CliCompare, RegressionExits1AndSaysWhich) {
  RunResult r =
      run_cli("compare " + fixture("compare_old.json") + " " + fixture("compare_new.json"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("slower: naive 1024x1024x1024 row,row,row f32: new/old 1.100 (+10.0%, "
                       "noise 2.8%), beyond 5.0%"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("FAILED in NEW: warptile_128x128x8_w32x64_t8x8"), std::string::npos);
  EXPECT_NE(r.out.find("only in OLD"), std::string::npos);
  EXPECT_NE(r.out.find("only in NEW"), std::string::npos);
  // JSON on stdout stays parseable; the regressions go to stderr.
  r = run_cli("compare " + fixture("compare_old.json") + " " + fixture("compare_new.json") +
              " --format json --threshold 12");
  EXPECT_EQ(r.exit_code, 1);  // the FAILED row, whatever the threshold
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["threshold_pct"].get<double>(), 12.0);
  EXPECT_EQ(j["regressions"].size(), 1u);
  EXPECT_EQ(count_lines(r.err), 1u);
  EXPECT_NE(r.err.find("tilegemm compare: FAILED in NEW"), std::string::npos) << r.err;
}

TEST(CliCompare, BadInputNamesTheArgumentAndExits2) {
  RunResult r = run_cli("compare " + fixture("compare_old.json") + " no_such_file.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "tilegemm: NEW: cannot read 'no_such_file.json'\n");
  EXPECT_EQ(r.out, "");

  const std::string bad = temp_path("bad.json");
  std::ofstream(bad) << "{ \"results\": [ }";
  r = run_cli("compare '" + bad + "' " + fixture("compare_new.json"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("tilegemm: OLD: '" + bad + "' is not JSON: parse error at line 1", 0), 0u)
      << r.err;
  EXPECT_EQ(count_lines(r.err), 1u);
  std::remove(bad.c_str());

  const std::pair<const char*, const char*> cases[] = {
      {"--threshold -1", "--threshold"},
      {"--threshold abc", "--threshold"},
      {"--format xml", "--format"},
      {"--bogus", "--bogus"},
  };
  for (const auto& [args, flag] : cases) {
    r = run_cli("compare " + fixture("compare_old.json") + " " + fixture("compare_new.json") + " " +
                args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(count_lines(r.err), 1u) << args << ": " << r.err;
    EXPECT_NE(r.err.find(flag), std::string::npos) << args << ": " << r.err;
  }
  r = run_cli("compare " + fixture("compare_old.json"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("NEW"), std::string::npos) << r.err;
}

TEST(CliPlot, WritesWellFormedSvgWithOneMarkPerRow) {
  const std::string roof = temp_path("roofline.svg"), ladder = temp_path("ladder.svg");
  RunResult r =
      run_cli("plot roofline --input " + fixture("h200_slice.json") + " --output '" + roof + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("13 rows drawn (1 not ok, left out) under the h200 ceilings"),
            std::string::npos)
      << r.out;
  r = run_cli("plot ladder --input " + fixture("h200_slice.json") + " --output '" + ladder +
              "' --shape 4096x4096x4096");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("8 rows drawn"), std::string::npos) << r.out;
  for (const auto& [path, expected] : {std::pair{roof, 13u}, std::pair{ladder, 8u}}) {
    const auto root = tilegemm::test_util::parse_xml(slurp(path));
    std::size_t marks = 0;
    root->visit([&](const tilegemm::test_util::XmlNode& n) {
      if (n.has_class("mark") && n.child("title") != nullptr) ++marks;
    });
    EXPECT_EQ(marks, expected) << path;
    std::remove(path.c_str());
  }
}

TEST(CliPlot, BadInputNamesTheFlagAndExits2) {
  const std::string out = temp_path("never.svg");
  const std::pair<std::string, const char*> cases[] = {
      {"roofline --input no_such.json --output '" + out + "'", "--input"},
      {"roofline --input " + fixture("h200_slice.json") + " --output '" + out + "' --device b200",
       "--device"},
      {"roofline --input " + fixture("h200_slice.json"), "--output"},
      {"ladder --input " + fixture("h200_slice.json") + " --output '" + out + "' --shape 5x5",
       "--shape"},
      {"ladder --input " + fixture("h200_slice.json") + " --output '" + out + "' --shape 8x8x8",
       "--shape"},
      {"ladder --input " + fixture("h200_slice.json") + " --output /no/such/dir/x.svg", "--output"},
      {"pie --input x", "pie"},
  };
  for (const auto& [args, flag] : cases) {
    const RunResult r = run_cli("plot " + args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(count_lines(r.err), 1u) << args << ": " << r.err;
    EXPECT_NE(r.err.find(flag), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(r.out, "") << args;
  }
  EXPECT_FALSE(std::ifstream(out).good());  // nothing written on bad input
}

TEST(CliBench, OutputAndProviderFlagsAreCheckedBeforeTheGpu) {
  const std::pair<const char*, const char*> cases[] = {
      {"--output r.json --output r.dat",
       "tilegemm: --output: 'r.dat': no format for this "
       "extension"},
      {"--format json --output r.json --output r.md",
       "tilegemm: --format: give it with a "
       "single --output"},
      {"--output r.json --output r.json", "tilegemm: --output: 'r.json' given twice"},
      {"--providers cutlass", "tilegemm: --providers: 'cutlass' is not a provider"},
      {"--providers cublas --kernels naive", "tilegemm: --kernels: selects tilegemm kernels"},
      {"--rounds 0", "tilegemm: --rounds: '0' must be >= 1"},
      {"--rounds two", "tilegemm: --rounds: 'two' is not an integer"},
      {"--min-time -1", "tilegemm: --min-time: '-1' must be >= 0"},
      {"--max-noise 101", "tilegemm: --max-noise: '101' must be <= 100"},
      {"--max-time 0", "tilegemm: --max-time: '0' must be >= 0.001"},
      {"--max-noise x", "tilegemm: --max-noise: 'x' is not a number"},
      {"--random 5", "tilegemm: --random: draws the shapes: give no --size, --shape or --m/--n/--k"},
      {"--random -1", "tilegemm: --random: '-1' must be >= 0"},
      {"--max-size 0", "tilegemm: --max-size: '0' must be >= 1"},
  };
  for (const auto& [args, message] : cases) {
    const RunResult r = run_cli(std::string("bench --shape 64x64x64 ") + args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(r.err.rfind(message, 0), 0u) << args << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << args;
  }
  if (tilegemm::cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  // Valid flags get as far as the device check.
  const RunResult r = run_cli("bench --shape 64x64x64 --providers cublas --output '" +
                              temp_path("a.json") + "' --output '" + temp_path("a.md") + "'");
  EXPECT_EQ(r.exit_code, 3) << r.err;
}
