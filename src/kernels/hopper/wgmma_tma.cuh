// The kernel template of rung 14 (`wgmma`): Hopper warpgroup MMA (wgmma.mma_async) reading both
// operands from 128-byte-swizzled shared memory that the Tensor Memory Accelerator fills, in a
// warp-specialised, persistent kernel. 14_wgmma_tma.cu says what the rung adds and registers the
// instances; docs/hopper.md has the design (shared-memory layouts, descriptors, barriers). Rungs
// 15, 16, 18 and 20 are configurations of the same kernel (rung 20: the producer warps fill the
// ring themselves, RealignOperand). This header holds the PTX wrappers, the kernel and its host
// launcher. sm_90a only.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "../../core/device_runtime.hpp"
#include "../../core/kernel_registry.hpp"
#include "../common.cuh"
#include "../stream_common.cuh"
#include "../tensor_common.cuh"
#include "tma.hpp"
#include "wgmma_ops.cuh"

// wgmma, setmaxnreg and the tensor-map copies exist only in the sm_90a target.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TILEGEMM_WGMMA_DEVICE 1
#else
#define TILEGEMM_WGMMA_DEVICE 0
#endif

namespace tilegemm::kernels::hopper {

// ---- Element types -----------------------------------------------------------------------------

struct Bf16 {
  using T = __nv_bfloat16;
  static constexpr DType kDType = DType::kBF16;
  static constexpr int kBytes = 2;
};
struct F16 {
  using T = __half;
  static constexpr DType kDType = DType::kF16;
  static constexpr int kBytes = 2;
};
// fp32 storage; the TFLOAT32 tensor map rounds each element to tf32 (nearest even) on the way
// into shared memory. wgmma reads tf32 from shared memory K-major only: an M-major A goes through
// registers, and an N-major B is made the A of the mirrored product (see plan()).
struct Tf32 {
  using T = float;
  static constexpr DType kDType = DType::kTF32;
  static constexpr int kBytes = 4;
};

// ---- Configuration -----------------------------------------------------------------------------

// Rung 23's eight tensor maps of A, one kernel parameter.
struct ResidueMaps {
  CUtensorMap map[8];
};

/// @tparam BN_         block tile N: 64, 128 or 256 (one m64nBNk instruction per consumer and
///                     k-step)
/// @tparam STAGES_     shared-memory ring depth
/// @tparam TF32_       tf32 (4-byte elements) instead of bf16/f16
/// @tparam CLUSTER_    CTAs per cluster along M (1 or 2): a pair computes two vertically
///                     adjacent tiles and each CTA loads half of their shared B tile, multicast
///                     into both (rung 15)
/// @tparam TMA_STORE_  with beta = 0, C leaves through shared memory and TMA stores where they
///                     are exact (rung 15); otherwise straight from the registers
/// @tparam CONSUMERS_  consumer warpgroups, 64 rows of C each: 2 (BM = 128), or 1 (BM = 64)
///                     for a deeper ring and more tiles on small M or N (rung 18)
/// @tparam REALIGN_    the producer warpgroup's 128 threads copy A's and B's raw 16-byte-aligned
///                     spans into the ring with cp.async and realign them in place into the
///                     swizzled layout, instead of one thread issuing TMA copies (rung 20:
///                     operands no tensor map can describe, without a copy pass)
/// @tparam PROMOTE_    0, or every PROMOTE_ k-tiles the consumers add the tensor cores' sum
///                     into a second accumulator with rounding fp32 adds and restart it: the
///                     tensor cores' own fp32 adds truncate, an error linear in the K they
///                     accumulate (rung 22, whose K is three times the product's)
/// @tparam SPLIT3_     fp32 operands computed as three tf32 products inside the main loop: the
///                     consumer rewrites each stage's B tile in place as its tf32 parts, writes
///                     the remainders into one of two extra B-sized slots, splits its A
///                     fragments in registers, and runs remainder(A) big(B) + big(A)
///                     remainder(B) + big(A) big(B) with A from registers (rung 22's in-kernel
///                     split; one consumer, A in either layout, K-major B, fp32 tensor maps,
///                     or with REALIGN_ the element copies of ElementCopy instead of them)
/// @tparam RESIDUE_A_  16-bit A read in place at any pitch and element-aligned base (rung 23):
///                     eight tensor maps, one per residue of A's line index mod 8 (a class's
///                     lines lie 8 pitches apart, so they share one offset from a 16-byte
///                     boundary); each map starts at that boundary and its unswizzled boxes carry
///                     a line's raw span within 192 bytes, class j's 16 (j % 4) bytes in (so that
///                     the classes' spans fall in different shared-memory banks); the one
///                     consumer builds its register A fragments from the spans at each class's
///                     offset
template <int BN_, int STAGES_, bool TF32_, int CLUSTER_ = 1, bool TMA_STORE_ = false,
          int CONSUMERS_ = 2, bool REALIGN_ = false, int PROMOTE_ = 0, bool SPLIT3_ = false,
          bool RESIDUE_A_ = false>
struct Config {
  static constexpr int kPromote = PROMOTE_;
  static constexpr bool kSplit3 = SPLIT3_;
  static constexpr int kConsumers = CONSUMERS_;
  static constexpr int BM = 64 * kConsumers;
  static constexpr int BN = BN_;
  static constexpr bool kTf32 = TF32_;
  static constexpr int kElemBytes = TF32_ ? 4 : 2;
  static constexpr int kRowBytes = 128;              // one swizzle row: the 128-byte TMA box width
  static constexpr int BK = kRowBytes / kElemBytes;  // 64 (16-bit) or 32 (tf32)
  static constexpr int STAGES = STAGES_;
  static constexpr int kThreads = 128 * (1 + kConsumers);  // producer warpgroup + consumers
  // An operand's region of a stage. The realigning producer (rung 20) first copies each line's
  // raw span there (a row of 128 bytes of K takes 144, one more 16-byte chunk) and then rewrites
  // the region's start in place with the swizzled tile the wgmmas read.
  // The in-kernel split's element copies (SPLIT3_) land in place and need no raw rows.
  static constexpr int kRegionRowBytes = REALIGN_ && !SPLIT3_ ? kRowBytes + 16 : kRowBytes;
  // RESIDUE_A_: A's region holds 8 classes of BM / 8 = 8 lines (K-major: rows; M-major: k-lines)
  // of 192 bytes: class j's box starts 16 (j % 4) bytes before the k-tile (or the M tile), so
  // that its 128 bytes, pushed up to 14 bytes further by the class's offset, lie 16 (j % 4) to
  // 16 (j % 4) + 142 bytes into the line. Every class region starts on 128 bytes (the copy
  // engine's alignment) and a fragment load reads the same line of each, so without the stagger
  // the 8 classes fall on the same banks (8-way conflicts, which bound the consumer); with it at
  // most two lanes share a bank (docs/perf-notes.md, "Rung 23").
  static constexpr bool kResidueA = RESIDUE_A_;
  static constexpr int kResidueStaggers = 4;
  static constexpr int kResidueLineElems = (kRowBytes + 16 * kResidueStaggers) / kElemBytes;
  static constexpr int kResidueLineBytes = kResidueLineElems * kElemBytes;
  static constexpr int kResidueClassBytes = (BM / 8) * kResidueLineBytes;
  static constexpr int kATileBytes = RESIDUE_A_ ? 8 * kResidueClassBytes : BM * kRegionRowBytes;
  static constexpr int kBTileBytes = BN * kRegionRowBytes;
  static constexpr int kStageBytes = kATileBytes + kBTileBytes;
  static constexpr int kBTileSwizzledBytes = BN * kRowBytes;  // the B tile the wgmmas read
  static constexpr int kCluster = CLUSTER_;
  static constexpr bool kTmaStore = TMA_STORE_;
  // The epilogue's staging: per consumer two buffers of 64 rows x 128 bytes of C (one TMA store
  // box each, 128-byte swizzled), written while the other one is being stored.
  static constexpr int kEpiBufBytes = 64 * kRowBytes;
  static constexpr int kEpiBytes = TMA_STORE_ ? kConsumers * 2 * kEpiBufBytes : 0;
  // The ring and the epilogue's staging, plus 1 KiB to align them to the 1024-byte swizzle atom
  // (dynamic shared memory is only 16-byte aligned); the mbarriers are static shared memory.
  // With SPLIT3_, two slots for the remainders of a stage's B tile, after the staging: the
  // consumer fills one while the wgmmas of the previous stage still read the other.
  static constexpr int kSplitBytes = SPLIT3_ ? 2 * kBTileSwizzledBytes : 0;
  static constexpr int kSmemBytes = STAGES * kStageBytes + kEpiBytes + kSplitBytes + 1024;
  // Registers after setmaxnreg: the producer gives up what the consumers' 64 x BN accumulator
  // tiles need (two consumers: 128 x 40 + 256 x 232 = 64512 <= 65536).
  static constexpr int kProducerRegs = 40;
  static constexpr int kConsumerRegs = 232;
  // A realigning producer (rung 20; with SPLIT3_, the element copies instead) runs real loops
  // with loads in flight, more than 40 registers hold: its instances keep the compiled
  // allocation for every warpgroup (BN <= 128 needs no more).
  static constexpr bool kRealign = REALIGN_;
  static constexpr bool kSetMaxNReg = !REALIGN_;
  static_assert(BN == 64 || BN == 128 || BN == 256, "one wgmma of N = BN per consumer and k-step");
  static_assert(CLUSTER_ == 1 || CLUSTER_ == 2, "pairs of CTAs along M at most");
  static_assert(CLUSTER_ == 1 || BN >= 128, "each CTA of a pair loads whole 64-wide B chunks");
  static_assert(CONSUMERS_ == 1 || CONSUMERS_ == 2, "one or two consumer warpgroups");
  static_assert(kSmemBytes <= 227 * 1024, "the ring fits the opt-in shared memory");
  static_assert(!REALIGN_ || (CLUSTER_ == 1 && BN <= 128),
                "a realigning producer: no multicast, accumulators within the compiled registers");
  static_assert(kATileBytes % 1024 == 0, "B's region starts on a swizzle atom");
  static_assert(PROMOTE_ == 0 || BN_ <= 128,
                "a second accumulator of a 64 x 256 tile does not fit the consumers' registers");
  static_assert(!SPLIT3_ || (TF32_ && CONSUMERS_ == 1 && CLUSTER_ == 1),
                "the in-kernel split: tf32 tiles of one consumer, which owns its stages");
  static_assert(!RESIDUE_A_ || (!TF32_ && CONSUMERS_ == 1 && CLUSTER_ == 1 && !REALIGN_ &&
                                !SPLIT3_ && PROMOTE_ == 0),
                "residue maps: 16-bit A of one consumer's 64 rows (or 64 k-lines of 64 rows)");
  // The tensor-map parameter of A: one map, or with RESIDUE_A_ the eight.
  using AMap = std::conditional_t<RESIDUE_A_, ResidueMaps, CUtensorMap>;

