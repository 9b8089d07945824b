// The kernel template of rung 13 (`mma_sync`): warp-level tensor-core MMA (mma.sync) fed by a
// multistage cp.async pipeline and ldmatrix, the way CUTLASS's sm80 multistage kernels work.
// 13_mma_sync.cu says what the rung adds and registers the instances; docs/tensorop.md has the
// design with the bank arithmetic. This header holds the index maps (shared-memory layout and
// swizzle, copy plans, fragment addresses), the kernel and its host launcher.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "../../core/device_runtime.hpp"
#include "../common.cuh"
#include "../tensor_common.cuh"

namespace tilegemm::kernels::mma_sync {

// ---- Element types -----------------------------------------------------------------------------

// A/B element type of one instantiation: its storage size and the mma.sync it issues. Each mma
// computes a 16 x 8 tile of C over kInstK of K from an A fragment of 4 registers and a B
// fragment of 2 registers per thread (m16n8k16 for 16-bit types, m16n8k8 for tf32).
struct Bf16Op {
  static constexpr bool kTf32 = false;
  static constexpr DType kDType = DType::kBF16;
  __device__ __forceinline__ static void mma(float (&d)[4], const std::uint32_t (&a)[4],
                                             const std::uint32_t (&b)[2]) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
};

struct F16Op {
  static constexpr bool kTf32 = false;
  static constexpr DType kDType = DType::kF16;
  __device__ __forceinline__ static void mma(float (&d)[4], const std::uint32_t (&a)[4],
                                             const std::uint32_t (&b)[2]) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
};

// The A/B -> C combinations of the 16-bit instances: bf16 or f16 in, the same or f32 out.
inline std::vector<GemmTypes> sixteen_bit_types() {
  return {GemmTypes{DType::kBF16, DType::kBF16}, GemmTypes{DType::kBF16, DType::kF32},
          GemmTypes{DType::kF16, DType::kF16}, GemmTypes{DType::kF16, DType::kF32}};
}

// Calls f(Type<Op>, Type<CT>) with the mma.sync operation of a 16-bit problem's A/B type (Bf16Op
// or F16Op) and C's storage type (the A/B type or float).
template <class F>
decltype(auto) with_16bit_op(GemmTypes t, F&& f) {
  if (t.ab == DType::kBF16) {
    return t.c == DType::kF32 ? f(Type<Bf16Op>{}, Type<float>{})
                              : f(Type<Bf16Op>{}, Type<__nv_bfloat16>{});
  }
  return t.c == DType::kF32 ? f(Type<F16Op>{}, Type<float>{}) : f(Type<F16Op>{}, Type<__half>{});
}

// fp32 storage, tf32 math. The fragment registers hold fp32 bit patterns; to_tf32() rounds each
// one before the mma (the instruction itself would ignore the 13 low mantissa bits, which is
// truncation toward zero).
struct Tf32Op {
  static constexpr bool kTf32 = true;
  static constexpr DType kDType = DType::kTF32;
  __device__ __forceinline__ static void mma(float (&d)[4], const std::uint32_t (&a)[4],
                                             const std::uint32_t (&b)[2]) {
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
};

// fp32 -> tf32, round to nearest with ties away from zero (cvt.rna: the mode PTX offers for tf32
// on sm_80; the result keeps 10 explicit mantissa bits, the low 13 are zero). NaN stays NaN, and
// a value that rounds past the largest finite tf32 becomes infinity, as IEEE rounding does.
__device__ __forceinline__ std::uint32_t to_tf32(std::uint32_t fp32_bits) {
  std::uint32_t out;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(out) : "f"(__uint_as_float(fp32_bits)));
  return out;
}

// One m16n8k8 step of fp32 fragments (their bit patterns, MT x 4 of A and NT x 2 of B) as three
// tf32 products added into `part`: each value x split as big = tf32(x), small = tf32(x - big) in
// integer steps (split_tf32_finite), or, where any value of the step is an Inf, a NaN or rounds
// past FLT_MAX, by the guarded split_tf32 (a uniform test, one branch a step), then
// a b ~ small(a) big(b) + big(a) small(b) + big(a) big(b), the small terms first. The tensor cores
// truncate their sums, so callers add `part` into rounding fp32 accumulators every few steps.
template <int MT, int NT>
__device__ __forceinline__ void mma_3xtf32_step(float (&part)[MT][NT][4],
                                                const std::uint32_t (&a_raw)[MT][4],
                                                const std::uint32_t (&b_raw)[NT][2]) {
  std::uint32_t a_big[MT][4], a_small[MT][4], b_big[NT][2], b_small[NT][2];
  unsigned magnitude = 0;
  const auto split = [&](std::uint32_t x, std::uint32_t& big, std::uint32_t& small) {
    const float2 s = split_tf32_finite(__uint_as_float(x), magnitude);
    big = __float_as_uint(s.x);
    small = __float_as_uint(s.y);
  };
  const auto guarded = [](std::uint32_t x, std::uint32_t& big, std::uint32_t& small) {
    const float2 s = split_tf32(__uint_as_float(x));
    big = __float_as_uint(s.x);
    small = __float_as_uint(s.y);
  };
  // Every fragment value of the step, with the registers its parts go to.
  const auto each_value = [&](auto&& f) {
#pragma unroll
    for (int i = 0; i < MT; ++i) {
#pragma unroll
      for (int r = 0; r < 4; ++r) f(a_raw[i][r], a_big[i][r], a_small[i][r]);
    }
#pragma unroll
    for (int j = 0; j < NT; ++j) {
#pragma unroll
      for (int r = 0; r < 2; ++r) f(b_raw[j][r], b_big[j][r], b_small[j][r]);
    }
  };
  each_value(split);
  if (magnitude >= kTf32FastLimit) each_value(guarded);  // an Inf, a NaN or a rounding past FLT_MAX
#pragma unroll
  for (int i = 0; i < MT; ++i) {
#pragma unroll
    for (int j = 0; j < NT; ++j) {
      Tf32Op::mma(part[i][j], a_small[i], b_big[j]);
      Tf32Op::mma(part[i][j], a_big[i], b_small[j]);
      Tf32Op::mma(part[i][j], a_big[i], b_big[j]);
    }
  }
}

// ---- PTX wrappers ------------------------------------------------------------------------------

// Four 8x8 matrices of 16-bit elements; lanes 8j..8j+7 give the 8 row addresses (16 bytes each)
// of matrix j, and register j of lane l receives elements (l / 4, 2 (l % 4) + {0, 1}) of matrix j
// (.trans: elements (2 (l % 4) + {0, 1}, l / 4), the matrix transposed).
__device__ __forceinline__ void ldsm_x4(std::uint32_t (&r)[4], std::uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldsm_x4_trans(std::uint32_t (&r)[4], std::uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
// ldmatrix x4 from a stage held K-contiguous (ldsm_x4) or as k-lines of an M- or N-contiguous
// operand (ldsm_x4_trans): the same fragment registers either way.
template <bool K_CONTIG>
__device__ __forceinline__ void ldsm_x4_of(std::uint32_t (&r)[4], std::uint32_t addr) {
  if constexpr (K_CONTIG) {
    ldsm_x4(r, addr);
  } else {
    ldsm_x4_trans(r, addr);
  }
}
// Hides a pointer's value from the optimizer (no instruction): the loads that follow add their
// offsets to the pointer as it is. Without it the compiler folded a base offset into every load's
// address (rung 25: a 64-bit multiply-add and two constant loads per element) or formed every
// address of a stage ahead of its loads (rung 27: a 64-bit register each while they are in
// flight).
template <class T>
__device__ __forceinline__ void opaque(const T*& p) {
  asm("" : "+l"(p));
}
__device__ __forceinline__ std::uint32_t lds32(std::uint32_t addr) {
  std::uint32_t v;
  asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(addr));
  return v;
}

// 16-byte copy, global -> shared, L1 bypassed, the next 128 bytes prefetched into L2. The same
// with a byte count and zero-fill, and the 4-byte element copy: tensor_common.cuh; commit and wait:
// async_copy.cuh.
__device__ __forceinline__ void cp_async_16(std::uint32_t dst, const void* src) {
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(dst), "l"(src)
               : "memory");
}

// ---- Shared-memory layout of one operand tile --------------------------------------------------

/// One operand's tile in a pipeline stage. It keeps the global contiguous dimension contiguous
/// (cp.async copies 16 bytes as they are): a K-contiguous tile (A row-major, B col-major) is X
/// lines of BK elements, an X-contiguous tile (A col-major, B row-major) is BK lines of X elements
/// (X = BM for A, BN for B). A line is kCpl 16-byte chunks; chunk c of line r is stored at
/// position c ^ swz(r) of that line, so that every 8 chunks a warp phase reads or writes together
/// land in the 8 different 16-byte bank groups of a 128-byte bank row (32 banks x 4 bytes):
///  - K-contiguous, read by ldmatrix (8 consecutive lines, one chunk each): with lines of 4 chunks
///    (64 bytes) two lines share a bank row; swz(r) = (r >> 1) & 3 gives the 4 line pairs of 8
///    consecutive lines 4 different chunk positions within their half: 8 distinct groups. With 8
///    or more chunks per line, swz(r) = r & 7. (2 chunks: (r >> 2) & 1.)
///  - X-contiguous 16-bit, read by ldmatrix.trans (8 consecutive lines, the same chunk):
///    swz(r) = r & 7, 8 distinct groups (lines are a multiple of 128 bytes long).
///  - X-contiguous tf32, read by 32-bit loads (lanes: 4 consecutive lines t, 8 consecutive
///    elements = 2 chunks): swz(r) = 2 (r & 3) moves the chunk pair of line t to groups
///    {2 (j ^ t), 2 (j ^ t) + 1}: 4 lines x 2 groups x 4 words = 32 banks.
///  - cp.async writes: 8 consecutive threads write 8 consecutive chunks of a bank row (one line,
///    or two 64-byte lines with the same swz), which the XOR permutes: conflict-free.
template <int X, int BK, int ES, bool K_CONTIG>
struct TileLayout {
  static constexpr int kLines = K_CONTIG ? X : BK;
  static constexpr int kLineElems = K_CONTIG ? BK : X;
  static constexpr int kEpc = 16 / ES;  // elements per 16-byte chunk
  static constexpr int kCpl = kLineElems / kEpc;
  static constexpr int kLineBytes = kLineElems * ES;
  static constexpr int kBytes = kLines * kLineBytes;
  // swz(r + kSwzPeriod) == swz(r)
  static constexpr int kSwzPeriod = (!K_CONTIG && ES == 4) ? 4 : 8;
  static_assert(kLineElems % kEpc == 0, "lines of whole 16-byte chunks");
  static_assert(kCpl == 2 || kCpl == 4 || kCpl % 8 == 0, "the swizzle needs 2, 4 or 8k chunks");
  static_assert(K_CONTIG || kCpl % 8 == 0, "X-contiguous lines must span whole bank rows");

