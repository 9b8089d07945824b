// gemm(): validate, quick returns, kernel choice, launch, error translation.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <climits>

#include "tilegemm/device_info.hpp"
#include "tilegemm/gemm.hpp"

namespace tilegemm {

namespace {

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
template <typename T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) { return x; }
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}
template <>
__device__ __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }

// C = beta * C for the quick return (k == 0 or alpha == 0), in C's element type. beta == 0
// writes zeros without reading C, so NaN in C does not survive, as BLAS. A grid-stride loop
// over the m x n elements: any m and n.
template <typename T>
__global__ void scale_c_kernel(T* c, std::int64_t rs, std::int64_t cs, std::int64_t m,
                               std::int64_t n, float beta) {
  const std::int64_t total = m * n;
  for (std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       e < total; e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    // Walk C's contiguous dimension fastest (rs == 1: column-major).
    const std::int64_t row = rs == 1 ? e % m : e / n;
    const std::int64_t col = rs == 1 ? e / m : e % n;
    T* p = c + row * rs + col * cs;
    *p = beta == 0.0f ? from_float<T>(0.0f) : from_float<T>(beta * to_float(*p));
  }
}

template <typename T>
cudaError_t launch_scale_c(const Problem& p, cudaStream_t stream) {
  const Strides s = strides_of(p.c.layout, p.c.ld);
  const std::int64_t total = p.m * p.n;
  const std::int64_t blocks = std::min<std::int64_t>((total + 255) / 256, 65535);
  scale_c_kernel<T><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(
      static_cast<T*>(p.c.data), s.row, s.col, p.m, p.n, p.beta);
  return cudaGetLastError();
}

Status scale_c(const Problem& p, cudaStream_t stream) {
  if (p.beta == 1.0f) return Status();  // C = 1 * C: nothing to do, C stays bit for bit
  switch (p.c.dtype) {
    case DType::kBF16:
      return from_cuda_error(launch_scale_c<__nv_bfloat16>(p, stream));
    case DType::kF16:
      return from_cuda_error(launch_scale_c<__half>(p, stream));
    case DType::kF32:
    case DType::kTF32:
      break;
  }
  return from_cuda_error(launch_scale_c<float>(p, stream));
}

}  // namespace

Status gemm(const Problem& problem, std::string_view kernel, cudaStream_t stream) {
  if (Status s = validate(problem); !s.ok()) return s;

  const KernelInfo* chosen = nullptr;
  if (kernel != "auto") {
    chosen = find_kernel(kernel);
    if (chosen == nullptr) return Status(StatusCode::kUnknownKernel);
  }
  switch (quick_return(problem)) {
    case QuickReturn::kNothing:
      return Status();
    case QuickReturn::kScaleC:
      return scale_c(problem, stream);
    case QuickReturn::kNone:
      break;
  }
  if (chosen == nullptr) {
    chosen = select_kernel(problem);
    if (chosen == nullptr) return Status(StatusCode::kNotSupported);
  } else if (!chosen->can_implement(problem)) {
    return Status(StatusCode::kNotSupported);
  }
  if (!runs_on_current_device(*chosen)) {
    // No GPU at all is a CUDA error, as a launch would report; a GPU of the wrong generation is
    // the kernel's limit.
    if (current_compute_capability() == 0) return from_cuda_error(cudaErrorNoDevice);
    return Status(StatusCode::kUnsupportedDevice);
  }
  const cudaError_t err = chosen->launch(problem, stream);
  return from_cuda_error(err);
}

}  // namespace tilegemm
