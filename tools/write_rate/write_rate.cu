// tilegemm_write_rate: how fast one write of an M x N 16-bit C (contiguous along M, pitch ld
// elements) reaches memory, by the pieces each block writes. Thin-K products are bound by this
// write (docs/perf-notes.md, "Rung 25" and "What sets the write rate of C"): a block of rung 25
// writes 64 rows of 256 bytes; cuBLAS and rung 25 wrote an odd-pitch 40 MB C at about 1.5 TB/s.
// Each pattern fills C with a constant and is timed alone (median of 70 launches after 10, CUDA
// events, L2 warm, as `tilegemm bench` times); every element of C is then checked written.
// Patterns: tile RxW (R rows of W contiguous elements per block, 256 threads): the block stages
// its rows in shared memory at each row's offset from a 16-byte boundary of C, then writes each
// row's 16-byte middle by 16-byte stores of a warp (thr) or one bulk copy (bulk, sm_90), and its
// cut ends element by element, blocks in C's contiguous order first; flat: 16-byte stores over the
// whole span (ld = M only); memset: cudaMemsetAsync over the span.
// Usage: tilegemm_write_rate M N LD. Needs a GPU: without one it says so and exits 1. The bulk
// patterns run on sm_90 only (the wrappers trap before it; main skips them there).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/async_copy.cuh"  // the bulk-copy wrappers rung 25 writes its rows with

namespace {

using tilegemm::kernels::bulk_commit;
using tilegemm::kernels::bulk_store;
using tilegemm::kernels::bulk_wait_read_all;
using tilegemm::kernels::fence_proxy_async_smem;

using Bits = std::uint16_t;
constexpr Bits kFill = 0x3f80;  // 1.0 in bf16
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

template <int R, int W, bool kBulk>
__global__ void __launch_bounds__(kThreads) tile_kernel(Bits* c, int m, int n, long long ld) {
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int kRowBytes = W * 2 + 16;
  const int m0 = static_cast<int>(blockIdx.x) * W;
  const int n0 = static_cast<int>(blockIdx.y) * R;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int mend = min(m0 + W, m);
  for (int r = warp; r < R && n0 + r < n; r += kWarps) {
    Bits* const row = c + (n0 + r) * ld;
    const int shift = static_cast<int>(reinterpret_cast<std::uintptr_t>(row + m0) % 16) / 2;
    Bits* const staged = reinterpret_cast<Bits*>(smem + r * kRowBytes) + shift;
    for (int i = lane; i < mend - m0; i += 32) staged[i] = kFill;
  }
  if (kBulk) fence_proxy_async_smem();  // the staging writes, before the bulk copies read them
  __syncthreads();
  for (int r = warp; r < R && n0 + r < n; r += kWarps) {
    Bits* const row = c + (n0 + r) * ld;
    const int shift = static_cast<int>(reinterpret_cast<std::uintptr_t>(row + m0) % 16) / 2;
    const Bits* const staged = reinterpret_cast<const Bits*>(smem + r * kRowBytes) + shift;
    const int head = min((8 - shift) % 8, mend - m0);  // elements before C's first 16-byte boundary
    const int body = (mend - m0 - head) / 8 * 8;       // whole 16-byte pieces
    if (kBulk) {
      if (lane == 0 && body > 0) {
        bulk_store(row + m0 + head,
                   static_cast<std::uint32_t>(__cvta_generic_to_shared(staged + head)), 2 * body);
        bulk_commit();
      }
    } else {
      for (int p = lane; p < body / 8; p += 32) {
        reinterpret_cast<uint4*>(row + m0 + head)[p] = reinterpret_cast<const uint4*>(staged + head)[p];
      }
    }
    if (lane < head) row[m0 + lane] = staged[lane];
    if (lane < mend - m0 - head - body) row[m0 + head + body + lane] = staged[head + body + lane];
  }
  if (kBulk && lane == 0) bulk_wait_read_all();
}

// The whole span as 16-byte stores, its last elems % 8 elements one by one.
__global__ void flat_kernel(Bits* c, long long elems) {
  const uint4 v = make_uint4(0x3f803f80u, 0x3f803f80u, 0x3f803f80u, 0x3f803f80u);
  const long long first = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  for (long long p = first; p < elems / 8; p += static_cast<long long>(gridDim.x) * blockDim.x) {
    reinterpret_cast<uint4*>(c)[p] = v;
  }
  if (first < elems % 8) c[elems / 8 * 8 + first] = kFill;
}

int g_flat_blocks = 1;

cudaError_t launch_flat(Bits* c, int m, int n, long long) {
  flat_kernel<<<g_flat_blocks, kThreads>>>(c, static_cast<long long>(m) * n);
  return cudaGetLastError();
}

cudaError_t launch_memset(Bits* c, int, int n, long long ld) {
  return cudaMemsetAsync(c, 0x3f, static_cast<std::size_t>(ld) * n * sizeof(Bits));
}

struct Pattern {
  std::string name;
  bool needs_sm90;
  cudaError_t (*launch)(Bits*, int, int, long long);
};

template <int R, int W, bool kBulk>
cudaError_t launch_tiles(Bits* c, int m, int n, long long ld) {
  constexpr int kSmem = R * (W * 2 + 16);
  const auto fn = tile_kernel<R, W, kBulk>;
  if (cudaError_t e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
      e != cudaSuccess) {
    return e;
  }
  fn<<<dim3((m + W - 1) / W, (n + R - 1) / R), kThreads, kSmem>>>(c, m, n, ld);
  return cudaGetLastError();
}

template <int R, int W, bool kBulk>
Pattern tiles() {
  return {"tile " + std::to_string(R) + "x" + std::to_string(W) + (kBulk ? " bulk" : " thr"),
          kBulk, launch_tiles<R, W, kBulk>};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: tilegemm_write_rate M N LD (16-bit C, contiguous along M)\n");
    return 2;
  }
  const int m = std::atoi(argv[1]);
  const int n = std::atoi(argv[2]);
  const long long ld = std::atoll(argv[3]);
  if (m <= 0 || n <= 0 || ld < m) {
    std::fprintf(stderr, "tilegemm_write_rate: need M > 0, N > 0 and LD >= M\n");
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "tilegemm_write_rate: no CUDA device; this probe needs a GPU\n");
    return 1;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  g_flat_blocks = 8 * prop.multiProcessorCount;
  std::vector<Pattern> patterns = {tiles<64, 128, true>(), tiles<64, 128, false>(),
                                   tiles<32, 256, true>(), tiles<32, 256, false>(),
                                   tiles<16, 512, true>(), tiles<16, 512, false>(),
                                   tiles<64, 256, true>(), tiles<8, 1024, true>()};
  if (ld == m) patterns.push_back({"flat", false, launch_flat});
  patterns.push_back({"memset", false, launch_memset});