  __host__ __device__ static constexpr int swz(int line) {
    if constexpr (!K_CONTIG) {
      return ES == 2 ? (line & 7) : ((line & 3) << 1);
    } else if constexpr (kCpl >= 8) {
      return line & 7;
    } else if constexpr (kCpl == 4) {
      return (line >> 1) & 3;
    } else {
      return (line >> 2) & 1;
    }
  }
  // Byte offset, within the tile, of chunk `chunk` of line `line`.
  __host__ __device__ static constexpr int chunk_offset(int line, int chunk) {
    return line * kLineBytes + ((chunk ^ swz(line)) << 4);
  }
  // Byte offset of element `e` of line `line`.
  __host__ __device__ static constexpr int elem_offset(int line, int e) {
    return chunk_offset(line, e / kEpc) + (e % kEpc) * ES;
  }
};

// ---- Global -> shared copies -------------------------------------------------------------------

// Edges. A copy reads element `e` of line `line` of the tile only when line < line_limit and
// e < elem_limit; every other element of the stage is written as zero. For a K-contiguous tile
// (line_limit, elem_limit) = (rows or columns left in the matrix, K left from the tile's first k),
// for an X-contiguous one the other way round. `src` points at element (0, 0) of the tile; line r
// starts `ld` elements after line r-1.

/// 16-byte cp.async per chunk (needs a 16-byte aligned base and ld a multiple of a chunk). Thread
/// t copies chunks t, t + THREADS, ...: always chunk c = t % kCpl of lines t / kCpl + i kLpp.
/// Stateless: the kernel keeps one pointer per operand, `src` = the thread's first chunk of the
/// next tile (thread_offset() past the tile's origin); the rest is recomputed from tid and ld,
/// which keeps the main loop's live registers for the accumulators and fragments.
template <class L, int THREADS, int ES>
struct ChunkCopy {
  static constexpr int kChunks = L::kLines * L::kCpl;
  static_assert(kChunks % THREADS == 0 && THREADS % L::kCpl == 0,
                "the tile's chunks split evenly, a thread keeps one chunk column");
  static constexpr int kPasses = kChunks / THREADS;
  static constexpr int kLpp = THREADS / L::kCpl;  // lines per pass
  static constexpr bool kSameSwz = kLpp % L::kSwzPeriod == 0;

