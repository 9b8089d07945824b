// Rung 12, candidate configurations: the `cute_pipelined` kernel template (12_cute_pipelined.cuh)
// at larger tiles and deeper K steps, registered beside the headline entry so that one bench run
// measures them all and the GPU sweep verifies each. The headline `cute_pipelined` (128 x 128 x
// 8, 3 stages) stays the reference; the fastest of these may replace its configuration.
//
//   name                              what it is meant to show
//   cute_pipelined_128x256x8_s3       8 x 16 values a thread: 8 + 16 fragment values (6 LDS.128)
//                                     feed 128 FFMA per k, against 8 + 8 (4 LDS.128) for 64;
//                                     one block (256 threads, up to 255 registers) per SM
//   cute_pipelined_128x256x8_s4       the same with 4 stages (3 K steps in flight instead of 2:
//                                     one block per SM has only its own pipeline to hide latency)
//   cute_pipelined_128x256x16_s3      K steps of 16: half the barriers and stage switches per
//                                     FFMA; 75,232 bytes of dynamic shared memory (opt-in)
//
// Dropped after measuring: cute_pipelined_128x256x8_s3_r8 (tiles rasterised in groups of 8
// tile-rows) ran as fast as its parent (docs/cute.md), so it no longer costs a registry entry;
// block_tile_coord still offers the order.
//
// Each configuration instantiates two kernels only -- aligned row-major A and B (and its mirror,
// column-major A and B), and the any-layout fallback -- so each entry takes every problem at
// half the compile time of the headline's four; other layout mixes run on the fallback.
//
// Measurements: docs/cute.md (rung 12, candidate configurations), docs/ladder.md (the table).
#include "12_cute_pipelined.cuh"

namespace tilegemm::kernels {

void register_cute_pipelined_variants(Registry& r) {
  using cute_pipelined::Config;
  using cute_pipelined::make_info;
  using Wide = Config</*BN=*/256, /*BK=*/8, /*STAGES=*/3, /*ALL_ORDERS=*/false>;
  using Wide4 = Config</*BN=*/256, /*BK=*/8, /*STAGES=*/4, /*ALL_ORDERS=*/false>;
  using WideDeep = Config</*BN=*/256, /*BK=*/16, /*STAGES=*/3, /*ALL_ORDERS=*/false>;
  r.push_back(
      make_info<Wide>("cute_pipelined_128x256x8_s3", 1,
                      "CuTe cp.async pipeline, 128x256x8 tiles, 8x16 per thread, 3 stages"));
  r.push_back(
      make_info<Wide4>("cute_pipelined_128x256x8_s4", 1,
                       "CuTe cp.async pipeline, 128x256x8 tiles, 8x16 per thread, 4 stages"));
  r.push_back(
      make_info<WideDeep>("cute_pipelined_128x256x16_s3", 1,
                          "CuTe cp.async pipeline, 128x256x16 tiles, 8x16 per thread, 3 stages"));
}

}  // namespace tilegemm::kernels
