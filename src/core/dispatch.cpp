// The `auto` rule: which registered kernel runs a problem when the caller names none.
//
// Shape classes map to rung 9's tuned instances (src/kernels/09_tuned.cu says what each is
// for). Within a class the candidates are tried in registration order, the 16-byte-copy instance
// before its `_anyalign` twin, and the first whose can_implement holds wins; so an unaligned
// leading dimension (4095) or base pointer falls to the 4-byte-copy twin, never to a refusal.
// If no tuned instance fits, the highest rung that can implement the problem runs (the naive
// kernel takes every problem whose grid fits).
//
// The thresholds are in tiles per SM, from the tile counts the classes were designed around;
// they await the GPU run's per-class comparison (bench/results) to be confirmed or moved.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "tilegemm/gemm.hpp"

namespace tilegemm {

namespace {

// Streaming multiprocessors of the current device; 132 (H100/H200 SXM) when there is none, so
// the choice stays defined (and testable) on a machine without a GPU.
int sm_count() {
  int device = 0;
  int count = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      count <= 0) {
    static_cast<void>(cudaGetLastError());  // leave no sticky "no device" error behind
    return 132;
  }
  return count;
}

std::int64_t tiles(const Problem& p, std::int64_t bm, std::int64_t bn) {
  return ((p.m + bm - 1) / bm) * ((p.n + bn - 1) / bn);
}

// The first registered kernel matching `glob` that can implement the problem, or null.
const KernelInfo* first_fit(const Problem& p, std::string_view glob) {
  for (const KernelInfo* k : match_kernels(glob)) {
    if (k->can_implement(p)) return k;
  }
  return nullptr;
}

// The shape class's candidates, most specific first.
const KernelInfo* tuned_choice(const Problem& p) {
  const std::int64_t sms = sm_count();
  if (std::min(p.m, p.n) <= 32) return first_fit(p, "tuned_skinny_*");

  const std::int64_t tiles_128x128 = tiles(p, 128, 128);
  if (tiles_128x128 >= sms) {  // at least one 128x128 tile per SM: the large tile's home
    return first_fit(p, "tuned_large_*");
  }
  if (p.k >= 4 * std::max(p.m, p.n) && 2 * tiles_128x128 <= sms) {  // long K, few tiles
    if (const KernelInfo* k = first_fit(p, "tuned_longk_*")) return k;
    return first_fit(p, "tuned_small_*_splitk");
  }
  if (4 * tiles(p, 128, 64) >= 3 * sms) {  // 128x64 tiles fill three quarters of the SMs
    if (const KernelInfo* k = first_fit(p, "tuned_medium_*")) return k;
    return first_fit(p, "tuned_large_*");  // the any-alignment twin
  }
  return first_fit(p, "tuned_small_*_splitk");  // splits K itself when the tiles are too few
}

}  // namespace

const KernelInfo* select_kernel(const Problem& problem) {
  if (const KernelInfo* k = tuned_choice(problem)) return k;
  // Highest rung first: each rung is meant to be faster than the one below it, and every
  // family refuses through can_implement what it cannot do.
  const std::vector<KernelInfo>& all = all_kernels();
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    if (it->can_implement(problem)) return &*it;
  }
  return nullptr;
}

}  // namespace tilegemm
