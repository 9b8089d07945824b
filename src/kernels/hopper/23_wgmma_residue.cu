// Rung 23: a 16-bit operand at any pitch read in place by the tensor-map copies (sm_90a).
//
// No tensor map describes an operand whose pitch is not a multiple of 16 bytes (bf16 ld not a
// multiple of 8): rung 16 copies it first (a read and a write of the whole operand, and a second
// launch), rung 20 realigns it with the producer's threads (issue-bound). Here the copy engine
// reads it after all: line r of the operand lies in class r % 8, and a class's lines lie 8 pitches
// apart, a multiple of 16 bytes, so one tensor map per class describes them, starting at the
// 16-byte boundary at or before its first line. The box's inner start stays 16-byte aligned (the
// copy engine faults on any other); it carries each line's raw span instead, the 64 elements of
// the k-tile shifted by the class's offset, with 8 more elements to cover the shift, unswizzled.
// Eight boxes per stage instead of one. The consumer builds its A fragments in registers from
// those spans: a K-major pair from two aligned words and a byte permute, an M-major pair from two
// 16-bit loads, and runs wgmma with A from registers (Config::kResidueA in wgmma_tma.cuh).
//
// Only A can come from registers, so the operand no map describes goes to A: the launcher runs the
// product mirrored (C^T = B^T A^T, C written transposed) where that puts it there. Where both A
// and B are such operands, the larger goes to A and B is copied first (rung 16's copy, of the
// smaller operand only).
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "../../core/device_runtime.hpp"
#include "../families.hpp"
#include "../pad_copy.cuh"
#include "wgmma_tma.cuh"

namespace tilegemm::kernels {

namespace {

// The copy of the plan's B, where no tensor map describes it.
Copy b_copy_of(const Problem& q) {
  if (hopper::b_map_describable(q)) return Copy{};
  const hopper::OperandGeometry g = hopper::b_geometry(q);
  return sized_copy(q.b.dtype, g.rows, g.cols, false);
}

template <class Cfg>
bool can_implement_residue(const Problem& problem) {
  hopper::Plan pl = hopper::plan<Cfg>(problem);
  if (pl.k.fn == nullptr) return false;
  const Copy cb = b_copy_of(pl.q);
  constexpr std::size_t kMaxCopy = std::size_t{1} << 40;
  if (cb.bytes > kMaxCopy) return false;
  pl.q = on_copies(pl.q, Copy{}, cb);
  return hopper::can_implement_planned<Cfg>(pl);
}

template <class Cfg>
cudaError_t launch_residue(const Problem& problem, cudaStream_t stream) {
  hopper::Plan pl = hopper::plan<Cfg>(problem);
  if (pl.k.fn == nullptr) return cudaErrorInvalidValue;
  const Copy cb = b_copy_of(pl.q);
  if (!cb.needed) return hopper::launch_planned<Cfg>(pl, stream, nullptr);
  // B's copy and, behind it, a split-K launch's partial tiles, in one workspace; the GEMM is the
  // copy's programmatic dependent.
  runtime::OperandWorkspace ws;
  if (cudaError_t err = runtime::operand_workspace(
          0, cb.bytes, hopper::split_k_bytes_of<Cfg>(on_copies(pl.q, Copy{}, cb)), stream, &ws);
      err != cudaSuccess) {
    return err;
  }
  if (cudaError_t err = copy_operands(pl.q.b.dtype, nullptr, 0, nullptr, Copy{}, pl.q.b.data,
                                      pl.q.b.ld, ws.b, cb, stream);
      err != cudaSuccess) {
    return err;
  }
  pl.q = on_copies(pl.q, Copy{}, cb, nullptr, ws.b);
  return hopper::launch_planned<Cfg>(pl, stream, reinterpret_cast<float*>(ws.tail), true);
}

template <class Cfg>
KernelInfo describe_residue() {
  KernelInfo k = hopper::describe<Cfg>(
      "wgmma_residue", 23,
      "A at any pitch through eight residue-class tensor maps into register fragments, the "
      "product mirrored where that puts the operand no map describes in A (B copied where both "
      "are such), every A/B layout mix");
  k.desc.align_b = 1;  // copied where no map describes it
  k.can_implement = can_implement_residue<Cfg>;
  k.launch = launch_residue<Cfg>;
  return k;
}

}  // namespace

void register_wgmma_residue(Registry& r) {
  using hopper::Config;
  constexpr bool k16Bit = false, kRegEpilogue = false, kNoRealign = false, kNoSplit = false;
  constexpr bool kResidue = true;
  constexpr int kOneConsumer = 1, kNoPromote = 0;
  r.push_back(describe_residue<Config<64, 11, k16Bit, 1, kRegEpilogue, kOneConsumer, kNoRealign,
                                      kNoPromote, kNoSplit, kResidue>>());
  r.push_back(describe_residue<Config<128, 8, k16Bit, 1, kRegEpilogue, kOneConsumer, kNoRealign,
                                      kNoPromote, kNoSplit, kResidue>>());
}

}  // namespace tilegemm::kernels