  const std::size_t bytes = static_cast<std::size_t>(ld) * n * sizeof(Bits);
  Bits* c = nullptr;
  if (cudaMalloc(&c, bytes) != cudaSuccess) {
    std::fprintf(stderr, "tilegemm_write_rate: cannot allocate %zu bytes\n", bytes);
    return 1;
  }
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<Bits> host(static_cast<std::size_t>(ld) * n);
  std::printf("%s, %d SMs: C %d x %d, 16-bit, pitch %lld elements (%.1f MB written)\n", prop.name,
              prop.multiProcessorCount, m, n, ld, 2.0 * m * n / 1e6);
  int failed = 0;
  for (const Pattern& pat : patterns) {
    if (pat.needs_sm90 && prop.major < 9) continue;
    cudaMemset(c, 0, bytes);
    std::vector<float> ms;
    cudaError_t err = cudaSuccess;
    for (int i = 0; i < 80 && err == cudaSuccess; ++i) {
      cudaEventRecord(start);
      err = pat.launch(c, m, n, ld);
      cudaEventRecord(stop);
      cudaEventSynchronize(stop);
      float t = 0.0f;
      cudaEventElapsedTime(&t, start, stop);
      if (i >= 10) ms.push_back(t);
    }
    if (err == cudaSuccess) err = cudaMemcpy(host.data(), c, bytes, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) {
      std::printf("%-16s error: %s\n", pat.name.c_str(), cudaGetErrorString(err));
      ++failed;
      continue;
    }
    long long unwritten = 0;
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < m; ++i) unwritten += host[static_cast<std::size_t>(j) * ld + i] == 0;
    }
    std::sort(ms.begin(), ms.end());
    const double median_us = 1e3 * ms[ms.size() / 2];
    std::printf("%-16s %8.1f us (min %6.1f)  %5.2f TB/s of C%s\n", pat.name.c_str(), median_us,
                1e3 * ms.front(), 2.0 * m * n / (median_us * 1e-6) / 1e12,
                unwritten ? "  ELEMENTS NOT WRITTEN" : "");
    failed += unwritten != 0;
  }
  cudaFree(c);
  return failed == 0 ? 0 : 1;
}
