// The testbed: initialise -> run -> verify, shared by the GPU tests, `tilegemm verify` and
// `tilegemm bench` (a kernel is verified before it is ever timed).
//
// For one case it allocates A, B and C in the case's element types (A and B in types.ab's
// storage, C in types.c's; optional leading-dimension padding), fills them with seeded uniform
// values in [-1, 1) that are exactly representable in their type (so the fp64 reference sees
// the numbers the kernel sees), keeps the initial C, computes the fp64 reference, and for each
// run poisons C first: NaN (in C's type) everywhere when beta == 0 (a kernel that reads C or
// skips an element fails), the initial C otherwise. After the run: the relative Frobenius error
// against tolerance(), the largest single-element error, NaN/Inf where the reference is finite,
// the padding between C's rows or columns bit for bit, and with alpha == 0, beta == 1 every
// element of C bit for bit (all at C's element width).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "tilegemm/problem.hpp"
#include "tilegemm/status.hpp"

namespace tilegemm {

// Pass bound of ||C - ref||_F / ||ref||_F for A/B in types.ab and C in types.c at depth k. The
// reasoning is written once, beside the definition (src/testbed/testbed.cu):
//   1e-5 * sqrt(max(k, 1))                       fp32 accumulation, round to nearest
//   + 2^-23 * max(k, 1)    when types.ab != f32  tensor-core accumulation that may truncate
//   + 2^-8 (C bf16), 2^-11 (C f16), 0 (C f32)    rounding the result to C's type
double tolerance(GemmTypes types, std::int64_t k);

// A single element of C may be off by at most this many tolerances times the rms of the
// reference (||ref||_F / sqrt(m n)); see kElementFactor in src/testbed/testbed.cu.
double element_tolerance(GemmTypes types, std::int64_t k);

struct CaseSpec {
  std::int64_t m = 0, n = 0, k = 0;
  GemmTypes types;  // A/B and C element types (f32 -> f32 unless set)
  float alpha = 1.0f, beta = 0.0f;
  Layout la = Layout::kRowMajor, lb = Layout::kRowMajor, lc = Layout::kRowMajor;
  std::int64_t pad_a = 0, pad_b = 0, pad_c = 0;  // extra leading-dimension elements
  std::uint64_t seed = 1;

  // "m=33 n=65 k=7 alpha=0.5 beta=2 layout=row,col,row pad=0,0,3 seed=1", then " types=bf16->f32"
  // when the types are not f32 -> f32.
  std::string to_string() const;
  // The CLI flags that replay this case: "--shape 33x65x7 --alpha 0.5 ... --seed 1", then
  // " --dtype bf16" when A/B are not f32 and " --dtype-c f32" when C is not default_c_dtype(A/B's).
  std::string replay_flags() const;
};

struct CheckResult {
  Status status;           // what the run returned
  double rel_error = 0.0;  // ||C - ref||_F / ||ref||_F (||C - ref||_F when ||ref|| is 0)
  double tolerance = 0.0;
  // max |C(i,j) - ref(i,j)| / rms(ref), rms(ref) = ||ref||_F / sqrt(m n) (absolute when ref is 0)
  double element_error = 0.0;
  double element_tolerance = 0.0;
  std::int64_t nonfinite = 0;        // elements NaN/Inf where the reference is finite
  std::int64_t padding_written = 0;  // elements outside C's m x n that changed
  std::int64_t changed_bits = 0;     // alpha == 0 and beta == 1 only: elements not bit-identical
  bool passed = false;
  std::string detail;  // one line, empty when passed
};

// Device utilities the testbed is built from (also used by the benchmark).
// Seeded, reproducible uniform values in [-1, 1), exactly representable in `dtype`: f32 has 24
// random bits (multiples of 2^-23), tf32 and f16 are multiples of 2^-10, bf16 multiples of 2^-7.
// `data` holds `count` elements of dtype's storage (tf32: fp32 storage).
Status fill_uniform(void* data, DType dtype, std::int64_t count, std::uint64_t seed,
                    cudaStream_t stream);
// Every element set to `value` converted (round to nearest) to dtype; NaN stays NaN.
Status fill_value(void* data, DType dtype, std::int64_t count, float value, cudaStream_t stream);
// fp32 forms (dtype f32), as the benchmark calls them.
Status fill_uniform(float* data, std::int64_t count, std::uint64_t seed, cudaStream_t stream);
Status fill_value(float* data, std::int64_t count, float value, cudaStream_t stream);

class Testbed {
 public:
  explicit Testbed(const CaseSpec& spec);
  ~Testbed();
  Testbed(const Testbed&) = delete;
  Testbed& operator=(const Testbed&) = delete;

  // Device memory a Testbed for this case allocates: A, B, three C buffers (working, initial,
  // as the run found it) at their element sizes, and the m * n doubles of the reference.
  static std::size_t device_bytes(const CaseSpec& spec);

  // Allocation, fills and the fp64 reference; everything else requires this to be ok. An
  // unsupported types combination is kInvalidDtypeA / kInvalidDtypeC.
  const Status& init_status() const { return init_; }
  const CaseSpec& spec() const { return spec_; }
  // The problem over the testbed's buffers (C is the working buffer).
  const Problem& problem() const { return problem_; }
  // Elements allocated for C (outer dimension x ldc), each dtype_bytes(spec().types.c) bytes.
  std::int64_t c_elements() const { return c_elems_; }

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
  void* a_ = nullptr;         // A/B in types.ab's storage
  void* b_ = nullptr;
  void* c_ = nullptr;         // working C, in types.c
  void* c_init_ = nullptr;    // initial C (beta != 0)
  void* c_before_ = nullptr;  // C as the run found it (for the padding check)
  double* ref_ = nullptr;     // m * n, row-major
  std::int64_t c_elems_ = 0;
  void* scratch_ = nullptr;  // reduction results
};

}  // namespace tilegemm
