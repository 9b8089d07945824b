// Rung 8: a multi-stage cp.async pipeline with register double-buffering of the fragments.
//
// What it adds over `warptile`: global memory goes straight to shared memory with cp.async
// (no register round trip, no thread waiting on its loads), STAGES-1 tiles ahead of the one
// being computed, and the fragments of k+1 are read from shared memory while the FMAs of k run.
// Idea: the only waits left are one barrier per K step, and by then the next tile has long landed.
//  - x-contiguous operands (A col-major, B row-major): cp.async.cg 16-byte copies; the edge
//    vector copies only its in-bounds bytes (src-size 4, 8 or 12) and zero-fills the rest.
//  - k-contiguous operands (A row-major, B col-major) must be transposed into the k-major tile, so
//    they use cp.async.ca 4-byte copies, one element each, landing at S[k][x]: a warp reads 8 k
//    (one 32-byte sector) of 4 rows, and with rows of BM+4 floats the 32 stores hit 32 banks.
//  - out-of-bounds elements (M/N/K edges) are copied with src-size 0: zeros, nothing read.
//  - `_ka` instances (Config::KA) keep a row-major A k-contiguous instead: [m][BK+4] with rows
//    permuted so one LDS.128 of a warp hits 8 bank groups, one 16-byte cp.async per 4 k, and
//    4 k of a row per LDS.128 (08_cp_async.cuh, AsyncCopyKA).
//  - one commit group per K step (empty ones past the last tile) so cp.async.wait_group STAGES-2
//    always means "the next tile has landed"; one __syncthreads per K step, placed before the
//    fragments of the next stage are read; the stage refilled at step t is the one computed at t-1.
// Dynamic shared memory: STAGES x BK x (BM + BN + 8) floats (e.g. 3 x 16 x 264 x 4 = 50688 bytes
// for 128x128x16, opted in above 48 KiB); 2 blocks per SM for 8x8 thread tiles.
//
// Measurements: docs/ladder.md (rung 8), docs/perf-notes.md (rung 8, second and third passes).
#include "08_cp_async.cuh"
#include "families.hpp"

namespace tilegemm::kernels {

namespace cp_async {
// Instantiated here, also launched by rung 9 (09_tuned.cu declares them extern).
template cudaError_t launch<Config<128, 128, 8, 64, 32, 8, 8, 3, true>>(const Problem&,
                                                                        const Schedule&,
                                                                        cudaStream_t);
template const void* device_function<Config<128, 128, 8, 64, 32, 8, 8, 3, true>>(const Problem&);
template cudaError_t launch<Config<128, 256, 8, 64, 64, 8, 16, 3, true>>(const Problem&,
                                                                         const Schedule&,
                                                                         cudaStream_t);
template const void* device_function<Config<128, 256, 8, 64, 64, 8, 16, 3, true>>(const Problem&);
}  // namespace cp_async

namespace {

template <class C>
cudaError_t launch_plain(const Problem& p, cudaStream_t stream) {
  return cp_async::launch<C>(p, cp_async::plain_schedule<C>(p), stream);
}

template <class C>
void add_instance(Registry& r, const char* why) {
  KernelInfo k;
  k.name = "cp_async_" + C::tag();
  k.family = "cp_async";
  k.rung = 8;
  k.tile = C::tile_config();
  k.desc = C::desc();
  k.summary = std::string("cp.async pipeline ") + C::tag() +
              ", register double-buffered "
              "fragments; " +
              why;
  k.can_implement = cp_async::can_implement<C>;
  k.launch = launch_plain<C>;
  k.device_function = cp_async::device_function<C>;
  r.push_back(std::move(k));
}

}  // namespace

void register_cp_async(Registry& r) {
  using cp_async::Config;
  add_instance<Config<128, 128, 8, 64, 32, 8, 8, 3, true>>(
      r, "the seed's block tile, 3 stages, 2 blocks/SM");
  add_instance<Config<128, 128, 16, 64, 32, 8, 8, 3, true>>(
      r, "half the barriers per FLOP, 50 KB of shared memory per block");
  add_instance<Config<128, 128, 8, 32, 64, 8, 8, 4, true>>(r, "4 x 2 warps of 32x64, 4 stages");
  add_instance<Config<128, 256, 8, 64, 64, 8, 16, 3, true>>(
      r, "8x16 thread tiles: fewer shared reads per FMA, 1 block/SM");
  // Second-pass candidates (docs/perf-notes.md, "rung 8, second pass", holds the predictions).
  add_instance<Config<128, 256, 8, 64, 64, 8, 16, 3, true, true>>(
      r, "row-major A kept k-contiguous in shared memory: 16-byte cp.async, 4 k per LDS.128");
  add_instance<Config<256, 128, 8, 64, 64, 8, 16, 3, true>>(
      r, "cuBLAS's tile shape: 256x128, 4 x 2 warps of 64x64, 8x16 thread tiles, 1 block/SM");
  add_instance<Config<256, 128, 8, 64, 64, 8, 16, 3, true, true>>(
      r, "256x128 with row-major A kept k-contiguous in shared memory (16-byte cp.async)");
  // Third-pass candidates, read off the SASS of the 128x256 main loop (docs/perf-notes.md,
  // "Third pass" holds the instruction counts and the predictions).
  constexpr int kLean = 1, kLeanMid = 3;
  add_instance<Config<128, 256, 16, 64, 64, 8, 16, 3, true>>(
      r, "BK = 16: half the barriers, waits and copy set-ups per FFMA, 73.5 KB opt-in smem");
  add_instance<Config<128, 256, 8, 64, 64, 8, 16, 4, true>>(
      r, "4 stages: one more tile in flight, 49 KB opt-in smem");
  add_instance<Config<128, 256, 8, 64, 64, 8, 16, 3, true, false, kLean>>(
      r, "interior tiles copied without predicates or fallback addresses");
  add_instance<Config<128, 256, 8, 64, 64, 8, 16, 3, true, false, kLeanMid>>(
      r, "lean copies issued halfway through the K step, away from the barrier");
  add_instance<Config<128, 256, 16, 64, 64, 8, 16, 3, true, false, kLeanMid>>(
      r, "BK = 16 with lean copies issued mid-step");
}

}  // namespace tilegemm::kernels
