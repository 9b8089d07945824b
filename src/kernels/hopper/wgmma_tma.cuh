// The kernel template of rung 14 (`wgmma`): Hopper warpgroup MMA (wgmma.mma_async) reading both
// operands from 128-byte-swizzled shared memory that the Tensor Memory Accelerator fills, in a
// warp-specialised, persistent kernel. 14_wgmma_tma.cu says what the rung adds and registers the
// instances; docs/hopper.md has the design (shared-memory layouts, descriptors, barriers). This
// header holds the PTX wrappers, the kernel and its host launcher. sm_90a only.
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
#include <vector>

#include "../../core/device_runtime.hpp"
#include "../common.cuh"
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
// into shared memory, and wgmma reads tf32 K-major operands only.
struct Tf32 {
  using T = float;
  static constexpr DType kDType = DType::kTF32;
  static constexpr int kBytes = 4;
};

// ---- Configuration -----------------------------------------------------------------------------

/// @tparam BN_      block tile N: 128 or 256 (one m64nBNk instruction per consumer and k-step)
/// @tparam STAGES_  shared-memory ring depth
/// @tparam TF32_    tf32 (4-byte elements) instead of bf16/f16
template <int BN_, int STAGES_, bool TF32_>
struct Config {
  static constexpr int kConsumers = 2;         // consumer warpgroups, 64 rows of C each
  static constexpr int BM = 64 * kConsumers;   // 128
  static constexpr int BN = BN_;
  static constexpr bool kTf32 = TF32_;
  static constexpr int kElemBytes = TF32_ ? 4 : 2;
  static constexpr int kRowBytes = 128;        // one swizzle row: the 128-byte TMA box width
  static constexpr int BK = kRowBytes / kElemBytes;  // 64 (16-bit) or 32 (tf32)
  static constexpr int STAGES = STAGES_;
  static constexpr int kThreads = 128 * (1 + kConsumers);  // producer warpgroup + consumers
  static constexpr int kATileBytes = BM * BK * kElemBytes;
  static constexpr int kBTileBytes = BN * BK * kElemBytes;
  static constexpr int kStageBytes = kATileBytes + kBTileBytes;
  // The ring, plus 1 KiB to align it to the 1024-byte swizzle atom (dynamic shared memory is
  // only 16-byte aligned); the mbarriers are static shared memory.
  static constexpr int kSmemBytes = STAGES * kStageBytes + 1024;
  // Registers after setmaxnreg: the producer gives up what the consumers' 64 x BN accumulator
  // tiles need (128 x 40 + 256 x 232 = 64512 <= 65536).
  static constexpr int kProducerRegs = 40;
  static constexpr int kConsumerRegs = 232;
  static_assert(BN == 128 || BN == 256, "one wgmma of N = BN per consumer and k-step");
  static_assert(kSmemBytes <= 227 * 1024, "the ring fits the opt-in shared memory");

