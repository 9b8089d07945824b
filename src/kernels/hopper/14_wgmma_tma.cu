// Rung 14: Hopper tensor cores through wgmma, fed by the Tensor Memory Accelerator (sm_90a).
//
// What it adds over rung 13 (mma.sync): the MMA is issued by a whole warpgroup (128 threads) and
// reads both operands straight from shared memory, 64 x BN x 16 per instruction (tf32: x 8),
// asynchronously, so no thread moves operand fragments through registers; and the global ->
// shared copies are TMA boxes, issued by one thread and completed on an mbarrier, so no thread
// computes copy addresses either. Idea: the SM's issue slots go to the tensor cores alone.
//  - Warp specialisation: warpgroup 0 produces (one thread issues the TMA copies, then the
//    warpgroup gives its registers back with setmaxnreg), warpgroups 1 and 2 consume, each
//    computing 64 rows x BN of the 128 x BN tile with m64nBNk16 (128 fp32 accumulators a thread
//    for BN = 256).
//  - A STAGES-deep ring of (A tile | B tile) with a full and an empty mbarrier per stage: the
//    producer waits for "empty", posts the stage's byte count and issues the boxes; a consumer
//    waits for "full", issues its wgmmas, waits for them and arrives on "empty".
//  - 128-byte swizzle everywhere: each TMA box is 128 bytes wide (64 bf16/f16 or 32 tf32
//    elements), the layout wgmma's descriptors read without bank conflicts. bf16/f16 operands
//    may be K-major or M/N-major (the wgmma transpose bits), so all four A/B layout mixes run.
//    wgmma reads tf32 from shared memory only K-major: an M-major tf32 A is loaded from its
//    tile into registers (wgmma's register-A form), and an N-major B is turned into such an A
//    by computing the mirrored product C^T = B^T A^T, whose C the epilogue writes transposed.
//    So three tf32 mixes run here; A and B both M/N-major (A column-major, B row-major) are
//    left to rung 13.
//  - Persistent grid: one CTA per SM walks the tiles in the rasterised order; while the consumers
//    run a tile's epilogue the producer is already loading the next tile.
//  - Edges: the tensor maps cover exactly M x K and K x N, and the TMA fills everything past
//    them with zeros, so the main loop has no predicates for any M, N, K; the epilogue stores
//    are predicated on M and N. A column-major C is computed as C^T = B^T A^T.
//  - tf32: the TFLOAT32 tensor map rounds fp32 to tf32 with round-to-nearest-even on the way
//    into shared memory.
// Needs A and B 16-byte aligned with a leading dimension of a multiple of 16 bytes (what a
// tensor map can describe); other problems go to rung 13's `_anyalign` instances.
// The floor and the prediction: docs/perf-notes.md, "Rung 14"; measured numbers: bench/results.
#include <string>

#include "../families.hpp"
#include "wgmma_tma.cuh"

namespace tilegemm::kernels {

void register_wgmma(Registry& r) {
  using hopper::Config;
  using hopper::describe;
  constexpr bool kTf32 = true, k16Bit = false;
  constexpr const char* kFamily = "wgmma";
  r.push_back(describe<Config<256, 4, k16Bit>>(kFamily, 14, "every A/B layout mix"));
  r.push_back(describe<Config<128, 6, k16Bit>>(kFamily, 14,
                                               "every A/B layout mix, twice the tiles of 128x256"));
  constexpr const char* kTf32Mixes =
      "A/B row/col, col/col, row/row (M/N-major tf32 through registers)";
  r.push_back(describe<Config<256, 4, kTf32>>(kFamily, 14, kTf32Mixes));
  r.push_back(describe<Config<128, 6, kTf32>>(
      kFamily, 14, std::string(kTf32Mixes) + ", twice the tiles of 128x256"));
}

}  // namespace tilegemm::kernels
