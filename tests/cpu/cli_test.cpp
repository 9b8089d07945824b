// The `tilegemm` binary itself: bad input ends in one line on stderr naming the flag and exit 2;
// analyze and list work without a GPU; bench, verify and devices say there is no GPU (exit 3).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "tilegemm/bench.hpp"
#include "tilegemm/device_info.hpp"
#include "tilegemm/gemm.hpp"

using tilegemm::test::count_lines;
using tilegemm::test::run_cli;
using tilegemm::test::RunResult;

TEST(Cli, SpecExampleMessages) {
  RunResult r = run_cli("bench --m 256:x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "tilegemm: --m: '256:x' is not a size list (want 256, 256:4096:256 or "
            "256:4096:x2)\n");
  EXPECT_EQ(r.out, "");
  r = run_cli("bench --shape 0x5x5");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "tilegemm: --shape: '0x5x5': sizes must be >= 1\n");
}

TEST(Cli, BadInputIsOneLineNamingTheFlagAndExit2) {
  const std::pair<const char*, const char*> cases[] = {
      {"bench --kernels 'nomatch*'", "--kernels"},
      {"bench --layout-a rows", "--layout-a"},
      {"bench --layout-c diag", "--layout-c"},
      {"bench --format xml", "--format"},
      {"bench --pad 1,2", "--pad"},
      {"bench --reps 0", "--reps"},
      {"bench --warmup x", "--warmup"},
      {"bench --alpha nan", "--alpha"},
      {"bench --seed -3", "--seed"},
      {"bench --size 4096:256:x2", "--size"},
      {"bench --m 256 --k 256", "--n"},
      {"bench --bogus", "--bogus"},
      {"bench --m", "--m"},
      {"verify --shape 5x5", "--shape"},
      {"verify --beta 2", "--beta"},
      {"verify --kernels naive --shape 5x5x5 --fuzz 2", "--fuzz"},
      {"verify --fuzz -1", "--fuzz"},
      {"analyze --kernel nope", "--kernel"},
      {"analyze --device b200", "--device"},
      {"analyze --tile 0", "--tile"},
      {"analyze --regs 0", "--regs"},
      {"analyze --m 0", "--m"},
      {"list --format yaml", "--format"},
      {"bench --dtype fp8", "--dtype"},
      {"bench --dtype f32 --dtype-c bf16", "--dtype-c"},
      {"bench --dtype-c tf32", "--dtype-c"},
      {"bench --dtype bf16 --dtype-c f16", "--dtype-c"},
      {"verify --dtype half", "--dtype"},
      {"verify --dtype tf32 --dtype-c f16", "--dtype-c"},
      {"list --dtype fp8", "--dtype"},
      {"list --dtype f16 --dtype-c bf16", "--dtype-c"},
      {"analyze --dtype fp8", "--dtype"},
      {"analyze --dtype f32 --dtype-c f16", "--dtype-c"},
      {"analyze --layout-b diag", "--layout-b"},
      {"devices --format yaml", "--format"},
      {"frobnicate", "frobnicate"},
  };
  for (const auto& [args, flag] : cases) {
    const RunResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("tilegemm: ", 0), 0u) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(flag), std::string::npos) << args << "\n" << r.err;
    EXPECT_EQ(r.out, "") << args;
  }
}

TEST(Cli, DtypeMessages) {
  RunResult r = run_cli("bench --dtype fp8");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "tilegemm: --dtype: unknown dtype 'fp8'; expected f32, tf32, bf16 or f16\n");
  r = run_cli("bench --dtype f32 --dtype-c bf16");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "tilegemm: --dtype-c: 'bf16' is not a C dtype for --dtype f32 (want f32)\n");
  // Input errors come before the missing GPU.
  r = run_cli("verify --dtype fp8 --kernels naive");
  EXPECT_EQ(r.exit_code, 2);
}

