#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <sstream>

#include "tilegemm/reference.hpp"
#include "../reference/elements.hpp"
#include "tilegemm/testbed.hpp"

namespace tilegemm {

namespace {

// A single element may be off by kElementFactor tolerances times rms(ref). The Frobenius bound
// holds for the mean square error; the largest of up to ~10^8 elements sits in the tail: for
// random inputs near-Gaussian errors and references reach about 6 times their rms (and the
// rounding to C's type is relative to |ref(i,j)|, up to about 6 rms(ref)). 16 leaves a margin
// of more than 2 over that, and stays far below the error of a wrong element (of the order of
// rms(ref): a wrong index, a tile added twice or not at all), which the Frobenius norm dilutes
// by sqrt(m n) and would miss on a large C.
constexpr double kElementFactor = 16.0;

__host__ __device__ std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__device__ __forceinline__ unsigned bits_of(float x) { return __float_as_uint(x); }
__device__ __forceinline__ unsigned bits_of(__nv_bfloat16 x) { return __bfloat16_as_ushort(x); }
__device__ __forceinline__ unsigned bits_of(__half x) { return __half_as_ushort(x); }

// Element i of the seeded stream: an integer j uniform in [-2^kFrac, 2^kFrac) from the top
// kFrac + 1 bits of the hash, times 2^-kFrac. |j| <= 2^kFrac needs at most kFrac + 1 significant
// bits, so the value is exact in T when kFrac + 1 <= T's significand (24 for f32, 11 for tf32's
// and f16's, 8 for bf16's), and exact in float on the way there.
template <typename T, int kFrac>
__global__ void fill_uniform_kernel(T* data, std::int64_t count, std::uint64_t seed) {
  const std::uint64_t key = splitmix64(seed);
  const float scale = 1.0f / static_cast<float>(1 << kFrac);
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t r = splitmix64(key ^ static_cast<std::uint64_t>(i));
    const std::int64_t j = static_cast<std::int64_t>(r >> (63 - kFrac)) - (std::int64_t{1} << kFrac);
    data[i] = lab::narrow<T>(static_cast<float>(j) * scale);
  }
}

template <typename T>
__global__ void fill_value_kernel(T* data, std::int64_t count, float value) {
  const T v = lab::narrow<T>(value);
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    data[i] = v;
  }
}

struct CompareSums {
  double diff_sq;
  double ref_sq;
  unsigned long long max_diff_bits;  // max |C - ref| as the bits of a non-negative double
  unsigned long long nonfinite;
  unsigned long long padding_written;
  unsigned long long changed_bits;
};

// Walks C's whole allocation (outer x ld) in C's element type: elements inside m x n are
// compared with the reference, elements in the padding must be bit-identical to what the run
// found there.
template <typename T>
__global__ void compare_kernel(const T* c, const T* before, const double* ref, std::int64_t m,
                               std::int64_t n, std::int64_t ld, bool row_major,
                               std::int64_t total, bool check_bits, CompareSums* out) {
  double diff_sq = 0.0, ref_sq = 0.0, max_diff = 0.0;
  unsigned long long nonfinite = 0, padding = 0, changed = 0;
  for (std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t outer = e / ld, inner = e % ld;
    const std::int64_t i = row_major ? outer : inner;
    const std::int64_t j = row_major ? inner : outer;
    const bool same_bits = bits_of(c[e]) == bits_of(before[e]);
    if (i < m && j < n) {
      const double r = ref[i * n + j];
      const double v = lab::widen(c[e]);
      const double d = v - r;
      diff_sq += d * d;
      ref_sq += r * r;
      if (isfinite(d)) max_diff = fmax(max_diff, fabs(d));
      if (!isfinite(v) && isfinite(r)) ++nonfinite;
      if (check_bits && !same_bits) ++changed;
    } else if (!same_bits) {
      ++padding;
    }
  }
  // Warp reduction, then one atomic per warp.
  for (int off = 16; off > 0; off >>= 1) {
    diff_sq += __shfl_down_sync(0xffffffffu, diff_sq, off);
    ref_sq += __shfl_down_sync(0xffffffffu, ref_sq, off);
    max_diff = fmax(max_diff, __shfl_down_sync(0xffffffffu, max_diff, off));
    nonfinite += __shfl_down_sync(0xffffffffu, nonfinite, off);
    padding += __shfl_down_sync(0xffffffffu, padding, off);
    changed += __shfl_down_sync(0xffffffffu, changed, off);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&out->diff_sq, diff_sq);
    atomicAdd(&out->ref_sq, ref_sq);
    // Non-negative doubles order as their bit patterns.
    atomicMax(&out->max_diff_bits, static_cast<unsigned long long>(__double_as_longlong(max_diff)));
    atomicAdd(&out->nonfinite, nonfinite);
    atomicAdd(&out->padding_written, padding);
    atomicAdd(&out->changed_bits, changed);
  }
}

