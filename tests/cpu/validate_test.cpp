// validate(), quick returns and gemm()'s argument handling: no device needed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "tilegemm/gemm.hpp"

namespace tilegemm {
namespace {

// A valid 4 x 5 x 3 problem over host buffers (validate never dereferences).
struct Fixture {
  std::vector<float> a = std::vector<float>(64, 1.0f);
  std::vector<float> b = std::vector<float>(64, 1.0f);
  std::vector<float> c = std::vector<float>(64, 7.0f);
  Problem p = Problem::make(4, 5, 3, a.data(), b.data(), c.data());
};

StatusCode code_of(const Problem& p) {
  return validate(p).code();
}

TEST(Validate, AcceptsAValidProblemInEveryLayoutMix) {
  Fixture f;
  for (Layout la : {Layout::kRowMajor, Layout::kColMajor}) {
    for (Layout lb : {Layout::kRowMajor, Layout::kColMajor}) {
      for (Layout lc : {Layout::kRowMajor, Layout::kColMajor}) {
        Problem p = Problem::make(4, 5, 3, f.a.data(), f.b.data(), f.c.data(), 1, 0, la, lb, lc);
        EXPECT_TRUE(validate(p).ok()) << layout_name(la) << layout_name(lb) << layout_name(lc);
      }
    }
  }
}

TEST(Validate, EachArgumentHasItsOwnStatus) {
  struct Case {
    const char* what;
    void (*mutate)(Problem&);
    StatusCode expected;
  };
  const Case cases[] = {
      {"null A", [](Problem& p) { p.a.data = nullptr; }, StatusCode::kNullA},
      {"null B", [](Problem& p) { p.b.data = nullptr; }, StatusCode::kNullB},
      {"null C", [](Problem& p) { p.c.data = nullptr; }, StatusCode::kNullC},
      {"m < 0", [](Problem& p) { p.m = -1; }, StatusCode::kInvalidM},
      {"n < 0", [](Problem& p) { p.n = -1; }, StatusCode::kInvalidN},
      {"k < 0", [](Problem& p) { p.k = -1; }, StatusCode::kInvalidK},
      {"lda < k (row-major A)", [](Problem& p) { p.a.ld = 2; }, StatusCode::kInvalidLda},
      {"lda < m (col-major A)",
       [](Problem& p) {
         p.a.layout = Layout::kColMajor;
         p.a.ld = 3;
       },
       StatusCode::kInvalidLda},
      {"ldb < n (row-major B)", [](Problem& p) { p.b.ld = 4; }, StatusCode::kInvalidLdb},
      {"ldb < k (col-major B)",
       [](Problem& p) {
         p.b.layout = Layout::kColMajor;
         p.b.ld = 2;
       },
       StatusCode::kInvalidLdb},
      {"ldc < n (row-major C)", [](Problem& p) { p.c.ld = 4; }, StatusCode::kInvalidLdc},
      {"ldc < m (col-major C)",
       [](Problem& p) {
         p.c.layout = Layout::kColMajor;
         p.c.ld = 3;
       },
       StatusCode::kInvalidLdc},
      {"ld 0", [](Problem& p) { p.c.ld = 0; }, StatusCode::kInvalidLdc},
      {"A dtype out of range", [](Problem& p) { p.a.dtype = static_cast<DType>(9); },
       StatusCode::kInvalidDtypeA},
      {"bf16 A, f32 B", [](Problem& p) { p.a.dtype = DType::kBF16; }, StatusCode::kInvalidDtypeB},
      {"f32 A/B, f16 C", [](Problem& p) { p.c.dtype = DType::kF16; }, StatusCode::kInvalidDtypeC},
      {"f32 A/B, tf32 C", [](Problem& p) { p.c.dtype = DType::kTF32; },
       StatusCode::kInvalidDtypeC},
      {"bf16 A/B, f16 C",
       [](Problem& p) {
         p.a.dtype = p.b.dtype = DType::kBF16;
         p.c.dtype = DType::kF16;
       },
       StatusCode::kInvalidDtypeC},
      {"tf32 A/B, bf16 C",
       [](Problem& p) {
         p.a.dtype = p.b.dtype = DType::kTF32;
         p.c.dtype = DType::kBF16;
       },
       StatusCode::kInvalidDtypeC},
      {"bf16 A at an odd byte",
       [](Problem& p) {
         p.a.dtype = p.b.dtype = p.c.dtype = DType::kBF16;
         p.a.data = static_cast<const char*>(p.a.data) + 1;
       },
       StatusCode::kMisalignedA},
      {"f32 B at 2 bytes",
       [](Problem& p) { p.b.data = static_cast<const char*>(p.b.data) + 2; },
       StatusCode::kMisalignedB},
      {"f16 C at an odd byte",
       [](Problem& p) {
         p.a.dtype = p.b.dtype = p.c.dtype = DType::kF16;
         p.c.data = static_cast<char*>(p.c.data) + 1;
       },
       StatusCode::kMisalignedC},
  };
  for (const Case& c : cases) {
    Fixture f;
    c.mutate(f.p);
    EXPECT_EQ(code_of(f.p), c.expected) << c.what;
  }
}

TEST(Validate, ChecksInBlasOrder) {
  Fixture f;
  Problem p = f.p;
  // Every error at once: the first in the order wins, then the next once it is mended.
  p.a.data = nullptr;
  p.c.data = nullptr;
  p.m = -1;
  p.n = -2;
  p.k = -3;
  p.a.ld = 0;
  p.b.ld = 0;
  p.c.ld = 0;
  p.a.dtype = static_cast<DType>(9);
  p.b.dtype = DType::kF16;
  p.c.dtype = DType::kBF16;
  p.c.data = nullptr;
  const StatusCode order[] = {
      StatusCode::kNullA,         StatusCode::kNullC,         StatusCode::kInvalidM,
      StatusCode::kInvalidN,      StatusCode::kInvalidK,      StatusCode::kInvalidLda,
      StatusCode::kInvalidLdb,    StatusCode::kInvalidLdc,    StatusCode::kInvalidDtypeA,
      StatusCode::kInvalidDtypeB, StatusCode::kInvalidDtypeC, StatusCode::kMisalignedC};
  for (StatusCode expected : order) {
    ASSERT_EQ(code_of(p), expected);
    switch (expected) {
      case StatusCode::kNullA:
        p.a.data = f.a.data();
        break;
      case StatusCode::kNullC:
        p.c.data = reinterpret_cast<char*>(f.c.data()) + 1;  // misaligned: the last check
        break;
      case StatusCode::kInvalidM:
        p.m = 4;
        break;
      case StatusCode::kInvalidN:
        p.n = 5;
        break;
      case StatusCode::kInvalidK:
        p.k = 3;
        break;
      case StatusCode::kInvalidLda:
        p.a.ld = 3;
        break;
      case StatusCode::kInvalidLdb:
        p.b.ld = 5;
        break;
      case StatusCode::kInvalidLdc:
        p.c.ld = 5;
        break;
      case StatusCode::kInvalidDtypeA:
        p.a.dtype = DType::kF32;
        break;
      case StatusCode::kInvalidDtypeB:
        p.b.dtype = DType::kF32;
        break;
      case StatusCode::kInvalidDtypeC:
        p.c.dtype = DType::kF32;
        break;
      default:
        p.c.data = f.c.data();
        break;
    }
  }
  EXPECT_TRUE(validate(p).ok());
}

TEST(Validate, AcceptsEverySupportedTypeCombinationAndNoOther) {
  Fixture f;
  const DType all[] = {DType::kF32, DType::kTF32, DType::kBF16, DType::kF16};
  int accepted = 0;
  for (DType ab : all) {
    for (DType c : all) {
      Problem p = Problem::make_typed(4, 5, 3, {ab, c}, f.a.data(), f.b.data(), f.c.data());
      const bool expect = types_supported({ab, c});
      EXPECT_EQ(validate(p).ok(), expect) << dtype_name(ab) << " -> " << dtype_name(c);
      accepted += expect ? 1 : 0;
    }
  }
  // f32 -> f32, tf32 -> f32, bf16 -> bf16 | f32, f16 -> f16 | f32
  EXPECT_EQ(accepted, 6);
  EXPECT_TRUE(types_supported({DType::kBF16, DType::kF32}));  // bf16 in, fp32 out
  EXPECT_EQ(default_c_dtype(DType::kTF32), DType::kF32);
  EXPECT_EQ(default_c_dtype(DType::kBF16), DType::kBF16);
  EXPECT_STREQ(gemm_types_name({DType::kBF16, DType::kF32}), "bf16->f32");
  EXPECT_STREQ(gemm_types_name({DType::kF16, DType::kF16}), "f16");
}

TEST(Gemm, BadDtypeIsRefusedWithoutLaunchingOrWriting) {
  Fixture f;
  Problem p = f.p;
  p.c.dtype = DType::kBF16;  // f32 A/B into bf16 C: not a supported combination
  const std::vector<float> before = f.c;
  const Status s = gemm(p, "auto");
  EXPECT_EQ(s.code(), StatusCode::kInvalidDtypeC);
  EXPECT_NE(s.message().find("argument C"), std::string::npos) << s.message();
  EXPECT_EQ(std::memcmp(before.data(), f.c.data(), before.size() * sizeof(float)), 0);
}

TEST(Validate, EmptyMatricesMayHaveNullPointersAndMinimalLd) {
  Problem p = Problem::make(0, 0, 0, nullptr, nullptr, nullptr);
  EXPECT_TRUE(validate(p).ok());
  EXPECT_EQ(p.a.ld, 1);  // BLAS: ld >= max(1, ...)
  p = Problem::make(4, 5, 0, nullptr, nullptr, nullptr);
  EXPECT_EQ(code_of(p), StatusCode::kNullC);  // C has 20 elements
  std::vector<float> c(20);
  p.c.data = c.data();
  EXPECT_TRUE(validate(p).ok());  // A and B are empty when k == 0
}

TEST(QuickReturn, ClassifiesTrivialProblems) {
  Fixture f;
  EXPECT_EQ(quick_return(f.p), QuickReturn::kNone);
  Problem p = f.p;
  p.m = 0;
  EXPECT_EQ(quick_return(p), QuickReturn::kNothing);
  p = f.p;
  p.n = 0;
  EXPECT_EQ(quick_return(p), QuickReturn::kNothing);
  p = f.p;
  p.k = 0;
  EXPECT_EQ(quick_return(p), QuickReturn::kScaleC);
  p = f.p;
  p.alpha = 0.0f;
  EXPECT_EQ(quick_return(p), QuickReturn::kScaleC);
}

TEST(Gemm, BadInputReturnsItsStatusWithoutLaunchingOrWriting) {
  // Host buffers stand in for device memory: any launch or write would fault or change them.
  Fixture f;
  f.p.c.ld = 2;
  const std::vector<float> before = f.c;
  EXPECT_EQ(gemm(f.p, "auto").code(), StatusCode::kInvalidLdc);
  EXPECT_EQ(gemm(f.p, "naive").code(), StatusCode::kInvalidLdc);
  EXPECT_EQ(std::memcmp(before.data(), f.c.data(), before.size() * sizeof(float)), 0);
}

TEST(Gemm, UnknownKernelNameIsAnError) {
  Fixture f;
  const Status s = gemm(f.p, "no_such_kernel");
  EXPECT_EQ(s.code(), StatusCode::kUnknownKernel);
  EXPECT_NE(s.message().find("kernel"), std::string::npos);
}

TEST(Gemm, EmptyProblemReturnsSuccessWithoutADevice) {
  std::vector<float> b(21, 1.0f);
  Problem p = Problem::make(0, 7, 3, nullptr, b.data(), nullptr);  // A and C are empty
  EXPECT_TRUE(gemm(p).ok());
  p.b.data = nullptr;  // B (3 x 7) is not
  EXPECT_EQ(gemm(p).code(), StatusCode::kNullB);
}

TEST(Gemm, CudaFailureBecomesAStatusNamingTheCudaError) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
    GTEST_SKIP() << "needs a machine without a CUDA device (the launch must fail)";
  }
  Fixture f;
  const Status s = gemm(f.p, "naive");
  EXPECT_EQ(s.code(), StatusCode::kCudaError);
  EXPECT_EQ(s.name().rfind("cudaError", 0), 0u) << s.name();
  EXPECT_NE(s.message().find(s.name()), std::string::npos);
  // C untouched.
  for (float v : f.c) ASSERT_EQ(v, 7.0f);
}

