// The `auto` rule: which registered kernel runs a problem when the caller names none.
//
// Shape classes map to rung 9's tuned instances (src/kernels/09_tuned.cu says what each is
// for). Within a class the candidates are tried in registration order, the 16-byte-copy instance
// before its `_anyalign` twin, and the first whose can_implement holds wins; so an unaligned
// leading dimension (4095) or base pointer falls to the 4-byte-copy twin, never to a refusal.
// If no tuned instance fits, the highest rung that can implement the problem runs (the naive
// kernel takes every problem whose grid fits).
//
// The thresholds come from one measured run (NVIDIA H200, 132 SMs, 2026-11-22, `tilegemm bench`
// over squares 256..8192, 4095^3, 1000^3, 8192x1024x8192, 4096x4096x16384, 16x4096x4096, row- and
// column-major B; cublas_ratio = cuBLAS time / kernel time; docs/perf-notes.md has the tables):
//  - min(M, N) <= 32 -> skinny split-K: 16x4096x4096 measured 2.28 (row B) and 0.90 (col B), the
//    best of all instances in both layouts.
//  - a wave of 128x256 tiles (>= 7/8 of the SMs) -> large 128x256x8, 8x16 thread tiles: at 2048^3
//    (128 such tiles on 132 SMs, the smallest measured point) 0.885 vs 0.864 for 128x128, and
//    0.910 / 0.934 / 0.931 / 0.924 at 4096^3 / 8192^3 / 8192x1024x8192 / 4096x4096x16384 (vs
//    0.886 / 0.901 / 0.896 / 0.890). With column-major B all large instances measured within 1%
//    of each other (0.84-0.87); 128x256 was best at 8192^3 and 4095^3, so one rule serves both.
//    A second run (same GPU and day, commit c4e8415) measured the third-pass instances, and the
//    class now tries them first: with row-major B `cp_async_128x256x16_..._lean_mid` (interior
//    K tiles copied without predicates, next tile's copies issued mid-step, BK = 16) 0.908 /
//    0.931 / 0.960 / 0.944 / 0.945 at 2048^3 / 4096^3 / 8192^3 / 8192x1024x8192 /
//    4096x4096x16384 against 0.882 / 0.909 / 0.928 / 0.926 / 0.922 for tuned_large_128x256x8;
//    with column-major B the BK = 8 `cp_async_128x256x8_..._lean_mid` 0.881 / 0.891 / 0.897 /
//    0.900 / 0.901 against 0.843 / 0.847 / 0.850 / 0.855 / 0.854 (its BK = 16 twin loses there,
//    0.823-0.837). Where their 16-byte copies do not fit (4095^3 with row-major B, a misaligned
//    base) the tuned instance or its `_anyalign` twin runs, as before.
//  - at least one 128x128 tile per SM but less than that wave -> large 128x128 (not measured in
//    this band; it is the instance that filled the SMs at 2048^3 before the 128x256 rule).
//  - K >= 4 max(M, N) with few tiles -> longk split-K (design value; no such shape in the run).
//  - 64x64 tiles fill at most half the SMs (256^3, 512^3), B row-major, M <= N -> skinny split-K:
//    512^3 0.948 vs 0.754 for small split-K, 256^3 1.31 vs 1.28. With column-major B the skinny
//    tile copies B 4 bytes at a time and loses (512^3: 0.820 vs 0.918), so small split-K there.
//  - the rest (1000^3, 1024^3) -> small 64x64 split-K (which does not split at these sizes):
//    row B 0.935 / 0.881 vs medium 0.792 / 0.761; col B 0.804 / 0.802 vs medium 0.829 / 0.766.
//    The 128x64 medium tile won only col-B 1024^3, so `auto` no longer picks it.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "device_runtime.hpp"
#include "tilegemm/device_info.hpp"
#include "tilegemm/gemm.hpp"

namespace tilegemm {

namespace {

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

// The shape class's candidates, most specific first. Every glob lists a 16-byte instance and
// its any-alignment twin, so a class never refuses a problem the other classes would take.
const KernelInfo* tuned_choice(const Problem& p) {
  const std::int64_t sms = runtime::sm_count();
  if (std::min(p.m, p.n) <= 32) return first_fit(p, "tuned_skinny_*");

  if (8 * tiles(p, 128, 256) >= 7 * sms) {  // about a wave of 128x256 tiles, 1 block per SM
    // The third pass's lean, mid-step-copy instances where their 16-byte copies fit (see the
    // header), else the tuned 128x256 instance and its any-alignment twin.
    const char* lean = p.b.layout == Layout::kRowMajor
                           ? "cp_async_128x256x16_w64x64_t8x16_s3_lean_mid"
                           : "cp_async_128x256x8_w64x64_t8x16_s3_lean_mid";
    if (const KernelInfo* k = first_fit(p, lean)) return k;
    if (const KernelInfo* k = first_fit(p, "tuned_large_128x256x8_*")) return k;
  }
  const std::int64_t tiles_128x128 = tiles(p, 128, 128);
  if (tiles_128x128 >= sms) {  // at least one 128x128 tile per SM
    if (const KernelInfo* k = first_fit(p, "tuned_large_128x128x8_*")) return k;
  }
  if (p.k >= 4 * std::max(p.m, p.n) && 2 * tiles_128x128 <= sms) {  // long K, few tiles
    if (const KernelInfo* k = first_fit(p, "tuned_longk_*")) return k;
  }
  if (2 * tiles(p, 64, 64) <= sms && p.b.layout == Layout::kRowMajor && p.m <= p.n) {
    if (const KernelInfo* k = first_fit(p, "tuned_skinny_*")) return k;
  }
  return first_fit(p, "tuned_small_*_splitk");  // splits K itself when the tiles are too few
}

}  // namespace

const KernelInfo* select_kernel(const Problem& problem, int cc) {
  if (problem.types() == GemmTypes{DType::kF32, DType::kF32}) {
    if (const KernelInfo* k = tuned_choice(problem); k != nullptr && k->desc.runs_on(cc)) return k;
  }
  // Highest rung first: each rung is meant to be faster than the one below it, and every
  // family refuses through can_implement what it cannot do (types included).
  const std::vector<const KernelInfo*> candidates = kernels_for(problem.types(), cc);
  for (auto it = candidates.rbegin(); it != candidates.rend(); ++it) {
    if ((*it)->can_implement(problem)) return *it;
  }
  return nullptr;
}

const KernelInfo* select_kernel(const Problem& problem) {
  constexpr int kAssumedCc = 90;  // without a GPU: rules stay defined, as runtime::sm_count()
  const int cc = current_compute_capability();
  return select_kernel(problem, cc > 0 ? cc : kAssumedCc);
}

}  // namespace tilegemm