  // Bytes from the tile's origin to the thread's first chunk.
  __device__ __forceinline__ static std::int64_t thread_offset(std::int64_t ld, int tid) {
    return (static_cast<std::int64_t>(tid / L::kCpl) * ld + (tid % L::kCpl) * L::kEpc) * ES;
  }
  // Byte offset in the tile of the thread's chunk of pass i.
  __device__ __forceinline__ static int dst(int tid, int i) {
    const int line0 = tid / L::kCpl;
    const int chunk = tid % L::kCpl;
    return kSameSwz ? L::chunk_offset(line0, chunk) + i * kLpp * L::kLineBytes
                    : L::chunk_offset(line0 + i * kLpp, chunk);
  }

  // FULL: the whole tile lies inside the matrix, no predicates.
  template <bool FULL>
  __device__ __forceinline__ static void issue(int tid, std::int64_t ld, std::uint32_t stage,
                                               char* /*stage_ptr*/, const char* src,
                                               int line_limit, int elem_limit,
                                               const void* fallback) {
    const std::int64_t pass_stride = static_cast<std::int64_t>(kLpp) * ld * ES;
    if constexpr (FULL) {
      (void)line_limit;
      (void)elem_limit;
      (void)fallback;
#pragma unroll
      for (int i = 0; i < kPasses; ++i) cp_async_16(stage + dst(tid, i), src + i * pass_stride);
    } else {
      const int line0 = tid / L::kCpl;
      const int elems = min(max(elem_limit - (tid % L::kCpl) * L::kEpc, 0), L::kEpc);
#pragma unroll
      for (int i = 0; i < kPasses; ++i) {
        const int bytes = line0 + i * kLpp < line_limit ? elems * ES : 0;
        cp_async_16_zfill(stage + dst(tid, i), bytes > 0 ? src + i * pass_stride : fallback,
                          bytes);
      }
    }
  }
};

/// Element-wise copy for any alignment (the `_anyalign` instances). Thread t copies elements
/// t, t + THREADS, ... of the tile in line order (consecutive threads, consecutive addresses).
/// tf32 (4 bytes): cp.async of 4 bytes per element, asynchronous like ChunkCopy. 16-bit types:
/// cp.async has no 2-byte form, so each element goes through a register (a synchronous load and
/// a shared store, kBatch loads in flight at a time); the kernel issues these right after the
/// MMAs of a k-step (B's after the first, A's after the last, kSyncCopy in the kernel), so the
/// tensor cores work through those MMAs while the warp waits for its loads.
template <class L, int THREADS, int ES>
struct ElemCopy {
  static constexpr int kElems = L::kLines * L::kLineElems;
  static_assert(kElems % THREADS == 0, "the tile's elements split evenly among the threads");
  static constexpr int kPasses = kElems / THREADS;
  // 16-bit: 16 loads in flight per batch, the most the 64x64 warp tile's registers leave room
  // for without spilling.
  static constexpr int kBatch = ES == 4 ? 8 : 16;
  static_assert(kPasses % kBatch == 0, "whole batches");

  // The kernel's pointer is the tile's origin itself.
  __device__ __forceinline__ static std::int64_t thread_offset(std::int64_t, int) { return 0; }