  static std::string tag() {
    return std::string(TF32_ ? "tf32_" : "") + std::to_string(BM) + "x" + std::to_string(BN) + "x" +
           std::to_string(BK) + "_s" + std::to_string(STAGES) +
           (CLUSTER_ > 1 ? "_c" + std::to_string(CLUSTER_) : std::string()) +
           (TMA_STORE_ ? "_ts" : "") + (REALIGN_ ? "_ra" : "") +
           (PROMOTE_ > 0 ? "_p" + std::to_string(PROMOTE_) : std::string()) +
           (SPLIT3_ ? "_cs" : "") + (RESIDUE_A_ ? "_rm" : "");
  }
  static TileConfig tile_config() {
    TileConfig t;
    t.bm = BM;
    t.bn = BN;
    t.bk = BK;
    t.wm = 64;  // a consumer warpgroup's tile
    t.wn = BN;
    t.tm = 64;  // the instruction: m64 nBN
    t.tn = BN;
    t.threads = kThreads;
    t.stages = STAGES;
    t.smem_bytes = kSmemBytes;
    t.cluster_m = CLUSTER_;
    return t;
  }
};

// The kernel's scalar arguments; A and B come as tensor maps. C is row-major (the launcher
// mirrors a column-major C): C(i, j) is c[i * ldc + j].
struct Params {
  int m, n, k;
  float alpha, beta;
  void* c;
  std::int64_t ldc;
  int tiles_m, tiles_n, k_tiles;
  int raster_group;  // tile-rows (cluster tile-rows) walked before moving one column right
  int c_vec2;        // C's base and ldc allow 2-element vector accesses at even columns
  int c_tma;         // the epilogue stores C with TMA (Config::kTmaStore, beta = 0, exact)
  int c_stage;       // ... or, where a TMA store is not exact, from the same staging buffers
                     // by the threads, in pieces of c_stage bytes (16, 8, 4 or the element: the
                     // largest that divides C's base and row pitch); 0: the register epilogue
  int stage_tx;      // bytes the copies of one stage land: less than Config::kStageBytes where
                     // a K-major operand of one tile's height or width is loaded short (below)
  // Split-K: the first whole_tiles tiles (rasterised order) are computed whole; each tile after
  // them is split into k_splits work units of k_tiles_split k-tiles, which write fp32 partial
  // tiles that are then added in split order (deterministic) before alpha and beta apply. Too
  // few tiles for the SMs: no whole tiles, every tile split. A last wave of a few tiles (the
  // wave tail): the tiles before it whole, the tail split so that its units fill the SMs.
  // k_splits 1: off. The partial tiles lie where they lie in C, in one plane per split of C's
  // rows partial_m0 .. m - 1 (those of the split tiles) at pitch partial_ld.
  int whole_tiles;
  int k_splits, k_tiles_split;
  float* partial;
  int partial_m0;
  std::int64_t partial_ld;
  // Who adds the partial tiles. counters set (the in-kernel sum): an arrival counter per split
  // tile and consumer, zero at launch; the consumer of the last split to arrive adds every
  // split's rows of its 64 in split order and stores them through the epilogue, and leaves the
  // counter at zero. Null: a second kernel adds them (split_k_reduce_kernel), writing C
  // transposed where c_t_reduce is set (the C_T problems).
  unsigned* counters;
  int c_t_reduce;
  // The realigning producer (Config::kRealign) reads A and B through these instead of the maps.
  const void* a;
  const void* b;
  std::int64_t lda, ldb;
  // Rung 23 (Config::kResidueA): 4 bits per class j (bits 4 j ..), the bytes from a 16-byte
  // boundary to the start of its lines (make_residue_maps' shift).
  std::uint32_t a_shifts;
};

// ---- PTX wrappers ------------------------------------------------------------------------------

#if TILEGEMM_WGMMA_DEVICE
__device__ __forceinline__ void mbar_init(std::uint32_t bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count));
}
// Arrive and add `bytes` to the transactions this phase waits for (the TMA copies complete them).
__device__ __forceinline__ void mbar_expect_tx(std::uint32_t bar, int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbar_arrive(std::uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// Spins until the phase of parity `parity` has completed (a fresh barrier has completed the
// phase of parity 1, so the producer's first pass through the ring does not wait).
__device__ __forceinline__ void mbar_wait(std::uint32_t bar, std::uint32_t parity) {
  std::uint32_t done = 0;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (done == 0);
}
// One box of a 2-D tensor map into shared memory; completes `bytes` on the barrier.
__device__ __forceinline__ void tma_load_2d(std::uint32_t dst, const CUtensorMap* map, int c0,
                                            int c1, std::uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}
__device__ __forceinline__ void prefetch_tensor_map(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
}
// The same box written into the same shared-memory offset of every CTA in `mask`, completing
// its bytes on the barrier at the same offset in each.
__device__ __forceinline__ void tma_load_2d_multicast(std::uint32_t dst, const CUtensorMap* map,
                                                      int c0, int c1, std::uint32_t bar,
                                                      std::uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar), "h"(mask)
      : "memory");
}
// One box from shared memory to global memory (rows and 16-byte column granules past the
// extents are dropped), in the thread's current bulk group.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, std::uint32_t src, int c0,
                                             int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
          reinterpret_cast<std::uint64_t>(map)),
      "r"(src), "r"(c0), "r"(c1)
      : "memory");
}
// bulk_commit, bulk_wait_read_all, bulk_wait_all and fence_proxy_async_smem: async_copy.cuh.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
// The in-kernel sum of a split tile: called by the 128 threads of consumer cw after each wrote
// its part of the split's partial tile; true in the consumer whose split is the last of `splits`
// to arrive (stream::arrive, after the consumer's barrier), which then reads every split's
// partial tile (from the L2: __ldcg).
__device__ __forceinline__ bool last_split_arrival(unsigned* counter, int splits, bool* last,
                                                   int cw, int tid) {
  named_barrier_sync(1 + cw, 128);
  if (tid == 0) stream::arrive(counter, static_cast<unsigned>(splits), *last);
  named_barrier_sync(1 + cw, 128);
  return *last;
}
__device__ __forceinline__ void st_shared_b32(std::uint32_t addr, std::uint32_t v) {
  asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr), "r"(v) : "memory");
}
__device__ __forceinline__ std::uint16_t ld_shared_u16(std::uint32_t addr) {
  std::uint16_t v;
  asm volatile("ld.shared.u16 %0, [%1];\n" : "=h"(v) : "r"(addr) : "memory");
  return v;
}
__device__ __forceinline__ std::uint32_t ld_shared_u32(std::uint32_t addr) {
  std::uint32_t v;
  asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(v) : "r"(addr) : "memory");
  return v;
}
__device__ __forceinline__ uint2 ld_shared_v2_u32(std::uint32_t addr) {
  uint2 v;
  asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];\n" : "=r"(v.x), "=r"(v.y) : "r"(addr) : "memory");
  return v;
}
__device__ __forceinline__ uint4 ld_shared_v4_u32(std::uint32_t addr) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(addr)
               : "memory");
  return v;
}
__device__ __forceinline__ void st_shared_v4_f32(std::uint32_t addr, float4 v) {
  asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "f"(v.x), "f"(v.y),
               "f"(v.z), "f"(v.w)
               : "memory");
}
__device__ __forceinline__ void st_shared_v2_f32(std::uint32_t addr, float x, float y) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(addr), "f"(x), "f"(y) : "memory");
}
__device__ __forceinline__ std::uint32_t cluster_ctarank() {
  std::uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
// Every thread of every CTA in the cluster: release what it wrote, acquire what the others did.
// Not .aligned: the producer warp reaches it with its lanes apart.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}
// Arrive on the barrier at the same shared-memory offset in CTA `rank` of the cluster. Default
// semantics (release at CTA scope): the arrival publishes no data, it only says that this
// consumer's wgmmas, already waited for, are done reading the stage.
__device__ __forceinline__ void mbar_arrive_cluster(std::uint32_t bar, std::uint32_t rank) {
  asm volatile(
      "{\n.reg .b32 ra;\nmapa.shared::cluster.u32 ra, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [ra];\n}\n" ::"r"(bar),
      "r"(rank)
      : "memory");
}
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
template <int R>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R));
}
template <int R>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R));
}
#endif  // TILEGEMM_WGMMA_DEVICE

// A wgmma shared-memory matrix descriptor for the 128-byte swizzle: start address, leading and
// stride byte offsets (all >> 4), layout type 1 (128B swizzle) in bits 62-63. Atoms are
// 1024-byte aligned, so the base-offset field stays 0.
//  - K-major operand (rows of 128 bytes of K): SBO = 1024, the step between groups of 8 rows;
//    LBO unused. The k-th instruction of a 128-byte row starts k * 32 bytes in.
//  - MN-major operand (rows of 64 M/N elements, one row per k): SBO = 1024, the step between
//    groups of 8 k-rows; LBO = the step between 64-element M/N chunks (one TMA box each). The
//    k-th instruction starts k * 16 rows = k * 2048 bytes in.
__host__ __device__ constexpr std::uint64_t smem_desc(std::uint32_t addr, std::uint32_t lbo,
                                                      std::uint32_t sbo) {
  return static_cast<std::uint64_t>((addr & 0x3FFFF) >> 4) |
         (static_cast<std::uint64_t>((lbo & 0x3FFFF) >> 4) << 16) |
         (static_cast<std::uint64_t>((sbo & 0x3FFFF) >> 4) << 32) | (std::uint64_t{1} << 62);
}

// ---- The realigning producer (rung 20) ----------------------------------------------------------

#if TILEGEMM_WGMMA_DEVICE
/// One operand's stage tile as the realigning producer sees it: kLines global lines of kRunBytes
/// consecutive bytes each (K-major: the XT rows or columns of the tile, 128 bytes of K each;
/// M/N-major: the BK k-lines, XT elements each). A line starting `delta` bytes past a 16-byte
/// boundary goes through the operand's region of a ring stage twice:
///  1. copy(): its raw span, the 16-byte-aligned chunks covering it (one more than the run),
///     global -> the region with 16-byte cp.async, a row of kRowBytes per line. Asynchronous: the
///     producer keeps the copies of several stages in flight, as TMA would, where plain loads
///     through registers stall on each one. Bytes past the line's extent are zero-filled
///     (cp.async's src-size); a chunk whose 16 bytes would run past the operand's last element
///     is read element by element instead, so nothing outside the operand is read.
///  2. read() then, after every producer thread has read (a barrier), write(): each 16-byte output
///     chunk built from the two raw chunks under it, shifted by delta (4-byte loads from delta's
///     word, the rest by a funnel shift), and written back into the same region where a TMA
///     box would have put it, in the 128-byte swizzled layout the wgmmas read (tf32 rounded on the
///     way).
/// Thread t keeps output chunk j = t % kOutChunks (and raw chunk j; the line's last thread also
/// raw chunk kOutChunks) of lines t / kOutChunks + kLinesPerPass n. Those lines lie a multiple
/// of 16 bytes apart in memory, so the thread's delta is fixed for the kernel, its clipping is
/// worked out once per stage, and each line costs a pointer step.
/// The one chunk that would start before the line's first element (the line starts the tile,
/// p0 = 0, and delta > 0) is not copied: read() loads its elements one by one instead, so no
/// byte outside the matrix's lines is ever read. Rows of a K-major tile past M (N) are not
/// written (their rows feed only accumulator rows that are never stored, as with the short TMA
/// boxes); k-lines of an M/N-major tile past K are written as zero, so K's zero padding holds.
template <class E, bool K_MAJOR, int XT, int BK>
struct RealignOperand {
  static constexpr int ES = E::kBytes;
  static constexpr int kLines = K_MAJOR ? XT : BK;
  static constexpr int kRunBytes = K_MAJOR ? BK * ES : XT * ES;
  static constexpr int kRowBytes = kRunBytes + 16;  // a raw row: the line's span
  static constexpr int kOutChunks = kRunBytes / 16;
  static constexpr int kLinesPerPass = 128 / kOutChunks;
  static constexpr int kPasses = kLines / kLinesPerPass;
  static_assert(kLines * kRowBytes <= XT * 144, "the raw rows fit the operand's region");
  static_assert(128 % kOutChunks == 0 && kLines % kLinesPerPass == 0 &&
                    (kLinesPerPass * ES) % 16 == 0,
                "whole passes; a thread's lines a multiple of 16 bytes apart");

  // What a thread keeps for the whole kernel: its output chunk j, its first line i0 of every
  // tile, that line's address in a tile at (0, 0), the bytes between lines, and delta, which is
  // the same in every tile (a tile's first line is a multiple of 8 lines, and its first element a
  // multiple of 128 bytes, from the matrix's).
  struct Thread {
    const unsigned char* gt;    // the thread's first line of the tile at (0, 0)
    const unsigned char* end;   // one past the operand's last element
    const unsigned char* safe;  // 16 aligned bytes inside the operand (null: it has none)
    std::int64_t line_bytes;    // ld in bytes
    int i0, j, delta;
  };
  __device__ __forceinline__ static Thread thread(const unsigned char* base, std::int64_t ld,
                                                  int x_ext, int k_ext, int tid) {
    Thread T;
    const int lines = K_MAJOR ? x_ext : k_ext;
    const int len = K_MAJOR ? k_ext : x_ext;
    T.end = base + ((static_cast<std::int64_t>(lines) - 1) * ld + len) * ES;
    const unsigned char* up = base + ((16 - (reinterpret_cast<std::uintptr_t>(base) & 15u)) & 15u);
    T.safe = up + 16 <= T.end ? up : nullptr;
    T.i0 = tid / kOutChunks;
    T.j = tid % kOutChunks;
    T.line_bytes = ld * ES;
    T.gt = base + T.i0 * T.line_bytes;
    T.delta = static_cast<int>(reinterpret_cast<std::uintptr_t>(T.gt) & 15u);
    return T;
  }

  // The thread's lines of the tile at (x0, k0): where the first starts, the step between them,
  // and the clipping of its chunks.
  struct Lines {
    const unsigned char* g;   // the tile's first element of the thread's first line
    std::int64_t step;        // bytes from one of the thread's lines to the next
    int first, ext;           // the first line's index in the matrix, and the line extent
    int bytes_j, bytes_last;  // bytes of raw chunks j and kOutChunks inside the line's extent
    bool front;               // chunk j = 0 would start before the line: element loads instead
    __device__ __forceinline__ bool ok(int n) const { return first + n * kLinesPerPass < ext; }
  };
  __device__ __forceinline__ static Lines lines(const Thread& T, int x0, int x_ext, int k0,
                                                int k_ext) {
    const int line0 = K_MAJOR ? x0 : k0;  // the tile's first line
    const int p0 = K_MAJOR ? k0 : x0;
    const int pos_ext = K_MAJOR ? k_ext : x_ext;
    Lines L;
    L.g = T.gt + line0 * T.line_bytes + p0 * ES;
    L.step = kLinesPerPass * T.line_bytes;
    L.first = line0 + T.i0;
    L.ext = K_MAJOR ? x_ext : k_ext;
    const int run_left = (pos_ext - p0) * ES + T.delta;  // raw-span bytes up to the line's end
    L.bytes_j = min(max(run_left - 16 * T.j, 0), 16);
    L.bytes_last = min(max(run_left - 16 * kOutChunks, 0), 16);
    L.front = T.j == 0 && T.delta != 0 && p0 == 0;
    return L;
  }

  __device__ __forceinline__ static void copy(const Thread& T, int x0, int x_ext, int k0, int k_ext,
                                              std::uint32_t region) {
    const Lines L = lines(T, x0, x_ext, k0, k_ext);
    const bool last = T.j == kOutChunks - 1 && T.delta != 0;  // the span's extra chunk
    const unsigned char* chunk = L.g - T.delta + 16 * T.j;
    std::uint32_t dst = region + static_cast<std::uint32_t>(T.i0 * kRowBytes + 16 * T.j);
    // A chunk the line's extent cuts goes by cp.async with the bytes past the extent
    // zero-filled, unless its 16 bytes run past the operand's last element (a cp.async of fewer
    // bytes still addresses all 16, which may lie past the allocation): then element loads up to
    // the extent and zeros behind.
#pragma unroll
    for (int n = 0; n < kPasses; ++n) {
      const int bj = L.ok(n) ? L.bytes_j : 0;
      const int bl = L.ok(n) ? L.bytes_last : 0;
      if (!L.front) copy_chunk(dst, chunk, bj, T);
      if (last) copy_chunk(dst + 16, chunk + 16, bl, T);
      chunk += L.step;
      dst += kLinesPerPass * kRowBytes;
    }
  }

