// Every registered kernel over the standard sweep: awkward sizes (1 ... 1025) x 4 layout mixes x
// (alpha, beta) in {(1,0), (0.5,2), (-1.3,0.7), (0,1)}, C poisoned with NaN when beta == 0,
// alpha == 0 & beta == 1 checked bit for bit, padding of C checked untouched. The test list is
// read from the registry: a kernel added later is swept without touching this file.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "gpu_env.hpp"
#include "tilegemm/bench.hpp"
#include "tilegemm/gemm.hpp"
#include "tilegemm/testbed.hpp"

namespace tilegemm {
namespace {

constexpr std::uint64_t kSweepSeed = 2024;
constexpr int kMinCasesPerKernel = 300;

std::vector<std::string> kernel_names() {
  std::vector<std::string> names;
  for (const KernelInfo& k : all_kernels()) names.push_back(k.name);
  return names;
}

// A kernel whose fast path needs 16-byte rows may refuse a case; the same case with leading
// dimensions rounded up to a multiple of 4 (and nothing else changed) is then run instead, so
// every kernel sees every shape.
CaseSpec aligned_variant(CaseSpec s) {
  auto round4 = [](std::int64_t ld, std::int64_t pad) { return ((ld + pad + 3) / 4) * 4 - ld; };
  s.pad_a = round4(min_ld(s.la, s.m, s.k), s.pad_a);
  s.pad_b = round4(min_ld(s.lb, s.k, s.n), s.pad_b);
  s.pad_c = round4(min_ld(s.lc, s.m, s.n), s.pad_c);
  return s;
}

class KernelSweep : public ::testing::TestWithParam<std::string> {};

TEST_P(KernelSweep, StandardSweepPasses) {
  TILEGEMM_REQUIRE_GPU();
  const KernelInfo* kernel = find_kernel(GetParam());
  ASSERT_NE(kernel, nullptr);
  int ran = 0, refused = 0, failed = 0;
  for (const CaseSpec& spec : bench::standard_sweep(kSweepSeed)) {
    CaseSpec used = spec;
    {
      Testbed probe(spec);
      ASSERT_TRUE(probe.init_status().ok()) << probe.init_status().message();
      if (!kernel->can_implement(probe.problem())) used = aligned_variant(spec);
    }
    Testbed tb(used);
    ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
    if (!kernel->can_implement(tb.problem())) {
      ++refused;
      continue;
    }
    const CheckResult r = tb.run_and_check(
        [&](const Problem& p, cudaStream_t s) { return gemm(p, kernel->name, s); }, 0);
    ++ran;
    if (!r.passed) {
      ++failed;
      ADD_FAILURE() << kernel->name << " " << used.to_string() << ": " << r.detail
                    << "\n  replay: tilegemm verify --kernels " << kernel->name << " "
                    << used.replay_flags();
      if (failed >= 10) break;  // enough to diagnose; the rest would repeat it
    }
  }
  EXPECT_GE(ran, kMinCasesPerKernel) << "refused " << refused << " cases";
  RecordProperty("cases", ran);
}

INSTANTIATE_TEST_SUITE_P(AllKernels, KernelSweep, ::testing::ValuesIn(kernel_names()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           return param.param;
                         });

TEST(AutoDispatch, EveryShapeClassAndLayoutMixIsComputedRight) {
  TILEGEMM_REQUIRE_GPU();
  // The shape classes, scaled so the sweep stays quick, plus misaligned leading
  // dimensions that force the dispatcher off its vectorised paths.
  const std::vector<std::array<std::int64_t, 3>> shapes = {
      {16, 2048, 1024}, {1000, 1000, 1000}, {511, 257, 1031}, {2048, 256, 2048},
      {256, 256, 8192}, {1, 1, 1},          {4097, 5, 3}};
  int cases = 0;
  for (const auto& shape : shapes) {
    for (int mix = 0; mix < 8; ++mix) {
      for (std::int64_t pad : {0, 1}) {
        CaseSpec s;
        s.m = shape[0];
        s.n = shape[1];
        s.k = shape[2];
        s.alpha = 1.5f;
        s.beta = pad == 0 ? 0.0f : -0.5f;
        s.la = (mix & 4) ? Layout::kColMajor : Layout::kRowMajor;
        s.lb = (mix & 2) ? Layout::kColMajor : Layout::kRowMajor;
        s.lc = (mix & 1) ? Layout::kColMajor : Layout::kRowMajor;
        s.pad_a = s.pad_b = s.pad_c = pad;
        s.seed = static_cast<std::uint64_t>(cases) + 7;
        Testbed tb(s);
        ASSERT_TRUE(tb.init_status().ok());
        const KernelInfo* chosen = select_kernel(tb.problem());
        ASSERT_NE(chosen, nullptr) << s.to_string();
        const CheckResult r = tb.run_and_check(
            [](const Problem& p, cudaStream_t st) { return gemm(p, "auto", st); }, 0);
        EXPECT_TRUE(r.passed) << "auto -> " << chosen->name << " " << s.to_string() << ": "
                              << r.detail;
        ++cases;
      }
    }
  }
}

}  // namespace
}  // namespace tilegemm