unsigned grid_for(std::int64_t count) {
  const std::int64_t blocks = (count + 255) / 256;
  return static_cast<unsigned>(blocks < 4096 ? (blocks > 0 ? blocks : 1) : 4096);
}

std::int64_t alloc_elements(Layout layout, std::int64_t ld, std::int64_t rows, std::int64_t cols) {
  const std::int64_t outer = layout == Layout::kRowMajor ? rows : cols;
  return (outer > 0 ? outer : 1) * ld;
}

struct CaseSizes {
  std::int64_t lda, ldb, ldc;
  std::int64_t a_elems, b_elems, c_elems, ref_elems;
};

CaseSizes sizes_of(const CaseSpec& spec) {
  CaseSizes s{};
  s.lda = min_ld(spec.la, spec.m, spec.k) + spec.pad_a;
  s.ldb = min_ld(spec.lb, spec.k, spec.n) + spec.pad_b;
  s.ldc = min_ld(spec.lc, spec.m, spec.n) + spec.pad_c;
  s.a_elems = alloc_elements(spec.la, s.lda, spec.m, spec.k);
  s.b_elems = alloc_elements(spec.lb, s.ldb, spec.k, spec.n);
  s.c_elems = alloc_elements(spec.lc, s.ldc, spec.m, spec.n);
  s.ref_elems = spec.m * spec.n > 0 ? spec.m * spec.n : 1;
  return s;
}