  // The batch loop is not unrolled: each batch's addresses are computed where they are used,
  // instead of kPasses 64-bit offsets hoisted out of the main loop into registers.
  template <bool FULL>
  __device__ __forceinline__ static void issue(int tid, std::int64_t ld, std::uint32_t stage,
                                               char* stage_ptr, const char* src, int line_limit,
                                               int elem_limit, const void* fallback) {
#pragma unroll 1
    for (int b = 0; b < kPasses; b += kBatch) {
      if constexpr (ES == 4) {
        (void)stage_ptr;
#pragma unroll
        for (int j = 0; j < kBatch; ++j) {
          const int e = tid + (b + j) * THREADS;
          const int line = e / L::kLineElems;
          const int pos = e % L::kLineElems;
          const bool in = FULL || (line < line_limit && pos < elem_limit);
          const char* g = src + (static_cast<std::int64_t>(line) * ld + pos) * ES;
          cp_async_4_zfill(stage + L::elem_offset(line, pos), in ? g : fallback, in ? 4 : 0);
        }
      } else {
        // Thread t keeps element pos = t % kLineElems of lines t / kLineElems + i kLpp: one
        // pointer stepped by kLpp lines, so each load needs one add and no hoisted offset.
        static_assert(THREADS % L::kLineElems == 0, "a thread keeps one position along its lines");
        constexpr int kLpp = THREADS / L::kLineElems;
        (void)stage;
        (void)fallback;
        const int line0 = tid / L::kLineElems + b * kLpp;
        const int pos = tid % L::kLineElems;
        const std::int64_t stride = static_cast<std::int64_t>(kLpp) * ld * ES;
        const char* g = src + (static_cast<std::int64_t>(line0) * ld + pos) * ES;
        const bool pos_in = FULL || pos < elem_limit;
        unsigned short v[kBatch];
#pragma unroll
        for (int j = 0; j < kBatch; ++j) {
          const bool in = FULL || (pos_in && line0 + j * kLpp < line_limit);
          v[j] = in ? __ldg(reinterpret_cast<const unsigned short*>(g))
                    : static_cast<unsigned short>(0);
          g += stride;
        }
#pragma unroll
        for (int j = 0; j < kBatch; ++j) {
          *reinterpret_cast<unsigned short*>(stage_ptr + L::elem_offset(line0 + j * kLpp, pos)) =
              v[j];
        }
      }
    }
  }
};

// ---- Configuration -----------------------------------------------------------------------------

/// One instance of the family.
/// @tparam BM, BN    block tile of C
/// @tparam BK        K of one pipeline stage (2 or more MMA k-steps: 32 or 64 for 16-bit, 16 or
///                   32 for tf32)
/// @tparam WM, WN    warp tile; the block has (BM/WM) x (BN/WN) warps, each a grid of
///                   (WM/16) x (WN/8) mma tiles
/// @tparam STAGES    shared-memory stages (3..4): STAGES-1 tiles in flight while one is read
/// @tparam TF32      tf32 instance (fp32 storage, m16n8k8) instead of bf16/f16 (m16n8k16)
/// @tparam ALIGNED   16-byte cp.async copies (16-byte aligned A and B, ld a multiple of 16 bytes);
///                   false: element copies, any alignment (`_anyalign`)
template <int BM_, int BN_, int BK_, int WM_, int WN_, int STAGES_, bool TF32_, bool ALIGNED_>
struct Config {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, STAGES = STAGES_;
  static constexpr bool kTf32 = TF32_;
  static constexpr bool kAligned = ALIGNED_;
  static constexpr int kElemBytes = TF32_ ? 4 : 2;
  static constexpr int kEpc = 16 / kElemBytes;  // elements per 16-byte chunk: the ld granule
  static constexpr int kInstK = TF32_ ? 8 : 16;  // K of one mma instruction
  static constexpr int kKSteps = BK / kInstK;
  static constexpr int kWarpsM = BM / WM, kWarpsN = BN / WN;
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
  static constexpr int kMTiles = WM / 16, kNTiles = WN / 8;
  // Bytes per stage: both layouts of an operand tile have the same size.
  static constexpr int kATileBytes = BM * BK * kElemBytes;
  static constexpr int kBTileBytes = BN * BK * kElemBytes;
  static constexpr int kStageBytes = kATileBytes + kBTileBytes;
  static constexpr int kSmemBytes = STAGES * kStageBytes;
  // 4 warps: 2 blocks per SM (2 x 4 warps, up to 255 registers each); 8 warps: 1 block per SM.
  static constexpr int kMinBlocks = kThreads <= 128 ? 2 : 1;
  // 16-bit element copies go through registers and are issued after the MMAs of a step.
  static constexpr bool kSyncCopy = !ALIGNED_ && !TF32_;

  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles tile the block tile");
  static_assert(WM % 32 == 0 && WN % 32 == 0, "warp tiles of whole 32 x 32 blocks");
  static_assert(BK % kInstK == 0 && kKSteps >= 2, "two or more k-steps per stage");
  static_assert(STAGES >= 3 && STAGES <= 4, "3 or 4 stages");
  static_assert(kNTiles % 2 == 0, "B fragments are loaded two n8 tiles per ldmatrix.x4");

