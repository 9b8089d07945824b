// Calls the installed library the way a user would: a bf16 problem with a bad argument is
// refused naming it; the registry lists tensor-core kernels; with a GPU a small bf16 product
// runs and its first element is checked. Exit 0 on success.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tilegemm/gemm.hpp"

int main() {
  using namespace tilegemm;
  const GemmTypes bf16_to_f32{DType::kBF16, DType::kF32};
  Problem bad = Problem::make_typed(4, 4, 4, bf16_to_f32, nullptr, nullptr, nullptr);
  const Status s = validate(bad);
  std::printf("validate(null A): %s\n", s.message().c_str());
  if (s.code() != StatusCode::kNullA) return 1;
  std::printf("kernels: %zu registered\n", all_kernels().size());
  if (all_kernels().empty()) return 1;

  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: gemm() not run\n");
    return 0;
  }
  // A (1 x 2) = [1 2] and B (2 x 1) = [3 4]^T in bf16 (0x3F80 = 1, 0x4000 = 2, 0x4040 = 3,
  // 0x4080 = 4): C = 11.
  const std::uint16_t a_host[2] = {0x3F80, 0x4000}, b_host[2] = {0x4040, 0x4080};
  void *a = nullptr, *b = nullptr, *c = nullptr;
  if (cudaMalloc(&a, 4) != cudaSuccess || cudaMalloc(&b, 4) != cudaSuccess ||
      cudaMalloc(&c, 4) != cudaSuccess) {
    return 1;
  }
  cudaMemcpy(a, a_host, 4, cudaMemcpyHostToDevice);
  cudaMemcpy(b, b_host, 4, cudaMemcpyHostToDevice);
  const Problem p = Problem::make_typed(1, 1, 2, bf16_to_f32, a, b, c);
  const Status run = gemm(p, "auto");
  float out = 0.0f;
  cudaMemcpy(&out, c, 4, cudaMemcpyDeviceToHost);
  std::printf("gemm: %s, C = %g\n", run.message().c_str(), static_cast<double>(out));
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return run.ok() && out == 11.0f ? 0 : 1;
}