  // 16 bytes at `src` (16-byte aligned) into shared memory at `dst`, of which the first `bytes`
  // lie inside the line. cp.async where all 16 lie before the operand's last byte (inside its
  // allocation, even where they run past the line); else element loads and a shared store.
  // A chunk with nothing to read goes by cp.async too (16 zero bytes), from `safe`: 16 aligned
  // bytes inside the operand, so that the copy stays asynchronous and in bounds.
  __device__ __forceinline__ static void copy_chunk(std::uint32_t dst, const unsigned char* src,
                                                    int bytes, const Thread& T) {
    if (bytes > 0 ? src + 16 <= T.end : T.safe != nullptr) {
      cp_async_16_zfill<false>(dst, bytes > 0 ? src : T.safe, bytes);
      return;
    }
    std::uint32_t w[4] = {0u, 0u, 0u, 0u};
#pragma unroll
    for (int e = 0; e < 16 / ES; ++e) {
      if (e * ES < bytes) {
        const std::uint32_t v =
            ES == 2 ? static_cast<std::uint32_t>(
                          __ldg(reinterpret_cast<const unsigned short*>(src) + e))
                    : __float_as_uint(__ldg(reinterpret_cast<const float*>(src) + e));
        w[e * ES / 4] |= ES == 2 ? v << (16 * (e % 2)) : v;
      }
    }
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "r"(w[0]), "r"(w[1]),
                 "r"(w[2]), "r"(w[3])
                 : "memory");
  }

  // The thread's output chunks, one per pass.
  struct Out {
    std::uint32_t o[kPasses][4];
  };

  __device__ __forceinline__ static void read(const Thread& T, int x0, int x_ext, int k0, int k_ext,
                                              const unsigned char* region, Out& out) {
    const Lines L = lines(T, x0, x_ext, k0, k_ext);
    if (L.front) {
      // The line's first elements, one by one (the chunk under them starts before the line;
      // p0 = 0, so the elements to read are those below the extent).
      const int elems = K_MAJOR ? k_ext : x_ext;
      const unsigned char* g = L.g;
#pragma unroll
      for (int n = 0; n < kPasses; ++n, g += L.step) {
        constexpr int kPer = 16 / ES;
#pragma unroll
        for (int k = 0; k < 4; ++k) out.o[n][k] = 0u;
#pragma unroll
        for (int e = 0; e < kPer; ++e) {
          std::uint32_t v = 0u;
          if (L.ok(n) && e < elems) {
            v = ES == 2 ? static_cast<std::uint32_t>(
                              __ldg(reinterpret_cast<const unsigned short*>(g) + e))
                        : __float_as_uint(__ldg(reinterpret_cast<const float*>(g) + e));
          }
          if constexpr (ES == 2) {
            out.o[n][e / 2] |= v << (16 * (e % 2));
          } else {
            out.o[n][e] = v;
          }
        }
      }
      return;
    }
    // Output chunk = bytes delta .. delta + 15 of the two raw chunks under it: the words from
    // delta's word on (4-byte loads at a per-thread offset) and a funnel shift by delta % 4
    // bytes. The four lines of a warp have different deltas where the pitch is odd; one code
    // path for all of them (a switch on delta / 4 ran up to four paths one after another).
    const unsigned char* raw = region + T.i0 * kRowBytes + 16 * T.j + (T.delta & ~3);
    const int r = (T.delta & 3) * 8;  // 0 for 4-byte elements (an element-aligned base)
    constexpr int kWords = ES == 4 ? 4 : 5;
    constexpr int kGroup = kPasses < 4 ? kPasses : 4;
    // Four passes' words at a time, then their shifts: the loads are in flight together, and
    // few enough registers stay live. A line past the extent gives zeros (M/N-major: K's zero
    // padding).
#pragma unroll
    for (int n0 = 0; n0 < kPasses; n0 += kGroup) {
      std::uint32_t w[kGroup][kWords];
#pragma unroll
      for (int g = 0; g < kGroup; ++g) {
#pragma unroll
        for (int i = 0; i < kWords; ++i) {
          w[g][i] = *reinterpret_cast<const std::uint32_t*>(
              raw + (n0 + g) * kLinesPerPass * kRowBytes + 4 * i);
        }
      }
#pragma unroll
      for (int g = 0; g < kGroup; ++g) {
        const int n = n0 + g;
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          if constexpr (ES == 4) {
            out.o[n][k] = L.ok(n) ? w[g][k] : 0u;
          } else {
            out.o[n][k] = L.ok(n) ? __funnelshift_r(w[g][k], w[g][k + 1], r) : 0u;
          }
        }
      }
    }
  }

  __device__ __forceinline__ static void write(const Thread& T, int x0, int x_ext, int k0,
                                               int k_ext, unsigned char* region, Out& out) {
    const Lines L = lines(T, x0, x_ext, k0, k_ext);
    const int i0 = T.i0;
    const int j = T.j;
    // Offset of chunk j of line i0 in the TMA boxes' layout; each pass moves kLinesPerPass rows.
    const int off0 = K_MAJOR ? i0 * 128 : (j / 8) * BK * 128 + i0 * 128;
#pragma unroll
    for (int n = 0; n < kPasses; ++n) {
      if (K_MAJOR && !L.ok(n)) continue;  // K-major rows past the extent are not written
      if constexpr (ES == 4) {
        // tf32: rounded to nearest (ties away from zero), as the mma.sync rung does.
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(out.o[n][k]) : "f"(__uint_as_float(out.o[n][k])));
        }
      }
      const int at = off0 + n * kLinesPerPass * 128;
      *reinterpret_cast<uint4*>(region + at + (((j & 7) ^ ((at >> 7) & 7)) << 4)) =
          make_uint4(out.o[n][0], out.o[n][1], out.o[n][2], out.o[n][3]);
    }
  }
};

/// The in-kernel split's loads of operands no tensor map reads (Config::kSplit3 with kRealign):
/// one fp32 element per 4-byte cp.async, straight to where a TMA box would have put it in the
/// 128-byte swizzled layout, zeros past the extents (K's padding, and lines past M or N). Each
/// warp copies one 128-byte segment per instruction: a K-major line of the tile, or 32 elements
/// of an M/N-major k-line (boxes of 32 x BK as the maps lay them), coalesced at any pitch. An
/// element-aligned fp32 base makes every element 4-byte aligned, so there is nothing to
/// realign: no raw rows and no second pass, only the copies (the realigning producer above
/// spends shared loads, a shift and a store per 16 bytes on top of them).
template <bool K_MAJOR, int XT, int BK>
struct ElementCopy {
  static constexpr int kSegments = K_MAJOR ? XT : BK * (XT / 32);  // 128-byte segments per tile
  static constexpr int kPasses = kSegments / 4;                     // a segment per warp per pass
  static_assert(BK == 32 && XT % 32 == 0 && kSegments % 4 == 0, "fp32 tiles of whole segments");

  // Pass n copies segment 4 n + w (w: the warp). K-major: the tile's row 4 n + w, the lane's
  // element along K. M/N-major: k-line (4 n + w) % 32 of box n / 8, the lane's element along
  // M/N. Either way the source moves by a fixed stride per pass and the swizzle row alternates
  // between two values, so a pass costs a pointer add, a compare and the copy.
  __device__ __forceinline__ static void copy(const float* base, std::int64_t ld, int x0, int x_ext,
                                              int k0, int k_ext, std::uint32_t region, int tid) {
    const int lane = tid % 32;
    const int w = tid / 32;
    // Whether the lane's K coordinate (K-major) is inside K, and the room of the coordinate that
    // moves per pass: K-major rows 4 n + w, M/N-major k-lines 4 (n % 8) + w.
    const bool lane_in = K_MAJOR ? k0 + lane < k_ext : true;
    const int room = K_MAJOR ? x_ext - x0 - w : k_ext - k0 - w;
    const float* src = K_MAJOR ? base + static_cast<std::int64_t>(x0 + w) * ld + k0 + lane
                               : base + static_cast<std::int64_t>(k0 + w) * ld + x0 + lane;
    const std::int64_t step = 4 * ld;  // 4 lines (K-major) or 4 k-lines (M/N-major) per pass
    const int chunk = lane / 4;
    const std::uint32_t in_chunk = static_cast<std::uint32_t>(4 * (lane % 4));
    // Swizzle rows w and w + 4 (line & 7 of passes n even and odd).
    const std::uint32_t at_even =
        region + static_cast<std::uint32_t>(w * 128 + ((chunk ^ w) << 4)) + in_chunk;
    const std::uint32_t at_odd =
        region + static_cast<std::uint32_t>(w * 128 + ((chunk ^ (w + 4)) << 4)) + in_chunk;
#pragma unroll
    for (int n = 0; n < kPasses; ++n) {
      // K-major: row 4 n + w at 128 bytes per row; M/N-major: box n / 8 (32 k-lines of 128
      // bytes), k-line 4 (n % 8) + w.
      const std::uint32_t offset =
          K_MAJOR ? static_cast<std::uint32_t>(n * 4 * 128)
                  : static_cast<std::uint32_t>((n / 8) * BK * 128 + (n % 8) * 4 * 128);
      const std::uint32_t dst = (n % 2 == 0 ? at_even : at_odd) + offset;
      bool in = 4 * (K_MAJOR ? n : n % 8) < room && lane_in;
      if constexpr (!K_MAJOR) in = in && x0 + 32 * (n / 8) + lane < x_ext;
      const float* at = K_MAJOR ? src + n * step : src + (n % 8) * step + 32 * (n / 8);
      cp_async_4_zfill(dst, in ? at : base, in ? 4 : 0);
    }
  }
};
#endif  // TILEGEMM_WGMMA_DEVICE

// ---- The kernel --------------------------------------------------------------------------------

#if TILEGEMM_WGMMA_DEVICE
// One consumer's staged chunk of C (`rows` <= 64 lines of RB bytes in the 128-byte swizzled
// layout at `buf`) stored to `out` (ldc elements apart) by its 128 threads in V-byte pieces,
// consecutive threads to consecutive pieces of a line: a warp writes 32 x V contiguous bytes per
// instruction. V divides C's base and row pitch in bytes (the launcher picks it); a piece
// crossing `cols` (the right edge) is stored element by element.
template <class CT, int V, int RB>
__device__ __forceinline__ void store_staged(std::uint32_t buf, CT* out, std::int64_t ldc,
                                             int rows, int cols, int tid) {
  constexpr int kE = V / static_cast<int>(sizeof(CT));  // elements per piece
  constexpr int kPieces = RB / V;                         // pieces per line
  constexpr int kRowsPerPass = 128 / kPieces;
  static_assert(kE >= 1 && 128 % kPieces == 0, "whole pieces, whole lines per pass");
  const int piece = tid % kPieces;
  const int col = piece * kE;
  const int byte = piece * V;
  if (col >= cols) return;
  const bool whole = col + kE <= cols;
#pragma unroll 1
  for (int r = tid / kPieces; r < rows; r += kRowsPerPass) {
    const int swizzled = (((byte >> 4) ^ (r & 7)) << 4) | (byte & 15);
    const std::uint32_t addr = buf + static_cast<std::uint32_t>(r * RB + swizzled);
    CT* const dst = out + static_cast<std::int64_t>(r) * ldc + col;
    if constexpr (V == 16) {
      if (whole) {
        *reinterpret_cast<uint4*>(dst) = ld_shared_v4_u32(addr);
        continue;
      }
    } else if constexpr (V == 8) {
      if (whole) {
        *reinterpret_cast<uint2*>(dst) = ld_shared_v2_u32(addr);
        continue;
      }
    } else if constexpr (V == 4 && sizeof(CT) == 2) {
      if (whole) {
        *reinterpret_cast<std::uint32_t*>(dst) = ld_shared_u32(addr);
        continue;
      }
    }
#pragma unroll
    for (int e = 0; e < kE; ++e) {
      if (col + e < cols) {
        if constexpr (sizeof(CT) == 4) {
          *reinterpret_cast<std::uint32_t*>(dst + e) = ld_shared_u32(addr + 4 * e);
        } else {
          *reinterpret_cast<std::uint16_t*>(dst + e) = ld_shared_u16(addr + 2 * e);
        }
      }
    }
  }
}
#endif  // TILEGEMM_WGMMA_DEVICE