  // "128x128x32_w64x64_s4" (tf32: "tf32_" in front; "_anyalign" for element copies)
  static std::string tag() {
    return std::string(TF32_ ? "tf32_" : "") + std::to_string(BM) + "x" + std::to_string(BN) +
           "x" + std::to_string(BK) + "_w" + std::to_string(WM) + "x" + std::to_string(WN) +
           "_s" + std::to_string(STAGES) + (ALIGNED_ ? "" : "_anyalign");
  }
  static TileConfig tile_config() {
    TileConfig t;
    t.bm = BM;
    t.bn = BN;
    t.bk = BK;
    t.wm = WM;
    t.wn = WN;
    t.tm = 16;
    t.tn = 8;
    t.threads = kThreads;
    t.stages = STAGES;
    t.smem_bytes = kSmemBytes;
    return t;
  }
};

// The kernel's arguments. The launcher hands it a problem with row-major C (a column-major C is
// computed as C^T = B^T A^T, a change of views), so C(i, j) is c[i * ldc + j]. A(i, k) is
// a[i * lda + k] when A_K (row-major) else a[k * lda + i]; B(k, j) is b[j * ldb + k] when B_K
// (col-major) else b[k * ldb + j].
struct Params {
  int m, n, k;
  float alpha, beta;
  const void* a;
  std::int64_t lda;
  const void* b;
  std::int64_t ldb;
  void* c;
  std::int64_t ldc;
  int tiles_m, tiles_n;
  int raster_group;  // tile-rows walked before moving one tile-column right
  int c_vec2;        // C's base and ldc allow 2-element vector accesses at even columns
};

// ---- The kernel --------------------------------------------------------------------------------

/// C = alpha * A B + beta * C on the tensor cores.
/// @tparam C    a Config
/// @tparam OP   Bf16Op, F16Op (16-bit configs) or Tf32Op (tf32 configs)
/// @tparam CT   C's element type: float, __nv_bfloat16 or __half
/// @tparam A_K  A is K-contiguous (row-major); else M-contiguous
/// @tparam B_K  B is K-contiguous (col-major); else N-contiguous
template <class C, class OP, class CT, bool A_K, bool B_K>
__global__ void __launch_bounds__(C::kThreads, C::kMinBlocks) mma_sync_kernel(const Params p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  __trap();  // mma.sync with these shapes, ldmatrix and cp.async need sm_80 (min_cc is 80)
#else
  static_assert(OP::kTf32 == C::kTf32, "the element type matches the config");
  constexpr int ES = C::kElemBytes;
  constexpr int BK = C::BK;
  constexpr int STAGES = C::STAGES;
  constexpr int KSTEPS = C::kKSteps;
  constexpr int MT = C::kMTiles;
  constexpr int NT = C::kNTiles;
  using LA = TileLayout<C::BM, BK, ES, A_K>;
  using LB = TileLayout<C::BN, BK, ES, B_K>;
  static_assert(LA::kBytes == C::kATileBytes && LB::kBytes == C::kBTileBytes, "stage layout");
  using ACopy = std::conditional_t<C::kAligned, ChunkCopy<LA, C::kThreads, ES>,
                                   ElemCopy<LA, C::kThreads, ES>>;
  using BCopy = std::conditional_t<C::kAligned, ChunkCopy<LB, C::kThreads, ES>,
                                   ElemCopy<LB, C::kThreads, ES>>;

  // STAGES x [ A tile | B tile ], each laid out by TileLayout.
  extern __shared__ __align__(128) unsigned char smem[];
  const std::uint32_t smem_base = smem_addr(smem);

  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int wm0 = (warp % C::kWarpsM) * C::WM;  // the warp tile's corner in the block tile
  const int wn0 = (warp / C::kWarpsM) * C::WN;

  const views::TileCoord tile =
      views::raster_tile(static_cast<int>(blockIdx.x), p.tiles_m, p.tiles_n, p.raster_group);
  const int m0 = tile.m * C::BM;
  const int n0 = tile.n * C::BN;
  const int rows_left = p.m - m0;  // rows of C from the tile's first row to the edge
  const int cols_left = p.n - n0;
  const int k_tiles = (p.k - 1) / BK + 1;
  // Tiles [0, full_tiles) lie wholly inside the matrix and take the predicate-free copies.
  const int full_tiles = rows_left >= C::BM && cols_left >= C::BN ? p.k / BK : 0;

  // Per operand one pointer: the thread's first element of the next K tile to copy (its copy
  // plan's thread_offset() past the tile's origin), advanced by one K tile per copy.
  const char* a_src = static_cast<const char*>(p.a) +
                      (A_K ? m0 * p.lda : static_cast<std::int64_t>(m0)) * ES +
                      ACopy::thread_offset(p.lda, tid);
  const char* b_src = static_cast<const char*>(p.b) +
                      (B_K ? n0 * p.ldb : static_cast<std::int64_t>(n0)) * ES +
                      BCopy::thread_offset(p.ldb, tid);

  // Copy A's (B's) part of K tile t into stage `stage`; each operand's tiles are copied in
  // order. The edge path's `src` still points at the thread's first element; elements outside
  // the matrix are zero-filled.
  // LEAN (compile-time): the caller knows tile t lies inside the matrix, so only the
  // predicate-free copy is compiled in (one straight block, no if-converted edge path).
  auto load_a = [&](int t, int stage, auto lean) {
    const std::uint32_t sa = smem_base + stage * C::kStageBytes;
    char* const pa = reinterpret_cast<char*>(smem) + stage * C::kStageBytes;
    if (decltype(lean)::value || t < full_tiles) {
      ACopy::template issue<true>(tid, p.lda, sa, pa, a_src, 0, 0, p.a);
    } else {
      const int k_rem = p.k - t * BK;
      ACopy::template issue<false>(tid, p.lda, sa, pa, a_src, A_K ? rows_left : k_rem,
                                   A_K ? k_rem : rows_left, p.a);
    }
    a_src += (A_K ? BK : BK * p.lda) * ES;
  };
  auto load_b = [&](int t, int stage, auto lean) {
    const std::uint32_t sb = smem_base + stage * C::kStageBytes + C::kATileBytes;
    char* const pb = reinterpret_cast<char*>(smem) + stage * C::kStageBytes + C::kATileBytes;
    if (decltype(lean)::value || t < full_tiles) {
      BCopy::template issue<true>(tid, p.ldb, sb, pb, b_src, 0, 0, p.b);
    } else {
      const int k_rem = p.k - t * BK;
      BCopy::template issue<false>(tid, p.ldb, sb, pb, b_src, B_K ? cols_left : k_rem,
                                   B_K ? k_rem : cols_left, p.b);
    }
    b_src += (B_K ? BK : BK * p.ldb) * ES;
  };

  // ---- Fragment addresses (bytes within a stage's A or B tile), per lane, loop-invariant ----
  // 16-bit A fragment of one m16 x k16 mma tile, registers r0..r3 = (rows 0-7, k 0-7),
  // (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15); each is one 8x8 matrix of an
  // ldmatrix.x4. tf32 m16 x k8: the same four matrices with 4 k (16 bytes) each. B fragments:
  // one ldmatrix.x4 gives two n8 tiles, (n 0-7: k 0-7, k 8-15), (n 8-15: k 0-7, k 8-15).
  constexpr bool kA_LDSM = A_K || !C::kTf32;  // tf32 M-contiguous A: 32-bit loads instead
  constexpr bool kB_LDSM = B_K || !C::kTf32;
  // Each operand's lane offsets form one family off(i) = off(0) ^ (i << 5), i < 4, indexed by
  // the k-step (K-contiguous) or by the mma tile pair (X-contiguous): the varying part of the
  // chunk index, 2 i, combines with the lane's 1-bit part by OR, so it passes through the XOR
  // swizzle as an XOR of bits 5-6 of the byte offset, which the line and tile parts leave zero
  // (lines are a multiple of 32 KSTEPS bytes; warp tiles start on 64 elements). One register per
  // operand instead of four.
  static_assert(KSTEPS <= 4 && C::WM % 64 == 0 && C::WN % 64 == 0, "offset families of 4");
  int a_off0;
  int b_off0;
  if constexpr (A_K) {
    // Line (row) wm0 + (lane & 15) + 16 mt, chunk 2 ks + (lane >> 4): lanes 0-7, 8-15, 16-23,
    // 24-31 address matrices 0..3. swz has period 8, so 16 mt moves the address by whole lines.
    a_off0 = LA::chunk_offset(wm0 + (lane & 15), lane >> 4);
  } else if constexpr (!C::kTf32) {
    // ldmatrix.trans on lines k: matrix j = lane >> 3 is (k 8 (j >> 1) .. +7, m 8 (j & 1) .. +7),
    // m of mma tile mt at chunk (wm0 + 16 mt) / 8.
    a_off0 = LA::chunk_offset((lane & 7) + ((lane >> 4) << 3), wm0 / 8 + ((lane >> 3) & 1));
  } else {
    // tf32 a0..a3 = A(g, t), A(g + 8, t), A(g, t + 4), A(g + 8, t + 4), g = lane / 4,
    // t = lane % 4: line t (+4, +8 ks: whole swizzle periods), element wm0 + 8 i + g with
    // i = 2 (mt & 1) + (0 or 1); elements 32 apart (mt + 2) are 8 chunks, 128 bytes, apart.
    a_off0 = LA::elem_offset(lane & 3, wm0 + (lane >> 2));
  }
  if constexpr (B_K) {
    // Line (column) wn0 + 16 np + (lane & 7) + 8 (lane >> 4), chunk 2 ks + ((lane >> 3) & 1).
    b_off0 = LB::chunk_offset(wn0 + (lane & 7) + ((lane >> 4) << 3), (lane >> 3) & 1);
  } else if constexpr (!C::kTf32) {
    // ldmatrix.trans on lines k: matrix j is (k 8 (j & 1) .. +7, n 8 (j >> 1) .. +7), n of the
    // tile pair np at chunk (wn0 + 16 np) / 8.
    b_off0 = LB::chunk_offset((lane & 7) + (((lane >> 3) & 1) << 3), wn0 / 8 + (lane >> 4));
  } else {
    // tf32 b0, b1 = B(t, g), B(t + 4, g): line t, element wn0 + 8 nt + g.
    b_off0 = LB::elem_offset(lane & 3, wn0 + (lane >> 2));
  }
  auto a_off = [&](int i) { return (a_off0 ^ ((i & 3) << 5)) + (i >> 2) * 128; };
  auto b_off = [&](int i) { return (b_off0 ^ ((i & 3) << 5)) + (i >> 2) * 128; };

  std::uint32_t a_frag[2][MT][4];  // (buffer, mma row tile, register)
  std::uint32_t b_frag[2][NT][2];  // (buffer, mma column tile, register)
  float acc[MT][NT][4];            // C(16 mt + g (+8 for 2, 3), 8 nt + 2 t + (0, 1)) of the warp
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[mt][nt][r] = 0.0f;
    }
  }

  // Fragments of k-step ks of the stage whose A tile starts at sa.
  auto load_frags = [&](int buf, std::uint32_t sa, int ks) {
    const std::uint32_t sb = sa + C::kATileBytes;
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
      if constexpr (A_K) {
        ldsm_x4(a_frag[buf][mt], sa + a_off(ks) + mt * 16 * LA::kLineBytes);
      } else if constexpr (kA_LDSM) {
        ldsm_x4_trans(a_frag[buf][mt], sa + a_off(mt) + ks * 16 * LA::kLineBytes);
      } else {
        const std::uint32_t base = sa + ks * 8 * LA::kLineBytes;
        a_frag[buf][mt][0] = lds32(base + a_off(2 * mt));
        a_frag[buf][mt][1] = lds32(base + a_off(2 * mt + 1));
        a_frag[buf][mt][2] = lds32(base + a_off(2 * mt) + 4 * LA::kLineBytes);
        a_frag[buf][mt][3] = lds32(base + a_off(2 * mt + 1) + 4 * LA::kLineBytes);
      }
    }
