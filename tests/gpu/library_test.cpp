// The library's own paths on the device, in every types combination: quick returns, typed
// problems through `auto`, bad input and type mismatches against device buffers, the cuBLAS
// provider and the two references, and the check itself: it must fail deliberately wrong results.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gpu_env.hpp"
#include "tilegemm/device_info.hpp"
#include "tilegemm/gemm.hpp"
#include "tilegemm/reference.hpp"
#include "tilegemm/testbed.hpp"
#include "typed_cases.hpp"

namespace tilegemm {
namespace {

using testing::all_gemm_types;
using testing::download_bytes;
using testing::read_c;
using testing::write_c;

CaseSpec spec_of(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, float beta,
                 GemmTypes types = {}) {
  CaseSpec s;
  s.m = m;
  s.n = n;
  s.k = k;
  s.alpha = alpha;
  s.beta = beta;
  s.types = types;
  return s;
}

// C's whole allocation, as bytes.
std::vector<unsigned char> download_c(const Testbed& tb) {
  return download_bytes(tb.problem().c.data,
                        static_cast<std::size_t>(tb.c_elements()) * dtype_bytes(tb.spec().types.c));
}

// tb's problem run by the kernel named `kernel` on `stream`, checked against the fp64 reference.
CheckResult run_named(Testbed& tb, const std::string& kernel, cudaStream_t stream) {
  return tb.run_and_check([&](const Problem& p, cudaStream_t st) { return gemm(p, kernel, st); },
                          stream);
}

// `kernel` run again on tb's problem, C poisoned anew, writes the same bytes as the run before it
// (checked by the caller): a split's partial sums are added in a fixed order, and the rerun must
// write all of C.
void expect_rerun_bit_identical(Testbed& tb, const std::string& kernel) {
  const auto bytes = download_c(tb);
  ASSERT_TRUE(tb.reset_c(0).ok());
  ASSERT_TRUE(gemm(tb.problem(), kernel, 0).ok());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(download_c(tb), bytes);
}

// `var`, the registered kernel `name`, in a test that needs it: the test fails where no kernel
// of that name is registered, and skips, saying so, where it is not built for this GPU.
#define TILEGEMM_REQUIRE_KERNEL(var, name)                   \
  const KernelInfo* const var = find_kernel(name);           \
  ASSERT_NE(var, nullptr) << (name) << " is not registered"; \
  if (!runs_on_current_device(*var)) GTEST_SKIP() << (name) << " is not built for this GPU"

// Elements of a matrix's allocation (outer dimension x ld).
std::int64_t alloc_elements(Layout layout, std::int64_t ld, std::int64_t rows, std::int64_t cols) {
  return (layout == Layout::kRowMajor ? rows : cols) * ld;
}

class LibraryTyped : public ::testing::TestWithParam<GemmTypes> {};

TEST(Library, BadInputLeavesDeviceCUntouched) {
  TILEGEMM_REQUIRE_GPU();
  Testbed tb(spec_of(33, 17, 9, 1.0f, 0.5f));
  ASSERT_TRUE(tb.init_status().ok());
  ASSERT_TRUE(tb.reset_c(0).ok());
  Problem p = tb.problem();
  const auto before = download_c(tb);
  for (auto mutate : {+[](Problem& q) { q.c.ld = 3; }, +[](Problem& q) { q.k = -1; },
                      +[](Problem& q) { q.b.dtype = DType::kBF16; }}) {
    Problem bad = p;
    mutate(bad);
    for (const char* kernel : {"auto", "naive", "smem_tiled_t16"}) {
      EXPECT_FALSE(gemm(bad, kernel).ok());
    }
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(download_c(tb), before);
}

TEST_P(LibraryTyped, QuickReturnsScaleCInCsType) {
  TILEGEMM_REQUIRE_GPU();
  struct Case {
    std::int64_t k;
    float alpha, beta;
  };
  // k == 0 and alpha == 0 both mean C = beta * C, computed in C's type without any kernel of the
  // registry; beta == 0 must clear the NaN poison, beta == 1 keep every bit.
  for (const Case c : {Case{0, 1.0f, 0.0f}, Case{0, 1.0f, 2.5f}, Case{0, 1.0f, 1.0f},
                       Case{5, 0.0f, 0.0f}, Case{5, 0.0f, -1.5f}, Case{5, 0.0f, 1.0f}}) {
    for (Layout lc : {Layout::kRowMajor, Layout::kColMajor}) {
      CaseSpec s = spec_of(40, 30, c.k, c.alpha, c.beta, GetParam());
      s.lc = lc;
      s.pad_c = 3;  // the padding must stay untouched too
      Testbed tb(s);
      ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
      const CheckResult r = run_named(tb, "auto", 0);
      EXPECT_TRUE(r.passed) << s.to_string() << ": " << r.detail;
    }
  }
}

TEST_P(LibraryTyped, GemmComputesTypedProblems) {
  TILEGEMM_REQUIRE_GPU();
  const GemmTypes types = GetParam();
  int ran = 0;
  std::vector<std::string> no_kernel;
  for (int mix = 0; mix < 8; ++mix) {
    for (const auto& shape : {std::vector<std::int64_t>{128, 96, 64},
                              std::vector<std::int64_t>{67, 45, 129}}) {
      CaseSpec s = spec_of(shape[0], shape[1], shape[2], 0.75f, mix % 2 == 0 ? 0.0f : -1.25f, types);
      s.la = (mix & 4) ? Layout::kColMajor : Layout::kRowMajor;
      s.lb = (mix & 2) ? Layout::kColMajor : Layout::kRowMajor;
      s.lc = (mix & 1) ? Layout::kColMajor : Layout::kRowMajor;
      Testbed tb(s);
      ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
      const KernelInfo* chosen = select_kernel(tb.problem());
      if (chosen == nullptr) {
        no_kernel.push_back(s.to_string());
        continue;
      }
      const CheckResult r = run_named(tb, "auto", 0);
      ++ran;
      EXPECT_TRUE(r.passed) << "auto -> " << chosen->name << " " << s.to_string() << ": "
                            << r.detail;
    }
  }
  if (ran == 0) {
    GTEST_SKIP() << "select_kernel finds no kernel for " << gemm_types_name(types)
                 << " on compute capability " << current_compute_capability();
  }
  for (const std::string& s : no_kernel) {
    ADD_FAILURE() << "auto has no kernel for this valid problem: " << s;
  }
}

TEST(Library, NamedKernelRefusesTypesItDoesNotCompute) {
  TILEGEMM_REQUIRE_GPU();
  // Every kernel, every combination its description does not list: kNotSupported, before any
  // launch and whatever the GPU, and C keeps every bit.
  int checked = 0;
  for (GemmTypes types : all_gemm_types()) {
    Testbed tb(spec_of(64, 48, 32, 1.0f, 0.5f, types));
    ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
    ASSERT_TRUE(tb.reset_c(0).ok());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const auto before = download_c(tb);
    for (const KernelInfo& k : all_kernels()) {
      if (k.desc.computes(types)) continue;
      const Status s = gemm(tb.problem(), k.name);
      EXPECT_EQ(s.code(), StatusCode::kNotSupported)
          << k.name << " given " << gemm_types_name(types) << ": " << s.message();
      ++checked;
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(download_c(tb), before) << gemm_types_name(types);
  }
  // Some kernel lacks some combination (the SIMT ladder computes f32 only), so this checked something.
  EXPECT_GT(checked, 0);
}

// cuBLAS, asked for each combination, passes the same check against the fp64 reference: the
// tolerance is achievable by the vendor library too.
TEST_P(LibraryTyped, CublasProviderMatchesFp64InEveryLayoutMix) {
  TILEGEMM_REQUIRE_GPU();
  const GemmTypes types = GetParam();
  reference::Cublas cublas;
  ASSERT_TRUE(cublas.init_status().ok()) << cublas.init_status().message();
  // Depths up to the top of the tolerance's range (16384), where tf32/f16 partial sums outgrow
  // the range in which fp32 adds them exactly and the accumulation term is exercised.
  for (const auto& shape : {std::vector<std::int64_t>{67, 45, 129},
                            std::vector<std::int64_t>{256, 192, 4099},
                            std::vector<std::int64_t>{96, 64, 16384}}) {
    for (int mix = 0; mix < 8; ++mix) {
      CaseSpec s = spec_of(shape[0], shape[1], shape[2], -1.25f, 0.75f, types);
      s.la = (mix & 4) ? Layout::kColMajor : Layout::kRowMajor;
      s.lb = (mix & 2) ? Layout::kColMajor : Layout::kRowMajor;
      s.lc = (mix & 1) ? Layout::kColMajor : Layout::kRowMajor;
      // Padding, kept to multiples of 16 bytes where cuBLAS's 16-bit paths like it, and not
      // where they do not: both must work.
      s.pad_a = mix % 3 == 0 ? 8 : 1;
      s.pad_b = 2;
      s.pad_c = 3;
      Testbed tb(s);
      ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
      const CheckResult r = tb.run_and_check(
          [&](const Problem& p, cudaStream_t st) { return cublas.gemm(p, st); }, 0);
      EXPECT_TRUE(r.passed) << "cublas " << s.to_string() << ": " << r.detail;
      if (types == GemmTypes{}) {
        EXPECT_LT(r.rel_error, 1e-5) << s.to_string();
      }
      RecordProperty("error_over_tolerance_k" + std::to_string(shape[2]) + "_" +
                         std::to_string(mix),
                     std::to_string(r.rel_error / r.tolerance) + " element " +
                         std::to_string(r.element_error / r.element_tolerance));
    }
  }
}

TEST_P(LibraryTyped, DeviceFp64ReferenceMatchesHostReference) {
  TILEGEMM_REQUIRE_GPU();
  const GemmTypes types = GetParam();
  const std::int64_t m = 37, n = 29, k = 71;
  for (Layout la : {Layout::kRowMajor, Layout::kColMajor}) {
    CaseSpec s = spec_of(m, n, k, 0.5f, 2.0f, types);
    s.la = la;
    s.lb = Layout::kColMajor;
    s.pad_b = 1;
    Testbed tb(s);
    ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
    ASSERT_TRUE(tb.reset_c(0).ok());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const Problem& dp = tb.problem();
    const std::size_t ab = dtype_bytes(types.ab);
    const auto a = download_bytes(
        dp.a.data, static_cast<std::size_t>(alloc_elements(dp.a.layout, dp.a.ld, m, k)) * ab);
    const auto b = download_bytes(
        dp.b.data, static_cast<std::size_t>(alloc_elements(dp.b.layout, dp.b.ld, k, n)) * ab);
    auto c = download_c(tb);
    Problem hp = dp;
    hp.a.data = a.data();
    hp.b.data = b.data();
    hp.c.data = c.data();
    const std::vector<double> host = reference::host_gemm(hp);
    ASSERT_EQ(host.size(), static_cast<std::size_t>(m * n));
    double* d_ref = nullptr;
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d_ref), sizeof(double) * m * n), cudaSuccess);
    ASSERT_TRUE(reference::gemm_fp64(dp, d_ref, 0).ok());
    std::vector<double> dev(static_cast<std::size_t>(m * n));
    ASSERT_EQ(cudaMemcpy(dev.data(), d_ref, sizeof(double) * dev.size(), cudaMemcpyDeviceToHost),
              cudaSuccess);
    cudaFree(d_ref);
    for (std::size_t i = 0; i < dev.size(); ++i) {
      ASSERT_NEAR(dev[i], host[i], 1e-9 * (1.0 + std::fabs(host[i]))) << "element " << i;
    }
    // The inputs are random in [-1, 1): the reference is not all zeros.
    double norm = 0.0;
    for (double v : host) norm += v * v;
    EXPECT_GT(norm, 0.0);
  }
}

TEST_P(LibraryTyped, TestbedInputsAreExactInTheirTypeAndReproducible) {
  TILEGEMM_REQUIRE_GPU();
  const GemmTypes types = GetParam();
  const CaseSpec s = spec_of(64, 32, 48, 1.0f, 1.0f, types);
  Testbed tb(s), again(s);
  ASSERT_TRUE(tb.init_status().ok());
  ASSERT_TRUE(again.init_status().ok());
  const std::int64_t count = 64 * 48;
  const std::size_t a_bytes = static_cast<std::size_t>(count) * dtype_bytes(types.ab);
  const auto a = download_bytes(tb.problem().a.data, a_bytes);
  EXPECT_EQ(a, download_bytes(again.problem().a.data, a_bytes)) << "same seed, same A";
  // Uniform in [-1, 1) on the type's grid: 2^-23 for f32, 2^-10 for tf32 and f16, 2^-7 for bf16.
  const int frac = types.ab == DType::kF32 ? 23 : types.ab == DType::kBF16 ? 7 : 10;
  int nonzero = 0, negative = 0;
  for (std::int64_t e = 0; e < count; ++e) {
    const unsigned char* at = a.data() + static_cast<std::size_t>(e) * dtype_bytes(types.ab);
    float v = 0.0f;
    if (types.ab == DType::kBF16) {
      __nv_bfloat16 x;
      std::memcpy(&x, at, sizeof(x));
      v = __bfloat162float(x);
    } else if (types.ab == DType::kF16) {
      __half x;
      std::memcpy(&x, at, sizeof(x));
      v = __half2float(x);
    } else {
      std::memcpy(&v, at, sizeof(v));
    }
    const double scaled = std::ldexp(static_cast<double>(v), frac);
    ASSERT_EQ(scaled, std::floor(scaled)) << "element " << e << " = " << v;
    ASSERT_GE(v, -1.0f);
    ASSERT_LT(v, 1.0f);
    nonzero += v != 0.0f ? 1 : 0;
    negative += v < 0.0f ? 1 : 0;
  }
  EXPECT_GT(nonzero, static_cast<int>(count) * 9 / 10);
  EXPECT_GT(negative, static_cast<int>(count) / 3);
  EXPECT_LT(negative, static_cast<int>(count) * 2 / 3);
}

// The check must fail a deliberately wrong result in every combination: cuBLAS (shown right by
// CublasProviderMatchesFp64InEveryLayoutMix) run on the problem with one K step missing, with one
// element of C set to NaN, with the result scaled by (1 + 10 tolerance), with one element off by
// about rms(ref) on a C large enough that the Frobenius norm alone would dilute it, with C's
// padding written, with one bit changed when alpha = 0 and beta = 1, and not run at all.
TEST_P(LibraryTyped, CheckFailsDeliberatelyWrongResults) {
  TILEGEMM_REQUIRE_GPU();
  const GemmTypes types = GetParam();
  reference::Cublas cublas;
  ASSERT_TRUE(cublas.init_status().ok()) << cublas.init_status().message();
  auto run_cublas = [&](const Problem& p, cudaStream_t st) { return cublas.gemm(p, st); };

  CaseSpec s = spec_of(96, 80, 64, 1.0f, 0.0f, types);
  s.pad_c = 2;
  Testbed tb(s);
  ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();

  // The control: the right result passes.
  const CheckResult right = tb.run_and_check(run_cublas, 0);
  ASSERT_TRUE(right.passed) << right.detail;

  // One K step (here one term, the finest step) missing: off by about 1/sqrt(k) = 0.125.
  const CheckResult short_k = tb.run_and_check(
      [&](const Problem& p, cudaStream_t st) {
        Problem shorter = p;
        shorter.k = p.k - 1;
        return cublas.gemm(shorter, st);
      },
      0);
  EXPECT_FALSE(short_k.passed) << "k - 1: " << short_k.rel_error;
  EXPECT_GT(short_k.rel_error, 10 * short_k.tolerance);

  // One element NaN.
  const CheckResult one_nan = tb.run_and_check(
      [&](const Problem& p, cudaStream_t st) {
        Status status = cublas.gemm(p, st);
        if (status.ok()) status = from_cuda_error(cudaStreamSynchronize(st));
        write_c(p, 50, 33, std::numeric_limits<float>::quiet_NaN());
        return status;
      },
      0);
  EXPECT_FALSE(one_nan.passed);
  EXPECT_EQ(one_nan.nonfinite, 1);

  // The whole result scaled by (1 + 10 tolerance), through the library's C = beta * C.
  const float scale = static_cast<float>(1.0 + 10.0 * tolerance(types, s.k));
  const CheckResult scaled = tb.run_and_check(
      [&](const Problem& p, cudaStream_t st) {
        Status status = cublas.gemm(p, st);
        Problem rescale = p;
        rescale.alpha = 0.0f;
        rescale.beta = scale;
        if (status.ok()) status = gemm(rescale, "auto", st);
        return status;
      },
      0);
  EXPECT_FALSE(scaled.passed) << "scaled by " << scale << ": " << scaled.rel_error << " <= "
                              << scaled.tolerance;
  EXPECT_GT(scaled.rel_error, 5 * scaled.tolerance);

  // C's padding written (one element past the first row of row-major C).
  const CheckResult padding = tb.run_and_check(
      [&](const Problem& p, cudaStream_t st) {
        Status status = cublas.gemm(p, st);
        if (status.ok()) status = from_cuda_error(cudaStreamSynchronize(st));
        testing::flip_low_bit(p, p.n);
        return status;
      },
      0);
  EXPECT_FALSE(padding.passed);
  EXPECT_EQ(padding.padding_written, 1);

  // Not run at all: the NaN poison stays.
  const CheckResult nothing =
      tb.run_and_check([](const Problem&, cudaStream_t) { return Status(); }, 0);
  EXPECT_FALSE(nothing.passed);
  EXPECT_EQ(nothing.nonfinite, s.m * s.n);

  // One element off by about rms(ref) (sqrt(k / 9) = 2.7 here) in a 1024 x 1024 C: it moves the
  // Frobenius error by only about 1/1024 of that, below the 16-bit tolerances; the element bound
  // catches it.
  Testbed large(spec_of(1024, 1024, 64, 1.0f, 0.0f, types));
  ASSERT_TRUE(large.init_status().ok()) << large.init_status().message();
  const CheckResult off_one = large.run_and_check(
      [&](const Problem& p, cudaStream_t st) {
        Status status = cublas.gemm(p, st);
        if (status.ok()) status = from_cuda_error(cudaStreamSynchronize(st));
        write_c(p, 517, 300, read_c(p, 517, 300) + 3.0f);
        return status;
      },
      0);
  EXPECT_FALSE(off_one.passed);
  EXPECT_GT(off_one.element_error, off_one.element_tolerance);
  EXPECT_EQ(off_one.nonfinite, 0);

  // alpha = 0, beta = 1 must leave C bit for bit: one changed bit fails.
  Testbed keep(spec_of(40, 24, 16, 0.0f, 1.0f, types));
  ASSERT_TRUE(keep.init_status().ok());
  const CheckResult kept = run_named(keep, "auto", 0);
  EXPECT_TRUE(kept.passed) << kept.detail;
  const CheckResult flipped = keep.run_and_check(
      [&](const Problem& p, cudaStream_t) {
        testing::flip_low_bit(p, 5);
        return Status();
      },
      0);
  EXPECT_FALSE(flipped.passed);
  EXPECT_EQ(flipped.changed_bits, 1);
}

// Kernels that split K over blocks add the partial sums in a fixed order (no atomics), so a
// result is bit-identical from run to run. Shapes long enough in K that every split-K kernel
// splits: a small output with deep K, matrix-vector products in both layouts of the matrix, and
// a tiny product whose K rung 28 splits over a cluster.
TEST(Library, SplitKResultsAreBitIdenticalAcrossRuns) {
  TILEGEMM_REQUIRE_GPU();
  int checked = 0;
  for (const KernelInfo& k : all_kernels()) {
    if (!k.desc.split_k || !runs_on_current_device(k)) continue;
    for (GemmTypes types : k.desc.types) {
      CaseSpec shapes[6] = {
          spec_of(64, 64, 65536, 1.0f, 0.0f, types),  spec_of(64, 1, 262144, 1.0f, 0.0f, types),
          spec_of(8192, 1, 8192, 1.0f, 0.0f, types),  spec_of(3, 200, 65536, 1.0f, 0.0f, types),
          spec_of(4096, 5, 16384, 1.0f, 0.0f, types), spec_of(40, 70, 2000, 1.0f, 0.0f, types)};
      shapes[2].la = Layout::kColMajor;  // the M-contiguous matrix kernel of gemv
      shapes[4].la = Layout::kColMajor;  // ... and of the narrow family
      for (const CaseSpec& spec : shapes) {
        Testbed tb(spec);
        ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
        if (!k.can_implement(tb.problem())) continue;
        SCOPED_TRACE(k.name + " " + spec.to_string());
        const CheckResult first = run_named(tb, k.name, 0);
        ASSERT_TRUE(first.passed) << first.detail;
        ASSERT_NO_FATAL_FAILURE(expect_rerun_bit_identical(tb, k.name));
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 0) << "no split-K kernel ran: the shapes above no longer reach one";
}

// The launch shape of a kernel node: its cluster size (blocks; 1 without clusters) and its
// threads per block.
struct LaunchShape {
  int cluster = 1;
  unsigned threads = 0;
};

// The launch shape of each kernel one gemm() call of `kernel` enqueues on `stream`, in a graph
// capture. The call runs once before the capture, so that the capture finds its workspace
// allocated.
std::vector<LaunchShape> kernel_launches(const Problem& p, const std::string& kernel,
                                         cudaStream_t stream) {
  EXPECT_TRUE(gemm(p, kernel, stream).ok());
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  cudaGraph_t graph = nullptr;
  EXPECT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  const Status launched = gemm(p, kernel, stream);
  EXPECT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  EXPECT_TRUE(launched.ok()) << launched.message();
  if (graph == nullptr) return {};
  std::size_t count = 0;
  EXPECT_EQ(cudaGraphGetNodes(graph, nullptr, &count), cudaSuccess);
  std::vector<cudaGraphNode_t> nodes(count);
  EXPECT_EQ(cudaGraphGetNodes(graph, nodes.data(), &count), cudaSuccess);
  std::vector<LaunchShape> launches;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    EXPECT_EQ(cudaGraphNodeGetType(node, &type), cudaSuccess);
    if (type != cudaGraphNodeTypeKernel) continue;
    cudaKernelNodeAttrValue v{};
    EXPECT_EQ(cudaGraphKernelNodeGetAttribute(node, cudaKernelNodeAttributeClusterDimension, &v),
              cudaSuccess);
    cudaKernelNodeParams params{};
    EXPECT_EQ(cudaGraphKernelNodeGetParams(node, &params), cudaSuccess);
    LaunchShape shape;
    shape.cluster = static_cast<int>(std::max(1u, v.clusterDim.x) * std::max(1u, v.clusterDim.y) *
                                     std::max(1u, v.clusterDim.z));
    shape.threads = params.blockDim.x * params.blockDim.y * params.blockDim.z;
    launches.push_back(shape);
  }
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  return launches;
}

// The cluster size (blocks) of each kernel one gemm() call of `kernel` enqueues on `stream`, 1 for
// a launch without clusters.
std::vector<int> kernel_clusters(const Problem& p, const std::string& kernel, cudaStream_t stream) {
  std::vector<int> clusters;
  for (const LaunchShape& shape : kernel_launches(p, kernel, stream)) {
    clusters.push_back(shape.cluster);
  }
  return clusters;
}

// The kernels one gemm() call of `kernel` enqueues on `stream`.
int kernels_enqueued(const Problem& p, const std::string& kernel, cudaStream_t stream) {
  return static_cast<int>(kernel_clusters(p, kernel, stream).size());
}

// `kernel` on tb's problem: it can implement it and computes it right, bit-identical on a rerun
// over a poisoned C where beta is 0.
void expect_right(const KernelInfo& kernel, Testbed& tb) {
  ASSERT_TRUE(kernel.can_implement(tb.problem()));
  const CheckResult r = run_named(tb, kernel.name, 0);
  ASSERT_TRUE(r.passed) << r.detail;
  if (tb.spec().beta == 0.0f) {
    ASSERT_NO_FATAL_FAILURE(expect_rerun_bit_identical(tb, kernel.name));
  }
}

// The same on `spec`'s problem, in one launch of `threads`-thread blocks.
void expect_right_in_one_launch(const KernelInfo& kernel, const CaseSpec& spec, unsigned threads,
                                cudaStream_t stream) {
  Testbed tb(spec);
  ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
  SCOPED_TRACE(spec.to_string());
  ASSERT_NO_FATAL_FAILURE(expect_right(kernel, tb));
  const std::vector<LaunchShape> launches = kernel_launches(tb.problem(), kernel.name, stream);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].threads, threads);
}