TEST(Cli, KernelsThatDoNotComputeTheDtypeAreBadInput) {
  // Every dtype no registered kernel matching 'naive' computes: exit 2 naming --kernels and it.
  const tilegemm::KernelInfo* naive = tilegemm::find_kernel("naive");
  ASSERT_NE(naive, nullptr);
  for (const char* dtype : {"tf32", "bf16", "f16"}) {
    tilegemm::GemmTypes t;
    t.ab = tilegemm::bench::parse_dtype("--dtype", dtype);
    t.c = tilegemm::default_c_dtype(t.ab);
    if (naive->desc.computes(t)) continue;
    for (const char* command : {"bench", "verify"}) {
      const RunResult r =
          run_cli(std::string(command) + " --kernels naive --dtype " + dtype);
      EXPECT_EQ(r.exit_code, 2) << command << " " << dtype << "\n" << r.err;
      EXPECT_EQ(count_lines(r.err), 1u) << r.err;
      EXPECT_NE(r.err.find("--kernels"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find(std::string("computing ") + dtype), std::string::npos) << r.err;
    }
    const RunResult r = run_cli(std::string("analyze --kernel naive --dtype ") + dtype);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("--kernel:"), std::string::npos) << r.err;
  }
}

TEST(Cli, ListFiltersByTypes) {
  const std::vector<tilegemm::GemmTypes> combos = {
      {tilegemm::DType::kF32, tilegemm::DType::kF32},
      {tilegemm::DType::kTF32, tilegemm::DType::kF32},
      {tilegemm::DType::kBF16, tilegemm::DType::kBF16},
      {tilegemm::DType::kBF16, tilegemm::DType::kF32},
      {tilegemm::DType::kF16, tilegemm::DType::kF16},
      {tilegemm::DType::kF16, tilegemm::DType::kF32}};
  for (const tilegemm::GemmTypes& t : combos) {
    const std::string flags = tilegemm::bench::dtype_flags(t);
    const RunResult r =
        run_cli("list --format json " + (flags.empty() ? std::string("--dtype f32") : flags));
    ASSERT_EQ(r.exit_code, 0) << flags << "\n" << r.err;
    // The registry's own answer, in ladder order.
    std::vector<std::string> want;
    for (const tilegemm::KernelInfo& k : tilegemm::all_kernels()) {
      if (k.desc.computes(t)) want.push_back(k.name);
    }
    std::vector<std::string> got;
    const nlohmann::json listed = nlohmann::json::parse(r.out);
    for (const nlohmann::json& k : listed["kernels"]) {
      got.push_back(k["name"].get<std::string>());
    }
    EXPECT_EQ(got, want) << flags;
    // An empty answer is said on stderr, not an error.
    EXPECT_EQ(r.err.empty(), !want.empty()) << flags << "\n" << r.err;
  }
  // Without --dtype every kernel is listed, whatever it computes.
  const RunResult all = run_cli("list --format json");
  ASSERT_EQ(all.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(all.out)["kernels"].size(), tilegemm::all_kernels().size());
  // The table names every kernel's types and whether it runs here.
  const RunResult table = run_cli("list");
  ASSERT_EQ(table.exit_code, 0);
  for (const char* header : {"op class", "types", "align A,B,C", "runs here"}) {
    EXPECT_NE(table.out.find(header), std::string::npos) << header;
  }
  if (tilegemm::cuda_device_count() == 0) {
    EXPECT_NE(table.out.find("no GPU"), std::string::npos);
  }
}

TEST(Cli, AnalyzeBf16) {
  RunResult r = run_cli("analyze --dtype bf16 --shape 4096x4096x4096 --device h200 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["traffic"]["minimum_bytes"], 2.0 * 4096 * 4096 * 2);
  EXPECT_EQ(j["rooflines"][0]["peak"]["tflops"], 989.0);
  EXPECT_EQ(j["problem"]["dtype"], "bf16");
  r = run_cli("analyze --dtype bf16 --shape 4096x4096x4096 --device h200");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("BF16 tensor peak (TFLOP/s)"), std::string::npos);
  EXPECT_NE(r.out.find("67.11 MB"), std::string::npos);  // (M*K + K*N)*2 = 67108864 bytes
  // Without --dtype: fp32 as before.
  r = run_cli("analyze --shape 4096x4096x4096 --device h200 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["traffic"]["minimum_bytes"], 2.0 * 4096 * 4096 * 4);
}

TEST(Cli, NoSubcommandIsBadInput) {
  const RunResult r = run_cli("");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(count_lines(r.err), 1u);
}

TEST(Cli, HelpExitsZero) {
  const RunResult r = run_cli("bench --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--kernels"), std::string::npos);
  EXPECT_NE(r.out.find("--cold"), std::string::npos);
  EXPECT_NE(r.out.find("--no-block"), std::string::npos);
}

