#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <sstream>

#include "tilegemm/reference.hpp"
#include "tilegemm/testbed.hpp"

namespace tilegemm {

namespace {


__host__ __device__ std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__global__ void fill_uniform_kernel(float* data, std::int64_t count, std::uint64_t seed) {
  const std::uint64_t key = splitmix64(seed);
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t r = splitmix64(key ^ static_cast<std::uint64_t>(i));
    // 24 random bits -> [0, 1) exactly representable, then [-1, 1).
    data[i] = static_cast<float>(r >> 40) * (2.0f / 16777216.0f) - 1.0f;
  }
}

__global__ void fill_value_kernel(float* data, std::int64_t count, float value) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    data[i] = value;
  }
}

struct CompareSums {
  double diff_sq;
  double ref_sq;
  unsigned long long nonfinite;
  unsigned long long padding_written;
  unsigned long long changed_bits;
};

// Walks C's whole allocation (outer x ld): elements inside m x n are compared with the
// reference, elements in the padding must be bit-identical to what the run found there.
__global__ void compare_kernel(const float* c, const float* before, const double* ref,
                               std::int64_t m, std::int64_t n, std::int64_t ld, bool row_major,
                               std::int64_t total, bool check_bits, CompareSums* out) {
  double diff_sq = 0.0, ref_sq = 0.0;
  unsigned long long nonfinite = 0, padding = 0, changed = 0;
  for (std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t outer = e / ld, inner = e % ld;
    const std::int64_t i = row_major ? outer : inner;
    const std::int64_t j = row_major ? inner : outer;
    const bool same_bits = __float_as_uint(c[e]) == __float_as_uint(before[e]);
    if (i < m && j < n) {
      const double r = ref[i * n + j];
      const double v = static_cast<double>(c[e]);
      const double d = v - r;
      diff_sq += d * d;
      ref_sq += r * r;
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
    nonfinite += __shfl_down_sync(0xffffffffu, nonfinite, off);
    padding += __shfl_down_sync(0xffffffffu, padding, off);
    changed += __shfl_down_sync(0xffffffffu, changed, off);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&out->diff_sq, diff_sq);
    atomicAdd(&out->ref_sq, ref_sq);
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

std::string fmt_float(float v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace

double tolerance(DType dtype, std::int64_t k) {
  switch (dtype) {
    case DType::kF32:
      return 1e-5 * std::sqrt(static_cast<double>(k > 1 ? k : 1));
    case DType::kTF32:
      return 1e-3;
    case DType::kBF16:
    case DType::kF16:
      return 1e-2;
  }
  return 0.0;
}

std::string CaseSpec::to_string() const {
  std::ostringstream os;
  os << "m=" << m << " n=" << n << " k=" << k << " alpha=" << fmt_float(alpha)
     << " beta=" << fmt_float(beta) << " layout=" << layout_name(la) << ',' << layout_name(lb)
     << ',' << layout_name(lc) << " pad=" << pad_a << ',' << pad_b << ',' << pad_c
     << " seed=" << seed;
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
  return os.str();
}

Status fill_uniform(float* data, std::int64_t count, std::uint64_t seed, cudaStream_t stream) {
  if (count <= 0) return Status();
  fill_uniform_kernel<<<grid_for(count), 256, 0, stream>>>(data, count, seed);
  return from_cuda_error(cudaGetLastError());
}

Status fill_value(float* data, std::int64_t count, float value, cudaStream_t stream) {
  if (count <= 0) return Status();
  fill_value_kernel<<<grid_for(count), 256, 0, stream>>>(data, count, value);
  return from_cuda_error(cudaGetLastError());
}

Testbed::Testbed(const CaseSpec& spec) : spec_(spec) {
  const std::int64_t lda = min_ld(spec.la, spec.m, spec.k) + spec.pad_a;
  const std::int64_t ldb = min_ld(spec.lb, spec.k, spec.n) + spec.pad_b;
  const std::int64_t ldc = min_ld(spec.lc, spec.m, spec.n) + spec.pad_c;
  const std::int64_t a_elems = alloc_elements(spec.la, lda, spec.m, spec.k);
  const std::int64_t b_elems = alloc_elements(spec.lb, ldb, spec.k, spec.n);
  c_elems_ = alloc_elements(spec.lc, ldc, spec.m, spec.n);
  const std::int64_t ref_elems = spec.m * spec.n > 0 ? spec.m * spec.n : 1;

  auto alloc = [](auto** p, std::int64_t count) {
    return cudaMalloc(reinterpret_cast<void**>(p), static_cast<std::size_t>(count) * sizeof(**p));
  };
  cudaError_t err = cudaSuccess;
  for (auto step :
       {alloc(&a_, a_elems), alloc(&b_, b_elems), alloc(&c_, c_elems_), alloc(&c_init_, c_elems_),
        alloc(&c_before_, c_elems_), alloc(&ref_, ref_elems)}) {
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
  problem_.a = {a_, spec.la, lda, DType::kF32};
  problem_.b = {b_, spec.lb, ldb, DType::kF32};
  problem_.c = {c_, spec.lc, ldc, DType::kF32};

  // Distinct, reproducible streams per operand.
  if (Status s = fill_uniform(a_, a_elems, spec.seed * 3 + 0, 0); !s.ok()) {
    init_ = s;
    return;
  }
  if (Status s = fill_uniform(b_, b_elems, spec.seed * 3 + 1, 0); !s.ok()) {
    init_ = s;
    return;
  }
  if (Status s = fill_uniform(c_init_, c_elems_, spec.seed * 3 + 2, 0); !s.ok()) {
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
  for (void* p : {static_cast<void*>(a_), static_cast<void*>(b_), static_cast<void*>(c_),
                  static_cast<void*>(c_init_), static_cast<void*>(c_before_),
                  static_cast<void*>(ref_), scratch_}) {
    if (p != nullptr) cudaFree(p);
  }
}

Status Testbed::reset_c(cudaStream_t stream) {
  if (!init_.ok()) return init_;
  if (spec_.beta == 0.0f) {
    return fill_value(c_, c_elems_, std::nanf(""), stream);
  }
  return from_cuda_error(cudaMemcpyAsync(c_, c_init_, static_cast<std::size_t>(c_elems_) * 4,
                                     cudaMemcpyDeviceToDevice, stream));
}

CheckResult Testbed::run_and_check(const RunFn& run, cudaStream_t stream) {
  CheckResult r;
  r.tolerance = tolerance(DType::kF32, spec_.k);
  if (!init_.ok()) {
    r.status = init_;
    r.detail = "testbed: " + init_.message();
    return r;
  }
  Status s = reset_c(stream);
  if (s.ok()) {
    s = from_cuda_error(cudaMemcpyAsync(c_before_, c_, static_cast<std::size_t>(c_elems_) * 4,
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
    compare_kernel<<<grid_for(c_elems_), 256, 0, stream>>>(
        c_, c_before_, ref_, spec_.m, spec_.n, problem_.c.ld, spec_.lc == Layout::kRowMajor,
        c_elems_, check_bits, sums);
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
  r.rel_error = host.ref_sq > 0.0 ? std::sqrt(host.diff_sq / host.ref_sq) : std::sqrt(host.diff_sq);
  r.nonfinite = static_cast<std::int64_t>(host.nonfinite);
  r.padding_written = static_cast<std::int64_t>(host.padding_written);
  r.changed_bits = static_cast<std::int64_t>(host.changed_bits);
  return r;
}

}  // namespace tilegemm