/// C = alpha * A B + beta * C on the tensor cores, one warpgroup loading, two computing.
/// @tparam Cfg  a Config
/// @tparam E    Bf16, F16 or Tf32 (A and B)
/// @tparam CT   C's element type: float, __nv_bfloat16 or __half
/// @tparam A_K  A is K-major (row-major); else M-major (tf32: read into registers)
/// @tparam B_K  B is K-major (col-major); else N-major
/// @tparam C_T  C(i, j) is c[j * ldc + i] (tf32 mirrored for its N-major B; register epilogue)
template <class Cfg, class E, class CT, bool A_K, bool B_K, bool C_T = false>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    wgmma_kernel(const __grid_constant__ typename Cfg::AMap tma_a,
                 const __grid_constant__ CUtensorMap tma_b,
                 const __grid_constant__ CUtensorMap tma_c, const Params p) {
#if !TILEGEMM_WGMMA_DEVICE
#if defined(__CUDA_ARCH__)
  __trap();  // built for sm_90a only; min_cc = max_cc = 90 keeps other GPUs from launching it
#endif
#else
  constexpr int BM = Cfg::BM;
  constexpr int BN = Cfg::BN;
  constexpr int BK = Cfg::BK;
  constexpr int STAGES = Cfg::STAGES;
  constexpr int RB = Cfg::kRowBytes;
  constexpr int CL = Cfg::kCluster;
  using Op = Wgmma<BN, E>;
  constexpr int KSTEPS = BK / Op::kInstK;  // instructions per stage: 4
  static_assert(B_K || E::kBytes == 2, "tf32 B is K-major only");
  static_assert(!C_T || Cfg::kResidueA || (E::kBytes == 4 && !A_K),
                "C_T comes with a mirrored tf32 product or with rung 23's orientation");
  static_assert(!Cfg::kSplit3 || (B_K && !C_T), "the in-kernel split rewrites a K-major B tile");
  // tf32 with an M-major A: the consumers load their A fragments from the tile into registers
  // (A_RS; the in-kernel split loads them from either layout its own way).
  constexpr bool A_MN_FRAGS = E::kBytes == 4 && !A_K;
  constexpr bool A_RS = A_MN_FRAGS && !Cfg::kSplit3;
  // A's fragments go through registers (A_RS, rung 23's residue lines; the split waits its own
  // way): a stage's wgmmas are waited for before the next stage's fragments overwrite them.
  constexpr bool A_REGS = A_RS || Cfg::kResidueA;
  // M/N-major tiles are stored as chunks of 64 elements (one 128-byte row each) x BK k-rows.
  constexpr int kChunkBytes = BK * RB;
  constexpr int kMnChunk = RB / E::kBytes;  // 64

  __shared__ __align__(8) std::uint64_t full_bar[STAGES];   // stage s loaded (TMA bytes landed)
  __shared__ __align__(8) std::uint64_t empty_bar[STAGES];  // stage s read by every consumer
  __shared__ bool split_last[2];  // a consumer's split was the last to arrive (in-kernel sum)
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const std::uint32_t ring = (smem_addr(smem_raw) + 1023u) & ~1023u;
  const std::uint32_t full0 = smem_addr(&full_bar[0]);
  const std::uint32_t empty0 = smem_addr(&empty_bar[0]);

  const int wg = static_cast<int>(threadIdx.x) / 128;
  const int tid = static_cast<int>(threadIdx.x) % 128;
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < STAGES; ++s) {
      // TMA: one arrival (with the bytes expected); realigned: every producer thread's.
      mbar_init(full0 + 8 * s, Cfg::kRealign ? 128 : 1);
      // A stage's B tile is written into every CTA of the cluster: it is free again only when
      // the consumers of all of them are done with it.
      mbar_init(empty0 + 8 * s, Cfg::kConsumers * CL);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  // Clusters: no CTA may multicast into, or arrive on, a peer's barriers before they exist.
  if constexpr (CL > 1) {
    cluster_sync();
  } else {
    __syncthreads();
  }
  // Launched after rung 16's copies as their programmatic dependent: from here on the copies are
  // complete and visible (without that launch attribute this returns at once).
  asm volatile("griddepcontrol.wait;\n" ::: "memory");

  // A cluster walks cluster tiles (CL vertically adjacent tiles); CTA `rank` of it computes
  // tile-row CL * tm + rank. A CTA whose tile-row is past M still loads its share of B for its
  // peer, reads zeros for A and stores nothing.
  const int rank = CL > 1 ? static_cast<int>(cluster_ctarank()) : 0;
  const int cluster_id = static_cast<int>(blockIdx.x) / CL;
  const int clusters = static_cast<int>(gridDim.x) / CL;
  const int tiles_mc = (p.tiles_m + CL - 1) / CL;
  const int tiles = tiles_mc * p.tiles_n;
  // Work units: the whole tiles (unit = tile), then the split tiles' splits (unit = whole +
  // split * split tiles + split tile), each over k-tiles kt0 .. kt1 - 1.
  const int split_tiles = tiles - p.whole_tiles;
  const int units = p.whole_tiles + split_tiles * p.k_splits;
  auto tile_of = [&](int unit) {
    return unit < p.whole_tiles ? unit : p.whole_tiles + (unit - p.whole_tiles) % split_tiles;
  };
  auto k_range = [&](int unit) {
    if (unit < p.whole_tiles) return int2{0, p.k_tiles};
    const int kt0 = (unit - p.whole_tiles) / split_tiles * p.k_tiles_split;
    return int2{kt0, min(p.k_tiles, kt0 + p.k_tiles_split)};
  };
  // The first row and column of this CTA's tile in cluster tile `tile`: producer and consumers
  // walk the same sequence, so their ring positions agree.
  auto tile_origin = [&](int tile) {
    const views::TileCoord tc = views::raster_tile(tile, tiles_mc, p.tiles_n, p.raster_group);
    return int2{(tc.m * CL + rank) * BM, tc.n * BN};
  };
  if (wg == 0) {
    if constexpr (Cfg::kRealign && Cfg::kSplit3) {
      // ---- The in-kernel split's element producer: all 128 threads copy each stage's A and B
      // tiles element by element (ElementCopy), and each has the stage's barrier count its
      // arrival once its copies have landed (cp.async.mbarrier.arrive.noinc; 128 arrivals), so
      // every free stage of the ring is in flight and no thread waits for its copies (waiting
      // for them, kAhead = STAGES - 2 stages ahead and a producer barrier before the arrivals,
      // was 14-18% slower: docs/perf-notes.md). The consumer reads both tiles through the
      // generic proxy (A's fragments, B's split) and fences before its wgmmas, so the copies
      // need no proxy fence here. ----
      const float* const pa = static_cast<const float*>(p.a);
      const float* const pb = static_cast<const float*>(p.b);
      int stage = 0;
      std::uint32_t phase = 0;
      for (int unit = cluster_id; unit < units; unit += clusters) {
        const int2 origin = tile_origin(tile_of(unit));
        const int2 kr = k_range(unit);
        for (int kt = kr.x; kt < kr.y; ++kt) {
          mbar_wait(empty0 + 8 * stage, phase ^ 1u);
          const std::uint32_t dst = ring + static_cast<std::uint32_t>(stage * Cfg::kStageBytes);
          ElementCopy<A_K, BM, BK>::copy(pa, p.lda, origin.x, p.m, kt * BK, p.k, dst, tid);
          ElementCopy<B_K, BN, BK>::copy(pb, p.ldb, origin.y, p.n, kt * BK, p.k,
                                         dst + Cfg::kATileBytes, tid);
          cp_async_mbarrier_arrive_noinc(full0 + 8 * stage);
          if (++stage == STAGES) {
            stage = 0;
            phase ^= 1u;
          }
        }
      }
      // No thread leaves with its copies in flight (wait_group covers committed groups only).
      cp_async_commit();
      cp_async_wait<0>();
      return;
    } else if constexpr (Cfg::kRealign) {
      // ---- Realigning producer: all 128 threads. Step i's raw spans are copied into its ring
      // stage with cp.async while the stage of step i - kAhead is realigned in place; each
      // thread then makes its shared-memory writes visible to the async proxy the wgmmas read
      // through, and arrives on the stage's barrier. A consumer releases a stage only after
      // its next stage's wgmmas are issued, so the copy of step i waits for the release of step
      // i - STAGES, which needs step i - STAGES + 1 realigned: kAhead <= STAGES - 2, or a copy
      // would wait on a realignment queued behind it. At STAGES - 2 the two sides ping-pong
      // (each copy waits for the realignment just done to be consumed); half the ring leaves
      // the consumers STAGES - 1 - kAhead realigned stages of slack. ----
      constexpr int kAhead = (STAGES - 1) / 2;
      static_assert(kAhead >= 1, "a realigning producer needs a ring of 3 stages or more");
      using OpA = RealignOperand<E, A_K, BM, BK>;
      using OpB = RealignOperand<E, B_K, BN, BK>;
      const typename OpA::Thread ta =
          OpA::thread(static_cast<const unsigned char*>(p.a), p.lda, p.m, p.k, tid);
      const typename OpB::Thread tb =
          OpB::thread(static_cast<const unsigned char*>(p.b), p.ldb, p.n, p.k, tid);
      unsigned char* const ring_ptr = smem_raw + (ring - smem_addr(smem_raw));
      // A walk over this CTA's steps (work unit, k-tile), with the unit's tile origin and last
      // k-tile kept so that a step costs no division.
      struct Cursor {
        int unit, kt, kt_end;
        int2 origin;
      };
      auto start = [&](Cursor& c, int unit) {
        c.unit = unit;
        if (unit < units) {
          const int2 kr = k_range(unit);
          c.kt = kr.x;
          c.kt_end = kr.y;
          c.origin = tile_origin(tile_of(unit));
        }
      };
      auto advance = [&](Cursor& c) {
        if (++c.kt >= c.kt_end) start(c, c.unit + clusters);
      };
      Cursor cc, rc;  // the step being copied, the step being realigned
      start(cc, cluster_id);
      rc = cc;
      int c_stage = 0, r_stage = 0;
      std::uint32_t c_phase = 0;
      int pending = 0;  // steps copied, not yet realigned
      while (cc.unit < units || pending > 0) {
        const bool copying = cc.unit < units;
        if (copying) {
          mbar_wait(empty0 + 8 * c_stage, c_phase ^ 1u);
          const std::uint32_t dst = ring + static_cast<std::uint32_t>(c_stage * Cfg::kStageBytes);
          OpA::copy(ta, cc.origin.x, p.m, cc.kt * BK, p.k, dst);
          OpB::copy(tb, cc.origin.y, p.n, cc.kt * BK, p.k, dst + Cfg::kATileBytes);
          cp_async_commit();
          advance(cc);
          if (++c_stage == STAGES) {
            c_stage = 0;
            c_phase ^= 1u;
          }
          ++pending;
        }
        if (copying ? pending > kAhead : true) {
          // The oldest pending step's copies have landed (this thread's; the barrier: all).
          if (copying) {
            cp_async_wait<kAhead>();
          } else {
            cp_async_wait<0>();
          }
          named_barrier_sync(3, 128);
          unsigned char* const a_region = ring_ptr + r_stage * Cfg::kStageBytes;
          unsigned char* const b_region = a_region + Cfg::kATileBytes;
          const int k0 = rc.kt * BK;
          // One operand at a time (fewer live registers): every raw chunk of a region is read
          // before any of it is overwritten.
          {
            typename OpA::Out oa;
            OpA::read(ta, rc.origin.x, p.m, k0, p.k, a_region, oa);
            named_barrier_sync(3, 128);
            OpA::write(ta, rc.origin.x, p.m, k0, p.k, a_region, oa);
          }
          {
            typename OpB::Out ob;
            OpB::read(tb, rc.origin.y, p.n, k0, p.k, b_region, ob);
            named_barrier_sync(3, 128);
            OpB::write(tb, rc.origin.y, p.n, k0, p.k, b_region, ob);
          }
          fence_proxy_async_smem();
          mbar_arrive(full0 + 8 * r_stage);
          advance(rc);
          if (++r_stage == STAGES) r_stage = 0;
          --pending;
        }
      }
      return;
    }
    // ---- Producer: one thread walks the CTA's tiles and K, keeping the ring full ----
    if constexpr (Cfg::kSetMaxNReg) setmaxnreg_dec<Cfg::kProducerRegs>();
    if (tid == 0) {
      if constexpr (Cfg::kResidueA) {
#pragma unroll
        for (int j = 0; j < 8; ++j) prefetch_tensor_map(&tma_a.map[j]);
      } else {
        prefetch_tensor_map(&tma_a);
      }
      prefetch_tensor_map(&tma_b);
      int stage = 0;
      std::uint32_t phase = 0;
      for (int unit = cluster_id; unit < units; unit += clusters) {
        const int2 origin = tile_origin(tile_of(unit));
        const int m0 = origin.x;
        const int n0 = origin.y;
        const int2 kr = k_range(unit);
        for (int kt = kr.x; kt < kr.y; ++kt) {
          mbar_wait(empty0 + 8 * stage, phase ^ 1u);
          const std::uint32_t bar = full0 + 8 * stage;
          mbar_expect_tx(bar, p.stage_tx);
          const std::uint32_t a_dst = ring + static_cast<std::uint32_t>(stage * Cfg::kStageBytes);
          const std::uint32_t b_dst = a_dst + Cfg::kATileBytes;
          const int k0 = kt * BK;
          if constexpr (Cfg::kResidueA) {
            // Class j's lines of the tile: K-major, rows m0 + j + 8 i (map line m0 / 8 + i);
            // M-major, k-lines k0 + j + 8 i. The inner start, k0 or m0 less the stagger of
            // 16 (j % 4) bytes, stays on a 16-byte boundary; before the first it reads zeros.
            constexpr int kStagger = 16 / E::kBytes;
#pragma unroll
            for (int j = 0; j < 8; ++j) {
              tma_load_2d(a_dst + j * Cfg::kResidueClassBytes, &tma_a.map[j],
                          (A_K ? k0 : m0) - kStagger * (j % Cfg::kResidueStaggers),
                          A_K ? m0 / 8 : k0 / 8, bar);
            }
          } else if constexpr (A_K) {
            tma_load_2d(a_dst, &tma_a, k0, m0, bar);
          } else {
#pragma unroll
            for (int c = 0; c < BM / kMnChunk; ++c) {
              tma_load_2d(a_dst + c * kChunkBytes, &tma_a, m0 + c * kMnChunk, k0, bar);
            }
          }
          if constexpr (CL == 1) {
            if constexpr (B_K) {
              tma_load_2d(b_dst, &tma_b, k0, n0, bar);
            } else {
#pragma unroll
              for (int c = 0; c < BN / kMnChunk; ++c) {
                tma_load_2d(b_dst + c * kChunkBytes, &tma_b, n0 + c * kMnChunk, k0, bar);
              }
            }
          } else {
            // This CTA's 1/CL of the B tile, into every CTA of the cluster.
            constexpr std::uint16_t kAll = (1u << CL) - 1u;
            if constexpr (B_K) {
              constexpr int kRows = BN / CL;  // the map's box is kRows lines of K
              tma_load_2d_multicast(b_dst + rank * kRows * RB, &tma_b, k0, n0 + rank * kRows, bar,
                                    kAll);
            } else {
              constexpr int kChunks = BN / kMnChunk / CL;
#pragma unroll
              for (int i = 0; i < kChunks; ++i) {
                const int c = rank * kChunks + i;
                tma_load_2d_multicast(b_dst + c * kChunkBytes, &tma_b, n0 + c * kMnChunk, k0, bar,
                                      kAll);
              }
            }
          }
          if (++stage == STAGES) {
            stage = 0;
            phase ^= 1u;
          }
        }
      }
    }
    if constexpr (CL > 1) cluster_sync();  // stay until the peers are done with this CTA
    return;
  }

  // ---- Consumers: warpgroup wg - 1 computes rows 64 (wg - 1) .. + 63 of each tile ----
  if constexpr (Cfg::kSetMaxNReg) setmaxnreg_inc<Cfg::kConsumerRegs>();
  const int cw = wg - 1;
  // This consumer's 64 rows of A: 64 K-major rows, or M-major chunk cw (both 8 KiB in).
  const std::uint32_t a_off =
      A_K ? static_cast<std::uint32_t>(cw * 64 * RB) : static_cast<std::uint32_t>(cw * kChunkBytes);
  const int warp = tid / 32;
  const int lane = tid % 32;
  CT* const c = static_cast<CT*>(p.c);
  const bool vec2 = p.c_vec2 != 0;
  // A from registers (A_RS): the M-major tile is BM / 32 chunks of 32 rows (128 bytes) x BK
  // k-lines, 128-byte swizzled (the 16-byte granule of row m in k-line k is (m / 4) ^ (k % 8)).
  // Fragment register i of k-step ks holds A(16 warp + g + 8 (i % 2), 8 ks + t + 4 (i / 2)),
  // g = lane / 4, t = lane % 4; its byte offset is a_frag[i] + ks * 8 lines.
  std::uint32_t a_frag[4] = {};
  if constexpr (A_MN_FRAGS) {
    const int g = lane / 4;
    const int t = lane % 4;
    const int chunk = 2 * cw + warp / 2;  // consumer cw's 64 rows are chunks 2 cw, 2 cw + 1
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int m = 16 * (warp % 2) + g + 8 * (i % 2);  // row within the 32-row chunk
      const int k = t + 4 * (i / 2);
      a_frag[i] = static_cast<std::uint32_t>(chunk * kChunkBytes + k * RB + (((m / 4) ^ k) << 4) +
                                             (m % 4) * 4);
    }
  }
  // The descriptor of k-step ks of the B tile at `tile`: K-major, 128-byte swizzled rows;
  // N-major, 64-element chunks of BK k-lines.
  auto b_desc = [&](std::uint32_t tile, int ks) {
    return B_K ? smem_desc(tile + ks * Op::kInstK * E::kBytes, 16, 1024)
               : smem_desc(tile + ks * Op::kInstK * RB, kChunkBytes, 1024);
  };
  // Rung 23: fragment register i (k-step 0) of this thread, from its class's lines in the A
  // region (the k-step adds rm_step bytes). K-major: A(16 warp + g + 8 (i % 2), 2t + 8 (i / 2)
  // and the next k) is in class g, line 2 warp + i % 2, 16 (g % 4) + shift_g + 2 k bytes in:
  // two aligned words there and a byte permute (rm_sel) take the pair from any 2-byte offset.
  // M-major: the pair's two k lie in classes 2t and 2t + 1, line i / 2 (+ 2 per k-step), each
  // element 16 (class % 4) + shift + 2 m bytes in: two 16-bit loads.
  std::uint32_t rm_lo[4] = {}, rm_hi[4] = {};
  std::uint32_t rm_sel = 0x3210;
  constexpr std::uint32_t rm_step =
      A_K ? 16 * E::kBytes : 2 * static_cast<std::uint32_t>(Cfg::kResidueLineBytes);
  if constexpr (Cfg::kResidueA) {
    const int g = lane / 4;
    const int t = lane % 4;
    auto shift_of = [&](int j) { return static_cast<int>((p.a_shifts >> (4 * j)) & 15u); };
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      if constexpr (A_K) {
        const int sh = 16 * (g % Cfg::kResidueStaggers) + shift_of(g);
        rm_sel = (sh & 2) != 0 ? 0x5432u : 0x3210u;
        rm_lo[i] = static_cast<std::uint32_t>(g * Cfg::kResidueClassBytes +
                                              (2 * warp + i % 2) * Cfg::kResidueLineBytes +
                                              (sh & ~3) + 4 * t + 16 * (i / 2));
      } else {
        const int m = 16 * warp + g + 8 * (i % 2);
        auto at = [&](int j) {
          return static_cast<std::uint32_t>(j * Cfg::kResidueClassBytes +
                                            (i / 2) * Cfg::kResidueLineBytes +
                                            16 * (j % Cfg::kResidueStaggers) + shift_of(j) +
                                            2 * m);
        };
        rm_lo[i] = at(2 * t);
        rm_hi[i] = at(2 * t + 1);
      }
    }
  }
  // Rung 23's fragments of the current stage and of the next one.
  std::uint32_t rm_a[Cfg::kResidueA ? KSTEPS : 1][4], rm_next[Cfg::kResidueA ? KSTEPS : 1][4];
  auto residue_frags = [&](std::uint32_t (&a)[Cfg::kResidueA ? KSTEPS : 1][4], int s) {
    if constexpr (Cfg::kResidueA) {
      const std::uint32_t a_tile = ring + static_cast<std::uint32_t>(s * Cfg::kStageBytes);
#pragma unroll
      for (int ks = 0; ks < KSTEPS; ++ks) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const std::uint32_t at = a_tile + static_cast<std::uint32_t>(ks) * rm_step;
          if constexpr (A_K) {
            a[ks][i] = __byte_perm(ld_shared_u32(at + rm_lo[i]), ld_shared_u32(at + rm_lo[i] + 4),
                                   rm_sel);
          } else {
            a[ks][i] = static_cast<std::uint32_t>(ld_shared_u16(at + rm_lo[i])) |
                       (static_cast<std::uint32_t>(ld_shared_u16(at + rm_hi[i])) << 16);
          }
        }
      }
    }
  };
  float d[BN / 2];
  // kPromote: the sum of the k-tiles before the current window, added with rounding fp32 adds.
  float acc[Cfg::kPromote > 0 ? BN / 2 : 1];
  int stage = 0;
  int prev_stage = 0;
  std::uint32_t phase = 0;
  // This consumer is done with a stage, in every CTA whose producer wrote into it.
  auto release_stage = [&](int s) {
    if (tid == 0) {
      mbar_arrive(empty0 + 8 * s);
      if constexpr (CL > 1) {
#pragma unroll
        for (int r = 1; r < CL; ++r) mbar_arrive_cluster(empty0 + 8 * s, (rank + r) % CL);
      }
    }
  };
  std::uint32_t epi_chunk = 0;  // staging chunks written so far (odd chunk counts per tile)
  // SPLIT3: the slot the next stage's remainders go to (the two alternate).
  const std::uint32_t split_slots = ring + STAGES * Cfg::kStageBytes + Cfg::kEpiBytes;
  std::uint32_t split_slot = 0;
  for (int unit = cluster_id; unit < units; unit += clusters) {
    const int2 origin = tile_origin(tile_of(unit));
    const int m0 = origin.x;
    const int n0 = origin.y;
    const int2 kr = k_range(unit);
    if constexpr (Cfg::kPromote > 0) {
#pragma unroll
      for (int i = 0; i < BN / 2; ++i) acc[i] = 0.0f;
    }
    for (int kt = kr.x; kt < kr.y; ++kt) {
      // The first k-step of a tile, and with kPromote of each window, overwrites the
      // accumulators (scale-d 0): no zeroing.
      bool restart = kt == kr.x;
      if constexpr (Cfg::kPromote > 0) {
        restart = (kt - kr.x) % Cfg::kPromote == 0;
        if (!Cfg::kSplit3 && kt > kr.x && restart) {
          wgmma_wait<0>();  // the window's wgmmas are done with d
#pragma unroll
          for (int i = 0; i < BN / 2; ++i) acc[i] += d[i];
        }
      }
      mbar_wait(full0 + 8 * stage, phase);
      const std::uint32_t a_base =
          ring + static_cast<std::uint32_t>(stage * Cfg::kStageBytes) + a_off;
      const std::uint32_t b_base =
          ring + static_cast<std::uint32_t>(stage * Cfg::kStageBytes + Cfg::kATileBytes);
      if constexpr (Cfg::kResidueA) {
        // The unit's first stage loads its fragments here; each later one was loaded while the
        // wgmmas of the stage before it ran (below).
        if (kt == kr.x) residue_frags(rm_a, stage);
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < KSTEPS; ++ks) {
          const std::uint64_t db = b_desc(b_base, ks);
          Op::template mma_rs<B_K ? 0 : 1>(d, rm_a[ks], db, (!restart || ks > 0) ? 1 : 0);
        }
        wgmma_commit();
        // The next stage's fragments into the other registers while these wgmmas run; the
        // registers they read stay live (the empty asm below) until they are waited for.
        if (kt + 1 < kr.y) {
          const int next = stage + 1 == STAGES ? 0 : stage + 1;
          mbar_wait(full0 + 8 * next, next == 0 ? phase ^ 1u : phase);
          residue_frags(rm_next, next);
        }
        wgmma_wait<0>();
#pragma unroll
        for (int ks = 0; ks < KSTEPS; ++ks) {
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            asm volatile("" : "+r"(rm_a[ks][i])::"memory");
            rm_a[ks][i] = rm_next[ks][i];
          }
        }
      } else if constexpr (A_RS) {
        const std::uint32_t a_tile = ring + static_cast<std::uint32_t>(stage * Cfg::kStageBytes);
        std::uint32_t a[KSTEPS][4];
#pragma unroll
        for (int ks = 0; ks < KSTEPS; ++ks) {
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            a[ks][i] = ld_shared_u32(a_tile + a_frag[i] + static_cast<std::uint32_t>(ks * 8 * RB));
          }
        }
        // The fence orders the fragment registers' writes before the wgmmas read them.
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < KSTEPS; ++ks) {
          Op::mma_rs(d, a[ks], b_desc(b_base, ks), (!restart || ks > 0) ? 1 : 0);
        }
      } else if constexpr (Cfg::kSplit3) {
        // B's tile (one consumer: the whole stage is this warpgroup's) becomes its tf32 parts in
        // place and its remainders at the same offsets in the slot; the split is elementwise, so
        // the swizzled layout carries over. This overlaps the previous stage's wgmmas, which read
        // the other slot. Rows a short box left unwritten hold earlier data and feed only rows
        // of C that are never stored.
        const std::uint32_t slot =
            split_slots + split_slot * static_cast<std::uint32_t>(Cfg::kBTileSwizzledBytes);
        split_slot ^= 1u;
        constexpr int kGranules = Cfg::kBTileSwizzledBytes / 16;
        static_assert(kGranules % 128 == 0, "whole 16-byte granules per thread");
        // All of this thread's granules are loaded first and checked once, so that the split
        // below is straight-line code over independent elements (a branch per granule left
        // the one consumer warp per scheduler waiting on each dependence chain in turn).
        constexpr int kMine = kGranules / 128;
        uint4 v[kMine];
        unsigned b_magnitude = 0;
#pragma unroll
        for (int i = 0; i < kMine; ++i) {
          v[i] = ld_shared_v4_u32(b_base + static_cast<std::uint32_t>((i * 128 + tid) * 16));
          b_magnitude = max(b_magnitude, max(max(v[i].x & 0x7fffffffu, v[i].y & 0x7fffffffu),
                                             max(v[i].z & 0x7fffffffu, v[i].w & 0x7fffffffu)));
        }
        auto split_b = [&](auto split) {
#pragma unroll
          for (int i = 0; i < kMine; ++i) {
            const auto off = static_cast<std::uint32_t>((i * 128 + tid) * 16);
            const float2 x = split(__uint_as_float(v[i].x));
            const float2 y = split(__uint_as_float(v[i].y));
            const float2 z = split(__uint_as_float(v[i].z));
            const float2 w = split(__uint_as_float(v[i].w));
            st_shared_v4_f32(b_base + off, make_float4(x.x, y.x, z.x, w.x));
            st_shared_v4_f32(slot + off, make_float4(x.y, y.y, z.y, w.y));
          }
        };
        if (b_magnitude >= kTf32FastLimit) {  // an Inf, a NaN or a rounding past FLT_MAX
          split_b([](float x) { return split_tf32(x); });
        } else {
          split_b([](float x) { return split_tf32_round(x); });
        }
        // The writes are the generic proxy's; the wgmmas read through the async proxy.
        fence_proxy_async_smem();
        // A's fragments go through registers, and the previous stage's wgmmas still read them:
        // wait for those (their stage is then free), then load and split this stage's.
        if (kt > kr.x) {
          wgmma_wait<0>();
          release_stage(prev_stage);
        }
        if constexpr (Cfg::kPromote > 0) {
          if (kt > kr.x && restart) {
#pragma unroll
            for (int i = 0; i < BN / 2; ++i) acc[i] += d[i];
          }
        }
        // Fragment register i of k-step ks holds A(16 warp + g + 8 (i % 2), 8 ks + t + 4 (i / 2))
        // (g = lane / 4, t = lane % 4): in a K-major 128-byte swizzled tile, row m's 16-byte
        // granule j lies at granule j ^ (m % 8), and m % 8 = g; in an M-major one at a_frag[i]
        // + 8 ks lines (A_RS above).
        std::uint32_t a_big[KSTEPS][4], a_small[KSTEPS][4];
        {
          const int g = lane / 4;
          const int t = lane % 4;
          float a_raw[KSTEPS][4];
          unsigned a_magnitude = 0;
#pragma unroll
          for (int ks = 0; ks < KSTEPS; ++ks) {
#pragma unroll
            for (int i = 0; i < 4; ++i) {
              const int m = 16 * warp + g + 8 * (i % 2);
              const int granule = (2 * ks + i / 2) ^ g;
              const auto at = A_K ? static_cast<std::uint32_t>(m * RB + granule * 16 + 4 * t)
                                  : a_frag[i] + static_cast<std::uint32_t>(ks * 8 * RB);
              a_raw[ks][i] = __uint_as_float(ld_shared_u32(a_base + at));
              const float2 parts = split_tf32_finite(a_raw[ks][i], a_magnitude);
              a_big[ks][i] = __float_as_uint(parts.x);
              a_small[ks][i] = __float_as_uint(parts.y);
            }
          }
          if (a_magnitude >= kTf32FastLimit) {  // an Inf, a NaN or a rounding past FLT_MAX
#pragma unroll
            for (int ks = 0; ks < KSTEPS; ++ks) {
#pragma unroll
              for (int i = 0; i < 4; ++i) {
                const float2 parts = split_tf32(a_raw[ks][i]);
                a_big[ks][i] = __float_as_uint(parts.x);
                a_small[ks][i] = __float_as_uint(parts.y);
              }
            }
          }
        }
        named_barrier_sync(1, 128);  // every thread's part of B is written
        const std::uint32_t b_small = slot;
        wgmma_fence();
        // The remainder terms first: remainder(A) big(B), big(A) remainder(B), big(A) big(B).
#pragma unroll
        for (int ks = 0; ks < KSTEPS; ++ks) {
          Op::mma_rs(d, a_small[ks], smem_desc(b_base + ks * Op::kInstK * E::kBytes, 16, 1024),
                     (!restart || ks > 0) ? 1 : 0);
        }
#pragma unroll
        for (int ks = 0; ks < KSTEPS; ++ks) {
          Op::mma_rs(d, a_big[ks], smem_desc(b_small + ks * Op::kInstK * E::kBytes, 16, 1024), 1);
        }
#pragma unroll
        for (int ks = 0; ks < KSTEPS; ++ks) {
          Op::mma_rs(d, a_big[ks], smem_desc(b_base + ks * Op::kInstK * E::kBytes, 16, 1024), 1);
        }
      } else {
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < KSTEPS; ++ks) {
          const std::uint64_t da =
              A_K ? smem_desc(a_base + ks * Op::kInstK * E::kBytes, 16, 1024)
                  : smem_desc(a_base + ks * Op::kInstK * RB, kChunkBytes, 1024);
          const std::uint64_t db = b_desc(b_base, ks);
          Op::template mma<A_K ? 0 : 1, B_K ? 0 : 1>(d, da, db, (!restart || ks > 0) ? 1 : 0);
        }
      }
      if constexpr (!Cfg::kResidueA) wgmma_commit();  // (rung 23 commits its own)
      // One batch of wgmmas stays in flight while the next stage is awaited: waiting for this
      // batch here would leave the tensor pipe idle from its last instruction until the next
      // stage's first. The batch before it is done, so its stage is released. (A from
      // registers waits for all: a fragment register may not be rewritten while an in-flight
      // wgmma reads it.)
      if constexpr (A_REGS) {
        if constexpr (!Cfg::kResidueA) wgmma_wait<0>();  // (rung 23 waited above)
        release_stage(stage);
      } else if constexpr (!Cfg::kSplit3) {  // (the split waits before its next A fragments)
        wgmma_wait<1>();
        if (kt > kr.x) release_stage(prev_stage);
      }
      prev_stage = stage;
      if (++stage == STAGES) {
        stage = 0;
        phase ^= 1u;
      }
    }
    if constexpr (!A_REGS) {
      wgmma_wait<0>();
      release_stage(prev_stage);
    }
    if constexpr (Cfg::kPromote > 0) {
#pragma unroll
      for (int i = 0; i < BN / 2; ++i) d[i] += acc[i];
    }
    if (m0 >= p.m) continue;  // a cluster's tile-row past M: nothing to store
    if (unit >= p.whole_tiles) {
      const int split = (unit - p.whole_tiles) / split_tiles;
      if (p.counters == nullptr) {
        // For the second kernel: this split's fp32 partial tile, as the accumulators hold it
        // (columns in pairs), at its place in its split's plane.
        float* const w = p.partial +
                         (static_cast<std::int64_t>(split) * (p.m - p.partial_m0) + m0 -
                          p.partial_m0) *
                             p.partial_ld +
                         n0;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int row = 64 * cw + 16 * warp + lane / 4 + 8 * h;
          if (m0 + row < p.m) {
            float* const w_row = w + row * p.partial_ld;
#pragma unroll
            for (int j = 0; j < BN / 8; ++j) {
              const int col = 8 * j + 2 * (lane % 4);
              if (n0 + col < p.n) {
                *reinterpret_cast<float2*>(w_row + col) =
                    make_float2(d[4 * j + 2 * h], d[4 * j + 2 * h + 1]);
              }
            }
          }
        }
        continue;
      }
      // The sum in the kernel. Each consumer's part of a split tile is stored as its threads
      // hold it: piece c (accumulators 4 c .. 4 c + 3) of thread t at float4 c * 128 + t of the
      // part, parts ordered (split, split tile, consumer). Writes and reads are whole 512-byte
      // lines a warp, with no bounds to test (rows and columns past C are never stored).
      const int split_tile = tile_of(unit) - p.whole_tiles;
      constexpr int kPieces = BN / 8;
      const std::int64_t split_step = static_cast<std::int64_t>(split_tiles) * Cfg::kConsumers *
                                      kPieces * 128;
      float4* const part0 = reinterpret_cast<float4*>(p.partial) +
                            (static_cast<std::int64_t>(split_tile) * Cfg::kConsumers + cw) *
                                kPieces * 128 +
                            tid;
      {
        float4* const mine = part0 + split * split_step;
#pragma unroll
        for (int c = 0; c < kPieces; ++c) {
          mine[c * 128] = make_float4(d[4 * c], d[4 * c + 1], d[4 * c + 2], d[4 * c + 3]);
        }
      }
      if (!last_split_arrival(p.counters + split_tile * Cfg::kConsumers + cw, p.k_splits,
                              &split_last[cw], cw, tid)) {
        continue;
      }
      // The last split of this consumer's rows to arrive: every split's part (its own too, as
      // written: the same sum whichever split arrives last) added in split order from the L2,
      // then stored by the epilogue below as a whole tile's accumulators. All loads of a batch
      // are issued before its adds: kAtOnce splits of kBatch pieces (a 64-column consumer holds
      // two splits' 64 floats besides its own 32; a 256-column one half a split).
      constexpr int kAtOnce = BN <= 64 ? 2 : 1;
      constexpr int kBatch = BN >= 256 ? kPieces / 2 : kPieces;