#pragma unroll
    for (int np = 0; np < NT / 2; ++np) {
      if constexpr (kB_LDSM) {
        std::uint32_t r[4];
        if constexpr (B_K) {
          ldsm_x4(r, sb + b_off(ks) + np * 16 * LB::kLineBytes);
        } else {
          ldsm_x4_trans(r, sb + b_off(np) + ks * 16 * LB::kLineBytes);
        }
        b_frag[buf][2 * np][0] = r[0];
        b_frag[buf][2 * np][1] = r[1];
        b_frag[buf][2 * np + 1][0] = r[2];
        b_frag[buf][2 * np + 1][1] = r[3];
      } else {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int nt = 2 * np + h;
          const std::uint32_t base = sb + b_off(nt) + ks * 8 * LB::kLineBytes;
          b_frag[buf][nt][0] = lds32(base);
          b_frag[buf][nt][1] = lds32(base + 4 * LB::kLineBytes);
        }
      }
    }
    if constexpr (C::kTf32) {
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
        for (int r = 0; r < 4; ++r) a_frag[buf][mt][r] = to_tf32(a_frag[buf][mt][r]);
      }
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
        for (int r = 0; r < 2; ++r) b_frag[buf][nt][r] = to_tf32(b_frag[buf][nt][r]);
      }
    }
  };
  static_assert(kA_LDSM || (MT % 2 == 0 && C::WM % 32 == 0), "tf32 M-contiguous offsets");
  static_assert(kB_LDSM || (NT % 4 == 0 && C::WN % 32 == 0), "tf32 N-contiguous offsets");

  // ---- Pipeline: one commit group per K tile (empty past the last), so wait_group STAGES-2
  // always means "the next tile has landed". Tile j lives in stage j % STAGES. ----
  // kSyncCopy (16-bit element copies, synchronous): a warp stalls on its loads, so the copies are
  // split between two k-steps, each after that step's MMAs: B of tile t + STAGES - 1 after the
  // first k-step of step t, A of tile t + STAGES after the last (its stage, t's, was read for the
  // last time before that k-step's barrier). The prologue copies A one tile ahead to match.
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < k_tiles) {
      load_a(s, s, std::false_type{});
      load_b(s, s, std::false_type{});
    }
    cp_async_commit();
  }
  if (C::kSyncCopy && STAGES - 1 < k_tiles) load_a(STAGES - 1, STAGES - 1, std::false_type{});
  cp_async_wait<STAGES - 2>();
  __syncthreads();

  int read_stage = 0;
  int write_stage = STAGES - 1;  // (t + STAGES - 1) % STAGES until step t's barrier, then t % STAGES
  load_frags(0, smem_base, 0);

  // One K step; LEAN: every tile it copies lies inside the matrix.
  auto step = [&](int t, auto lean) {
#pragma unroll
    for (int ks = 0; ks < KSTEPS; ++ks) {
      if (ks == KSTEPS - 1) {
        // Before the first fragments of the next stage: its copies have landed (this thread's:
        // wait_group; everybody's: the barrier), and every warp has finished reading stage t.
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
        write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
      }
      // Double buffering: the next k-step's fragments are read before this one's MMAs.
      load_frags((ks + 1) % 2, smem_base + read_stage * C::kStageBytes, (ks + 1) % KSTEPS);
      if (ks == 0 && !C::kSyncCopy) {
        // Refill the stage computed in step t-1 with tile t + STAGES - 1.
        if (decltype(lean)::value || t + STAGES - 1 < k_tiles) {
          load_a(t + STAGES - 1, write_stage, lean);
          load_b(t + STAGES - 1, write_stage, lean);
        }
        cp_async_commit();
      }
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
        for (int j = 0; j < NT; ++j) {
          const int nt = (mt & 1) ? NT - 1 - j : j;  // serpentine: reuse the last B fragment
          OP::mma(acc[mt][nt], a_frag[ks % 2][mt], b_frag[ks % 2][nt]);
        }
      }
      if constexpr (C::kSyncCopy) {
        if (ks == 0 && (decltype(lean)::value || t + STAGES - 1 < k_tiles)) {
          load_b(t + STAGES - 1, write_stage, lean);
        }
        if (ks == KSTEPS - 1 && (decltype(lean)::value || t + STAGES < k_tiles)) {
          load_a(t + STAGES, write_stage, lean);
        }
      }
    }
  };
  // Steps [0, lean_steps) copy only tiles below full_tiles (the furthest is t + kAhead); they run
  // in a loop of their own, without the edge path. The rest (edge blocks, the K remainder and
  // the pipeline's drain) run the general step.
  constexpr int kAhead = C::kSyncCopy ? STAGES : STAGES - 1;
  const int lean_steps = max(full_tiles - kAhead, 0);
  int t = 0;
  for (; t < lean_steps; ++t) step(t, std::true_type{});
  for (; t < k_tiles; ++t) step(t, std::false_type{});
  cp_async_wait<0>();  // only empty groups can remain; no copy may outlive the block

  // ---- Epilogue: C = alpha * acc + beta * C, C read only when beta != 0 ----
  const int g = lane >> 2;
  const int tq = lane & 3;
  CT* const c = static_cast<CT*>(p.c);
  const bool vec2 = p.c_vec2 != 0;
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = wm0 + mt * 16 + g + 8 * h;  // block-relative
      if (row >= rows_left) continue;
      CT* const c_row = c + static_cast<std::int64_t>(m0 + row) * p.ldc + n0;
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) {
        const int col = wn0 + nt * 8 + 2 * tq;
        store_c_pair(c_row, col, cols_left, acc[mt][nt][2 * h], acc[mt][nt][2 * h + 1], p.alpha,
                     p.beta, vec2);
      }
    }
  }
