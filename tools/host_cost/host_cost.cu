// tilegemm_host_cost: where the host time of one gemm() call goes. For launch-bound products the
// call's host time decides the race with cuBLAS (docs/perf-notes.md, "Rung 24"); this probe
// separates the CUDA launch itself (an empty kernel) from the library's own work (validate, the
// auto choice, the kernel lookup, the launcher's plan and workspace) on a few typical calls.
// Host microseconds per call (the enqueue alone). Needs a GPU: without one it says so and exits 1.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "tilegemm/gemm.hpp"

namespace {

__global__ void empty_kernel(int) {}

// Host time per call, averaged over `calls` calls in batches of 64 with a synchronization
// between batches that the clock does not count: the queue never fills, so each call's time is its
// own enqueue, not the GPU's work behind it.
template <class F>
double host_us_per_call(F&& call, int calls) {
  for (int i = 0; i < 200; ++i) call();
  cudaDeviceSynchronize();
  double total_us = 0.0;
  for (int done = 0; done < calls; done += 64) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 64; ++i) call();
    const auto t1 = std::chrono::steady_clock::now();
    total_us += std::chrono::duration<double, std::micro>(t1 - t0).count();
    cudaDeviceSynchronize();
  }
  return total_us / static_cast<double>((calls + 63) / 64 * 64);
}

struct Case {
  std::int64_t m, n, k;
  const char* kernel;
};

}  // namespace

int main() {
  using namespace tilegemm;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("tilegemm_host_cost: no CUDA device; this probe times launches on a GPU\n");
    return 1;
  }
  cudaStream_t stream = nullptr;
  void* buffers[3] = {nullptr, nullptr, nullptr};
  constexpr std::size_t kBytes = std::size_t{1} << 20;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) return 1;
  for (void*& b : buffers) {
    if (cudaMalloc(&b, kBytes) != cudaSuccess || cudaMemset(b, 0, kBytes) != cudaSuccess) return 1;
  }
  constexpr int kCalls = 4000;
  std::printf("host us per call (%d calls)\n", kCalls);
  std::printf("empty kernel launch: %.2f\n",
              host_us_per_call([&] { empty_kernel<<<1, 32, 0, stream>>>(0); }, kCalls));
  std::printf("empty kernel launch + cudaGetLastError: %.2f\n", host_us_per_call([&] {
                empty_kernel<<<1, 32, 0, stream>>>(0);
                static_cast<void>(cudaGetLastError());
              }, kCalls));
  std::printf("cudaGetDevice: %.3f\n", host_us_per_call([] {
                int d = 0;
                static_cast<void>(cudaGetDevice(&d));
              }, 10 * kCalls));
  std::printf("%-14s %-24s %-24s %8s %10s %9s %9s %9s\n", "bf16 shape", "asked", "runs", "gemm",
              "launch()", "validate", "select", "find");
  for (const Case& c : {Case{5, 9, 187, "small_32x32x32"}, Case{5, 9, 187, "auto"},
                        Case{64, 64, 16, "auto"}, Case{1, 200, 300, "auto"},
                        Case{89, 20, 170, "wgmma_64x64x64_s13_pad"},
                        Case{256, 256, 256, "wgmma_128x64x64_s8_ts"}, Case{256, 256, 256, "auto"}}) {
    const Problem p = Problem::make_typed(c.m, c.n, c.k, GemmTypes{DType::kBF16, DType::kBF16},
                                          buffers[0], buffers[1], buffers[2]);
    const std::string asked = c.kernel;
    const KernelInfo* k = asked == "auto" ? select_kernel(p) : find_kernel(asked);
    const std::string shape =
        std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k);
    if (k == nullptr || !gemm(p, asked, stream).ok()) {
      std::printf("%-14s %-24s (not available on this device)\n", shape.c_str(), c.kernel);
      continue;
    }
    const double t_gemm = host_us_per_call([&] { gemm(p, asked, stream); }, kCalls);
    const double t_launch = host_us_per_call([&] { k->launch(p, stream); }, kCalls);
    const double t_validate = host_us_per_call([&] { (void)validate(p); }, 10 * kCalls);
    const double t_select = host_us_per_call([&] { (void)select_kernel(p); }, 10 * kCalls);
    const double t_find = host_us_per_call([&] { (void)find_kernel(k->name); }, 10 * kCalls);
    std::printf("%-14s %-24s %-24s %8.2f %10.2f %9.3f %9.3f %9.3f\n", shape.c_str(), c.kernel,
                k->name.c_str(), t_gemm, t_launch, t_validate, t_select, t_find);
  }
  // Tensor maps are cached per thread (docs/perf-notes.md, "Tensor maps cached per thread"): the
  // same operands call after call (every map found) against operands at 64 rotating offsets of
  // 16 bytes (more than the cache holds: every map encoded again).
  std::printf("%-14s %-24s %10s %10s\n", "bf16 shape", "kernel (tensor maps)", "same", "rotating");
  for (const Case& c : {Case{300, 256, 200, "wgmma_128x64x64_s8_ts"},
                        Case{300, 40, 201, "wgmma_64x64x64_s11_rm"}}) {
    const GemmTypes bf16{DType::kBF16, DType::kBF16};
    auto problem_at = [&](int j) {
      const auto at = [&](void* b) { return static_cast<unsigned char*>(b) + 16 * j; };
      return Problem::make_typed(c.m, c.n, c.k, bf16, at(buffers[0]), at(buffers[1]),
                                 at(buffers[2]));
    };
    const std::string shape =
        std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k);
    const Problem first = problem_at(0);
    if (find_kernel(c.kernel) == nullptr || !gemm(first, c.kernel, stream).ok()) {
      std::printf("%-14s %-24s (not available on this device)\n", shape.c_str(), c.kernel);
      continue;
    }
    const double t_same = host_us_per_call([&] { gemm(first, c.kernel, stream); }, kCalls);
    int j = 0;
    const double t_rotating = host_us_per_call([&] {
      gemm(problem_at(j), c.kernel, stream);
      j = (j + 1) % 64;
    }, kCalls);
    std::printf("%-14s %-24s %10.2f %10.2f\n", shape.c_str(), c.kernel, t_same, t_rotating);
  }
  for (void* b : buffers) cudaFree(b);
  cudaStreamDestroy(stream);
  return 0;
}