#pragma unroll
      for (int i = 0; i < BN / 2; ++i) d[i] = 0.0f;
      for (int s0 = 0; s0 < p.k_splits; s0 += kAtOnce) {
#pragma unroll
        for (int c0 = 0; c0 < kPieces; c0 += kBatch) {
          float4 v[kAtOnce][kBatch];
#pragma unroll
          for (int a = 0; a < kAtOnce; ++a) {
            const float4* const src = part0 + (s0 + a) * split_step + c0 * 128;
#pragma unroll
            for (int c = 0; c < kBatch; ++c) {
              v[a][c] = s0 + a < p.k_splits ? __ldcg(src + c * 128)
                                            : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            }
          }
#pragma unroll
          for (int a = 0; a < kAtOnce; ++a) {
#pragma unroll
            for (int c = 0; c < kBatch; ++c) {
              d[4 * (c0 + c)] += v[a][c].x;
              d[4 * (c0 + c) + 1] += v[a][c].y;
              d[4 * (c0 + c) + 2] += v[a][c].z;
              d[4 * (c0 + c) + 3] += v[a][c].w;
            }
          }
        }
      }
    }

    // ---- Epilogue: thread (warp, lane) holds, for each n8 chunk j, rows 16 warp + lane / 4
    // (+ 8) and columns 8 j + 2 (lane % 4) + {0, 1}. The producer is already filling the ring
    // with the next tile meanwhile. ----
    if constexpr (C_T) {
      // Transposed C: a thread's rows g and g + 8 of one column are 8 elements apart, so single
      // stores; the 8 g-rows of a warp fill one 32-byte sector per column.
      const int rows_left = p.m - m0;
      const int cols_left = p.n - n0;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = 64 * cw + 16 * warp + lane / 4 + 8 * h;
        if (row < rows_left) {
          CT* const c_col0 = c + static_cast<std::int64_t>(n0) * p.ldc + m0 + row;
#pragma unroll
          for (int j = 0; j < BN / 8; ++j) {
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              const int col = 8 * j + 2 * (lane % 4) + e;
              if (col < cols_left) {
                store_c_one(c_col0 + static_cast<std::int64_t>(col) * p.ldc, d[4 * j + 2 * h + e],
                            p.alpha, p.beta);
              }
            }
          }
        }
      }
      continue;
    }
    if constexpr (Cfg::kTmaStore) {
      if (p.c_tma != 0 || p.c_stage != 0) {
        // Through shared memory: 64-row x 128-byte chunks of this consumer's rows, each written
        // into one of two staging buffers in the 128-byte swizzled layout of the C tensor map
        // (bank-conflict free: the 8 rows of a store land in 8 different 16-byte columns), then
        // stored by one TMA box while the next chunk is written into the other buffer, or, where
        // a TMA store is not exact (odd ldc, N * element size not a multiple of 16, misaligned
        // C), by the consumer's threads, consecutive threads to consecutive columns.
        constexpr int kChunkCols = RB / static_cast<int>(sizeof(CT));  // 64 (16-bit) or 32
        constexpr int kChunks = BN / kChunkCols;
        constexpr int kN8 = kChunkCols / 8;  // accumulator n8 groups per chunk
        const std::uint32_t stage_c = ring + STAGES * Cfg::kStageBytes +
                                      static_cast<std::uint32_t>(cw * 2 * Cfg::kEpiBufBytes);
#pragma unroll
        for (int ch = 0; ch < kChunks; ++ch) {
          // With an even chunk count per tile the parity carries over from tile to tile by
          // itself; an odd count (128x64, 16-bit C) needs the running count.
          std::uint32_t parity = static_cast<std::uint32_t>(ch) & 1u;
          if constexpr (kChunks % 2 != 0) parity = epi_chunk++ & 1u;
          const std::uint32_t buf = stage_c + parity * Cfg::kEpiBufBytes;
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int r = 16 * warp + lane / 4 + 8 * h;
            const std::uint32_t row_addr = buf + static_cast<std::uint32_t>(r * RB);
#pragma unroll
            for (int j8 = 0; j8 < kN8; ++j8) {
              const int j = ch * kN8 + j8;
              const float x = p.alpha * d[4 * j + 2 * h];
              const float y = p.alpha * d[4 * j + 2 * h + 1];
              const int byte = (8 * j8 + 2 * (lane % 4)) * static_cast<int>(sizeof(CT));
              const int swizzled = (((byte >> 4) ^ (r & 7)) << 4) | (byte & 15);
              const std::uint32_t addr = row_addr + static_cast<std::uint32_t>(swizzled);
              if constexpr (sizeof(CT) == 4) {
                st_shared_v2_f32(addr, x, y);
              } else {
                CT pair[2];
                OutC<CT>::store2(pair, x, y);
                st_shared_b32(addr, *reinterpret_cast<const std::uint32_t*>(pair));
              }
            }
          }
          if (p.c_tma != 0) {
            fence_proxy_async_smem();
            // The previous chunk's store has read the other buffer, which the next chunk writes.
            if (tid == 0) bulk_wait_read_all();
            named_barrier_sync(1 + cw, 128);
            if (tid == 0) {
              tma_store_2d(&tma_c, buf, n0 + ch * kChunkCols, m0 + 64 * cw);
              bulk_commit();
            }
          } else {
            // Every thread's part of the chunk is in the buffer; this chunk's reads below finish
            // before the thread writes the next chunk, so the barrier of the next chunk also
            // frees this buffer for the one after it.
            named_barrier_sync(1 + cw, 128);
            CT* const out = c + static_cast<std::int64_t>(m0 + 64 * cw) * p.ldc + n0 +
                            ch * kChunkCols;
            const int rows_here = min(64, p.m - m0 - 64 * cw);
            const int cols_here = p.n - n0 - ch * kChunkCols;
            switch (p.c_stage) {
              case 16:
                store_staged<CT, 16, RB>(buf, out, p.ldc, rows_here, cols_here, tid);
                break;
              case 8:
                store_staged<CT, 8, RB>(buf, out, p.ldc, rows_here, cols_here, tid);
                break;
              case 4:
                store_staged<CT, 4, RB>(buf, out, p.ldc, rows_here, cols_here, tid);
                break;
              default:
                store_staged<CT, sizeof(CT), RB>(buf, out, p.ldc, rows_here, cols_here, tid);
            }
          }
        }
        continue;
      }
    }
    const int rows_left = p.m - m0;
    const int cols_left = p.n - n0;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = 64 * cw + 16 * warp + lane / 4 + 8 * h;
      if (row < rows_left) {
        CT* const c_row = c + static_cast<std::int64_t>(m0 + row) * p.ldc + n0;
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) {
          store_c_pair(c_row, 8 * j + 2 * (lane % 4), cols_left, d[4 * j + 2 * h],
                       d[4 * j + 2 * h + 1], p.alpha, p.beta, vec2);
        }
      }
    }
  }
  // The shared memory the stores read stays allocated until they are done with it.
  if constexpr (Cfg::kTmaStore) {
    if (tid == 0) bulk_wait_all();
  }
  if constexpr (CL > 1) cluster_sync();
