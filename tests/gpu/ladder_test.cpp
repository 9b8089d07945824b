// What the standard sweep does not pin about the SIMT ladder's rung 9: split-K sums its slices in
// a fixed order (bit-identical reruns), and its workspace works on any stream, not only stream 0.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "gpu_env.hpp"
#include "tilegemm/gemm.hpp"
#include "tilegemm/testbed.hpp"

namespace tilegemm {
namespace {

// Few tiles, long K: every `_splitk` instance splits this one.
CaseSpec split_case(std::uint64_t seed) {
  CaseSpec s;
  s.m = 96;
  s.n = 80;
  s.k = 4099;
  s.alpha = 0.75f;
  s.beta = -0.5f;
  s.lc = Layout::kColMajor;
  s.seed = seed;
  return s;
}

std::vector<float> download_c(const Problem& p) {
  const std::int64_t outer = p.c.layout == Layout::kRowMajor ? p.m : p.n;
  const std::int64_t inner = p.c.layout == Layout::kRowMajor ? p.n : p.m;
  std::vector<float> host(static_cast<std::size_t>((outer - 1) * p.c.ld + inner));
  EXPECT_EQ(cudaMemcpy(host.data(), p.c.data, host.size() * sizeof(float), cudaMemcpyDeviceToHost),
            cudaSuccess);
  return host;
}

TEST(LadderSplitK, ReRunsAreBitIdenticalAndRight) {
  TILEGEMM_REQUIRE_GPU();
  const std::vector<const KernelInfo*> kernels = match_kernels("tuned_*_splitk");
  ASSERT_FALSE(kernels.empty());
  for (const KernelInfo* k : kernels) {
    Testbed tb(split_case(11));
    ASSERT_TRUE(tb.init_status().ok());
    if (!k->can_implement(tb.problem())) continue;
    auto run = [&](const Problem& p, cudaStream_t s) { return gemm(p, k->name, s); };
    const CheckResult first = tb.run_and_check(run, 0);
    EXPECT_TRUE(first.passed) << k->name << ": " << first.detail;
    const std::vector<float> c1 = download_c(tb.problem());
    const CheckResult second = tb.run_and_check(run, 0);
    EXPECT_TRUE(second.passed) << k->name << ": " << second.detail;
    const std::vector<float> c2 = download_c(tb.problem());
    EXPECT_EQ(std::memcmp(c1.data(), c2.data(), c1.size() * sizeof(float)), 0)
        << k->name << ": split-K results differ between two runs";
  }
}

TEST(LadderSplitK, WorksOnNonDefaultStreams) {
  TILEGEMM_REQUIRE_GPU();
  cudaStream_t streams[2];
  for (cudaStream_t& s : streams) ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  for (int i = 0; i < 2; ++i) {
    CaseSpec spec = split_case(20 + static_cast<std::uint64_t>(i));
    spec.m += 40 * i;  // a larger problem on the second stream: its workspace grows
    Testbed tb(spec);
    ASSERT_TRUE(tb.init_status().ok());
    const CheckResult r = tb.run_and_check(
        [](const Problem& p, cudaStream_t s) { return gemm(p, "auto", s); }, streams[i]);
    EXPECT_TRUE(r.passed) << "stream " << i << ": " << r.detail;
  }
  for (cudaStream_t s : streams) EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

}  // namespace
}  // namespace tilegemm
