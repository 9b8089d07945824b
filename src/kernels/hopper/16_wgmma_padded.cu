// Rung 16: odd leading dimensions and misaligned base pointers on the wgmma rungs (sm_90a).
//
// A tensor map needs a 16-byte aligned base and a pitch of a multiple of 16 bytes; an operand with
// an odd leading dimension (bf16 ld not a multiple of 8, tf32 not of 4) or a base off 16 bytes
// cannot be described, and until this rung such problems ran on rung 13's `_anyalign` mma.sync
// instance at a fraction of the tensor cores. Here the launcher first copies each such operand
// into the library's stream workspace with its pitch rounded up to 128 bytes (pad_copy.cuh: both
// operands in one launch of 16-byte pieces, the tail of each line zero-filled), then runs rung
// 15's kernel on the copy, launched as the copy's programmatic dependent so that its launch and
// set-up overlap the copy's tail. The copy is inside the timed call. Its cost: each copied
// operand read and written once, one extra launch (docs/perf-notes.md, "Rung 16" and "One copy
// launch, staged stores in pieces", has the measured split).
// C needs no copy: the epilogue stores to any alignment (rung 15's TMA store where exact, its
// staged stores in the widest pieces C allows otherwise). Operands a tensor map can describe are
// left in place.
// The same copy step takes the one layout mix the tf32 wgmma kernel refuses, A and B both
// M/N-major (A column-major, B row-major): B is copied transposed, K-major, and the kernel reads
// its M-major A through registers. cuBLAS is slow in that mix too (docs/perf-notes.md, rung 16).
// Besides rung 15's three tiles, rung 18's one-consumer 64x64 tile runs on the copies too (small M
// or N with an odd pitch: half the zero rows of the 128-row tiles).
// A narrow operand that runs along its narrow side (A column-major with M under one M/N-major box
// of 128 bytes, B row-major with N so), where the other operand needs no copy, is copied
// transposed too, K-major: a tensor map fills the rest of each such box with zeros, which costs
// the copy engine time (as rows past the extent of a K-major box do), while K-major lines are
// read by short boxes of the operand's lines only (wgmma_tma.cuh's launcher; docs/perf-notes.md,
// "Narrow products by grid", has what it cost). The operand is small, so its copy is.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "../../core/device_runtime.hpp"
#include "../families.hpp"
#include "../pad_copy.cuh"
#include "wgmma_tma.cuh"