#endif  // TILEGEMM_WGMMA_DEVICE
}

// The second pass of a split-K launch: C = alpha * (the splits' partial tiles added in split
// order) + beta * C for the split tiles, in the kernel's row-major C or transposed
// (c_t_reduce), a thread per element. Over tens of MB of partial tiles the pass is bound by the
// loads in flight: its grid goes to 16 blocks per SM (docs/perf-notes.md, "Wave tails on the
// tensor cores").
template <class CT, int BM, int BN>
__global__ void __launch_bounds__(256) split_k_reduce_kernel(const Params p) {
  constexpr int kTile = BM * BN;
  const int split_tiles = p.tiles_m * p.tiles_n - p.whole_tiles;
  const std::int64_t total = static_cast<std::int64_t>(split_tiles) * kTile;
  const std::int64_t split_stride = (p.m - p.partial_m0) * p.partial_ld;
  CT* const c = static_cast<CT*>(p.c);
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const int split_tile = static_cast<int>(i / kTile);
    const int e = static_cast<int>(i % kTile);
    const views::TileCoord tc =
        views::raster_tile(p.whole_tiles + split_tile, p.tiles_m, p.tiles_n, p.raster_group);
    const std::int64_t row = static_cast<std::int64_t>(tc.m) * BM + e / BN;
    const std::int64_t col = static_cast<std::int64_t>(tc.n) * BN + e % BN;
    if (row >= p.m || col >= p.n) continue;
    const float* w = p.partial + (row - p.partial_m0) * p.partial_ld + col;
    float sum = 0.0f;
    for (int s = 0; s < p.k_splits; ++s, w += split_stride) sum += *w;
    store_c_one(c + (p.c_t_reduce != 0 ? col * p.ldc + row : row * p.ldc + col), sum, p.alpha,
                p.beta);
  }
}

// ---- Host side ---------------------------------------------------------------------------------

struct KernelRef {
  const void* fn = nullptr;
  std::atomic<std::uint64_t>* opted_in = nullptr;
  runtime::PerDeviceCount* clusters = nullptr;  // clusters that fit on the GPU at once
  bool a_k = true, b_k = true;
};

// Internal linkage: every translation unit that launches an instantiation holds its own host stub
// of the kernel, registered with its own module, so the opt-in (and the cluster count) must be
// remembered per unit. Shared across units, the flag that rung 15's unit set after opting its
// stub in kept rung 16's unit from opting in its own stub of the same instantiation, whose
// launch then failed (cudaErrorInvalidValue: 48 KiB of dynamic shared memory allowed).
template <class Cfg, class E, class CT, bool A_K, bool B_K, bool C_T = false>
static KernelRef kernel_ref() {
  static std::atomic<std::uint64_t> opted_in{0};
  static runtime::PerDeviceCount clusters;
  return KernelRef{reinterpret_cast<const void*>(&wgmma_kernel<Cfg, E, CT, A_K, B_K, C_T>),
                   &opted_in, &clusters, A_K, B_K};
}

// c_t: the problem is a mirrored one whose C the kernel writes transposed (tf32 only).
template <class Cfg, class E, class CT>
KernelRef select_layouts(const Problem& q, bool c_t) {
  if constexpr (E::kBytes == 4) {
    // tf32: B K-major; A K-major from shared memory or M-major through registers. Both operands
    // M/N-major is left to the mma_sync family.
    if (!views::b_k_contiguous(q)) return KernelRef{};
    if constexpr (Cfg::kSplit3) {
      // The in-kernel split: A's fragments from either layout, no mirrored store.
      if (c_t) return KernelRef{};
      return views::a_k_contiguous(q) ? kernel_ref<Cfg, E, CT, true, true>()
                                      : kernel_ref<Cfg, E, CT, false, true>();
    } else {
      if (views::a_k_contiguous(q)) {
        return c_t ? KernelRef{} : kernel_ref<Cfg, E, CT, true, true>();
      }
      return c_t ? kernel_ref<Cfg, E, CT, false, true, true>()
                 : kernel_ref<Cfg, E, CT, false, true, false>();
    }
  } else if constexpr (Cfg::kResidueA) {
    // Rung 23 takes either orientation, its C row-major or transposed.
    return views::dispatch_layouts(q, [c_t](auto a_k, auto b_k) {
      return c_t ? kernel_ref<Cfg, E, CT, decltype(a_k)::value, decltype(b_k)::value, true>()
                 : kernel_ref<Cfg, E, CT, decltype(a_k)::value, decltype(b_k)::value, false>();
    });
  } else {
    if (c_t) return KernelRef{};
    return views::dispatch_layouts(q, [](auto a_k, auto b_k) {
      return kernel_ref<Cfg, E, CT, decltype(a_k)::value, decltype(b_k)::value>();
    });
  }
}

// The instantiation for an oriented problem's element types and layouts (fn null: none).
template <class Cfg>
KernelRef select_kernel(const Problem& q, bool c_t) {
  const GemmTypes t = q.types();
  if constexpr (Cfg::kTf32) {
    if (t == GemmTypes{DType::kTF32, DType::kF32}) return select_layouts<Cfg, Tf32, float>(q, c_t);
  } else {
    if (t == GemmTypes{DType::kBF16, DType::kBF16}) {
      return select_layouts<Cfg, Bf16, __nv_bfloat16>(q, c_t);
    }
    if (t == GemmTypes{DType::kBF16, DType::kF32}) return select_layouts<Cfg, Bf16, float>(q, c_t);
    if (t == GemmTypes{DType::kF16, DType::kF16}) return select_layouts<Cfg, F16, __half>(q, c_t);
    if (t == GemmTypes{DType::kF16, DType::kF32}) return select_layouts<Cfg, F16, float>(q, c_t);
  }
  return KernelRef{};
}