  static std::string tag() {
    return std::string(TF32_ ? "tf32_" : "") + "128x" + std::to_string(BN) + "x" +
           std::to_string(BK) + "_s" + std::to_string(STAGES);
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
  int raster_group;  // tile-rows walked before moving one tile-column right
  int c_vec2;        // C's base and ldc allow 2-element vector accesses at even columns
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
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(map))
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

// ---- The kernel --------------------------------------------------------------------------------

/// C = alpha * A B + beta * C on the tensor cores, one warpgroup loading, two computing.
/// @tparam Cfg  a Config
/// @tparam E    Bf16, F16 or Tf32 (A and B)
/// @tparam CT   C's element type: float, __nv_bfloat16 or __half
/// @tparam A_K  A is K-major (row-major); else M-major
/// @tparam B_K  B is K-major (col-major); else N-major
template <class Cfg, class E, class CT, bool A_K, bool B_K>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    wgmma_kernel(const __grid_constant__ CUtensorMap tma_a,
                 const __grid_constant__ CUtensorMap tma_b, const Params p) {
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
  using Op = Wgmma<BN, E>;
  constexpr int KSTEPS = BK / Op::kInstK;  // instructions per stage: 4
  static_assert(A_K && B_K || E::kBytes == 2, "tf32 operands are K-major only");
  // M/N-major tiles are stored as chunks of 64 elements (one 128-byte row each) x BK k-rows.
  constexpr int kChunkBytes = BK * RB;
  constexpr int kMnChunk = RB / E::kBytes;  // 64

  __shared__ __align__(8) std::uint64_t full_bar[STAGES];   // stage s loaded (TMA bytes landed)
  __shared__ __align__(8) std::uint64_t empty_bar[STAGES];  // stage s read by both consumers
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const std::uint32_t ring = (smem_addr(smem_raw) + 1023u) & ~1023u;
  const std::uint32_t full0 = smem_addr(&full_bar[0]);
  const std::uint32_t empty0 = smem_addr(&empty_bar[0]);

  const int wg = static_cast<int>(threadIdx.x) / 128;
  const int tid = static_cast<int>(threadIdx.x) % 128;
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(full0 + 8 * s, 1);
      mbar_init(empty0 + 8 * s, Cfg::kConsumers);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();

  const int tiles = p.tiles_m * p.tiles_n;
  if (wg == 0) {
    // ---- Producer: one thread walks the CTA's tiles and K, keeping the ring full ----
    setmaxnreg_dec<Cfg::kProducerRegs>();
    if (tid == 0) {
      prefetch_tensor_map(&tma_a);
      prefetch_tensor_map(&tma_b);
      int stage = 0;
      std::uint32_t phase = 0;
      for (int tile = static_cast<int>(blockIdx.x); tile < tiles;
           tile += static_cast<int>(gridDim.x)) {
        const views::TileCoord tc = views::raster_tile(tile, p.tiles_m, p.tiles_n, p.raster_group);
        const int m0 = tc.m * BM;
        const int n0 = tc.n * BN;
        for (int kt = 0; kt < p.k_tiles; ++kt) {
          mbar_wait(empty0 + 8 * stage, phase ^ 1u);
          const std::uint32_t bar = full0 + 8 * stage;
          mbar_expect_tx(bar, Cfg::kStageBytes);
          const std::uint32_t a_dst = ring + static_cast<std::uint32_t>(stage * Cfg::kStageBytes);
          const std::uint32_t b_dst = a_dst + Cfg::kATileBytes;
          const int k0 = kt * BK;
          if constexpr (A_K) {
            tma_load_2d(a_dst, &tma_a, k0, m0, bar);
          } else {
#pragma unroll
            for (int c = 0; c < BM / kMnChunk; ++c) {
              tma_load_2d(a_dst + c * kChunkBytes, &tma_a, m0 + c * kMnChunk, k0, bar);
            }
          }
          if constexpr (B_K) {
            tma_load_2d(b_dst, &tma_b, k0, n0, bar);
          } else {
#pragma unroll
            for (int c = 0; c < BN / kMnChunk; ++c) {
              tma_load_2d(b_dst + c * kChunkBytes, &tma_b, n0 + c * kMnChunk, k0, bar);
            }
          }
          if (++stage == STAGES) {
            stage = 0;
            phase ^= 1u;
          }
        }
      }
    }
    return;
  }

  // ---- Consumers: warpgroup wg - 1 computes rows 64 (wg - 1) .. + 63 of each tile ----
  setmaxnreg_inc<Cfg::kConsumerRegs>();
  const int cw = wg - 1;
  // This consumer's 64 rows of A: 64 K-major rows, or M-major chunk cw (both 8 KiB in).
  const std::uint32_t a_off =
      A_K ? static_cast<std::uint32_t>(cw * 64 * RB) : static_cast<std::uint32_t>(cw * kChunkBytes);
  const int warp = tid / 32;
  const int lane = tid % 32;
  CT* const c = static_cast<CT*>(p.c);
  const bool vec2 = p.c_vec2 != 0;
  float d[BN / 2];
  int stage = 0;
  std::uint32_t phase = 0;
  for (int tile = static_cast<int>(blockIdx.x); tile < tiles; tile += static_cast<int>(gridDim.x)) {
    const views::TileCoord tc = views::raster_tile(tile, p.tiles_m, p.tiles_n, p.raster_group);
    const int m0 = tc.m * BM;
    const int n0 = tc.n * BN;
    for (int kt = 0; kt < p.k_tiles; ++kt) {
      mbar_wait(full0 + 8 * stage, phase);
      const std::uint32_t a_base =
          ring + static_cast<std::uint32_t>(stage * Cfg::kStageBytes) + a_off;
      const std::uint32_t b_base =
          ring + static_cast<std::uint32_t>(stage * Cfg::kStageBytes + Cfg::kATileBytes);
      wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < KSTEPS; ++ks) {
        const std::uint64_t da =
            A_K ? smem_desc(a_base + ks * Op::kInstK * E::kBytes, 16, 1024)
                : smem_desc(a_base + ks * Op::kInstK * RB, kChunkBytes, 1024);
        const std::uint64_t db =
            B_K ? smem_desc(b_base + ks * Op::kInstK * E::kBytes, 16, 1024)
                : smem_desc(b_base + ks * Op::kInstK * RB, kChunkBytes, 1024);
        // The first k-step of a tile overwrites the accumulators (scale-d 0): no zeroing.
        Op::template mma<A_K ? 0 : 1, B_K ? 0 : 1>(d, da, db, (kt > 0 || ks > 0) ? 1 : 0);
      }
      wgmma_commit();
      wgmma_wait<0>();
      if (tid == 0) mbar_arrive(empty0 + 8 * stage);  // this consumer is done with the stage
      if (++stage == STAGES) {
        stage = 0;
        phase ^= 1u;
      }
    }

    // ---- Epilogue from the registers: thread (warp, lane) holds, for each n8 chunk j, rows
    // 16 warp + lane / 4 (+ 8) and columns 8 j + 2 (lane % 4) + {0, 1}. The producer is already
    // filling the ring with the next tile meanwhile. ----
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
#endif  // TILEGEMM_WGMMA_DEVICE
}

// ---- Host side ---------------------------------------------------------------------------------

// The problem the kernel runs: C row-major. A column-major C is computed as its mirror,
// C^T = B^T A^T (n x m, row-major).
inline Problem oriented(const Problem& p) {
  return p.c.layout == Layout::kRowMajor ? p : views::mirrored(p);
}

using KernelFn = void (*)(CUtensorMap, CUtensorMap, Params);

struct KernelRef {
  const void* fn = nullptr;
  std::atomic<std::uint64_t>* opted_in = nullptr;
  bool a_k = true, b_k = true;
};

template <class Cfg, class E, class CT, bool A_K, bool B_K>
KernelRef kernel_ref() {
  static std::atomic<std::uint64_t> opted_in{0};
  return KernelRef{reinterpret_cast<const void*>(&wgmma_kernel<Cfg, E, CT, A_K, B_K>), &opted_in,
                   A_K, B_K};
}

template <class Cfg, class E, class CT>
KernelRef select_layouts(const Problem& q) {
  if constexpr (E::kBytes == 4) {
    // tf32: both operands K-major, or nothing (the mma_sync family takes the other mixes).
    if (views::a_k_contiguous(q) && views::b_k_contiguous(q)) {
      return kernel_ref<Cfg, E, CT, true, true>();
    }
    return KernelRef{};
  } else {
    return views::dispatch_layouts(q, [](auto a_k, auto b_k) {
      return kernel_ref<Cfg, E, CT, decltype(a_k)::value, decltype(b_k)::value>();
    });
  }
}

// The instantiation for an oriented problem's element types and layouts (fn null: none).
template <class Cfg>
KernelRef select_kernel(const Problem& q) {
  const GemmTypes t = q.types();
  if constexpr (Cfg::kTf32) {
    if (t == GemmTypes{DType::kTF32, DType::kF32}) return select_layouts<Cfg, Tf32, float>(q);
  } else {
    if (t == GemmTypes{DType::kBF16, DType::kBF16}) {
      return select_layouts<Cfg, Bf16, __nv_bfloat16>(q);
    }
    if (t == GemmTypes{DType::kBF16, DType::kF32}) return select_layouts<Cfg, Bf16, float>(q);
    if (t == GemmTypes{DType::kF16, DType::kF16}) return select_layouts<Cfg, F16, __half>(q);
    if (t == GemmTypes{DType::kF16, DType::kF32}) return select_layouts<Cfg, F16, float>(q);
  }
  return KernelRef{};
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

// What the kernel needs: its layouts instantiated (tf32: K-major A and B), A and B describable by
// tensor maps (16-byte aligned base, pitch a multiple of 16 bytes), and m, n, k and the tile count
// within the int arithmetic of the kernel and the int32 coordinates of the copies.
template <class Cfg>
bool can_implement(const Problem& problem) {
  const Problem q = oriented(problem);
  if (select_kernel<Cfg>(q).fn == nullptr) return false;
  constexpr std::int64_t kMargin = 1024;
  if (!views::dims_fit_int(q, kMargin) || !views::linear_tile_grid_fits(q, Cfg::BM, Cfg::BN)) {
    return false;
  }
  const OperandGeometry ga = a_geometry(q);
  const OperandGeometry gb = b_geometry(q);
  return tensor_map_describable(q.a.dtype, q.a.data, ga.rows, ga.cols, q.a.ld) &&
         tensor_map_describable(q.b.dtype, q.b.data, gb.rows, gb.cols, q.b.ld);
}

// Tile-rows per raster group: about the square root of a wave's tiles, scaled by the aspect.
template <class Cfg>
int raster_group(int tiles_m) {
  const double wave = static_cast<double>(runtime::sm_count());
  return views::clamp_raster_group(
      static_cast<int>(std::lround(std::sqrt(wave * Cfg::BN / Cfg::BM))), tiles_m);
}

template <class Cfg>
cudaError_t launch(const Problem& problem, cudaStream_t stream) {
  const Problem q = oriented(problem);
  const KernelRef k = select_kernel<Cfg>(q);
  if (k.fn == nullptr) return cudaErrorInvalidValue;
  if (cudaError_t err = runtime::opt_in_smem(k.fn, Cfg::kSmemBytes, *k.opted_in);
      err != cudaSuccess) {
    return err;
  }
  // Boxes: a K-major operand is read as BM (BN) lines of BK; an M/N-major one as BK lines of 64,
  // BM / 64 (BN / 64) boxes per stage.
  constexpr int kMnChunk = Cfg::kRowBytes / Cfg::kElemBytes;
  CUtensorMap ma{}, mb{};
  const OperandGeometry ga = a_geometry(q);
  const OperandGeometry gb = b_geometry(q);
  if (cudaError_t err = make_tensor_map(&ma, q.a.dtype, q.a.data, ga.rows, ga.cols, q.a.ld,
                                        k.a_k ? Cfg::BM : Cfg::BK, k.a_k ? Cfg::BK : kMnChunk);
      err != cudaSuccess) {
    return err;
  }
  if (cudaError_t err = make_tensor_map(&mb, q.b.dtype, q.b.data, gb.rows, gb.cols, q.b.ld,
                                        k.b_k ? Cfg::BN : Cfg::BK, k.b_k ? Cfg::BK : kMnChunk);
      err != cudaSuccess) {
    return err;
  }
  Params prm{};
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
  prm.raster_group = raster_group<Cfg>(prm.tiles_m);
  const std::size_t c_bytes = dtype_bytes(q.c.dtype);
  prm.c_vec2 = q.c.ld % 2 == 0 && reinterpret_cast<std::uintptr_t>(q.c.data) % (2 * c_bytes) == 0;
  // Persistent: one CTA per SM (or per tile when there are fewer), each walking tiles
  // blockIdx.x, + gridDim.x, ... in the rasterised order.
  const int tiles = prm.tiles_m * prm.tiles_n;
  const dim3 grid(static_cast<unsigned>(std::min(tiles, runtime::sm_count())));
  void* args[] = {&ma, &mb, &prm};
  const cudaError_t err = cudaLaunchKernel(k.fn, grid, dim3(Cfg::kThreads), args,
                                           static_cast<std::size_t>(Cfg::kSmemBytes), stream);
  return err != cudaSuccess ? err : cudaGetLastError();
}

template <class Cfg>
const void* device_function(const Problem& p) {
  return select_kernel<Cfg>(oriented(p)).fn;
}

}  // namespace tilegemm::kernels::hopper