namespace tilegemm::kernels {

namespace {

// dst line r (of `rows`) is column r of src: dst[r * dst_pitch + c] = src[c * src_pitch + r] for
// c < cols, elements of type T (2 or 4 bytes). 32 x 32 tiles through shared memory (a padded row
// keeps the column reads free of bank conflicts), so both the loads and the stores are coalesced
// lines. Each block then lets a dependent launch start, as the line copy does (pad_copy.cuh).
template <class T>
__global__ void __launch_bounds__(256)
    transpose_kernel(const T* __restrict__ src, std::int64_t src_pitch, T* __restrict__ dst,
                     std::int64_t dst_pitch, std::int64_t rows, std::int64_t cols) {
  __shared__ T tile[32][33];
  const int tx = static_cast<int>(threadIdx.x) % 32;
  const int ty = static_cast<int>(threadIdx.x) / 32;  // 0..7
  const std::int64_t tiles_r = (rows + 31) / 32;
  const std::int64_t tiles = tiles_r * ((cols + 31) / 32);
  for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const std::int64_t r0 = (t % tiles_r) * 32;  // dst lines = src columns
    const std::int64_t c0 = (t / tiles_r) * 32;  // dst columns = src lines
#pragma unroll
    for (int j = 0; j < 32; j += 8) {
      const std::int64_t c = c0 + ty + j;
      if (c < cols && r0 + tx < rows) tile[ty + j][tx] = src[c * src_pitch + r0 + tx];
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < 32; j += 8) {
      const std::int64_t r = r0 + ty + j;
      if (r < rows && c0 + tx < cols) dst[r * dst_pitch + c0 + tx] = tile[tx][ty + j];
    }
    __syncthreads();  // the tile is free for the next one
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

// A copy where no tensor map describes the operand, and where one does but its pitch is an odd
// multiple of 16 bytes (views::off_sector_pitch: `auto` sends those here only for problems large
// enough that the copy pays).
Copy plan_copy(DType dtype, const void* data, hopper::OperandGeometry g, std::int64_t ld) {
  if (hopper::tensor_map_describable(dtype, data, g.rows, g.cols, ld) &&
      !views::off_sector_pitch(ConstMatrixRef{data, Layout::kRowMajor, ld, dtype})) {
    return Copy{};
  }
  return sized_copy(dtype, g.rows, g.cols, false);
}

// Whether an M/N-major operand of `lines` lines along M or N fills less than one 128-byte box
// of them (64 16-bit elements, 32 tf32).
bool under_one_box(const Problem& q, std::int64_t lines) {
  return lines < 128 / static_cast<std::int64_t>(dtype_bytes(q.a.dtype));
}

// The copies of the oriented problem: each operand no tensor map reads well at its pitch, by
// lines; for tf32 with A and B both M/N-major, B transposed (N lines of K); and an M/N-major
// operand under one box, transposed (M or N lines of K) in place of its own line copy, where the
// other operand needs no line copy: beside one, the transposed copy would be a second launch,
// which cost more than the short boxes saved up to K = 8192 (docs/perf-notes.md, "Narrow
// products by grid").
struct Copies {
  Copy a, b;
};
Copies plan_copies(const Problem& q) {
  const hopper::OperandGeometry ga = hopper::a_geometry(q);
  const hopper::OperandGeometry gb = hopper::b_geometry(q);
  const Copy lines_a = plan_copy(q.a.dtype, q.a.data, ga, q.a.ld);
  const Copy lines_b = plan_copy(q.b.dtype, q.b.data, gb, q.b.ld);
  Copies c{lines_a, lines_b};
  const bool a_mn = !views::a_k_contiguous(q);
  const bool b_mn = !views::b_k_contiguous(q);
  if (a_mn && under_one_box(q, q.m) && !lines_b.needed) {
    c.a = sized_copy(q.a.dtype, ga.cols, ga.rows, true);
  }
  if (b_mn && ((under_one_box(q, q.n) && !lines_a.needed) || (q.a.dtype == DType::kTF32 && a_mn))) {
    c.b = sized_copy(q.b.dtype, gb.cols, gb.rows, true);
  }
  return c;
}

template <class Cfg>
bool can_implement_padded(const Problem& problem) {
  const Problem q = views::row_major_c(problem);
  const auto [ca, cb] = plan_copies(q);
  if (!ca.needed && !cb.needed) return false;  // rung 15 takes it as it is
  // The copies must fit an int64 index and a single workspace; the kernel must take the rest.
  constexpr std::size_t kMaxCopy = std::size_t{1} << 40;
  if (ca.bytes + cb.bytes > kMaxCopy) return false;
  return hopper::can_implement<Cfg>(on_copies(q, ca, cb));
}

// A transposed copy (rung 16 alone makes them); the line copies go through copy_operands.
cudaError_t copy_transposed(DType dtype, const Copy& c, const void* src, std::int64_t ld, void* dst,
                            cudaStream_t stream) {
  const std::int64_t tiles = ((c.rows + 31) / 32) * ((c.cols + 31) / 32);
  const auto blocks =
      static_cast<unsigned>(std::min<std::int64_t>(tiles, 16LL * runtime::sm_count()));
  if (dtype_bytes(dtype) == 4) {
    transpose_kernel<<<blocks, 256, 0, stream>>>(static_cast<const std::uint32_t*>(src), ld,
                                                 static_cast<std::uint32_t*>(dst), c.pitch, c.rows,
                                                 c.cols);
  } else {
    transpose_kernel<<<blocks, 256, 0, stream>>>(static_cast<const std::uint16_t*>(src), ld,
                                                 static_cast<std::uint16_t*>(dst), c.pitch, c.rows,
                                                 c.cols);
  }
  return cudaGetLastError();
}

template <class Cfg>
cudaError_t launch_padded(const Problem& problem, cudaStream_t stream) {
  const Problem q = views::row_major_c(problem);
  const auto [ca, cb] = plan_copies(q);
  // One workspace for the copies (each a multiple of 256 bytes) and, behind them, a split-K
  // launch's partial tiles.
  runtime::OperandWorkspace ws;
  if (cudaError_t err = runtime::operand_workspace(
          ca.bytes, cb.bytes, hopper::split_k_bytes<Cfg>(on_copies(q, ca, cb)), stream, &ws);
      err != cudaSuccess) {
    return err;
  }
  unsigned char* const a_copy = ws.a;
  unsigned char* const b_copy = ws.b;
  float* const partial = reinterpret_cast<float*>(ws.tail);
  if (ca.transposed) {
    if (cudaError_t err = copy_transposed(q.a.dtype, ca, q.a.data, q.a.ld, a_copy, stream);
        err != cudaSuccess) {
      return err;
    }
  }
  if (cb.transposed) {
    if (cudaError_t err = copy_transposed(q.b.dtype, cb, q.b.data, q.b.ld, b_copy, stream);
        err != cudaSuccess) {
      return err;
    }
  }
  // The line copies in one launch, the last before the GEMM: the GEMM is launched as its
  // programmatic dependent (its launch and set-up overlap the copy's tail), as it is after a
  // transposed copy alone.
  if (cudaError_t err = copy_operands(q.a.dtype, q.a.data, q.a.ld, a_copy, ca, q.b.data, q.b.ld,
                                      b_copy, cb, stream);
      err != cudaSuccess) {
    return err;
  }
  const bool after_copy = ca.needed || cb.needed;
  // The copies keep the problem's row-major C, so the launcher runs it as it is.
  return hopper::launch_with<Cfg>(on_copies(q, ca, cb, a_copy, b_copy), stream, partial,
                                  after_copy);
}

template <class Cfg>
KernelInfo describe_padded(const char* operands) {
  KernelInfo k = hopper::describe<Cfg>(
      "wgmma_padded", 16,
      std::string("operands no tensor map can describe copied to a 128-byte pitch first, ") +
          operands);
  k.name += "_pad";
  k.desc.align_a = 1;  // any leading dimension and base: that is what the copy is for
  k.desc.align_b = 1;
  k.can_implement = can_implement_padded<Cfg>;
  k.launch = launch_padded<Cfg>;  // device_function stays rung 15's: the same kernel runs
  return k;
}

}  // namespace

void register_wgmma_padded(Registry& r) {
  using hopper::Config;
  constexpr bool kTf32 = true, k16Bit = false, kTmaStore = true;
  const char* k16 = "every A/B layout mix";
  const char* kK = "every A/B layout mix (A column-major with B row-major: B copied transposed)";
  r.push_back(describe_padded<Config<256, 4, k16Bit, 1, kTmaStore>>(k16));
  r.push_back(describe_padded<Config<128, 6, k16Bit, 1, kTmaStore>>(k16));
  r.push_back(describe_padded<Config<64, 8, k16Bit, 1, kTmaStore>>(k16));
  r.push_back(describe_padded<Config<256, 4, kTf32, 1, kTmaStore>>(kK));
  r.push_back(describe_padded<Config<128, 6, kTf32, 1, kTmaStore>>(kK));
  r.push_back(describe_padded<Config<64, 8, kTf32, 1, kTmaStore>>(kK));
  // Rung 18's one-consumer 64x64 tile on the copies: small M or N with an odd pitch.
  constexpr bool kRegEpilogue = false;
  constexpr int kOneConsumer = 1;
  r.push_back(describe_padded<Config<64, 13, k16Bit, 1, kRegEpilogue, kOneConsumer>>(k16));
  r.push_back(describe_padded<Config<64, 13, kTf32, 1, kRegEpilogue, kOneConsumer>>(kK));
}

}  // namespace tilegemm::kernels