#endif
}

// ---- Host side ---------------------------------------------------------------------------------

using KernelFn = void (*)(Params);

// One instantiation and its once-per-device shared-memory opt-in flag.
struct KernelRef {
  KernelFn fn = nullptr;
  std::atomic<std::uint64_t>* opted_in = nullptr;
};

template <class C, class OP, class CT, bool A_K, bool B_K>
KernelRef kernel_ref() {
  static std::atomic<std::uint64_t> opted_in{0};
  return KernelRef{&mma_sync_kernel<C, OP, CT, A_K, B_K>, &opted_in};
}

template <class C, class OP, class CT>
KernelRef select_layouts(const Problem& q) {
  return views::dispatch_layouts(q, [](auto a_k, auto b_k) {
    return kernel_ref<C, OP, CT, decltype(a_k)::value, decltype(b_k)::value>();
  });
}

// The instantiation for an oriented problem's element types and layouts (fn null: none).
template <class C>
KernelRef select_kernel(const Problem& q) {
  const GemmTypes t = q.types();
  if constexpr (C::kTf32) {
    if (t == GemmTypes{DType::kTF32, DType::kF32}) return select_layouts<C, Tf32Op, float>(q);
  } else {
    if (t == GemmTypes{DType::kBF16, DType::kBF16}) {
      return select_layouts<C, Bf16Op, __nv_bfloat16>(q);
    }
    if (t == GemmTypes{DType::kBF16, DType::kF32}) return select_layouts<C, Bf16Op, float>(q);
    if (t == GemmTypes{DType::kF16, DType::kF16}) return select_layouts<C, F16Op, __half>(q);
    if (t == GemmTypes{DType::kF16, DType::kF32}) return select_layouts<C, F16Op, float>(q);
  }
  return KernelRef{};
}

