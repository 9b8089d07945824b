// Rung 20: odd leading dimensions and misaligned base pointers on the tensor cores without a copy
// pass (sm_90a).
//
// Rung 16 copies every operand no tensor map can describe to a 16-byte pitch and then runs rung
// 15's kernel: two more launches and a read and write of each such operand before the GEMM
// starts. Here the producer warpgroup does the realigning itself: its 128 threads (instead of one
// thread issuing TMA boxes) copy each line of a stage's A and B tiles as its raw span, the
// 16-byte-aligned chunks covering it, into the ring stage with cp.async (rows of 144 bytes: one
// chunk more than the 128 the line needs), keeping several stages of copies in flight; once a
// stage has landed they shift each 16-byte output chunk out of the two raw chunks under it and
// write it back in place, in the 128-byte-swizzled layout the TMA boxes would have produced
// (tf32 rounded on the way: cvt.rna, as rung 13 rounds). Each thread then orders its
// generic-proxy writes before the wgmmas' async-proxy reads (fence.proxy.async) and arrives on
// the stage's barrier, which counts 128 arrivals. Consumers, epilogue and split-K are rung 15's
// and 18's unchanged. wgmma_tma.cuh (RealignOperand) has the index maps and the edge rules.
//
// What it trades: one launch and no extra pass over memory, against a producer that spends two
// shared loads, a shift and a shared store per 16 bytes on top of the copy, where TMA issued one
// instruction per box; the producer's issue rate, not memory, bounds it. Which of the two wins
// where is measured in docs/perf-notes.md, "Rung 20" (a long K over few tiles); auto chooses
// between them by that record.
#include <string>

#include "../families.hpp"
#include "wgmma_tma.cuh"

namespace tilegemm::kernels {

void register_wgmma_realign(Registry& r) {
  using hopper::Config;
  constexpr bool kTf32 = true, k16Bit = false, kTmaStore = true, kRealign = true;
  constexpr int kOne = 1, kTwo = 2, kNoCluster = 1;
  const char* k16 = "any leading dimension and element-aligned base, every A/B layout mix";
  const char* kT =
      "any leading dimension and element-aligned base, A/B row/col, col/col, row/row (M/N-major "
      "tf32 through registers)";
  r.push_back(hopper::describe<Config<128, 5, k16Bit, kNoCluster, kTmaStore, kTwo, kRealign>>(
      "wgmma_realign", 20, k16));
  r.push_back(hopper::describe<Config<64, 10, k16Bit, kNoCluster, kTmaStore, kOne, kRealign>>(
      "wgmma_realign", 20, k16));
  r.push_back(hopper::describe<Config<128, 5, kTf32, kNoCluster, kTmaStore, kTwo, kRealign>>(
      "wgmma_realign", 20, kT));
  r.push_back(hopper::describe<Config<64, 10, kTf32, kNoCluster, kTmaStore, kOne, kRealign>>(
      "wgmma_realign", 20, kT));
}

}  // namespace tilegemm::kernels
