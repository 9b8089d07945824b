// Rung 12: cute_pipelined -- an SM80-style multi-stage cp.async pipeline in CuTe, in the manner
// of CUTLASS's examples/cute/tutorial/sgemm_sm80.cu: 128 x 128 x 8 block tiles, 3 shared
// stages, register double-buffering of the shared-to-register fragment copies.
//
// What it adds over rung 11 (cute_tiled): the global-to-shared copies no longer pass through
// registers. cp.async (LDGSTS) writes shared memory directly, and STAGES - 1 = 2 K steps are in
// flight while one is computed, so a block no longer stalls on global latency at each step and
// keeps no staging registers. An operand whose M or N mode is contiguous and 16-byte aligned
// is copied in 16-byte vectors (cp.async.cg, bypassing L1); any other operand in 4-byte
// copies (cp.async.ca), so every layout, leading dimension and alignment is taken. Elements
// outside the matrix are zero-filled by the copy itself (src-size 0). Inside a K step, the
// fragments of k block kb+1 are read from shared memory while kb computes.
// Target (the issue): >= 0.95 of cuBLAS SGEMM at 4096^3 and 8192^3 on H100/H200.
//
// One registry entry, four instantiations picked at launch (see `plan` in
// 12_cute_pipelined.cuh): (A order, B order) = (K scalar, MN vector) for row-major A and B when
// aligned, (MN vector, MN vector), (K scalar, K scalar), and (K scalar, MN scalar) for
// everything else; mirrored problems reuse them. The kernel template also builds 128 x 256
// block tiles (8 x 16 values a thread), deeper K steps and a rasterised tile order; those
// candidates are registered from 12_cute_pipelined_variants.cu.
//
// Measurements: docs/cute.md (rung 12), docs/ladder.md (the table).
#include "12_cute_pipelined.cuh"

namespace tilegemm::kernels {

void register_cute_pipelined(Registry& r) {
  using C = cute_pipelined::Config</*BN=*/128, /*BK=*/8, /*STAGES=*/3, /*ALL_ORDERS=*/true>;
  r.push_back(cute_pipelined::make_info<C>(
      "cute_pipelined", /*raster_group=*/1,
      "CuTe 128x128x8, 3-stage cp.async pipeline (16-byte when aligned, zero-fill at "
      "edges), register double-buffered fragments, 8x8 per thread"));
}

}  // namespace tilegemm::kernels