// The (A/B, C) combinations an instance computes.
template <class C>
std::vector<GemmTypes> computed_types() {
  if constexpr (C::kTf32) {
    return {GemmTypes{DType::kTF32, DType::kF32}};
  } else {
    return sixteen_bit_types();
  }
}

// Shapes the kernel's int index math holds (m0 + BM, t * BK stay below INT_MAX; the 1-D grid
// of tiles fits gridDim.x), and the alignment of the 16-byte path. Offsets into A, B and C are
// 64-bit, so any leading dimension works.
template <class C>
bool can_implement(const Problem& problem) {
  // The grid is laid over the problem the kernel runs.
  const Problem p = views::row_major_c(problem);
  constexpr std::int64_t kMargin = 1024;  // above m0 + BM and t * BK of the last tiles
  if (!views::dims_fit_int(p, kMargin) || !views::linear_tile_grid_fits(p, C::BM, C::BN)) {
    return false;
  }
  // The 16-byte path: every chunk of 16 bytes along a line starts 16-byte aligned.
  return !C::kAligned || (views::aligned(p.a, 16) && views::aligned(p.b, 16));
}

// Tile-rows per raster group: about the square root of a wave's blocks (scaled by the tile's
// aspect), so that one wave covers a near-square patch of C and reads about as many bytes of A
// as of B.
template <class C>
int raster_group(int tiles_m) {
  const double wave = static_cast<double>(runtime::sm_count()) * C::kMinBlocks;
  return views::clamp_raster_group(static_cast<int>(std::lround(std::sqrt(wave * C::BN / C::BM))),
                                   tiles_m);
}

template <class C>
Params make_params(const Problem& q) {
  Params prm{};
  prm.m = static_cast<int>(q.m);
  prm.n = static_cast<int>(q.n);
  prm.k = static_cast<int>(q.k);
  prm.alpha = q.alpha;
  prm.beta = q.beta;
  prm.a = q.a.data;
  prm.lda = q.a.ld;
  prm.b = q.b.data;
  prm.ldb = q.b.ld;
  prm.c = q.c.data;
  prm.ldc = q.c.ld;
  prm.tiles_m = static_cast<int>(ceil_div(q.m, C::BM));
  prm.tiles_n = static_cast<int>(ceil_div(q.n, C::BN));
  prm.raster_group = raster_group<C>(prm.tiles_m);
  const std::size_t c_bytes = dtype_bytes(q.c.dtype);
  prm.c_vec2 = views::aligned(q.c, 2 * c_bytes);  // base and ldc allow element pairs
  return prm;
}

template <class C>
cudaError_t launch(const Problem& p, cudaStream_t stream) {
  const Problem q = views::row_major_c(p);
  const KernelRef k = select_kernel<C>(q);
  if (k.fn == nullptr) return cudaErrorInvalidValue;
  if (cudaError_t err =
          runtime::opt_in_smem(reinterpret_cast<const void*>(k.fn), C::kSmemBytes, *k.opted_in);
      err != cudaSuccess) {
    return err;
  }
  Params prm = make_params<C>(q);
  const dim3 grid(static_cast<unsigned>(prm.tiles_m) * static_cast<unsigned>(prm.tiles_n));
  void* args[] = {&prm};
  const cudaError_t err =
      cudaLaunchKernel(reinterpret_cast<const void*>(k.fn), grid, dim3(C::kThreads), args,
                       static_cast<std::size_t>(C::kSmemBytes), stream);
  return err != cudaSuccess ? err : cudaGetLastError();
}

template <class C>
const void* device_function(const Problem& p) {
  return reinterpret_cast<const void*>(select_kernel<C>(views::row_major_c(p)).fn);
}

}  // namespace tilegemm::kernels::mma_sync
