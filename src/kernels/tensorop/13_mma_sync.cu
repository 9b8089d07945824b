// Rung 13: the first tensor-core rung, warp-level mma.sync (sm_80 and later).
//
// What it adds over the SIMT ladder: the multiply-adds move from FFMA on the CUDA cores to the
// tensor cores, one mma.sync.m16n8k16 (bf16, f16) or m16n8k8 (tf32) per 16 x 8 tile of C and
// k-step, fp32 accumulation in registers. Idea: each instruction does 2048 (tf32: 1024)
// multiply-adds of a warp, so the work of feeding it (shared-memory reads, copies, barriers) is
// counted per MMA instead of per FMA; the design is CUTLASS's sm80 multistage kernel.
//  - Block tile 128x128 (4 warps, 2 blocks/SM) or 128x256 (8 warps, 1 block/SM), warp tile 64x64:
//    4 x 8 mma tiles, 128 fp32 accumulators per thread, A and B fragments double-buffered across
//    k-steps (the next k-step's ldmatrix are issued before this one's MMAs).
//  - Global -> shared: STAGES-deep cp.async pipeline of 16-byte copies (`cp.async.cg`, src-size
//    zero-fill at the M, N and K edges), one commit group and one barrier per K tile. The K steps
//    whose copies all lie inside the matrix run in a loop of their own with predicate-free copies;
//    edge blocks, the K remainder and the drain run the general step.
//  - Shared memory keeps each operand's global contiguous dimension contiguous and swizzles its
//    16-byte chunks by XOR so that cp.async writes and ldmatrix reads are conflict-free
//    (mma_sync.cuh, TileLayout; docs/tensorop.md has the bank arithmetic). K-contiguous tiles
//    (A row-major, B col-major) are read with ldmatrix.x4, M/N-contiguous 16-bit tiles with
//    ldmatrix.x4.trans, M/N-contiguous tf32 tiles with 32-bit loads.
//  - tf32: fp32 in memory, each fragment register rounded with cvt.rna.tf32.f32 (round to nearest,
//    ties away from zero) before the mma.
//  - A column-major C is computed as C^T = B^T A^T, so the epilogue always writes rows: pairs of
//    consecutive columns per thread (one 8-byte or 4-byte store when C's base and ldc allow it),
//    converted to C's type with round-to-nearest-even, predicated on the M and N edges, C read
//    only when beta != 0.
//  - `_anyalign` twins copy element by element (tf32: 4-byte cp.async; bf16/f16: a load and a
//    shared store per element, issued right after a k-step's MMAs), so any leading dimension and
//    any element-aligned base pointer runs on the tensor cores.
// Dynamic shared memory: STAGES x (BM + BN) x BK x element bytes, opted in above 48 KiB
// (128x128x32 bf16 s4: 64 KiB; 128x256x32 s3: 72 KiB; tf32 128x128x16 s4: 64 KiB).
// The floor and the prediction: docs/perf-notes.md, "Rung 13"; measured numbers: bench/results.
#include <string>
#include <utility>

#include "../families.hpp"
#include "mma_sync.cuh"

#ifndef TILEGEMM_MIN_BUILT_CC
#define TILEGEMM_MIN_BUILT_CC 80
#endif

namespace tilegemm::kernels {

namespace {

template <class C>
void add_instance(Registry& r, const char* why) {
  KernelInfo k;
  k.name = "mma_sync_" + C::tag();
  k.family = "mma_sync";
  k.rung = 13;
  k.tile = C::tile_config();
  k.desc.op_class = OpClass::kMmaSync;
  k.desc.types = mma_sync::computed_types<C>();
  k.desc.accumulator = DType::kF32;
  k.desc.align_a = C::kAligned ? C::kEpc : 1;
  k.desc.align_b = C::kAligned ? C::kEpc : 1;
  k.desc.align_c = 1;  // any C: 2-element stores only where C's base and ldc allow them
  k.desc.min_cc = TILEGEMM_MIN_BUILT_CC > 80 ? TILEGEMM_MIN_BUILT_CC : 80;
  k.desc.max_cc = 0;
  k.summary = std::string("mma.sync ") + (C::kTf32 ? "m16n8k8 tf32 " : "m16n8k16 bf16/f16 ") +
              C::tag() + ", cp.async " + std::to_string(C::STAGES) + " stages, " + why;
  k.can_implement = mma_sync::can_implement<C>;
  k.launch = mma_sync::launch<C>;
  k.device_function = mma_sync::device_function<C>;
  r.push_back(std::move(k));
}

}  // namespace

void register_mma_sync(Registry& r) {
  using mma_sync::Config;
  constexpr bool kTf32 = true, k16Bit = false, kAligned = true, kAnyAlign = false;
  add_instance<Config<128, 128, 32, 64, 64, 4, k16Bit, kAligned>>(
      r, "4 warps of 64x64, 2 blocks/SM, 16-byte copies (16-byte aligned A/B, ld % 8 == 0)");
  add_instance<Config<128, 256, 32, 64, 64, 3, k16Bit, kAligned>>(
      r, "8 warps of 64x64, 1 block/SM, for a wave or more of large tiles");
  add_instance<Config<128, 128, 32, 64, 64, 4, k16Bit, kAnyAlign>>(
      r, "element copies through registers: any ld, any element-aligned base");
  add_instance<Config<128, 128, 16, 64, 64, 4, kTf32, kAligned>>(
      r, "fp32 rounded to tf32 (cvt.rna), 16-byte copies (16-byte aligned A/B, ld % 4 == 0)");
  add_instance<Config<128, 256, 16, 64, 64, 3, kTf32, kAligned>>(
      r, "tf32, 8 warps of 64x64, 1 block/SM, for a wave or more of large tiles");
  add_instance<Config<128, 128, 16, 64, 64, 4, kTf32, kAnyAlign>>(
      r, "tf32, 4-byte cp.async per element: any ld, any element-aligned base");
}

}  // namespace tilegemm::kernels
