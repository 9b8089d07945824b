// tilegemm_read_rate: how fast one read of a large buffer comes from device memory, the floor of
// a product that streams one large operand once (a matrix-vector or small-M product: B of
// 16 x 8192 x 8192 bf16 is 128 MiB). Each pattern reads the whole buffer once with 16-byte
// streaming loads, U of them in flight per thread, B blocks of 256 threads per SM, each thread
// adding the words it read; the sum of all is checked against the buffer's fill, so every word
// was read exactly once. Beside it, cudaMemcpyAsync device to device of the same buffer (bytes
// read plus bytes written: the copy rate the device notes quote). Each row is the median of 50
// launches after 10, CUDA events; the buffer is larger than the L2.
// Usage: tilegemm_read_rate [BYTES] (default 134217728). Needs a GPU: without one it says so and
// exits 1.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kThreads = 256;
constexpr unsigned kFillByte = 0x01;
constexpr unsigned kFillWord = 0x01010101u;

template <int U>
__global__ void __launch_bounds__(kThreads)
    read_kernel(const uint4* p, long long n16, unsigned long long* total) {
  const long long stride = static_cast<long long>(gridDim.x) * kThreads;
  unsigned long long s = 0;
  long long i = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  for (; i + (U - 1) * stride < n16; i += U * stride) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = __ldcs(p + i + u * stride);
#pragma unroll
    for (int u = 0; u < U; ++u)
      s += static_cast<unsigned long long>(v[u].x) + v[u].y + v[u].z + v[u].w;
  }
  for (; i < n16; i += stride) {
    const uint4 v = __ldcs(p + i);
    s += static_cast<unsigned long long>(v.x) + v.y + v.z + v.w;
  }
#pragma unroll
  for (int off = 16; off > 0; off /= 2) s += __shfl_xor_sync(0xffffffffu, s, off);
  if (threadIdx.x % 32 == 0) atomicAdd(total, s);
}

bool check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
  return e == cudaSuccess;
}

template <class F>
float median_ms(F&& launch) {
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  for (int i = 0; i < 10; ++i) launch();
  std::vector<float> ms;
  for (int i = 0; i < 50; ++i) {
    cudaEventRecord(t0);
    launch();
    cudaEventRecord(t1);
    cudaEventSynchronize(t1);
    float v = 0.0f;
    cudaEventElapsedTime(&v, t0, t1);
    ms.push_back(v);
  }
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

template <int U>
bool run_read(const uint4* buf, long long bytes, int sms, int per_sm, unsigned long long* total) {
  const long long n16 = bytes / 16;
  const int blocks = sms * per_sm;
  const float ms = median_ms([&] { read_kernel<U><<<blocks, kThreads>>>(buf, n16, total); });
  // One more launch from a zero total: every word read once.
  if (!check(cudaMemset(total, 0, sizeof(*total)), "memset")) return false;
  read_kernel<U><<<blocks, kThreads>>>(buf, n16, total);
  unsigned long long got = 0;
  if (!check(cudaMemcpy(&got, total, sizeof(got), cudaMemcpyDeviceToHost), "read back")) {
    return false;
  }
  const unsigned long long want = static_cast<unsigned long long>(bytes / 4) * kFillWord;
  std::printf("read  %2d blocks/SM  %d loads/thread  %8.2f us  %6.3f TB/s  %s\n", per_sm, U,
              ms * 1e3, bytes / (ms * 1e-3) / 1e12, got == want ? "sum ok" : "SUM WRONG");
  return got == want;
}

}  // namespace

int main(int argc, char** argv) {
  const long long bytes = argc > 1 ? std::atoll(argv[1]) : 134217728LL;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "tilegemm_read_rate: no CUDA device\n");
    return 1;
  }
  if (bytes <= 0 || bytes % 16 != 0) {
    std::fprintf(stderr, "tilegemm_read_rate: BYTES must be a positive multiple of 16\n");
    return 2;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("%s, %d SMs, L2 %d MiB; buffer %lld bytes\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20, bytes);
  void* src = nullptr;
  void* dst = nullptr;
  unsigned long long* total = nullptr;
  if (!check(cudaMalloc(&src, bytes), "cudaMalloc") ||
      !check(cudaMalloc(&dst, bytes), "cudaMalloc") ||
      !check(cudaMalloc(&total, sizeof(*total)), "cudaMalloc") ||
      !check(cudaMemset(src, kFillByte, bytes), "memset")) {
    return 1;
  }
  bool ok = true;
  const auto* buf = static_cast<const uint4*>(src);
  for (int per_sm : {1, 2, 4, 8}) {
    ok = run_read<1>(buf, bytes, prop.multiProcessorCount, per_sm, total) && ok;
    ok = run_read<4>(buf, bytes, prop.multiProcessorCount, per_sm, total) && ok;
    ok = run_read<8>(buf, bytes, prop.multiProcessorCount, per_sm, total) && ok;
  }
  const float ms = median_ms([&] { cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice); });
  std::printf("copy  cudaMemcpyAsync            %8.2f us  %6.3f TB/s (read + write)\n", ms * 1e3,
              2.0 * bytes / (ms * 1e-3) / 1e12);
  ok = check(cudaGetLastError(), "launch") && ok;
  cudaFree(src);
  cudaFree(dst);
  cudaFree(total);
  return ok ? 0 : 1;
}
