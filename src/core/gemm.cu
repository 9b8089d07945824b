// gemm(): validate, quick returns, kernel choice, launch, error translation.
#include <cuda_runtime.h>

#include "../kernels/common.cuh"
#include "tilegemm/gemm.hpp"

namespace tilegemm {

namespace {

// C = beta * C for the quick return (k == 0 or alpha == 0). beta == 0 writes zeros without
// reading C, so NaN in C does not survive, as BLAS.
__global__ void scale_c_kernel(float* c, std::int64_t rs, std::int64_t cs, int m, int n,
                               float beta) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n) return;
  float* p = c + row * rs + col * cs;
  *p = beta == 0.0f ? 0.0f : beta * *p;
}

Status scale_c(const Problem& p, cudaStream_t stream) {
  if (p.beta == 1.0f) return Status();  // C = 1 * C: nothing to do, C stays bit for bit
  if (!kernels::tile_grid_fits(p, 8, 32)) return Status(StatusCode::kNotSupported);
  const Strides s = strides_of(p.c.layout, p.c.ld);
  scale_c_kernel<<<kernels::tile_grid(p, 8, 32), dim3(32, 8), 0, stream>>>(
      static_cast<float*>(p.c.data), s.row, s.col, static_cast<int>(p.m), static_cast<int>(p.n),
      p.beta);
  const cudaError_t err = cudaGetLastError();
  return from_cuda_error(err);
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
  const cudaError_t err = chosen->launch(problem, stream);
  return from_cuda_error(err);
}

}  // namespace tilegemm
