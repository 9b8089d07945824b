// Rung 18: small M or N against a large N x K on the tensor cores (sm_90a).
//
// Such a product is bound by one stream: the large operand, read once. What limits rungs 14-16
// there is how much of that stream is in flight and how many SMs carry it: 128-row tiles give
// 8192 x 16 x 8192 only 64 tiles (half the SMs idle) and an 8-stage ring of 16 KiB of the large
// operand per stage. This rung is the same kernel (wgmma_tma.cuh) with one consumer warpgroup:
// 64-row tiles, twice the tiles on the same shape, and a ring of 9-13 stages in the shared
// memory the second consumer's operand tiles took. The small operand is the one re-read by
// every tile; it comes from L2.
//
// The shape needs no mirroring: with a 64 x 64 tile, a small M puts the large operand in B (its
// N-major 64-column boxes) and a small N puts it in A, the same boxes and the same m64n64k16
// instructions either way. docs/perf-notes.md, "Rung 18", has the floor and what was measured.
#include <string>

#include "../families.hpp"
#include "wgmma_tma.cuh"

namespace tilegemm::kernels {

void register_wgmma_skinny(Registry& r) {
  using hopper::Config;
  constexpr bool kTf32 = true, k16Bit = false, kRegEpilogue = false;
  constexpr int kOneConsumer = 1;
  constexpr const char* k16 = "64-row tiles for small M or N, every A/B layout mix";
  constexpr const char* kT =
      "64-row tiles for small M or N, A/B row/col, col/col, row/row (M/N-major tf32 through "
      "registers)";
  r.push_back(hopper::describe<Config<64, 13, k16Bit, 1, kRegEpilogue, kOneConsumer>>(
      "wgmma_skinny", 18, k16));
  r.push_back(hopper::describe<Config<128, 9, k16Bit, 1, kRegEpilogue, kOneConsumer>>(
      "wgmma_skinny", 18, k16));
  r.push_back(hopper::describe<Config<64, 13, kTf32, 1, kRegEpilogue, kOneConsumer>>(
      "wgmma_skinny", 18, kT));
  r.push_back(hopper::describe<Config<128, 9, kTf32, 1, kRegEpilogue, kOneConsumer>>(
      "wgmma_skinny", 18, kT));
}

}  // namespace tilegemm::kernels