TEST(Status, NamesAndMessagesNameTheArgument) {
  EXPECT_EQ(Status().name(), "success");
  EXPECT_EQ(Status(StatusCode::kInvalidLda).name(), "invalid_lda");
  EXPECT_NE(Status(StatusCode::kInvalidLda).message().find("lda"), std::string::npos);
  EXPECT_NE(Status(StatusCode::kNullB).message().find("B"), std::string::npos);
  EXPECT_NE(Status(StatusCode::kInvalidK).message().find("argument k"), std::string::npos);
  EXPECT_EQ(Status(StatusCode::kCudaError, cudaErrorInvalidValue).name(), "cudaErrorInvalidValue");
  EXPECT_NE(Status(StatusCode::kCudaError, 1), Status(StatusCode::kCudaError, 2));
  // The library does not link cuBLAS: the provider passes its error's name along.
  const Status cublas(StatusCode::kCublasError, 1, "CUBLAS_STATUS_NOT_INITIALIZED");
  EXPECT_EQ(cublas.name(), "CUBLAS_STATUS_NOT_INITIALIZED");
  EXPECT_NE(cublas.message().find("cuBLAS"), std::string::npos);
  EXPECT_NE(Status(StatusCode::kCublasError, 7).message().find("7"), std::string::npos);
  EXPECT_NE(Status(StatusCode::kInvalidDtypeB).message().find("argument B"), std::string::npos);
  EXPECT_NE(Status(StatusCode::kMisalignedA).message().find("argument A"), std::string::npos);
  EXPECT_NE(Status(StatusCode::kUnsupportedDevice).message().find("GPU"), std::string::npos);
}

}  // namespace
}  // namespace tilegemm