TEST(Cli, AnalyzePrintsTheSeedNumbersWithoutAGpu) {
  RunResult r = run_cli("analyze");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* text : {"8.59 GB", "0.268 GB", "8.39 MB", "32.0x", "170.67", "8589934592",
                           "268435456", "8388608", "seed: by 48 KB smem"}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << text;
  }
  r = run_cli("analyze --shape 1024x1024x1024 --tile 32 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["traffic"]["naive_bytes"], 8589934592.0);
  EXPECT_EQ(j["traffic"]["tiled_bytes"], 268435456.0);
  EXPECT_EQ(j["traffic"]["minimum_bytes"], 8388608.0);

  r = run_cli("analyze --m 2048 --tile 16 --device a100");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("M=2048 N=1024 K=1024"), std::string::npos);
  EXPECT_NE(r.out.find("NVIDIA A100 SXM4 80GB"), std::string::npos);

  r = run_cli("analyze --kernel smem_tiled_t32 --format md");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("| smem_tiled_t32"), std::string::npos);
  EXPECT_NE(r.out.find("### Memory traffic"), std::string::npos);
}

// analyze --kernel auto names auto's choice on stderr and analyzes it; without a GPU by the rules
// of a 132-SM sm_90 GPU, so --device a100 is bad input naming --kernel.
TEST(Cli, AnalyzeResolvesAutoByTheRules) {
  if (tilegemm::cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  RunResult r =
      run_cli("analyze --kernel auto --dtype bf16 --shape 860x438x5 --layout-b col --device h100");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.rfind("auto: tiny_mma_32x32 (", 0), 0u) << r.err;
  EXPECT_NE(r.out.find("tiny_mma_32x32"), std::string::npos) << r.out;
  r = run_cli("analyze --kernel auto --dtype bf16 --shape 860x438x33 --layout-b col --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("auto: tiny_mma_32x32"), std::string::npos) << r.err;
  EXPECT_TRUE(nlohmann::json::accept(r.out)) << r.out;
  r = run_cli("analyze --kernel auto --device a100");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("--kernel"), std::string::npos) << r.err;
}

TEST(Cli, ListPrintsEveryKernel) {
  RunResult r = run_cli("list");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const tilegemm::KernelInfo& k : tilegemm::all_kernels()) {
    EXPECT_NE(r.out.find(k.name), std::string::npos) << k.name;
  }
  EXPECT_NE(r.out.find("smem (bytes)"), std::string::npos);
  r = run_cli("list --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["kernels"].size(), tilegemm::all_kernels().size());
  r = run_cli("list --format csv --kernels 'smem_tiled_t*'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("kernel,family,rung,", 0), 0u);
  EXPECT_EQ(r.out.find("naive"), std::string::npos);
}

TEST(Cli, GpuCommandsWithoutAGpuExit3) {
  if (tilegemm::cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  RunResult r = run_cli("bench --shape 64x64x64");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err,
            "tilegemm bench: no CUDA device found; nothing to time. Without a GPU, `tilegemm "
            "analyze`, `tilegemm list` and the CPU tests work.\n");
  EXPECT_EQ(r.out, "");
  r = run_cli("verify --kernels naive");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(count_lines(r.err), 1u);
  EXPECT_NE(r.err.find("no CUDA device found"), std::string::npos);
  r = run_cli("devices");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(count_lines(r.err), 1u);
  EXPECT_NE(r.err.find("no CUDA device found"), std::string::npos);
}
