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
// tile-rows) ran as fast as its parent (H200, 4096^3: 3.347 ms vs 3.350 ms; 8192^3: 26.39 ms vs
// 26.38 ms), so it no longer costs a registry entry; block_tile_coord still offers the order.
//
// Each configuration instantiates two kernels only -- aligned row-major A and B (and its mirror,
// column-major A and B), and the any-layout fallback -- so each entry takes every problem at
// half the compile time of the headline's four; other layout mixes run on the fallback.
//
// Measured (NVIDIA H200, 2026-11-22, final run at commit de31984, row-major A, B, C,
// bench/results/NVIDIA-H200_2026-11-22_cute.json), with the unconditional fragment fetch,
// ratio to cuBLAS SGEMM at 4096^3 / 8192^3 / 1024^3: 128x256x8_s3 0.838 / 0.853 / 0.278,
// 128x256x8_s4 0.840 / 0.853 / 0.278, 128x256x16_s3 0.851 / 0.866 / 0.278 (43.04, 43.13, 43.67
// TFLOP/s at 4096^3). Before the change (c297d83 run) 0.798 / 0.815 / 0.831 at 4096^3; predicted
// 0.85-0.90 for 128x256x8_s3: up by 5%, short of the range. None passes the 128x128 headline
// (0.855). Column-major B runs the any-layout fallback: 0.59-0.60 at 4096^3
// (..._ladder-colb.json). ncu at 4096^3 (c4e8415 run): FMA pipe 67.9-69.0%, cuBLAS 79.4%.
// Command: tilegemm bench --kernels 'cute_*' --shape 1024x1024x1024 --shape 4095x4095x4095
//   --shape 4096x4096x4096 --shape 8192x8192x8192 --format json
//   --output NVIDIA-H200_2026-11-22_cute.json
#include "12_cute_pipelined.cuh"

namespace tilegemm::kernels {

void register_cute_pipelined_variants(Registry& r) {
  using cute_pipelined::Config;
  using cute_pipelined::make_info;
  using Wide = Config</*BN=*/256, /*BK=*/8, /*STAGES=*/3, /*ALL_ORDERS=*/false>;
  using Wide4 = Config</*BN=*/256, /*BK=*/8, /*STAGES=*/4, /*ALL_ORDERS=*/false>;
  using WideDeep = Config</*BN=*/256, /*BK=*/16, /*STAGES=*/3, /*ALL_ORDERS=*/false>;
  r.push_back(make_info<Wide>("cute_pipelined_128x256x8_s3", 1,
                              "CuTe cp.async pipeline, 128x256x8 tiles, 8x16 per thread, 3 stages"));
  r.push_back(make_info<Wide4>("cute_pipelined_128x256x8_s4", 1,
                               "CuTe cp.async pipeline, 128x256x8 tiles, 8x16 per thread, 4 stages"));
  r.push_back(make_info<WideDeep>(
      "cute_pipelined_128x256x16_s3", 1,
      "CuTe cp.async pipeline, 128x256x16 tiles, 8x16 per thread, 3 stages"));
}

}  // namespace tilegemm::kernels