// An operand as the tensor map sees it: `rows` lines of `cols` contiguous elements. A K-major
// operand's lines run along K (rows = M or N); an M/N-major operand's lines run along M or N.
struct OperandGeometry {
  std::int64_t rows, cols;
};
inline OperandGeometry a_geometry(const Problem& q) {
  return views::a_k_contiguous(q) ? OperandGeometry{q.m, q.k} : OperandGeometry{q.k, q.m};
}
inline OperandGeometry b_geometry(const Problem& q) {
  return views::b_k_contiguous(q) ? OperandGeometry{q.n, q.k} : OperandGeometry{q.k, q.n};
}
// Whether a tensor map describes the oriented problem's A (B).
inline bool a_map_describable(const Problem& q) {
  const OperandGeometry g = a_geometry(q);
  return tensor_map_describable(q.a.dtype, q.a.data, g.rows, g.cols, q.a.ld);
}
inline bool b_map_describable(const Problem& q) {
  const OperandGeometry g = b_geometry(q);
  return tensor_map_describable(q.b.dtype, q.b.data, g.rows, g.cols, q.b.ld);
}

// How the kernel runs a problem: `q` as the kernel sees it and the instantiation. Normally `q` is
// the problem with a row-major C (views::row_major_c: a column-major C runs as its mirror). A tf32
// problem whose oriented B is N-major runs mirrored once more (C^T = B^T A^T), which makes that B
// an M-major A read through registers, and the kernel writes its row-major result transposed into
// the column-major C of the mirror (c_t). Rung 23 reads A at any pitch and B through a tensor map:
// it runs mirrored (c_t) where that puts the operand no map describes in A, or, with both such,
// the larger one (its launcher copies B).
struct Plan {
  Problem q;
  KernelRef k;
  bool c_t = false;
};
template <class Cfg>
Plan plan(const Problem& problem) {
  Plan pl{views::row_major_c(problem), KernelRef{}, false};
  pl.k = select_kernel<Cfg>(pl.q, false);
  if constexpr (Cfg::kResidueA) {
    const Problem m = views::mirrored(pl.q);
    const bool mirror = !b_map_describable(pl.q) && (b_map_describable(m) || pl.q.n > pl.q.m);
    if (mirror) return Plan{m, select_kernel<Cfg>(m, true), true};
  }
  if constexpr (Cfg::kTf32) {
    if (pl.k.fn == nullptr && !views::b_k_contiguous(pl.q)) {
      const Problem m = views::mirrored(pl.q);
      if (const KernelRef k = select_kernel<Cfg>(m, true); k.fn != nullptr) return Plan{m, k, true};
    }
  }
  return pl;
}

template <class Cfg>
std::vector<GemmTypes> computed_types() {
  if constexpr (Cfg::kTf32) {
    return {GemmTypes{DType::kTF32, DType::kF32}};
  } else {
    return {GemmTypes{DType::kBF16, DType::kBF16}, GemmTypes{DType::kBF16, DType::kF32},
            GemmTypes{DType::kF16, DType::kF16}, GemmTypes{DType::kF16, DType::kF32}};
  }
}

// What the kernel needs: its layouts instantiated (tf32: K-major A and B), A and B describable by
// tensor maps (16-byte aligned base, pitch a multiple of 16 bytes), and m, n, k and the tile count
// within the int arithmetic of the kernel and the int32 coordinates of the copies.
// can_implement_planned: the same for a plan already made.
template <class Cfg>
bool can_implement_planned(const Plan& pl) {
  if (pl.k.fn == nullptr) return false;
  const Problem& q = pl.q;
  constexpr std::int64_t kMargin = 1024;
  if (!views::dims_fit_int(q, kMargin) || !views::linear_tile_grid_fits(q, Cfg::BM, Cfg::BN)) {
    return false;
  }
  if constexpr (Cfg::kRealign) {
    return true;  // element loads: any leading dimension, any element-aligned base
  } else if constexpr (Cfg::kResidueA) {
    // A through the residue maps (an M-major A needs a line in every class: K >= 8), B through
    // its tensor map (rung 23's launcher copies a B no map describes first).
    const OperandGeometry ga = a_geometry(q);
    return (views::a_k_contiguous(q) || q.k >= 8) &&
           residue_maps_describable(q.a.dtype, q.a.data, ga.rows, ga.cols, q.a.ld) &&
           b_map_describable(q);
  } else {
    return a_map_describable(q) && b_map_describable(q);
  }
}
template <class Cfg>
bool can_implement(const Problem& problem) {
  return can_implement_planned<Cfg>(plan<Cfg>(problem));
}

// Rows of cluster tiles per raster group, so that a wave of tiles covers a square: about the
// square root of a wave's tiles, scaled by the aspect, over the cluster height.
template <class Cfg>
int raster_group(int tiles_mc) {
  const double wave = static_cast<double>(runtime::sm_count());
  return views::clamp_raster_group(
      static_cast<int>(std::lround(std::sqrt(wave * Cfg::BN / Cfg::BM) / Cfg::kCluster)), tiles_mc);
}

// Split-K, in two cases (docs/perf-notes.md, "Wave tails on the tensor cores"):
// - the tiles fill at most a third of the SMs and K is long: each tile's K is split into enough
//   work units to fill them (3 to 32), each at least 4 k-tiles. Two splits did not pay for the
//   second launch there (docs/perf-notes.md, rung 18). Capping the count at what the kernel sums
//   itself saved a launch of host time but cost GPU time on long K (docs/perf-notes.md,
//   "Split counts by GPU time");
// - otherwise, a last wave of r tiles after W whole waves (W may be 0) leaves SMs idle: the W
//   waves run whole and the r tail tiles are split into S units each (2..32, at least 4 k-tiles
//   per unit), S the count that makes the estimated time least: W + ceil(r S / SMs) / S tile
//   times, plus the partial tiles' write and read and the fixed cost of splitting over a
//   tile's time (the rates below). Taken where that is at most 0.9 (W + 1).
// The partial planes cover C's rows from that of the raster group holding the first split tile
// (the later ones lie in it or in later groups) at a pitch of N rounded up to 2 (the first pass
// stores column pairs); splits whose planes would pass kMaxPartialBytes are not taken.
// Stored where they lie in C, neighbouring tiles' rows side by side, the first pass ran faster
// than with each partial tile contiguous (docs/perf-notes.md, "Wave tails on the tensor cores").
constexpr double kMaxPartialBytes = 256.0 * 1024 * 1024;
template <class Cfg>
int partial_first_row(const Problem& q, std::int64_t whole_tiles) {
  const auto tiles_m = static_cast<int>(ceil_div(q.m, Cfg::BM));
  const auto tiles_n = ceil_div(q.n, Cfg::BN);
  const int group = raster_group<Cfg>(tiles_m);
  return static_cast<int>(whole_tiles / (group * tiles_n) * group * Cfg::BM);
}
inline std::int64_t partial_pitch(std::int64_t n) { return views::round_up(n, 2); }

// The rates of that estimate, for an H200-class GPU (docs/perf-notes.md has where they come
// from): a loaded SM's flops per ns in 16-bit types (tf32: half), the bytes per ns of the
// partial tiles' traffic, and the fixed cost of splitting in ns (the second launch and its gap,
// the short units' pipeline fill), fitted to the measured splits.
constexpr double kSmFlopPerNs16 = 5700.0;
constexpr double kPartialBytesPerNs = 3000.0;
constexpr double kSecondLaunchNs = 10000.0;
// The in-kernel split (Config::kSplit3): its k-tile as measured on 64x64 and 64x128 tiles, and a
// fixed cost of splitting of 5 us, half the one above: a value chosen and then timed on the
// shapes it moves, not fitted (docs/perf-notes.md, "Rung 22's split at any pitch").
constexpr double kSplit3KTileNs(int bn) { return bn == 64 ? 900.0 : 1000.0; }
constexpr double kSplit3SecondLaunchNs = 5000.0;
// Rung 23 (Config::kResidueA) serves small M or N against a long operand: its tile streams its
// operands at about this rate per CTA (measured on 3383 x 42 x 6316, docs/perf-notes.md, rung
// 23), so a tile takes at least its bytes at that rate; its split costs the in-kernel split's.
constexpr double kResidueTileBytesPerNs = 40.0;
// The partial tiles' sum: in the kernel by the last split to arrive (Params::counters) or by a
// second kernel over the whole GPU. In the kernel the last split's consumers read the splits'
// parts one batch after another, each batch an L2 round trip (a batch: two splits of a
// 64-column consumer, one of a 128-column one, half of a 256-column one), which the GPU's time
// pays serially; the second kernel costs a launch and spreads the sum over the GPU. So the sum
// is in the kernel only on one-consumer (64-row) tiles, and only up to kSumMaxBatches batches
// (8 splits of 64 columns, 4 of 128), where the serial batches cost no more than the second
// kernel; past that, and on two-consumer tiles, the second kernel is the faster (docs/perf-
// notes.md, "Split K summed in the kernel" and "Split counts by GPU time").
constexpr int kSumMaxBatches = 4;
struct SplitPlan {
  int splits;
  int k_tiles_split;
  int whole_tiles;         // tiles computed whole before the split ones (all of them: no split)
  bool in_kernel = false;  // the splits are added in the kernel (else by a second kernel)
};
template <class Cfg>
bool sum_in_kernel(std::int64_t splits) {
  const std::int64_t batches = Cfg::BN <= 64 ? (splits + 1) / 2
                               : Cfg::BN >= 256 ? 2 * splits
                                                : splits;
  return Cfg::kConsumers == 1 && batches <= kSumMaxBatches;
}
template <class Cfg>
SplitPlan split_plan(const Problem& q) {
  const auto k_tiles = static_cast<int>(ceil_div(q.k, Cfg::BK));
  const std::int64_t tiles = ceil_div(q.m, Cfg::BM) * ceil_div(q.n, Cfg::BN);
  const SplitPlan none{1, k_tiles, static_cast<int>(tiles)};
  if constexpr (Cfg::kCluster > 1) {
    return none;
  } else {
    const std::int64_t sms = runtime::sm_count();
    auto split = [&](std::int64_t split_tiles, std::int64_t s) {
      const std::int64_t per = ceil_div(k_tiles, s);
      const std::int64_t splits = ceil_div(k_tiles, per);
      return SplitPlan{static_cast<int>(splits), static_cast<int>(per),
                       static_cast<int>(tiles - split_tiles),
                       sum_in_kernel<Cfg>(splits)};
    };
    if (3 * tiles <= sms) {
      const std::int64_t s = std::min<std::int64_t>({sms / tiles, k_tiles / 4, 32});
      return s < 3 ? none : split(tiles, s);
    }
    const std::int64_t waves = tiles / sms;
    const std::int64_t tail = tiles % sms;
    if (tail == 0) return none;
    const double plane_bytes = sizeof(float) *
                               static_cast<double>(q.m - partial_first_row<Cfg>(q, tiles - tail)) *
                               static_cast<double>(partial_pitch(q.n));
    constexpr double kTileElems = static_cast<double>(Cfg::BM) * Cfg::BN;
    // The in-kernel split's tile is timed by its measured k-tile (three products and the split
    // of the operands, far from the peak rate).
    const double flop_ns = 2.0 * kTileElems * static_cast<double>(q.k) /
                           (Cfg::kElemBytes == 2 ? kSmFlopPerNs16 : kSmFlopPerNs16 / 2);
    const double stream_ns = static_cast<double>((Cfg::BM + Cfg::BN) * Cfg::kElemBytes) *
                             static_cast<double>(q.k) / kResidueTileBytesPerNs;
    const double tile_ns = Cfg::kSplit3     ? static_cast<double>(k_tiles) * kSplit3KTileNs(Cfg::BN)
                           : Cfg::kResidueA ? std::max(flop_ns, stream_ns)
                                            : flop_ns;
    const double split_ns =
        Cfg::kSplit3 || Cfg::kResidueA ? kSplit3SecondLaunchNs : kSecondLaunchNs;
    auto cost = [&](std::int64_t s) {
      const double partial_bytes = 2.0 * sizeof(float) * kTileElems * static_cast<double>(s * tail);
      return static_cast<double>(waves) +
             static_cast<double>(ceil_div(tail * s, sms)) / static_cast<double>(s) +
             (s > 1 ? (partial_bytes / kPartialBytesPerNs + split_ns) / tile_ns : 0.0);
    };
    std::int64_t best = 1;
    for (std::int64_t s = 2; s <= std::min<std::int64_t>(32, k_tiles / 4); ++s) {
      if (static_cast<double>(s) * plane_bytes > kMaxPartialBytes) break;
      if (cost(s) < cost(best)) best = s;
    }
    if (best == 1 || cost(best) > 0.9 * static_cast<double>(waves + 1)) return none;
    return split(tail, best);
  }
}
// The partial tiles a split-K launch of `problem` needs (0: it runs without); split_k_bytes_of:
// of a problem as the kernel sees it (a plan's q).
// With the sum in the kernel the parts are whole tiles (the larger of the two layouts, so
// that the launcher may fall back to the second kernel).
template <class Cfg>
std::size_t split_k_bytes_of(const Problem& q) {
  const SplitPlan sp = split_plan<Cfg>(q);
  if (sp.splits <= 1) return 0;
  const std::size_t planes =
      sizeof(float) * static_cast<std::size_t>(sp.splits) *
      static_cast<std::size_t>(q.m - partial_first_row<Cfg>(q, sp.whole_tiles)) *
      static_cast<std::size_t>(partial_pitch(q.n));
  const std::size_t split_tiles = static_cast<std::size_t>(
      ceil_div(q.m, Cfg::BM) * ceil_div(q.n, Cfg::BN) - sp.whole_tiles);
  const std::size_t parts = sp.in_kernel ? sizeof(float) * static_cast<std::size_t>(sp.splits) *
                                               split_tiles * Cfg::BM * Cfg::BN
                                         : 0;
  return std::max(planes, parts);
}
template <class Cfg>
std::size_t split_k_bytes(const Problem& problem) {
  return split_k_bytes_of<Cfg>(plan<Cfg>(problem).q);
}

