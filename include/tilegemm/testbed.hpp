// The testbed: initialise -> run -> verify, shared by the GPU tests, `tilegemm verify` and
// `tilegemm bench` (a kernel is verified before it is ever timed).
//
// For one case it allocates A, B and C (with optional leading-dimension padding), fills them
// with seeded uniform values in [-1, 1), keeps the initial C, computes the fp64 reference, and
// for each run poisons C first: NaN everywhere when beta == 0 (a kernel that reads C or skips an
// element fails), the initial C otherwise. The padding between columns/rows of C is checked to be
// untouched after the run.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <string>

#include "tilegemm/problem.hpp"
#include "tilegemm/status.hpp"

namespace tilegemm {

// Pass bound of ||C - ref||_F / ||ref||_F for a dtype at depth k. The one place it is written:
// fp32 products summed in fp32 carry a relative error of order u * sqrt(k) for random inputs
// (u = 2^-24 ~ 6e-8) and u * k in the worst case; 1e-5 * sqrt(k) (at least 1e-5) sits two orders
// above the random-walk estimate, well under the u * k bound at every k we test, and far below
// the error of a missing K step (about 1/sqrt(k/BK)) or a wrong element. tf32 rounds operands to
// 10 mantissa bits: 1e-3; bf16/fp16 operands: 1e-2.
double tolerance(DType dtype, std::int64_t k);

struct CaseSpec {
  std::int64_t m = 0, n = 0, k = 0;
  GemmTypes types;  // A/B and C element types (f32 -> f32 unless set)
  float alpha = 1.0f, beta = 0.0f;
  Layout la = Layout::kRowMajor, lb = Layout::kRowMajor, lc = Layout::kRowMajor;
  std::int64_t pad_a = 0, pad_b = 0, pad_c = 0;  // extra leading-dimension elements
  std::uint64_t seed = 1;

  // "m=33 n=65 k=7 alpha=0.5 beta=2 layout=row,col,row pad=0,0,3 seed=1"
  std::string to_string() const;
  // The CLI flags that replay this case: "--shape 33x65x7 --alpha 0.5 ... --seed 1"
  std::string replay_flags() const;
};

struct CheckResult {
  Status status;           // what the run returned
  double rel_error = 0.0;  // ||C - ref||_F / ||ref||_F (0 when ||ref|| is 0 and C == ref)
  double tolerance = 0.0;
  std::int64_t nonfinite = 0;        // elements NaN/Inf where the reference is finite
  std::int64_t padding_written = 0;  // elements outside C's m x n that changed
  std::int64_t changed_bits = 0;     // alpha == 0 and beta == 1 only: elements not bit-identical
  bool passed = false;
  std::string detail;  // one line, empty when passed
};

// Device utilities the testbed is built from (also used by the benchmark).
Status fill_uniform(float* data, std::int64_t count, std::uint64_t seed, cudaStream_t stream);
Status fill_value(float* data, std::int64_t count, float value, cudaStream_t stream);

class Testbed {
 public:
  explicit Testbed(const CaseSpec& spec);
  ~Testbed();
  Testbed(const Testbed&) = delete;
  Testbed& operator=(const Testbed&) = delete;

  // Allocation, fills and the fp64 reference; everything else requires this to be ok.
  const Status& init_status() const { return init_; }
  const CaseSpec& spec() const { return spec_; }
  // The problem over the testbed's buffers (C is the working buffer).
  const Problem& problem() const { return problem_; }

  // Poison C (NaN when beta == 0, the initial C otherwise).
  Status reset_c(cudaStream_t stream);
  // reset_c, run, compare with the fp64 reference.
  using RunFn = std::function<Status(const Problem&, cudaStream_t)>;
  CheckResult run_and_check(const RunFn& run, cudaStream_t stream);

 private:
  CheckResult compare(cudaStream_t stream);

  CaseSpec spec_;
  Status init_;
  Problem problem_;
  float* a_ = nullptr;
  float* b_ = nullptr;
  float* c_ = nullptr;         // working C
  float* c_init_ = nullptr;    // initial C (beta != 0)
  float* c_before_ = nullptr;  // C as the run found it (for the padding check)
  double* ref_ = nullptr;      // m * n, row-major
  std::int64_t c_elems_ = 0;
  void* scratch_ = nullptr;  // reduction results
};

}  // namespace tilegemm