// The matrix-stream families (gemv, narrow) split a long K over blocks and add the splits in the
// same launch, in the last block of each row block to arrive: one kernel on shapes that split
// (gemv always; the narrow products where that block's sum is short, two kernels where it is
// long), a right result each time and twice over (a counter left behind by a previous launch
// would leave C poisoned).
TEST(Library, StreamSplitKIsOneLaunchWhereTheSumIsShort) {
  TILEGEMM_REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  int checked = 0;
  for (const KernelInfo& k : all_kernels()) {
    const bool gemv = k.family == "gemv";
    if ((!gemv && k.family != "narrow") || !runs_on_current_device(k)) continue;
    for (GemmTypes types : k.desc.types) {
      // {shape, kernels expected}: gemv's row and column kernels (the column kernel also on
      // short columns, where a warp step covers several of them: 16-byte pieces at an aligned
      // pitch, element loads at an odd one, a row piece cut by M); a narrow product whose last
      // block adds at most 32 partial sums per thread, and two with more (the second pass: its
      // split shares, and outputs that end inside a 16-byte group, 6 and 175 of them).
      std::vector<std::pair<CaseSpec, int>> cases;
      if (gemv) {
        cases = {{spec_of(64, 1, 262144, 1.0f, 0.5f, types), 1},
                 {spec_of(8192, 1, 8192, 1.0f, 0.0f, types), 1},
                 {spec_of(64, 1, 65536, 1.0f, 0.5f, types), 1},
                 {spec_of(33, 1, 3350, 1.0f, 0.0f, types), 1},
                 {spec_of(1, 41, 20000, 1.0f, 0.5f, types), 1}};
        for (std::size_t i = 1; i < cases.size(); ++i) cases[i].first.la = Layout::kColMajor;
        cases[3].first.pad_a = 3;
        cases[4].first.pad_b = 1;  // M = 1 mirrored: B^T (B row-major) at an odd pitch
      } else {
        cases = {{spec_of(3, 2, 4096, 1.0f, 0.5f, types), 1},
                 {spec_of(3, 2, 65536, 1.0f, 0.0f, types), 2},
                 {spec_of(35, 5, 5919, 1.0f, 0.5f, types), 2}};
        cases[2].first.la = Layout::kColMajor;  // the column kernel, K split 100+ ways
      }
      for (const auto& [spec, launches] : cases) {
        Testbed tb(spec);
        ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
        if (!k.can_implement(tb.problem())) continue;
        SCOPED_TRACE(k.name + " " + spec.to_string());
        for (int run = 0; run < 2; ++run) {
          const CheckResult r = run_named(tb, k.name, 0);
          ASSERT_TRUE(r.passed) << "run " << run << ": " << r.detail;
        }
        EXPECT_EQ(kernels_enqueued(tb.problem(), k.name, stream), launches);
        ++checked;
      }
    }
  }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  EXPECT_GT(checked, 0) << "no gemv or narrow kernel ran";
}