// `partial`: split_k_bytes(problem) of device memory for the partial tiles, or null for the
// stream workspace.
// after_copy: the launch follows a kernel that writes A or B (rung 16's copies) and is made its
// programmatic dependent: the CTAs may start before the copy ends and wait for it in
// griddepcontrol.wait before any read.
// launch_planned: the same for a plan already made (rung 23 copies the B of its plan first).
template <class Cfg>
cudaError_t launch_planned(const Plan& pl, cudaStream_t stream, float* partial,
                           bool after_copy = false) {
  const Problem& q = pl.q;
  const KernelRef& k = pl.k;
  if (k.fn == nullptr) return cudaErrorInvalidValue;
  if (cudaError_t err = runtime::opt_in_smem(k.fn, Cfg::kSmemBytes, *k.opted_in);
      err != cudaSuccess) {
    return err;
  }
  // Boxes: a K-major operand is read as BM (BN) lines of BK; an M/N-major one as BK lines of 64,
  // BM / 64 (BN / 64) boxes per stage.
  constexpr int kMnChunk = Cfg::kRowBytes / Cfg::kElemBytes;
  typename Cfg::AMap ma{};
  CUtensorMap mb{};
  // Short boxes: where M (N) fits in one tile and A (B) is K-major, the box holds only the
  // rows up to M (N), rounded up to 8, instead of zero-filling the rest of the tile: rows past
  // the extent cost the copy engine time (docs/perf-notes.md, rung 18). The tile rows left
  // unwritten hold stale shared memory; they feed only accumulator rows (columns) past M (N),
  // which are never stored. In a cluster each CTA loads 1/kCluster of a K-major B tile.
  const int a_rows = k.a_k && !Cfg::kResidueA && q.m < Cfg::BM
                         ? static_cast<int>(views::round_up(q.m, 8))
                         : Cfg::BM;
  const int b_rows = k.b_k && Cfg::kCluster == 1 && q.n < Cfg::BN
                         ? static_cast<int>(views::round_up(q.n, 8))
                         : Cfg::BN / Cfg::kCluster;
  Params prm{};
  if constexpr (Cfg::kRealign) {
    prm.a = q.a.data;
    prm.lda = q.a.ld;
    prm.b = q.b.data;
    prm.ldb = q.b.ld;
  } else if constexpr (Cfg::kResidueA) {
    // A's eight residue maps: boxes of 8 lines of a line's 64 elements and 8 more.
    const OperandGeometry ga = a_geometry(q);
    const OperandGeometry gb = b_geometry(q);
    int shift[8] = {};
    if (cudaError_t err = make_residue_maps(ma.map, shift, q.a.dtype, q.a.data, ga.rows, ga.cols,
                                            q.a.ld, Cfg::BM / 8, Cfg::kResidueLineElems);
        err != cudaSuccess) {
      return err;
    }
    prm.a_shifts = 0;
    for (int j = 0; j < 8; ++j) prm.a_shifts |= static_cast<std::uint32_t>(shift[j]) << (4 * j);
    if (cudaError_t err = make_tensor_map(&mb, q.b.dtype, q.b.data, gb.rows, gb.cols, q.b.ld,
                                          k.b_k ? b_rows : Cfg::BK, k.b_k ? Cfg::BK : kMnChunk);
        err != cudaSuccess) {
      return err;
    }
  } else {
    const OperandGeometry ga = a_geometry(q);
    const OperandGeometry gb = b_geometry(q);
    // A tf32 map rounds fp32 to tf32 on the way in; the in-kernel split needs the fp32 elements.
    const DType a_map = Cfg::kSplit3 ? DType::kF32 : q.a.dtype;
    const DType b_map = Cfg::kSplit3 ? DType::kF32 : q.b.dtype;
    if (cudaError_t err = make_tensor_map(&ma, a_map, q.a.data, ga.rows, ga.cols, q.a.ld,
                                          k.a_k ? a_rows : Cfg::BK, k.a_k ? Cfg::BK : kMnChunk);
        err != cudaSuccess) {
      return err;
    }
    if (cudaError_t err = make_tensor_map(&mb, b_map, q.b.data, gb.rows, gb.cols, q.b.ld,
                                          k.b_k ? b_rows : Cfg::BK, k.b_k ? Cfg::BK : kMnChunk);
        err != cudaSuccess) {
      return err;
    }
  }
  prm.m = static_cast<int>(q.m);
  prm.n = static_cast<int>(q.n);
  prm.k = static_cast<int>(q.k);
  prm.alpha = q.alpha;
  prm.beta = q.beta;
  prm.c = q.c.data;
  prm.ldc = q.c.ld;
  prm.tiles_m = static_cast<int>(ceil_div(q.m, Cfg::BM));
  prm.tiles_n = static_cast<int>(ceil_div(q.n, Cfg::BN));
  prm.k_tiles = static_cast<int>(ceil_div(q.k, Cfg::BK));
  prm.stage_tx = Cfg::kStageBytes - (Cfg::BM - a_rows) * Cfg::kRowBytes -
                 (Cfg::BN / Cfg::kCluster - b_rows) * Cfg::kRowBytes * Cfg::kCluster;
  const SplitPlan sp = split_plan<Cfg>(q);
  prm.whole_tiles = sp.whole_tiles;
  prm.k_splits = sp.splits;
  prm.k_tiles_split = sp.k_tiles_split;
  if (sp.splits > 1) {
    if (partial == nullptr) {
      void* ws = nullptr;
      if (cudaError_t err = runtime::stream_workspace(split_k_bytes_of<Cfg>(q), stream, &ws);
          err != cudaSuccess) {
        return err;
      }
      partial = static_cast<float*>(ws);
    }
    prm.partial = partial;
    prm.partial_m0 = partial_first_row<Cfg>(q, sp.whole_tiles);
    prm.partial_ld = partial_pitch(q.n);
    prm.c_t_reduce = pl.c_t ? 1 : 0;
    const std::int64_t split_tiles =
        static_cast<std::int64_t>(prm.tiles_m) * prm.tiles_n - sp.whole_tiles;
    // (A caller's workspace off 16 bytes falls back to the second kernel: the parts are float4.)
    if (sp.in_kernel && reinterpret_cast<std::uintptr_t>(partial) % 16 == 0) {
      if (cudaError_t err = runtime::stream_counters(
              static_cast<std::size_t>(split_tiles * Cfg::kConsumers), stream, &prm.counters);
          err != cudaSuccess) {
        return err;
      }
    }
  }
  // The kernel's epilogue stores the whole tiles, and with the in-kernel sum the split ones.
  const bool epilogue_stores = sp.whole_tiles > 0 || prm.counters != nullptr;
  prm.raster_group = raster_group<Cfg>(static_cast<int>(ceil_div(prm.tiles_m, Cfg::kCluster)));
  const std::size_t c_bytes = dtype_bytes(q.c.dtype);
  prm.c_vec2 = views::aligned(q.c, 2 * c_bytes);  // base and ldc allow element pairs
  // TMA stores only where they are exact: beta = 0 (C is not read), C describable by a tensor
  // map, and N * element size a multiple of 16 bytes, since a store clips columns past N only
  // to 16-byte granules and C may be a view inside a wider matrix.
  CUtensorMap mc{};
  prm.c_tma = Cfg::kTmaStore && epilogue_stores && !pl.c_t && q.beta == 0.0f &&
              (q.n * static_cast<std::int64_t>(c_bytes)) % 16 == 0 &&
              tensor_map_describable(q.c.dtype, q.c.data, q.m, q.n, q.c.ld);
  // Staged stores wherever a TMA store is not exact (beta = 0): a warp writes whole lines of
  // 32 pieces of the widest size C's base and pitch allow, where the register epilogue writes
  // 8 rows of 2 elements per instruction (docs/perf-notes.md, "One copy launch, staged stores
  // in pieces").
  prm.c_stage = 0;
  if (Cfg::kTmaStore && epilogue_stores && !pl.c_t && q.beta == 0.0f && prm.c_tma == 0) {
    prm.c_stage = static_cast<int>(c_bytes);
    for (int v = 16; v > prm.c_stage; v /= 2) {
      if (views::aligned(q.c, static_cast<std::size_t>(v))) {
        prm.c_stage = v;
        break;
      }
    }
  }
  if (prm.c_tma != 0) {
    if (cudaError_t err = make_tensor_map(&mc, q.c.dtype, q.c.data, q.m, q.n, q.c.ld, 64,
                                          Cfg::kRowBytes / static_cast<int>(c_bytes));
        err != cudaSuccess) {
      return err;
    }
  }
  // Persistent: one CTA per SM (or per tile when there are fewer), each cluster walking cluster
  // tiles blockIdx.x / kCluster, + gridDim.x / kCluster, ... in the rasterised order.
  const int cluster_tiles =
      sp.whole_tiles +
      (static_cast<int>(ceil_div(prm.tiles_m, Cfg::kCluster)) * prm.tiles_n - sp.whole_tiles) *
          sp.splits;
  void* args[] = {&ma, &mb, &mc, &prm};
  cudaLaunchConfig_t cfg{};
  cfg.blockDim = dim3(Cfg::kThreads);
  cfg.dynamicSmemBytes = static_cast<std::size_t>(Cfg::kSmemBytes);
  cfg.stream = stream;
  cudaLaunchAttribute attr[2];
  cfg.attrs = attr;
  if (after_copy) {
    attr[cfg.numAttrs].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[cfg.numAttrs].val.programmaticStreamSerializationAllowed = 1;
    ++cfg.numAttrs;
  }
  int resident = runtime::sm_count();  // clusters of one: one CTA per SM
  if constexpr (Cfg::kCluster > 1) {
    attr[cfg.numAttrs].id = cudaLaunchAttributeClusterDimension;
    attr[cfg.numAttrs].val.clusterDim.x = Cfg::kCluster;
    attr[cfg.numAttrs].val.clusterDim.y = 1;
    attr[cfg.numAttrs].val.clusterDim.z = 1;
    ++cfg.numAttrs;
    // Clusters live inside one GPC, so fewer than sm_count / kCluster of them may fit at once:
    // ask the runtime, once per device.
    int dev = 0;
    if (cudaError_t err = cudaGetDevice(&dev); err != cudaSuccess) return err;
    std::atomic<int>* const cached = k.clusters->slot(dev);
    int fit = cached != nullptr ? cached->load(std::memory_order_relaxed) : 0;
    if (fit == 0) {
      cfg.gridDim = dim3(static_cast<unsigned>(Cfg::kCluster * runtime::sm_count()));
      if (cudaError_t err = cudaOccupancyMaxActiveClusters(&fit, k.fn, &cfg); err != cudaSuccess) {
        return err;
      }
      if (fit <= 0) return cudaErrorInvalidConfiguration;
      if (cached != nullptr) cached->store(fit, std::memory_order_relaxed);
    }
    resident = fit;
  }
  cfg.gridDim = dim3(static_cast<unsigned>(Cfg::kCluster * std::min(cluster_tiles, resident)));
  if (cudaError_t err = cudaLaunchKernelExC(&cfg, k.fn, args); err != cudaSuccess) return err;
  if (sp.splits > 1 && prm.counters == nullptr) {
    const std::int64_t split_elems =
        static_cast<std::int64_t>(prm.tiles_m * prm.tiles_n - sp.whole_tiles) * Cfg::BM * Cfg::BN;
    const auto blocks = static_cast<unsigned>(
        std::min<std::int64_t>(ceil_div(split_elems, 256), 16LL * runtime::sm_count()));
    if (q.c.dtype == DType::kF32) {
      split_k_reduce_kernel<float, Cfg::BM, Cfg::BN><<<blocks, 256, 0, stream>>>(prm);
    } else if (q.c.dtype == DType::kBF16) {
      split_k_reduce_kernel<__nv_bfloat16, Cfg::BM, Cfg::BN><<<blocks, 256, 0, stream>>>(prm);
    } else {
      split_k_reduce_kernel<__half, Cfg::BM, Cfg::BN><<<blocks, 256, 0, stream>>>(prm);
    }
  }
  return cudaGetLastError();
}

template <class Cfg>
cudaError_t launch_with(const Problem& problem, cudaStream_t stream, float* partial,
                        bool after_copy = false) {
  return launch_planned<Cfg>(plan<Cfg>(problem), stream, partial, after_copy);
}

template <class Cfg>
cudaError_t launch(const Problem& problem, cudaStream_t stream) {
  return launch_with<Cfg>(problem, stream, nullptr);
}

template <class Cfg>
const void* device_function(const Problem& p) {
  return plan<Cfg>(p).k.fn;
}

// KernelInfo::plan: the tiles, and for a split K the splits of the split tiles and their sum.
template <class Cfg>
std::string plan_text(const Problem& problem) {
  const Plan pl = plan<Cfg>(problem);
  const Problem& q = pl.q;
  const std::int64_t tiles = ceil_div(q.m, Cfg::BM) * ceil_div(q.n, Cfg::BN);
  const SplitPlan sp = split_plan<Cfg>(q);
  std::string text = std::to_string(tiles) + " tiles of " + std::to_string(Cfg::BM) + "x" +
                     std::to_string(Cfg::BN) + " over " +
                     std::to_string(ceil_div(q.k, Cfg::BK)) + " k-tiles";
  if (sp.splits <= 1) return text + ", K whole";
  const std::int64_t split_tiles = tiles - sp.whole_tiles;
  return text + ", " + std::to_string(split_tiles) + " split " + std::to_string(sp.splits) +
         " ways (" + std::to_string(sp.k_tiles_split) + " k-tiles a split), summed " +
         (sp.in_kernel ? "in the kernel" : "by a second kernel");
}

// The registry entry of one instance: its typed description, can_implement, launch.
template <class Cfg>
KernelInfo describe(const char* family, int rung, const std::string& summary) {
  KernelInfo k;
  k.name = "wgmma_" + Cfg::tag();
  k.family = family;
  k.rung = rung;
  k.tile = Cfg::tile_config();
  k.desc.op_class = OpClass::kWgmma;
  k.desc.types = computed_types<Cfg>();
  k.desc.accumulator = DType::kF32;
  // Tensor maps: 16-byte base and pitch; the realigning producer: any element-aligned operand.
  k.desc.align_a = Cfg::kRealign || Cfg::kResidueA ? 1 : 16 / Cfg::kElemBytes;
  k.desc.align_b = Cfg::kRealign ? 1 : 16 / Cfg::kElemBytes;
  k.desc.align_c = 1;
  k.desc.min_cc = 90;  // sm_90a code: Hopper only
  k.desc.max_cc = 90;
  k.desc.split_k = Cfg::kCluster == 1;  // split_plan: few tiles or a wave tail, long K
  k.summary = std::string("wgmma m64n") + std::to_string(Cfg::BN) +
              (Cfg::kTf32 ? "k8 tf32" : "k16 bf16/f16") +
              (Cfg::kRealign ? ", element loads realigned into a " : ", TMA ") +
              std::to_string(Cfg::STAGES) + "-stage ring, producer + " +
              std::to_string(Cfg::kConsumers) + " consumer warpgroup" +
              (Cfg::kConsumers > 1 ? "s, " : ", ") + "persistent, " + summary;
  k.can_implement = can_implement<Cfg>;
  k.launch = launch<Cfg>;
  k.device_function = device_function<Cfg>;
  k.plan = plan_text<Cfg>;
  return k;
}

}  // namespace tilegemm::kernels::hopper
