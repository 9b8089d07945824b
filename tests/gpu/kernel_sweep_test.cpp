// Every registered kernel, in every types combination its description lists, over the standard
// sweep: awkward sizes (1 ... 1025) x 4 layout mixes x (alpha, beta) in {(1,0), (0.5,2),
// (-1.3,0.7), (0,1)}, C poisoned with NaN when beta == 0, alpha == 0 & beta == 1 checked bit for
// bit, padding of C checked untouched. The (kernel, types) list is read from the registry: a
// kernel or a types combination added later is swept without touching this file. A kernel that
// cannot run on this GPU is skipped, visibly, with the compute capabilities it needs.
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "gpu_env.hpp"
#include "tilegemm/bench.hpp"
#include "tilegemm/device_info.hpp"
#include "tilegemm/gemm.hpp"
#include "tilegemm/testbed.hpp"
#include "typed_cases.hpp"

namespace tilegemm {
namespace {

using testing::all_gemm_types;
using testing::types_tag;

constexpr std::uint64_t kSweepSeed = 2024;
constexpr int kMinCasesPerKernel = 300;

struct SweepParam {
  std::string kernel;
  GemmTypes types;
};

void PrintTo(const SweepParam& p, std::ostream* os) {
  *os << p.kernel << " " << gemm_types_name(p.types);
}

std::vector<SweepParam> sweep_params() {
  std::vector<SweepParam> params;
  for (const KernelInfo& k : all_kernels()) {
    for (GemmTypes t : k.desc.types) params.push_back({k.name, t});
  }
  return params;
}

// "naive_kernel needs compute capability >= 80 (and <= 90); this GPU is 75"
std::string device_range(const KernelInfo& k) {
  std::string s = k.name + " needs compute capability >= " + std::to_string(k.desc.min_cc);
  if (k.desc.max_cc > 0) s += " and <= " + std::to_string(k.desc.max_cc);
  return s + "; this GPU is " + std::to_string(current_compute_capability());
}

// A kernel whose fast path needs 16-byte rows may refuse a case; the same case with leading
// dimensions rounded up to 16 bytes in each operand's element size (4 elements of f32/tf32, 8 of
// bf16/f16; nothing else changed) is then run instead, so every kernel sees every shape.
CaseSpec aligned_variant(CaseSpec s) {
  auto round16 = [](std::int64_t ld, std::int64_t pad, DType dtype) {
    const std::int64_t step = 16 / static_cast<std::int64_t>(dtype_bytes(dtype));
    return ((ld + pad + step - 1) / step) * step - ld;
  };
  s.pad_a = round16(min_ld(s.la, s.m, s.k), s.pad_a, s.types.ab);
  s.pad_b = round16(min_ld(s.lb, s.k, s.n), s.pad_b, s.types.ab);
  s.pad_c = round16(min_ld(s.lc, s.m, s.n), s.pad_c, s.types.c);
  return s;
}

class KernelSweep : public ::testing::TestWithParam<SweepParam> {};

TEST_P(KernelSweep, StandardSweepPasses) {
  TILEGEMM_REQUIRE_GPU();
  const SweepParam& param = GetParam();
  const KernelInfo* kernel = find_kernel(param.kernel);
  ASSERT_NE(kernel, nullptr);
  if (!runs_on_current_device(*kernel)) GTEST_SKIP() << device_range(*kernel);
  int ran = 0, refused = 0, failed = 0;
  double worst = 0.0;  // largest rel_error / tolerance seen
  int index = 0;
  for (CaseSpec spec : bench::standard_sweep(kSweepSeed)) {
    spec.types = param.types;
    // A matrix-vector family (gemv) gets every case of the sweep as a product with one column
    // (even cases) or one row (odd cases) of C, the rest of the case as it is.
    if (kernel->family == "gemv" && spec.m != 1 && spec.n != 1) {
      (index % 2 == 0 ? spec.n : spec.m) = 1;
    }
    // The narrow families get every case with N (even cases) or M (odd cases) cut to 1 .. their
    // bound, the rest of the case as it is: rung 21's width, and twice rung 29's tile columns (so
    // that both orientations and one and two column tiles are swept).
    if (kernel->family == "narrow" || kernel->family == "mma_3xtf32") {
      const std::int64_t bound = (kernel->family == "narrow" ? 1 : 2) * kernel->tile.bn;
      (index % 2 == 0 ? spec.n : spec.m) = 1 + (index / 2) % bound;
    }
    // The thin-K family gets every case with K of 1 to 40 (one or two shared-memory rounds),
    // rung 25's with K of 1 to 64 for 16-bit types and 1 to 32 for fp32 and tf32 (its bounds:
    // one to four mma k-steps).
    if (kernel->family == "thin_k") spec.k = 1 + index % 40;
    if (kernel->family == "thin_k_mma") {
      const bool wide = dtype_bytes(param.types.ab) == 4;
      spec.k = 1 + index % (wide ? 32 : 64);
    }
    // Rung 28's 16 x 8 tile takes K up to 128: every case with K of 1 to 128.
    if (kernel->name == "tiny_mma_16x8") spec.k = 1 + index % 128;
    ++index;
    auto tb = std::make_unique<Testbed>(spec);
    ASSERT_TRUE(tb->init_status().ok()) << spec.to_string() << ": " << tb->init_status().message();
    if (!kernel->can_implement(tb->problem())) {
      tb = std::make_unique<Testbed>(aligned_variant(spec));
      ASSERT_TRUE(tb->init_status().ok()) << tb->init_status().message();
    }
    if (!kernel->can_implement(tb->problem())) {
      // A kernel that refuses a layout mix (tf32 wgmma: A column-major with B row-major) still
      // gets every shape, scalar pair and C layout of the sweep, with K-major A and B.
      CaseSpec k_major = spec;
      k_major.la = Layout::kRowMajor;
      k_major.lb = Layout::kColMajor;
      tb = std::make_unique<Testbed>(aligned_variant(k_major));
      ASSERT_TRUE(tb->init_status().ok()) << tb->init_status().message();
      if (!kernel->can_implement(tb->problem())) {
        // ... and one that exists for leading dimensions no tensor map describes (rung 16's
        // tf32 instances) gets them K-major with A's and B's padded to an odd length.
        CaseSpec odd = aligned_variant(k_major);
        odd.pad_a += 1;
        odd.pad_b += 1;
        tb = std::make_unique<Testbed>(odd);
        ASSERT_TRUE(tb->init_status().ok()) << tb->init_status().message();
      }
    }
    const CaseSpec& used = tb->spec();
    if (!kernel->can_implement(tb->problem())) {
      ++refused;
      continue;
    }
    const CheckResult r = tb->run_and_check(
        [&](const Problem& p, cudaStream_t s) { return gemm(p, kernel->name, s); }, 0);
    ++ran;
    if (r.tolerance > 0.0 && r.rel_error / r.tolerance > worst) worst = r.rel_error / r.tolerance;
    if (!r.passed) {
      ++failed;
      ADD_FAILURE() << kernel->name << " " << used.to_string() << ": " << r.detail
                    << "\n  replay: tilegemm verify --kernels " << kernel->name << " "
                    << used.replay_flags();
      if (failed >= 10) break;  // enough to diagnose; the rest would repeat it
    }
  }
  EXPECT_GE(ran, kMinCasesPerKernel) << gemm_types_name(param.types) << ": refused " << refused
                                     << " cases";
  RecordProperty("cases", ran);
  RecordProperty("worst_error_over_tolerance", std::to_string(worst));
}

INSTANTIATE_TEST_SUITE_P(AllKernels, KernelSweep, ::testing::ValuesIn(sweep_params()),
                         [](const ::testing::TestParamInfo<SweepParam>& p) {
                           return testing::test_name(p.param.kernel + "_" +
                                                     types_tag(p.param.types));
                         });

// The dispatcher in each types combination: the shape classes, scaled so the sweep stays
// quick, plus misaligned leading dimensions that force it off its vectorised paths.
class AutoDispatch : public ::testing::TestWithParam<GemmTypes> {};

TEST_P(AutoDispatch, EveryShapeClassAndLayoutMixIsComputedRight) {
  TILEGEMM_REQUIRE_GPU();
  const GemmTypes types = GetParam();
  // {128, 96, 16384}: the top of the tolerance's depth range, where tf32/f16 partial sums outgrow
  // the range fp32 adds them in exactly and the accumulation term is exercised.
  const std::vector<std::array<std::int64_t, 3>> shapes = {
      {16, 2048, 1024}, {1000, 1000, 1000}, {511, 257, 1031}, {2048, 256, 2048},
      {256, 256, 8192}, {1, 1, 1},          {4097, 5, 3},     {128, 96, 16384},
      {4097, 300, 7}};
  std::vector<CaseSpec> specs;
  for (const auto& shape : shapes) {
    for (int mix = 0; mix < 8; ++mix) {
      for (std::int64_t pad : {0, 1}) {
        CaseSpec s;
        s.m = shape[0];
        s.n = shape[1];
        s.k = shape[2];
        s.types = types;
        s.alpha = 1.5f;
        s.beta = pad == 0 ? 0.0f : -0.5f;
        s.la = (mix & 4) ? Layout::kColMajor : Layout::kRowMajor;
        s.lb = (mix & 2) ? Layout::kColMajor : Layout::kRowMajor;
        s.lc = (mix & 1) ? Layout::kColMajor : Layout::kRowMajor;
        s.pad_a = s.pad_b = s.pad_c = pad;
        s.seed = static_cast<std::uint64_t>(specs.size()) + 7;
        specs.push_back(s);
      }
    }
  }
  // A case for which `auto` has no kernel is set aside; if that is every case, the combination
  // has no kernel on this GPU and is skipped, visibly. Gaps in an otherwise covered combination
  // are failures: gemm("auto") would refuse a valid problem.
  std::vector<std::string> uncovered;
  int ran = 0;
  double worst = 0.0;  // largest rel_error / tolerance seen
  std::string worst_case;
  for (const CaseSpec& s : specs) {
    Testbed tb(s);
    ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
    const KernelInfo* chosen = select_kernel(tb.problem());
    if (chosen == nullptr) {
      uncovered.push_back(s.to_string());
      continue;
    }
    const CheckResult r = tb.run_and_check(
        [](const Problem& p, cudaStream_t st) { return gemm(p, "auto", st); }, 0);
    ++ran;
    if (r.tolerance > 0.0 && r.rel_error / r.tolerance > worst) {
      worst = r.rel_error / r.tolerance;
      worst_case = chosen->name + " " + s.to_string();
    }
    EXPECT_TRUE(r.passed) << "auto -> " << chosen->name << " " << s.to_string() << ": "
                          << r.detail;
  }
  if (ran == 0) {
    const int cc = current_compute_capability();
    GTEST_SKIP() << "select_kernel finds no kernel for " << gemm_types_name(types)
                 << " on compute capability " << cc << " (" << kernels_for(types, cc).size()
                 << " registered kernels compute these types on it)";
  }
  RecordProperty("worst_error_over_tolerance", std::to_string(worst) + " at " + worst_case);
  for (const std::string& s : uncovered) {
    ADD_FAILURE() << "auto has no kernel for this valid " << gemm_types_name(types)
                  << " problem, though it has for others: " << s;
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, AutoDispatch, ::testing::ValuesIn(all_gemm_types()),
                         testing::types_param_name);

}  // namespace
}  // namespace tilegemm