// The types gemv's pitch tests walk: 16-bit A/B with a 16-bit and an fp32 C, fp32, and tf32
// (fp32 storage computed in fp32).
constexpr GemmTypes kGemvTestTypes[] = {{DType::kBF16, DType::kBF16},
                                        {DType::kF16, DType::kF32},
                                        {DType::kF32, DType::kF32},
                                        {DType::kTF32, DType::kF32}};

// One case of gemv's pitch-class tests: right against the fp64 reference, and the device function
// that runs it added to `kernels`.
void check_gemv_case(const KernelInfo& gemv, const CaseSpec& spec, std::set<const void*>& kernels) {
  Testbed tb(spec);
  ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
  ASSERT_TRUE(gemv.can_implement(tb.problem()));
  SCOPED_TRACE(spec.to_string());
  kernels.insert(gemv.device_function(tb.problem()));
  const CheckResult r = run_named(tb, "gemv", 0);
  EXPECT_TRUE(r.passed) << r.detail;
}

// A case of gemv's tests again with A moved `offset` elements past a 16-byte boundary
// (a copy of A's elements in a buffer of its own): right against the same fp64 reference.
void check_gemv_moved_a(Testbed& tb, std::int64_t offset, cudaStream_t stream) {
  const Problem& p = tb.problem();
  const auto es = static_cast<std::int64_t>(dtype_bytes(p.a.dtype));
  const bool a_rows = p.a.layout == Layout::kRowMajor;
  const std::int64_t a_bytes = ((a_rows ? p.m : p.k) - 1) * p.a.ld * es + (a_rows ? p.k : p.m) * es;
  void* moved = nullptr;
  ASSERT_EQ(cudaMalloc(&moved, static_cast<std::size_t>(a_bytes + 16)), cudaSuccess);
  unsigned char* const a_moved = static_cast<unsigned char*>(moved) + offset * es;
  ASSERT_EQ(
      cudaMemcpy(a_moved, p.a.data, static_cast<std::size_t>(a_bytes), cudaMemcpyDeviceToDevice),
      cudaSuccess);
  const CheckResult r = tb.run_and_check(
      [&](const Problem& q0, cudaStream_t s) {
        Problem q = q0;
        q.a.data = a_moved;
        return gemm(q, "gemv", s);
      },
      stream);
  EXPECT_TRUE(r.passed) << "A " << offset << " elements past 16 bytes: " << r.detail;
  ASSERT_EQ(cudaFree(moved), cudaSuccess);
}