std::string fmt_float(float v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

template <typename T, int kFrac>
cudaError_t launch_fill_uniform(void* data, std::int64_t count, std::uint64_t seed,
                                cudaStream_t stream) {
  fill_uniform_kernel<T, kFrac>
      <<<grid_for(count), 256, 0, stream>>>(static_cast<T*>(data), count, seed);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_fill_value(void* data, std::int64_t count, float value, cudaStream_t stream) {
  fill_value_kernel<T><<<grid_for(count), 256, 0, stream>>>(static_cast<T*>(data), count, value);
  return cudaGetLastError();
}

}  // namespace

// The pass bound, written once. The testbed's inputs are exactly representable in the operand
// type (fill_uniform), so the kernel and the fp64 reference multiply the same numbers, and every
// product of two operands is exact in fp32 arithmetic (tf32 and f16 operands carry at most 11
// significant bits, bf16 at most 8, so their products fit fp32's 24; an f32 product is exact
// inside FFMA's fused multiply-add). A tf32 kernel's rounding of fp32 operands to tf32 is
// therefore no error here. What remains:
//
// (a) the fp32 accumulation of k products.
//     Round to nearest (FFMA, the SIMT kernels): the relative error of a dot product grows like
//     u * sqrt(k) for random inputs (u = 2^-24 ~ 6e-8) and at most like u * k. 1e-5 * sqrt(k)
//     (at least 1e-5) sits two orders above the random-walk estimate and under the worst case at
//     every k the tests use.
//     Tensor cores (A/B in tf32, bf16 or f16): their fp32 adds are assumed to truncate rather
//     than round, as published measurements of earlier generations found. Each add then errs
//     toward zero by up to 2^-23 of the partial sum; the errors share a sign and grow linearly:
//     with partial sums of size sqrt(j) after j terms, about (2/3) * 2^-24 * k relative for
//     random inputs. The term 2^-23 * k covers that three times over. ASSUMPTION, to be checked
//     against the GPU run: Hopper's mma.sync / wgmma with fp32 accumulation stays within it
//     (the GPU suite records each sweep's worst rel_error / tolerance as the test property
//     worst_error_over_tolerance).
//     (With these inputs bf16 products are multiples of 2^-14 and tf32/f16 products multiples
//     of 2^-20, so fp32 sums are exact while partial sums stay below 2^10 and 2^4: at moderate
//     k the accumulation error is zero or tiny, and only large k exercises this term.)
// (b) the rounding of the fp32 result to C's type: half an ulp, which is between 2^-9 and 2^-8
//     of the value for bf16 (8 significant bits) and between 2^-12 and 2^-11 for f16 (11). The
//     upper end, twice the lower, bounds every element, hence the Frobenius norm: 2^-8 for bf16,
//     2^-11 for f16; a hard bound, so it gets no further margin. f32 C: 2^-24, inside (a).
//
//   tolerance = 1e-5 * sqrt(k) + [A/B not f32] 2^-23 * k + u_C,  k clamped to at least 1
//
// f32 < tf32 = bf16->f32 = f16->f32 < f16->f16 < bf16->bf16 at every k. At k = 16384 the largest,
// bf16->bf16, is 1.28e-3 + 1.95e-3 + 3.91e-3 = 7.1e-3; at k = 1025 (the sweep's deepest) 4.4e-3.
//
// Against the errors the check must catch, with alpha = 1, beta = 0 and entries uniform in
// [-1, 1) (E[(a b)^2] = 1/9, so ||ref||_F^2 = m n k / 9):
//  - a missing K step of BK terms leaves sqrt(BK / k) relative; every tiled kernel has BK >= 8:
//    0.71 at k = 16, 0.088 at k = 1025, 0.022 at k = 16384, that is 180, 20 and 3 times the
//    largest tolerance (bf16->bf16; f32: 1.8e4, 280 and 17 times its own). A single missing
//    term (the naive kernel has no K tile) leaves 1/sqrt(k): above every tolerance up to
//    k = 4096 (1/64 = 0.016 against bf16->bf16's 5.0e-3). With beta != 0 the reference also
//    holds beta * C, which dilutes these by ||alpha A B||_F / ||ref||_F.
//  - a wrong element: its error, of the order of rms(ref), adds 1/sqrt(m n) to the relative
//    Frobenius error, which a large C dilutes below any tolerance; element_tolerance() catches it
//    (16 times the tolerance in units of rms(ref): at most 0.11, against about 1).
//  - a skipped element or a kernel that reads C when beta == 0: the NaN poison, counted apart.
double tolerance(GemmTypes types, std::int64_t k) {
  const double kk = static_cast<double>(k > 1 ? k : 1);
  double tol = 1e-5 * std::sqrt(kk);
  if (types.ab != DType::kF32) tol += std::ldexp(kk, -23);
  switch (types.c) {
    case DType::kBF16:
      tol += std::ldexp(1.0, -8);
      break;
    case DType::kF16:
      tol += std::ldexp(1.0, -11);
      break;
    case DType::kF32:
    case DType::kTF32:
      break;
  }
  return tol;
}

double element_tolerance(GemmTypes types, std::int64_t k) {
  return kElementFactor * tolerance(types, k);
}

std::string CaseSpec::to_string() const {
  std::ostringstream os;
  os << "m=" << m << " n=" << n << " k=" << k << " alpha=" << fmt_float(alpha)
     << " beta=" << fmt_float(beta) << " layout=" << layout_name(la) << ',' << layout_name(lb)
     << ',' << layout_name(lc) << " pad=" << pad_a << ',' << pad_b << ',' << pad_c
     << " seed=" << seed;
  if (types != GemmTypes{}) os << " types=" << gemm_types_name(types);
  return os.str();
}

std::string CaseSpec::replay_flags() const {
  std::ostringstream os;
  os << "--shape " << m << 'x' << n << 'x' << k << " --alpha " << fmt_float(alpha) << " --beta "
     << fmt_float(beta) << " --layout-a " << layout_name(la) << " --layout-b " << layout_name(lb)
     << " --layout-c " << layout_name(lc);
  if (pad_a != 0 || pad_b != 0 || pad_c != 0) {
    os << " --pad " << pad_a << ',' << pad_b << ',' << pad_c;
  }
  os << " --seed " << seed;
  if (types.ab != DType::kF32) os << " --dtype " << dtype_name(types.ab);
  if (types.c != default_c_dtype(types.ab)) os << " --dtype-c " << dtype_name(types.c);
  return os.str();
}

Status fill_uniform(void* data, DType dtype, std::int64_t count, std::uint64_t seed,
                    cudaStream_t stream) {
  if (count <= 0) return Status();
  switch (dtype) {
    case DType::kF32:
      return from_cuda_error(launch_fill_uniform<float, 23>(data, count, seed, stream));
    case DType::kTF32:
      return from_cuda_error(launch_fill_uniform<float, 10>(data, count, seed, stream));
    case DType::kBF16:
      return from_cuda_error(launch_fill_uniform<__nv_bfloat16, 7>(data, count, seed, stream));
    case DType::kF16:
      return from_cuda_error(launch_fill_uniform<__half, 10>(data, count, seed, stream));
  }
  return Status(StatusCode::kInvalidDtypeA);
}

Status fill_value(void* data, DType dtype, std::int64_t count, float value, cudaStream_t stream) {
  if (count <= 0) return Status();
  return lab::with_element(dtype, [&](auto t) {
    return from_cuda_error(launch_fill_value<decltype(t)>(data, count, value, stream));
  });
}

Status fill_uniform(float* data, std::int64_t count, std::uint64_t seed, cudaStream_t stream) {
  return fill_uniform(static_cast<void*>(data), DType::kF32, count, seed, stream);
}

Status fill_value(float* data, std::int64_t count, float value, cudaStream_t stream) {
  return fill_value(static_cast<void*>(data), DType::kF32, count, value, stream);
}

std::size_t Testbed::device_bytes(const CaseSpec& spec) {
  const CaseSizes s = sizes_of(spec);
  const std::size_t ab = dtype_bytes(spec.types.ab), c = dtype_bytes(spec.types.c);
  return static_cast<std::size_t>(s.a_elems + s.b_elems) * ab +
         3 * static_cast<std::size_t>(s.c_elems) * c +
         static_cast<std::size_t>(s.ref_elems) * sizeof(double);
}

Testbed::Testbed(const CaseSpec& spec) : spec_(spec) {
  if (!dtype_valid(spec.types.ab)) {
    init_ = Status(StatusCode::kInvalidDtypeA);
    return;
  }
  if (!types_supported(spec.types)) {
    init_ = Status(StatusCode::kInvalidDtypeC);
    return;
  }
  const CaseSizes sz = sizes_of(spec);
  c_elems_ = sz.c_elems;
  const std::size_t ab_bytes = dtype_bytes(spec.types.ab);
  const std::size_t c_bytes = dtype_bytes(spec.types.c);

  auto alloc = [](auto** p, std::int64_t count, std::size_t elem_bytes) {
    return cudaMalloc(reinterpret_cast<void**>(p), static_cast<std::size_t>(count) * elem_bytes);
  };
  cudaError_t err = cudaSuccess;
  for (auto step : {alloc(&a_, sz.a_elems, ab_bytes), alloc(&b_, sz.b_elems, ab_bytes),
                    alloc(&c_, c_elems_, c_bytes), alloc(&c_init_, c_elems_, c_bytes),
                    alloc(&c_before_, c_elems_, c_bytes),
                    alloc(&ref_, sz.ref_elems, sizeof(double))}) {
    if (err == cudaSuccess) err = step;
  }
  if (err == cudaSuccess) err = cudaMalloc(&scratch_, sizeof(CompareSums));
  if (err != cudaSuccess) {
    init_ = from_cuda_error(err);
    return;
  }
  problem_.m = spec.m;
  problem_.n = spec.n;
  problem_.k = spec.k;
  problem_.alpha = spec.alpha;
  problem_.beta = spec.beta;
  problem_.a = {a_, spec.la, sz.lda, spec.types.ab};
  problem_.b = {b_, spec.lb, sz.ldb, spec.types.ab};
  problem_.c = {c_, spec.lc, sz.ldc, spec.types.c};

  // Distinct, reproducible streams per operand, each in its operand's type.
  if (Status s = fill_uniform(a_, spec.types.ab, sz.a_elems, spec.seed * 3 + 0, 0); !s.ok()) {
    init_ = s;
    return;
  }
  if (Status s = fill_uniform(b_, spec.types.ab, sz.b_elems, spec.seed * 3 + 1, 0); !s.ok()) {
    init_ = s;
    return;
  }
  if (Status s = fill_uniform(c_init_, spec.types.c, c_elems_, spec.seed * 3 + 2, 0); !s.ok()) {
    init_ = s;
    return;
  }
  // The reference reads the initial C through a problem whose C is c_init_.
  Problem ref_problem = problem_;
  ref_problem.c.data = c_init_;
  if (Status s = reference::gemm_fp64(ref_problem, ref_, 0); !s.ok()) {
    init_ = s;
    return;
  }
  init_ = from_cuda_error(cudaDeviceSynchronize());
}

Testbed::~Testbed() {
  for (void* p : {a_, b_, c_, c_init_, c_before_, static_cast<void*>(ref_), scratch_}) {
    if (p != nullptr) cudaFree(p);
  }
}

Status Testbed::reset_c(cudaStream_t stream) {
  if (!init_.ok()) return init_;
  if (spec_.beta == 0.0f) {
    return fill_value(c_, spec_.types.c, c_elems_, std::nanf(""), stream);
  }
  return from_cuda_error(cudaMemcpyAsync(
      c_, c_init_, static_cast<std::size_t>(c_elems_) * dtype_bytes(spec_.types.c),
      cudaMemcpyDeviceToDevice, stream));
}

CheckResult Testbed::run_and_check(const RunFn& run, cudaStream_t stream) {
  CheckResult r;
  r.tolerance = tolerance(spec_.types, spec_.k);
  r.element_tolerance = element_tolerance(spec_.types, spec_.k);
  if (!init_.ok()) {
    r.status = init_;
    r.detail = "testbed: " + init_.message();
    return r;
  }
  Status s = reset_c(stream);
  if (s.ok()) {
    s = from_cuda_error(cudaMemcpyAsync(
        c_before_, c_, static_cast<std::size_t>(c_elems_) * dtype_bytes(spec_.types.c),
        cudaMemcpyDeviceToDevice, stream));
  }
  if (!s.ok()) {
    r.status = s;
    r.detail = "testbed: " + s.message();
    return r;
  }
  r.status = run(problem_, stream);
  if (r.status.ok()) r.status = from_cuda_error(cudaStreamSynchronize(stream));
  if (!r.status.ok()) {
    r.detail = "run failed: " + r.status.message();
    return r;
  }
  const CheckResult cmp = compare(stream);
  r.rel_error = cmp.rel_error;
  r.element_error = cmp.element_error;
  r.nonfinite = cmp.nonfinite;
  r.padding_written = cmp.padding_written;
  r.changed_bits = cmp.changed_bits;
  if (!cmp.status.ok()) {
    r.status = cmp.status;
    r.detail = "compare failed: " + cmp.status.message();
    return r;
  }
  std::ostringstream why;
  if (!(r.rel_error <= r.tolerance)) {
    why << "rel_error " << r.rel_error << " > tolerance " << r.tolerance << "; ";
  }
  if (!(r.element_error <= r.element_tolerance)) {
    why << "largest element error " << r.element_error << " rms(ref) > "
        << r.element_tolerance << "; ";
  }
  if (r.nonfinite > 0) why << r.nonfinite << " non-finite elements; ";
  if (r.padding_written > 0) why << r.padding_written << " padding elements written; ";
  if (r.changed_bits > 0) why << r.changed_bits << " elements changed with alpha=0, beta=1; ";
  r.detail = why.str();
  if (!r.detail.empty()) r.detail.resize(r.detail.size() - 2);
  r.passed = r.detail.empty();
  return r;
}

CheckResult Testbed::compare(cudaStream_t stream) {
  CheckResult r;
  auto* sums = static_cast<CompareSums*>(scratch_);
  cudaError_t err = cudaMemsetAsync(sums, 0, sizeof(CompareSums), stream);
  if (err == cudaSuccess) {
    const bool check_bits = spec_.alpha == 0.0f && spec_.beta == 1.0f;
    const bool row_major = spec_.lc == Layout::kRowMajor;
    const std::int64_t ld = problem_.c.ld;
    const unsigned grid = grid_for(c_elems_);
    lab::with_element(spec_.types.c, [&](auto t) {
      using T = decltype(t);
      compare_kernel<T><<<grid, 256, 0, stream>>>(static_cast<const T*>(c_),
                                                  static_cast<const T*>(c_before_), ref_, spec_.m,
                                                  spec_.n, ld, row_major, c_elems_, check_bits,
                                                  sums);
    });
    err = cudaGetLastError();
  }
  CompareSums host{};
  if (err == cudaSuccess) {
    err = cudaMemcpyAsync(&host, sums, sizeof(host), cudaMemcpyDeviceToHost, stream);
  }
  if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess) {
    r.status = from_cuda_error(err);
    return r;
  }
  double max_diff = 0.0;
  static_assert(sizeof(max_diff) == sizeof(host.max_diff_bits), "double is 64 bits");
  std::memcpy(&max_diff, &host.max_diff_bits, sizeof(max_diff));
  r.rel_error = host.ref_sq > 0.0 ? std::sqrt(host.diff_sq / host.ref_sq) : std::sqrt(host.diff_sq);
  const double elements = static_cast<double>(spec_.m) * static_cast<double>(spec_.n);
  const double rms_ref = elements > 0.0 ? std::sqrt(host.ref_sq / elements) : 0.0;
  r.element_error = rms_ref > 0.0 ? max_diff / rms_ref : max_diff;
  r.nonfinite = static_cast<std::int64_t>(host.nonfinite);
  r.padding_written = static_cast<std::int64_t>(host.padding_written);
  r.changed_bits = static_cast<std::int64_t>(host.changed_bits);
  return r;
}

}  // namespace tilegemm