// gemv's column kernel (A M-contiguous) reads A's 16-byte pieces in place where A's base and pitch
// are 16-byte aligned (fp32: as 8- or 4-byte loads at such pitches); elsewhere, in 16-bit types,
// the shifted kernel reads each of a warp's columns (all of one shift) in the aligned pieces from
// the shift before its block's rows, its blocks V rows shorter. Two kernels in 16-bit types,
// three in fp32, each right in every type at every shift: pitches of M + 0..V-1 elements (every
// period) and A moved 1 and 3 elements past a 16-byte base, on whole row blocks of 64 V rows
// (8392 rows over K = 1100: over 16 MiB) with a cut last one, on 32-row blocks (1100 rows), on a
// short column (16 rows), with K split and beta != 0; the last column's last piece reaches past A
// (read element by element there). A K under 128 keeps the in-place kernels in 16-bit types too.
TEST(Library, GemvColumnKernelReadsEveryPitchAndShift) {
  TILEGEMM_REQUIRE_GPU();
  TILEGEMM_REQUIRE_KERNEL(gemv, "gemv");
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  for (GemmTypes types : kGemvTestTypes) {
    const std::int64_t v = 16 / static_cast<std::int64_t>(dtype_bytes(types.ab));
    for (auto [m, k] :
         {std::pair<std::int64_t, std::int64_t>{8392, 1100}, {1100, 777}, {16, 777}, {1100, 100}}) {
      std::set<const void*> kernels;
      for (std::int64_t pad = 0; pad < v; ++pad) {
        CaseSpec spec = spec_of(m, 1, k, 1.0f, 0.5f, types);
        spec.la = Layout::kColMajor;
        spec.pad_a = pad;
        spec.seed = static_cast<std::uint64_t>(pad + 1);
        ASSERT_NO_FATAL_FAILURE(check_gemv_case(*gemv, spec, kernels));
        if (pad == 0 || pad == 1) {
          Testbed tb(spec);
          ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
          SCOPED_TRACE(spec.to_string());
          for (std::int64_t offset : {1, 3}) {
            ASSERT_NO_FATAL_FAILURE(check_gemv_moved_a(tb, offset, stream));
          }
        }
      }
      // 16-bit: in place and shifted (K = 100: in place in 16-, 8- and 4-byte loads, elements at
      // an odd pitch); fp32: in place in 16-, 8- and 4-byte loads.
      EXPECT_EQ(kernels.size(), v == 8 && k >= 128 ? 2u : 3u)
          << "M " << m << ", K " << k << ": one kernel per read";
    }
  }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// gemv's row kernel (A K-contiguous) reads A's and x's 16-byte pieces in place where A's base and
// pitch and x's base are 16-byte aligned and x is contiguous, else element by element. 16-bit A
// past K = 256 at a contiguous x runs the staged kernel instead: each row in the aligned pieces
// inside it, a block's rows all of one shift, x staged in shared memory at that shift. So two
// kernels in 16-bit types (one at K = 200), one in fp32, each right in every type at every shift:
// pitches of K + 0..V-1 elements (every period), x at a stride of 2, A moved 1 and 3 elements past
// a 16-byte base, with K not a multiple of a piece (heads and tails), K split (40 rows in fp32;
// 2000 x 24000), a split of several staging windows (2000 x 24000) and beta != 0.
TEST(Library, GemvRowKernelReadsEveryPitchAndShift) {
  TILEGEMM_REQUIRE_GPU();
  TILEGEMM_REQUIRE_KERNEL(gemv, "gemv");
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  for (GemmTypes types : kGemvTestTypes) {
    const std::int64_t v = 16 / static_cast<std::int64_t>(dtype_bytes(types.ab));
    for (auto [m, k] : {std::pair<std::int64_t, std::int64_t>{3000, 1100},
                        {40, 1100},
                        {40, 200},
                        {2000, 24000}}) {
      std::set<const void*> kernels;
      for (std::int64_t pad_a = 0; pad_a <= v; ++pad_a) {
        CaseSpec spec = spec_of(m, 1, k, 1.0f, 0.5f, types);
        spec.la = Layout::kRowMajor;
        spec.lb = Layout::kRowMajor;
        spec.pad_a = pad_a % v;
        spec.pad_b = pad_a == v ? 1 : 0;  // last: x at a stride of 2
        spec.seed = static_cast<std::uint64_t>(pad_a + 1);
        ASSERT_NO_FATAL_FAILURE(check_gemv_case(*gemv, spec, kernels));
        if (m == 3000 && pad_a < v) {
          Testbed tb(spec);
          ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
          SCOPED_TRACE(spec.to_string());
          for (std::int64_t offset : {1, 3}) {
            ASSERT_NO_FATAL_FAILURE(check_gemv_moved_a(tb, offset, stream));
          }
        }
      }
      const bool staged = v == 8 && k > 256;  // 16-bit types past one round of element loads
      EXPECT_EQ(kernels.size(), staged ? 2u : 1u)
          << "M " << m << ", K " << k << ": in place and staged, or one kernel";
    }
  }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// Rung 21's narrow products read the wide operand in 16-byte pieces where its base and pitch are
// 16-byte aligned, else element by element. Each class must reach its own kernel and come out
// right, in both layouts of the wide operand (the row and the column kernel), with K split (the
// last block's sum) and beta != 0; a 4-byte pitch (pad 2) is an element read (in fp32 an 8-byte
// one), in 16-bit types and fp32 (whose 16-column kernel keeps four columns of element loads in
// flight).
TEST(Library, NarrowProductsAreRightInBothReadClasses) {
  TILEGEMM_REQUIRE_GPU();
  int checked = 0;
  for (const KernelInfo& k : all_kernels()) {
    if (k.family != "narrow" || !runs_on_current_device(k)) continue;
    for (GemmTypes types :
         {GemmTypes{DType::kBF16, DType::kBF16}, GemmTypes{DType::kF16, DType::kF32},
          GemmTypes{DType::kF32, DType::kF32}}) {
      for (Layout la : {Layout::kRowMajor, Layout::kColMajor}) {
        std::set<const void*> kernels;
        // pad 0: ld 4096 (16-byte pitch); pad 2: ld 4098 (4-byte); pad 1: ld 4097 (odd)
        for (std::int64_t pad : {0, 2, 1}) {
          CaseSpec spec = spec_of(la == Layout::kRowMajor ? 300 : 4096, 3,
                                  la == Layout::kRowMajor ? 4096 : 1000, 1.0f, 0.5f, types);
          spec.la = la;
          spec.pad_a = pad;
          Testbed tb(spec);
          ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
          ASSERT_TRUE(k.can_implement(tb.problem()));
          SCOPED_TRACE(k.name + " " + spec.to_string());
          kernels.insert(k.device_function(tb.problem()));
          const CheckResult r = run_named(tb, k.name, 0);
          EXPECT_TRUE(r.passed) << r.detail;
          ++checked;
        }
        EXPECT_EQ(kernels.size(), 2u) << k.name << ": 16-byte pieces and elements, two kernels";
      }
    }
  }
  EXPECT_GT(checked, 0) << "no narrow kernel ran";
}

// Rung 24's small products on the CUDA cores and rungs 27 and 28's on mma.sync: one kernel
// whatever the split (a tile's splits are added by its last block to arrive; rung 28 adds its
// warps' slices of K inside the block), right in every type on odd
// pitches and both C layouts, with beta != 0 (the last block reads C) and bit-identical when run
// again on a poisoned C (a counter left behind by a previous launch would leave C poisoned). The
// shapes split K 1, a few and many ways; the fifth (rung 27's class: a mid-sized product, every
// operand at an odd pitch) runs several 64-k stages per split over tiles cut by M and N.
TEST(Library, SmallProductsAreOneLaunchRightAndBitIdentical) {
  TILEGEMM_REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  int checked = 0;
  for (const KernelInfo& k : all_kernels()) {
    // (tiny_mma_16x8 takes K up to 128 only: its own test below.)
    if ((k.family != "small" && k.family != "small_mma" && k.family != "tiny_mma") ||
        k.name == "tiny_mma_16x8" || !runs_on_current_device(k)) {
      continue;
    }
    for (GemmTypes types : k.desc.types) {
      CaseSpec cases[5] = {spec_of(24, 28, 2637, 1.0f, 0.5f, types),
                           spec_of(5, 9, 187, -1.5f, 0.0f, types),
                           spec_of(330, 397, 31, 1.0f, 0.0f, types),
                           spec_of(101, 65, 4514, 0.5f, 2.0f, types),
                           spec_of(1876, 94, 471, 1.0f, 0.0f, types)};
      cases[0].la = Layout::kColMajor;
      cases[1].lb = Layout::kColMajor;
      cases[2].lc = Layout::kColMajor;
      cases[3].la = Layout::kColMajor;
      cases[3].lc = Layout::kColMajor;
      cases[4].la = Layout::kColMajor;
      cases[4].lb = Layout::kRowMajor;
      for (int i = 0; i < 5; ++i) {
        CaseSpec& spec = cases[i];
        spec.pad_a = 1 + i;
        spec.pad_b = 3 - i % 2;
        spec.pad_c = i;
        Testbed tb(spec);
        ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
        ASSERT_TRUE(k.can_implement(tb.problem()));
        SCOPED_TRACE(k.name + " " + spec.to_string());
        const CheckResult first = run_named(tb, k.name, 0);
        ASSERT_TRUE(first.passed) << first.detail;
        if (spec.beta == 0.0f) {
          ASSERT_NO_FATAL_FAILURE(expect_rerun_bit_identical(tb, k.name));
        } else {
          const CheckResult again = run_named(tb, k.name, 0);
          ASSERT_TRUE(again.passed) << again.detail;
        }
        EXPECT_EQ(kernels_enqueued(tb.problem(), k.name, stream), 1);
        ++checked;
      }
    }
  }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  EXPECT_GT(checked, 0) << "no small-product kernel ran";
}

// Rung 28 computes a product whose K fits one chunk (K <= 32) with one warp a block, C stored from
// its accumulators (no shared memory, no barrier), and a longer K with eight warps a block; where
// C (as a row-major C) has at most 16 rows, in 16-row tiles. Each must be right in every type
// with beta != 0 at odd pitches and both C layouts, bit-identical on a poisoned C with beta 0, K
// of 32 and 33 must land on either side, 16 and 17 rows of C on either side of the 16-row tile,
// and (over 16 rows) 16 and 17 columns on either side of the 16-column one.
TEST(Library, TinyProductsOfOneChunkAreOneWarpABlock) {
  TILEGEMM_REQUIRE_GPU();
  TILEGEMM_REQUIRE_KERNEL(tiny, "tiny_mma_32x32");
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  for (GemmTypes types : tiny->desc.types) {
    // {shape, threads a block}
    std::vector<std::pair<CaseSpec, unsigned>> cases = {
        {spec_of(330, 397, 31, 1.0f, 0.5f, types), 32u},
        {spec_of(7, 9, 1, 1.0f, 0.0f, types), 32u},
        {spec_of(40, 70, 32, -1.0f, 0.0f, types), 32u},
        {spec_of(40, 70, 33, 1.0f, 0.5f, types), 256u},
        {spec_of(5, 204, 22, 1.0f, 0.0f, types), 32u},
        {spec_of(12, 47, 77, 1.0f, 0.5f, types), 256u},
        {spec_of(16, 9, 67, 1.0f, 0.0f, types), 256u},
        {spec_of(17, 40, 70, 1.0f, 0.0f, types), 256u},
        {spec_of(40, 12, 77, 1.0f, 0.5f, types), 256u},
        {spec_of(40, 17, 77, 1.0f, 0.0f, types), 256u},
        {spec_of(100, 16, 20, 1.0f, 0.0f, types), 32u}};
    cases[0].first.lc = Layout::kColMajor;
    cases[0].first.pad_a = 1;
    cases[0].first.pad_b = 3;
    cases[0].first.pad_c = 2;
    cases[1].first.la = Layout::kColMajor;
    cases[2].first.lb = Layout::kColMajor;
    cases[2].first.pad_b = 1;
    cases[3].first.lb = Layout::kColMajor;
    cases[3].first.pad_b = 1;
    cases[5].first.pad_a = 1;               // A's rows of 77 16-bit elements: element loads
    cases[6].first.lc = Layout::kColMajor;  // C^T: 9 rows of 16 (a 16-row tile)
    cases[6].first.pad_c = 3;
    cases[8].first.pad_b = 2;
    for (const auto& [spec, threads] : cases) {
      ASSERT_NO_FATAL_FAILURE(expect_right_in_one_launch(*tiny, spec, threads, stream));
    }
    // The same types, layouts and block: 12 x 47 and 17 x 40, 16- and 32-row tiles; 40 x 12 and
    // 40 x 17, 16- and 32-column tiles.
    Testbed t16(cases[5].first), t32(cases[7].first), n16(cases[8].first), n32(cases[9].first);
    ASSERT_TRUE(t16.init_status().ok() && t32.init_status().ok());
    ASSERT_TRUE(n16.init_status().ok() && n32.init_status().ok());
    EXPECT_NE(tiny->device_function(t16.problem()), tiny->device_function(t32.problem()));
    EXPECT_NE(tiny->device_function(n16.problem()), tiny->device_function(n32.problem()));
    EXPECT_NE(tiny->device_function(n16.problem()), tiny->device_function(t16.problem()));
  }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// Rung 28's 16 x 8 tile: one warp a block over the whole K, up to 128 and no further. It must be
// right in every type at odd pitches (element loads) and 4-byte ones (pairs), every layout mix of
// A and B, both C layouts, beta != 0, K of 1 to 128 with the k16 steps cut anywhere, tiles cut by
// M and N, bit-identical on a poisoned C with beta 0, in one launch of 32-thread blocks.
TEST(Library, TinyProductsOfKUpTo128AreOneWarpA16x8Tile) {
  TILEGEMM_REQUIRE_GPU();
  TILEGEMM_REQUIRE_KERNEL(frag, "tiny_mma_16x8");
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  for (GemmTypes types : frag->desc.types) {
    const std::int64_t shapes[][3] = {{12, 47, 77}, {58, 9, 67},   {1, 1, 1},    {33, 17, 128},
                                      {16, 8, 16},  {300, 70, 97}, {7, 130, 33}, {40, 12, 113}};
    int i = 0;
    for (const auto& s : shapes) {
      CaseSpec spec = spec_of(s[0], s[1], s[2], 1.0f, i % 2 == 0 ? 0.0f : 0.5f, types);
      spec.la = i % 4 < 2 ? Layout::kRowMajor : Layout::kColMajor;
      spec.lb = i % 2 == 0 ? Layout::kColMajor : Layout::kRowMajor;
      spec.lc = i % 3 == 0 ? Layout::kColMajor : Layout::kRowMajor;
      spec.pad_a = i % 2 == 0 ? 1 : 2;  // over the shapes, odd and even (4-byte) pitches both
      spec.pad_b = i % 2 == 0 ? 3 : 0;
      spec.pad_c = i % 3;
      ++i;
      ASSERT_NO_FATAL_FAILURE(expect_right_in_one_launch(*frag, spec, 32u, stream));
    }
    Testbed over(spec_of(12, 47, 129, 1.0f, 0.0f, types));
    ASSERT_TRUE(over.init_status().ok()) << over.init_status().message();
    EXPECT_FALSE(frag->can_implement(over.problem())) << "K = 129 is past the one round";
  }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// Rung 24's small products and gemv's column kernel on short columns split a short K over the
// blocks of one cluster where the splits fit one and every cluster of the grid is resident at once
// (sm_90 and later), adding the splits through shared memory; elsewhere through the workspace and
// the last block to arrive. Rung 28 splits a K past 512 over a cluster the same way, else keeps
// it in one block. Each kernel must reach both paths here (few tiles: a cluster; more tiles than
// clusters resident, gemv's row kernel, or rung 28's short K: none), in one launch, right with
// beta != 0 at odd pitches, and bit-identical on a poisoned C.
TEST(Library, ShortSplitKIsOneClusterWhereItFits) {
  TILEGEMM_REQUIRE_GPU();
  int dev = 0;
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDevice(&dev), cudaSuccess);
  ASSERT_EQ(cudaGetDeviceProperties(&prop, dev), cudaSuccess);
  if (prop.major < 9) GTEST_SKIP() << "thread-block clusters need sm_90";
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  int checked = 0;
  for (const KernelInfo& k : all_kernels()) {
    const bool gemv = k.name == "gemv";
    const bool tiny = k.name == "tiny_mma_32x32";  // (tiny_mma_16x8 never splits K)
    if ((!gemv && !tiny && k.family != "small") || !runs_on_current_device(k)) continue;
    for (GemmTypes types : k.desc.types) {
      // {shape, runs as a cluster}. Rung 24: 4 tiles over K split 23 ways (cut to a cluster's
      // size), 3 tiles split 14 ways; 200 tiles split 2 ways (the 64x64 tile on twice the
      // extents), more 2-block clusters than 2 blocks per SM hold. gemv: short columns split a
      // few ways (M = 1 with B^T M-contiguous; 16 rows at an odd pitch, element loads); 340 rows
      // in 32-row blocks over K = 240 (not split), a long column split many ways, and the row
      // kernel. Rung 28: K past 512 over few tiles (a cluster); K of 170 (one block a tile); K
      // past 512 over 132 tiles, where no 2-block cluster fits beside each tile on a GPU of fewer
      // than 264 SMs (one block takes the whole K).
      std::vector<std::pair<CaseSpec, bool>> cases;
      if (gemv) {
        cases = {{spec_of(1, 4, 5018, 1.0f, 0.0f, types), true},
                 {spec_of(16, 1, 3000, 1.0f, 0.5f, types), true},
                 {spec_of(340, 1, 240, 1.0f, 0.5f, types), false},
                 {spec_of(4096, 1, 4096, 1.0f, 0.5f, types), false},
                 {spec_of(374, 1, 2209, 1.0f, 0.5f, types), false}};
        cases[1].first.la = Layout::kColMajor;
        cases[1].first.pad_a = 1;
        cases[2].first.la = Layout::kColMajor;
        cases[2].first.pad_a = 4;  // a 16-byte pitch in every type
        cases[3].first.la = Layout::kColMajor;
      } else if (tiny) {
        cases = {{spec_of(16, 103, 1440, 1.0f, 0.5f, types), true},
                 {spec_of(65, 25, 1311, 1.0f, 0.0f, types), true},
                 {spec_of(89, 20, 170, 1.0f, 0.0f, types), false},
                 {spec_of(2, 4200, 1000, 1.0f, 0.5f, types), false}};
        cases[3].first.pad_b = 1;
        cases[0].first.lb = Layout::kColMajor;
        cases[0].first.lc = Layout::kColMajor;
        cases[0].first.pad_a = 1;
        cases[1].first.la = Layout::kColMajor;
        cases[1].first.pad_b = 3;
      } else {
        const std::int64_t x = k.tile.bm / 32;
        cases = {{spec_of(16, 103, 1440, 1.0f, 0.5f, types), true},
                 {spec_of(65, 25, 1311, 1.0f, 0.0f, types), true},
                 {spec_of(320 * x, 640 * x, 8192, 1.0f, 0.0f, types), false}};
        cases[0].first.lb = Layout::kColMajor;
        cases[0].first.lc = Layout::kColMajor;
        cases[0].first.pad_a = 1;
        cases[1].first.la = Layout::kColMajor;
        cases[1].first.pad_b = 3;
      }
      std::set<bool> paths;
      for (const auto& [spec, clustered] : cases) {
        Testbed tb(spec);
        ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
        SCOPED_TRACE(k.name + " " + spec.to_string());
        ASSERT_NO_FATAL_FAILURE(expect_right(k, tb));
        const std::vector<int> clusters = kernel_clusters(tb.problem(), k.name, stream);
        ASSERT_EQ(clusters.size(), 1u);
        EXPECT_EQ(clusters[0] > 1, clustered) << "cluster of " << clusters[0] << " blocks";
        paths.insert(clusters[0] > 1);
        ++checked;
      }
      EXPECT_EQ(paths.size(), 2u) << k.name << ": both the cluster and the workspace path";
    }
  }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  EXPECT_GT(checked, 0) << "no small-product, tiny-product or gemv kernel ran";
}

// Rung 19's thin K writes 64-row tiles, or 32-row ones where 64-row tiles would be fewer than two
// per SM; C in 4-element stores where its base and ld allow, also in a tile cut by N (each whole
// group of four columns, the cut one element by element). Both tile heights must reach their own
// kernel and come out right, with N cut inside a group, beta != 0 and an odd pitch.
TEST(Library, ThinKWritesBothTileHeights) {
  TILEGEMM_REQUIRE_GPU();
  TILEGEMM_REQUIRE_KERNEL(thin, "thin_k");
  for (GemmTypes types :
       {GemmTypes{DType::kF32, DType::kF32}, GemmTypes{DType::kBF16, DType::kBF16}}) {
    std::set<const void*> kernels;
    // 104 x 6044 under a column-major C: 95 64-row tiles of C^T (32-row ones), 102 columns cut
    // inside a group; 2100 x 2202: 594 tiles (64-row ones); each at a 16-byte and an odd ld of C.
    for (const auto& [m, n] :
         {std::pair<std::int64_t, std::int64_t>{104, 6044}, {102, 6044}, {2100, 2202}}) {
      for (std::int64_t pad_c : {0, 1}) {
        CaseSpec spec = spec_of(m, n, 12, 1.0f, 0.5f, types);
        spec.la = Layout::kColMajor;
        spec.lb = Layout::kColMajor;
        spec.lc = Layout::kColMajor;
        spec.pad_c = pad_c;
        Testbed tb(spec);
        ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
        ASSERT_TRUE(thin->can_implement(tb.problem()));
        SCOPED_TRACE(spec.to_string());
        kernels.insert(thin->device_function(tb.problem()));
        const CheckResult r = run_named(tb, "thin_k", 0);
        EXPECT_TRUE(r.passed) << r.detail;
      }
    }
    EXPECT_EQ(kernels.size(), 2u) << "one kernel per tile height";
  }
}

// Rung 25's thin K on mma.sync: C leaves as 16-byte stores with each row staged at its own shift
// from a 16-byte boundary, so odd pitches (rows starting at every shift), partial first and last
// pieces of a row, N past one 128-column tile, K of 1 up to the family's 64 (32 for fp32 and
// tf32), both C layouts and beta != 0 (C read in the same pieces) must all come out right in
// every type, the padding of C untouched (run_and_check), in one launch.
TEST(Library, ThinKMmaIsRightAtEveryRowShiftInOneLaunch) {
  TILEGEMM_REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  int checked = 0;
  for (const KernelInfo& k : all_kernels()) {
    if (k.family != "thin_k_mma" || !runs_on_current_device(k)) continue;
    for (GemmTypes types : k.desc.types) {
      CaseSpec cases[4] = {spec_of(37, 300, 27, 1.0f, 0.0f, types),
                           spec_of(130, 517, 64, 1.0f, 0.5f, types),
                           spec_of(129, 255, 1, -1.5f, 0.0f, types),
                           spec_of(70, 1000, 48, 0.5f, 2.0f, types)};
      cases[1].la = Layout::kColMajor;
      cases[1].lb = Layout::kColMajor;
      cases[2].lc = Layout::kColMajor;
      cases[3].lb = Layout::kColMajor;
      cases[3].lc = Layout::kColMajor;
      const std::int64_t pads[4][3] = {{1, 3, 5}, {2, 1, 3}, {0, 0, 7}, {3, 0, 1}};
      for (int i = 0; i < 4; ++i) {
        CaseSpec& spec = cases[i];
        // fp32 and tf32 (the strip walk): K up to 32, four m16n8k8 steps
        if (dtype_bytes(types.ab) == 4) spec.k = std::min<std::int64_t>(spec.k, 32 - i);
        spec.pad_a = pads[i][0];
        spec.pad_b = pads[i][1];
        spec.pad_c = pads[i][2];
        Testbed tb(spec);
        ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
        ASSERT_TRUE(k.can_implement(tb.problem()));
        SCOPED_TRACE(k.name + " " + spec.to_string());
        const CheckResult r = run_named(tb, k.name, 0);
        EXPECT_TRUE(r.passed) << r.detail;
        EXPECT_EQ(kernels_enqueued(tb.problem(), k.name, stream), 1);
        ++checked;
      }
    }
  }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  EXPECT_GT(checked, 0) << "no rung-25 kernel ran";
}

// Tensor maps are cached per thread by everything their encoding reads (base, extents, pitch,
// type, box). Before each verified call the same thread runs decoys on the same buffers that
// differ from it in one of those only: A one row shorter, A at a smaller pitch, A's base one row
// on. A cache that ignored the field would hand the verified call a decoy's map and a wrong C
// (the decoys' writes to C are overwritten by it). A TMA tile (three maps) and rung 23 (eight
// residue maps for A); each verified twice, the second time on maps the cache holds.
TEST(Library, TensorMapCacheFollowsEveryOperandChange) {
  TILEGEMM_REQUIRE_GPU();
  const GemmTypes bf16{DType::kBF16, DType::kBF16};
  int checked = 0;
  for (const char* name : {"wgmma_128x64x64_s8_ts", "wgmma_64x64x64_s11_rm"}) {
    const KernelInfo* k = find_kernel(name);
    if (k == nullptr || !runs_on_current_device(*k)) continue;
    const bool residue = std::string(name).find("_rm") != std::string::npos;
    // A row-major 300 x 200 at a pitch of 200 + 2 step: 16-byte pitches for the TMA tile (step 8),
    // odd element offsets for rung 23 (step 1), and room for the decoy pitch 200 + step.
    const std::int64_t step = residue ? 1 : 8;
    CaseSpec spec = spec_of(300, residue ? 40 : 256, 200, 1.0f, 0.0f, bf16);
    spec.pad_a = 2 * step;
    Testbed tb(spec);
    ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
    ASSERT_TRUE(k->can_implement(tb.problem())) << name << " " << spec.to_string();
    SCOPED_TRACE(std::string(name) + " " + spec.to_string());
    const auto with_decoys = [&](const Problem& p, cudaStream_t st) {
      Problem shorter = p;
      shorter.m = p.m - 1;
      Problem narrower = p;
      narrower.a.ld = p.a.ld - step;
      Problem moved = shorter;
      moved.a.data = static_cast<const std::uint16_t*>(p.a.data) + p.a.ld;
      for (const Problem& decoy : {shorter, narrower, moved}) {
        EXPECT_TRUE(k->can_implement(decoy));
        if (const Status s = gemm(decoy, k->name, st); !s.ok()) return s;
      }
      return gemm(p, k->name, st);
    };
    for (int repeat = 0; repeat < 2; ++repeat) {
      const CheckResult r = tb.run_and_check(with_decoys, 0);
      EXPECT_TRUE(r.passed) << r.detail;
      ++checked;
    }
  }
  if (checked == 0) {
    GTEST_SKIP() << "no TMA kernel runs on this GPU (sm_90a not built or not sm_90)";
  }
}

// The wave tail of the wgmma kernels: with one tile more than the SMs hold (128-row tiles; two
// more with 64-row ones; a kernel that swaps A and B sees 67..266 tiles along N) and a K deep
// enough that splitting pays by split_plan's estimate for every tile, the last wave's tiles are
// split over the SMs (the instance's plan says so) and added in the kernel or by a second
// kernel, as the plan says: the same kernels as for the same tiles with a K too short to split
// (under 4 k-tiles a unit), or one more; a right result with beta = 0 and with beta != 0 (the
// sum reads C), and bit-identical reruns.
TEST(Library, WgmmaWaveTailIsSplitRightAndBitIdentical) {
  TILEGEMM_REQUIRE_GPU();
  const std::int64_t sms = current_sm_count();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  int checked = 0;
  for (const KernelInfo& k : all_kernels()) {
    if (k.name.rfind("wgmma", 0) != 0 || !k.desc.split_k || !runs_on_current_device(k)) continue;
    // Rung 22 runs the tf32 kernel on K' = 3 x K rounded up to 32: a third of the K gives it
    // the same depth (and a split workspace of 2.2 GB instead of 6.7); its in-kernel split
    // (variants "cs" and "cs_ra") runs on K itself.
    const bool pre_split = k.family == "wgmma_3xtf32" && k.desc.variant.rfind("cs", 0) != 0;
    const std::int64_t deep = pre_split ? 10923 : 32768;
    for (GemmTypes types : k.desc.types) {
      const CaseSpec short_k = spec_of(128 * (sms + 1), 64, 128, 1.0f, 0.0f, types);
      const CaseSpec tail = spec_of(128 * (sms + 1), 64, deep, 1.0f, 0.0f, types);
      Testbed base(short_k);
      ASSERT_TRUE(base.init_status().ok()) << base.init_status().message();
      if (!k.can_implement(base.problem())) continue;
      SCOPED_TRACE(k.name + " " + tail.to_string());
      Testbed tb(tail);
      ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
      ASSERT_TRUE(k.plan);
      const std::string plan = k.plan(tb.problem());
      ASSERT_NE(plan.find(" split "), std::string::npos) << "the wave tail is not split: " << plan;
      const bool second = plan.find("summed by a second kernel") != std::string::npos;
      ASSERT_TRUE(second || plan.find("summed in the kernel") != std::string::npos) << plan;
      EXPECT_EQ(kernels_enqueued(tb.problem(), k.name, stream),
                kernels_enqueued(base.problem(), k.name, stream) + (second ? 1 : 0))
          << plan;
      const CheckResult first = run_named(tb, k.name, 0);
      ASSERT_TRUE(first.passed) << first.detail;
      const auto bytes = download_c(tb);
      ASSERT_TRUE(tb.reset_c(0).ok());
      ASSERT_TRUE(gemm(tb.problem(), k.name, 0).ok());
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      EXPECT_EQ(download_c(tb), bytes);
      CaseSpec with_beta = tail;
      with_beta.beta = 0.5f;
      Testbed tb_beta(with_beta);
      ASSERT_TRUE(tb_beta.init_status().ok());
      const CheckResult scaled = run_named(tb_beta, k.name, 0);
      EXPECT_TRUE(scaled.passed) << scaled.detail;
      ++checked;
    }
  }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  EXPECT_GT(checked, 0) << "no wgmma kernel ran";
}

// Split K summed in the kernel (wgmma): where an instance's plan adds a few tiles' splits in the
// kernel (the last split of each tile's consumer to arrive adds them all in split order), one
// call is as many kernels as an unsplit call of the same tiles (K of 128), right in every type
// through each epilogue: a TMA store (beta = 0, C row-major at a 16-byte pitch), staged stores
// (an odd ldc), the register epilogue with beta != 0 (the sum reads C), a column-major C; and
// bit-identical when run again on a poisoned C (a counter left behind would leave C poisoned).
TEST(Library, WgmmaSplitSummedInTheKernelIsOneLaunchRightAndBitIdentical) {
  TILEGEMM_REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  int checked = 0;
  int instances = 0;
  for (const KernelInfo& k : all_kernels()) {
    if (k.name.rfind("wgmma", 0) != 0 || !k.desc.split_k || !runs_on_current_device(k)) continue;
    ASSERT_TRUE(k.plan) << k.name;
    bool in_kernel = false;
    for (GemmTypes types : k.desc.types) {
      // 200 x 300: 4 to 20 tiles; K of 768 and 1536: 3 to 24 splits of 4 k-tiles or more.
      for (std::int64_t depth : {768, 1536}) {
        struct Epilogue {
          Layout lc;
          std::int64_t pad_c;
          float beta;
        };
        for (const Epilogue& e : {Epilogue{Layout::kRowMajor, 0, 0.0f},
                                  Epilogue{Layout::kRowMajor, 1, 0.0f},
                                  Epilogue{Layout::kRowMajor, 0, 0.5f},
                                  Epilogue{Layout::kColMajor, 3, -1.0f}}) {
          CaseSpec spec = spec_of(200, 300, depth, 1.5f, e.beta, types);
          spec.lc = e.lc;
          spec.pad_c = e.pad_c;
          CaseSpec unsplit = spec;
          unsplit.k = 128;
          Testbed tb(spec);
          ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
          if (!k.can_implement(tb.problem())) continue;
          const std::string plan = k.plan(tb.problem());
          if (plan.find("summed in the kernel") == std::string::npos) continue;
          SCOPED_TRACE(k.name + " " + spec.to_string() + ": " + plan);
          in_kernel = true;
          Testbed base(unsplit);
          ASSERT_TRUE(base.init_status().ok()) << base.init_status().message();
          EXPECT_EQ(kernels_enqueued(tb.problem(), k.name, stream),
                    kernels_enqueued(base.problem(), k.name, stream));
          const CheckResult first = run_named(tb, k.name, 0);
          ASSERT_TRUE(first.passed) << first.detail;
          if (e.beta == 0.0f) {
            ASSERT_NO_FATAL_FAILURE(expect_rerun_bit_identical(tb, k.name));
          }
          ++checked;
        }
      }
    }
    instances += in_kernel ? 1 : 0;
  }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  EXPECT_GT(instances, 0) << "no wgmma instance summed a split in the kernel on these shapes";
  EXPECT_GT(checked, 0);
}

// A few tiles' split on a one-consumer (64-row) wgmma tile is summed in the kernel where its
// parts are read in at most 4 batches (a batch: two splits of 64 columns, one of 128), else by a
// second kernel; K is split as far as the SMs ask, not capped at what the kernel sums. Checked on
// each 64-row instance's plans, a short K (3 or 4 splits) and long ones (past 4 batches).
TEST(Library, WgmmaFewTileSplitIsSummedInTheKernelUpToFourBatches) {
  TILEGEMM_REQUIRE_GPU();
  int in_kernel = 0, second = 0;
  for (const KernelInfo& k : all_kernels()) {
    if (k.name.rfind("wgmma", 0) != 0 || !k.desc.split_k || k.tile.bm != 64 ||
        !runs_on_current_device(k)) {
      continue;
    }
    ASSERT_TRUE(k.plan) << k.name;
    for (GemmTypes types : k.desc.types) {
      for (std::int64_t depth : {1024, 16384, 65536}) {
        const CaseSpec spec = spec_of(64, 64, depth, 1.0f, 0.0f, types);
        Testbed tb(spec);
        ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
        if (!k.can_implement(tb.problem())) continue;
        const std::string plan = k.plan(tb.problem());
        SCOPED_TRACE(k.name + " " + spec.to_string() + ": " + plan);
        const std::size_t at = plan.find(" split ");
        ASSERT_NE(at, std::string::npos);
        const long splits = std::strtol(plan.c_str() + at + 7, nullptr, 10);
        ASSERT_GE(splits, 3);
        const long batches = k.tile.bn <= 64 ? (splits + 1) / 2 : splits;
        const bool summed_here = plan.find("summed in the kernel") != std::string::npos;
        EXPECT_EQ(summed_here, batches <= 4);
        EXPECT_EQ(summed_here, plan.find("summed by a second kernel") == std::string::npos);
        ++(summed_here ? in_kernel : second);
        // K is not capped at the in-kernel sum: the longest K takes more splits than it sums.
        if (depth == 65536) {
          EXPECT_GT(batches, 4);
        }
      }
    }
  }
  EXPECT_GT(in_kernel, 0) << "no 64-row wgmma plan summed in the kernel";
  EXPECT_GT(second, 0) << "no 64-row wgmma plan summed by a second kernel";
}

// The wgmma epilogue's staged stores (beta = 0, C no tensor map stores exactly): with an odd
// ldc every other line of a 16-bit C starts 2 bytes off a word and is stored in word pairs
// across the chunks of a tile row (its first and last elements alone), which must cover every
// element without writing past N or into the padding; pads of 2 and 4 give the 4- and 8-byte
// pieces, column-major C the mirrored launch. N from 1 to past two chunks and tiles, odd and
// even, M past one consumer's 64 lines; every TMA-store instance and type.
TEST(Library, WgmmaStagedStoresCoverEveryLineOffset) {
  TILEGEMM_REQUIRE_GPU();
  int checked = 0;
  for (const KernelInfo& k : all_kernels()) {
    if (k.name.rfind("wgmma", 0) != 0 || k.name.find("_ts") == std::string::npos ||
        !runs_on_current_device(k)) {
      continue;
    }
    for (GemmTypes types : k.desc.types) {
      for (std::int64_t n : {1, 5, 63, 64, 65, 131, 200, 257, 300}) {
        for (std::int64_t pad_c : {1, 2, 3, 4}) {
          for (Layout lc : {Layout::kRowMajor, Layout::kColMajor}) {
            const bool row = lc == Layout::kRowMajor;
            CaseSpec s = spec_of(row ? 133 : n, row ? n : 133, 40, 1.5f, 0.0f, types);
            s.la = Layout::kRowMajor;
            s.lb = Layout::kColMajor;
            s.lc = lc;
            s.pad_c = pad_c;
            s.seed = static_cast<std::uint64_t>(n * 16 + pad_c);
            Testbed tb(s);
            ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
            if (!k.can_implement(tb.problem())) continue;
            const CheckResult r = run_named(tb, k.name, 0);
            EXPECT_TRUE(r.passed) << k.name << " " << s.to_string() << ": " << r.detail;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 0) << "no wgmma TMA-store kernel ran";
}

// Rung 23 reads A through one tensor map per residue of its line index mod 8, each class's lines
// at their own offset from a 16-byte boundary: pads of A from 0 to 7 elements give every set of
// offsets in both layouts of A, beside a B with and without a tensor map (B copied first), C in
// both layouts (the product mirrored or C written transposed); K = 1104 also splits K over
// the tiles. Then the same A moved 1 and 3 elements past an aligned base (each class's offset
// changes, the first class's map starts before A) must give the same bits, and B's copy must be
// the one launch that a B without a map adds.
TEST(Library, ResidueMapsReadEveryPitchAndBase) {
  TILEGEMM_REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  int checked = 0;
  for (const KernelInfo& k : all_kernels()) {
    if (k.name.find("_rm") == std::string::npos || !runs_on_current_device(k)) continue;
    const GemmTypes types{DType::kBF16, DType::kBF16};
    for (Layout la : {Layout::kRowMajor, Layout::kColMajor}) {
      for (Layout lc : {Layout::kRowMajor, Layout::kColMajor}) {
        for (std::int64_t pad_a = 0; pad_a < 8; ++pad_a) {
          int launches[2] = {0, 0};
          for (std::int64_t pad_b : {0, 3}) {
            CaseSpec s = spec_of(304, 40, 1104, 1.0f, 0.0f, types);
            s.la = la;
            s.lb = Layout::kColMajor;  // ld = K = 1104: a tensor map with pad_b 0
            s.lc = lc;
            s.pad_a = pad_a;
            s.pad_b = pad_b;
            s.seed = static_cast<std::uint64_t>(pad_a * 8 + pad_b);
            SCOPED_TRACE(k.name + " " + s.to_string());
            Testbed tb(s);
            ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
            ASSERT_TRUE(k.can_implement(tb.problem()));
            const CheckResult r = run_named(tb, k.name, stream);
            ASSERT_TRUE(r.passed) << r.detail;
            const auto bytes = download_c(tb);
            launches[pad_b == 0 ? 0 : 1] = kernels_enqueued(tb.problem(), k.name, stream);
            const Problem& p = tb.problem();
            const auto es = static_cast<std::int64_t>(dtype_bytes(p.a.dtype));
            const bool a_rows = la == Layout::kRowMajor;
            const std::int64_t a_bytes =
                ((a_rows ? p.m : p.k) - 1) * p.a.ld * es + (a_rows ? p.k : p.m) * es;
            for (std::int64_t offset : {1, 3}) {
              void* moved = nullptr;
              ASSERT_EQ(cudaMalloc(&moved, static_cast<std::size_t>(a_bytes + 16 * es)),
                        cudaSuccess);
              unsigned char* const a_moved = static_cast<unsigned char*>(moved) + offset * es;
              ASSERT_EQ(cudaMemcpy(a_moved, p.a.data, static_cast<std::size_t>(a_bytes),
                                   cudaMemcpyDeviceToDevice),
                        cudaSuccess);
              Problem q = p;
              q.a.data = a_moved;
              ASSERT_TRUE(tb.reset_c(stream).ok());
              ASSERT_TRUE(k.can_implement(q));
              ASSERT_TRUE(gemm(q, k.name, stream).ok());
              ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
              EXPECT_EQ(download_c(tb), bytes) << "A " << offset << " elements past 16 bytes";
              ASSERT_EQ(cudaFree(moved), cudaSuccess);
            }
            ++checked;
          }
          // pad_a 0 gives A a tensor map: B without one then goes to A's role, uncopied.
          if (pad_a != 0) {
            EXPECT_EQ(launches[1], launches[0] + 1) << "pad_a " << pad_a;
          }
        }
      }
    }
  }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  EXPECT_GT(checked, 0) << "no rung-23 kernel ran";
}

// Rung 16's transposed copy of a narrow operand that runs along its narrow side (A column-major
// with M, B row-major with N, under one 128-byte box) beside a wide operand that needs no copy:
// every rung-16 instance takes such a problem, narrow M and narrow N, both C layouts, every type
// it computes, widths across the box (1, 7, 8, 31, 63 lines for 16-bit types; 1, 7, 31 for tf32)
// at the narrow operand's pitch rounded up to 16 bytes (an odd multiple of 16 bytes included)
// and K past one of the transpose's 32-line tiles; and with both operands at odd pitches, where
// both are copied by lines instead.
TEST(Library, NarrowAlongItsNarrowSideIsCopiedTransposedRight) {
  TILEGEMM_REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  int checked = 0;
  for (const KernelInfo& k : all_kernels()) {
    if (k.family != "wgmma_padded" || !runs_on_current_device(k)) continue;
    for (GemmTypes types : k.desc.types) {
      const auto es = static_cast<std::int64_t>(dtype_bytes(types.ab));
      for (std::int64_t narrow : {1, 7, 8, 31, 63}) {
        if (es == 4 && narrow > 31) continue;
        const std::int64_t to_16_bytes = (narrow + 16 / es - 1) / (16 / es) * (16 / es) - narrow;
        for (bool narrow_m : {true, false}) {
          for (Layout lc : {Layout::kRowMajor, Layout::kColMajor}) {
            for (bool odd : {false, true}) {
              CaseSpec s = spec_of(narrow_m ? narrow : 777, narrow_m ? 777 : narrow, 200, 1.5f,
                                   odd ? -0.5f : 0.0f, types);
              // the narrow operand along its narrow side, the wide one K-major (K = 200: a
              // 16-byte pitch)
              s.la = narrow_m ? Layout::kColMajor : Layout::kRowMajor;
              s.lb = narrow_m ? Layout::kColMajor : Layout::kRowMajor;
              s.lc = lc;
              (narrow_m ? s.pad_a : s.pad_b) = odd ? 1 : to_16_bytes;
              (narrow_m ? s.pad_b : s.pad_a) = odd ? 1 : 0;
              s.pad_c = odd ? 1 : 0;
              s.seed = static_cast<std::uint64_t>(checked) + 11;
              SCOPED_TRACE(k.name + " " + s.to_string());
              Testbed tb(s);
              ASSERT_TRUE(tb.init_status().ok()) << tb.init_status().message();
              ASSERT_TRUE(k.can_implement(tb.problem()));
              const CheckResult r = run_named(tb, k.name, stream);
              EXPECT_TRUE(r.passed) << r.detail;
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  EXPECT_GT(checked, 0) << "no rung-16 kernel ran";
}

// Rung 22's split (beforehand and in the kernel) on inputs its fast path does not cover: with A
// and B all ones, a NaN in A's row 1 makes C's row 1 NaN, an Inf in row 0 never comes out finite
// (three tf32 products cannot keep it Inf: big(Inf) times B's zero remainders is NaN, which is
// what row 0 holds), and 3.4e38 in row 2, whose tf32 rounding would overflow, keeps a finite row
// of about 3.4e38 (its truncation plus the remainder). Every other element is K. Column-major
// and row-major B: the in-kernel split reads the first in place and copies the second. Rung 25's
// strip walk splits on mma.sync, for K up to 32: it runs on the first 32 columns of A (lda 100),
// where the three special values lie, and is held to rows 0, 1 and 3 up: its split has no guard
// for a rounding that overflows (25_thin_k_mma.cu, split_bits), so row 2 comes out NaN there.
// Rung 29 (narrow C) runs on C's first 40 columns, A the wide operand it splits in registers.
// Rung 28's fp32 (its 32 x 32 block tile with eight warps over K, and the one-warp 16 x 8 tile)
// splits fragments in registers with rung 29's guarded step, on the whole product.
TEST(Library, ThreeTf32KeepsNanAndTheLargestFiniteAndNoInfFinite) {
  TILEGEMM_REQUIRE_GPU();
  constexpr std::int64_t m = 70, n = 90, k = 100;
  const float big = 3.4e38f;
  std::vector<float> a(m * k, 1.0f), b(k * n, 1.0f);
  a[0 * k + 5] = std::numeric_limits<float>::infinity();
  a[1 * k + 7] = std::numeric_limits<float>::quiet_NaN();
  a[2 * k + 9] = big;
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&da), sizeof(float) * a.size()), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&db), sizeof(float) * b.size()), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dc), sizeof(float) * m * n), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(da, a.data(), sizeof(float) * a.size(), cudaMemcpyHostToDevice),
            cudaSuccess);
  ASSERT_EQ(cudaMemcpy(db, b.data(), sizeof(float) * b.size(), cudaMemcpyHostToDevice),
            cudaSuccess);
  int checked = 0;
  for (const KernelInfo& kernel : all_kernels()) {
    const bool strip = kernel.name == "thin_k_mma_16x512";
    const bool narrow = kernel.family == "mma_3xtf32";
    const bool tiny = kernel.family == "tiny_mma";
    if ((kernel.family != "wgmma_3xtf32" && !strip && !narrow && !tiny) ||
        !runs_on_current_device(kernel)) {
      continue;
    }
    const std::int64_t kk = strip ? 32 : k;
    const std::int64_t nn = narrow ? 40 : n;
    for (Layout lb : {Layout::kColMajor, Layout::kRowMajor}) {  // B all ones: either layout
      Problem p = Problem::make(m, nn, kk, da, db, dc, 1.0f, 0.0f, Layout::kRowMajor, lb,
                                Layout::kRowMajor);
      p.a.ld = k;
      p.b.ld = lb == Layout::kColMajor ? k : n;
      if (!kernel.can_implement(p)) {
        // rungs 29 (a 40-column C) and 28 (K up to 128) take any layout and pitch: a refusal
        // would skip them unseen
        EXPECT_FALSE(narrow || tiny) << kernel.name << " refuses the product";
        continue;
      }
      SCOPED_TRACE(kernel.name + (lb == Layout::kRowMajor ? " row-major B" : " col-major B"));
      // A finite poison (0x42424242, about 48.6): rows 0 and 1, whose checks a NaN poison
      // would pass unwritten, fail unless the kernel writes them.
      ASSERT_EQ(cudaMemset(dc, 0x42, sizeof(float) * m * n), cudaSuccess);
      ASSERT_TRUE(gemm(p, kernel.name, 0).ok());
      std::vector<float> c(m * nn);
      ASSERT_EQ(cudaMemcpy(c.data(), dc, sizeof(float) * c.size(), cudaMemcpyDeviceToHost),
                cudaSuccess);
      for (std::int64_t j = 0; j < nn; ++j) {
        EXPECT_FALSE(std::isfinite(c[0 * nn + j])) << "row 0, col " << j;
        EXPECT_TRUE(std::isnan(c[1 * nn + j])) << "row 1, col " << j;
        if (!strip) {
          EXPECT_NEAR(c[2 * nn + j], big, 1e-6 * big) << "row 2, col " << j;
        }
        for (std::int64_t i = 3; i < m; ++i) {
          ASSERT_EQ(c[i * nn + j], static_cast<float>(kk)) << "row " << i << ", col " << j;
        }
      }
      ++checked;
    }
  }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  EXPECT_GT(checked, 0) << "no three-tf32 kernel ran";
}

INSTANTIATE_TEST_SUITE_P(AllTypes, LibraryTyped, ::testing::ValuesIn(all_gemm_types()),
                         testing::types_param_name);

}  // namespace
}  // namespace tilegemm
