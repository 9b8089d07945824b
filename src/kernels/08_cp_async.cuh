// The kernel template of rung 8 (`cp_async`), shared with rung 9 (`tuned`), which adds a
// rasterised tile order and split-K through the Schedule below. See 08_cp_async.cu for what the
// rung adds and why; this header holds the kernel, its configuration type and its launcher.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <type_traits>

#include "../core/device_runtime.hpp"
#include "common.cuh"
#include "ladder.cuh"

namespace tilegemm::kernels::cp_async {

using ladder::CopyKind;
using ladder::CopyPlan;

// Where a launch's blocks go and where their results go.
struct Schedule {
  int tiles_m = 1;  // block tiles along M and N: the grid is tiles_m * tiles_n blocks in x
  int tiles_n = 1;
  int raster_group = 1;     // tile-rows walked before moving one tile-column right (1..tiles_m)
  int tiles_per_split = 1;  // K tiles of one split; blockIdx.z is the split. No split is empty.
  int splits = 1;
  // null: the epilogue writes C = alpha * acc + beta * C. Otherwise split z writes its raw sums
  // to workspace[z * ws_split_stride + row * ws_rs + col * ws_cs] and a reduction applies alpha
  // and beta afterwards (rung 9).
  float* workspace = nullptr;
  std::int64_t ws_rs = 0, ws_cs = 0, ws_split_stride = 0;
};

/// One instance of the family; the tile hierarchy as in rung 7, plus the pipeline depth.
/// @tparam BM      rows of C per block tile
/// @tparam BN      columns of C per block tile
/// @tparam BK      depth of one pipeline stage along K
/// @tparam WM      rows of C per warp tile; the block has (BM/WM) x (BN/WN) warps
/// @tparam WN      columns of C per warp tile
/// @tparam TM      rows of C per thread; a warp's lanes form a (WM/TM) x (WN/TN) grid of 32
/// @tparam TN      columns of C per thread; a thread tile is (TM/4) x (TN/4) sub-tiles of 4 x 4
/// @tparam STAGES  shared-memory stages in flight (2..4): STAGES-1 tiles are loading while one
///                 is computed
/// @tparam X_VEC   x-contiguous operands (A col-major, B row-major) copied as 16-byte vectors
///                 (needs views::aligned(operand, 16)); false: 4-byte copies, any alignment or
///                 leading dimension
/// @tparam KA      a row-major (k-contiguous) A is kept k-contiguous in shared memory, [m][BK+4]
///                 with rows interleaved (see AsyncCopyKA), copied by 16-byte cp.async and read
///                 as 4 k per LDS.128 (needs A 16-byte aligned); false: the k-major tile of
///                 rung 6
/// @tparam OPT     main-loop options, a sum of the kOpt* flags below (third pass, SASS-guided):
///                 kOptLean: tiles wholly inside the matrix are copied without predicates or
///                 fallback addresses; kOptMid: the next tile's copies are issued halfway
///                 through the K step instead of at its start
template <int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int STAGES_, bool X_VEC_,
          bool KA_ = false, int OPT_ = 0>
struct Config {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, TM = TM_, TN = TN_;
  static constexpr int STAGES = STAGES_;
  static constexpr bool X_VEC = X_VEC_;
  static constexpr bool KA = KA_;
  static constexpr int kOptLean = 1, kOptMid = 2;
  static constexpr bool kLean = (OPT_ & kOptLean) != 0;
  static constexpr bool kMid = (OPT_ & kOptMid) != 0;
  static constexpr int kIssueK = kMid ? BK_ / 2 : 0;  // the k of a step that issues the copies
  using Map = ladder::WarpTileMap<BM, BN, WM, WN, TM, TN>;
  static constexpr int kThreads = Map::kThreads;
  static constexpr int kPad = 4;          // floats added to each k-row (rung 6)
  static constexpr int kLdA = BM + kPad;  // floats per k-row of the shared A tile
  static constexpr int kLdB = BN + kPad;
  static constexpr int kLdK = BK + kPad;  // floats per m-row of the k-contiguous A tile (KA)
  // A's part of a stage: room for either layout when KA (the layout is chosen per launch).
  static constexpr int kAFloats = KA && BM * kLdK > BK * kLdA ? BM * kLdK : BK * kLdA;
  static constexpr int kStageFloats = kAFloats + BK * kLdB;
  static constexpr int kSmemBytes = STAGES * kStageFloats * static_cast<int>(sizeof(float));
  // 64 accumulators + 2 x 16 fragment registers fit the 128 registers two blocks per SM allow;
  // larger thread tiles take one block per SM and up to 255 registers.
  static constexpr int kMinBlocks = TM * TN <= 64 ? 2 : 1;

  static constexpr CopyKind a_kind(bool a_k) {
    return a_k && KA ? CopyKind::kKVec4
           : a_k     ? CopyKind::kKScalar
           : X_VEC   ? CopyKind::kXVec4
                     : CopyKind::kXScalar;
  }
  static constexpr CopyKind b_kind(bool b_k) {
    return b_k ? CopyKind::kKScalar : X_VEC ? CopyKind::kXVec4 : CopyKind::kXScalar;
  }

  // "128x128x8_w64x32_t8x8_s3" (+ "_ka" for the k-contiguous A tile, "_lean" for the
  // predicate-free interior copies, "_mid" for the copies issued mid-step, "_anyalign" for 4-byte
  // copies)
  static std::string tag() {
    return std::to_string(BM) + "x" + std::to_string(BN) + "x" + std::to_string(BK) + "_w" +
           std::to_string(WM) + "x" + std::to_string(WN) + "_t" + std::to_string(TM) + "x" +
           std::to_string(TN) + "_s" + std::to_string(STAGES) + (KA ? "_ka" : "") +
           (kLean ? "_lean" : "") + (kMid ? "_mid" : "") + (X_VEC ? "" : "_anyalign");
  }
  // The main-loop variant `auto`'s rules select by: "ka", "lean", "mid" as in the tag, joined
  // by '_' ("lean_mid"); "" for the plain loop. (Alignment is not a variant: desc's align_*.)
  static std::string variant() {
    std::string v = std::string(KA ? "_ka" : "") + (kLean ? "_lean" : "") + (kMid ? "_mid" : "");
    return v.empty() ? v : v.substr(1);
  }
  // f32 SIMT; the 16-byte paths need 4-element alignment of the operands they copy as vectors
  // (X_VEC: A and B; KA: A); C is stored by element. cp.async: sm_80 and later. No split-K here
  // (rung 9's launcher adds it: its split-K entries set desc.split_k).
  static KernelDesc desc() {
    KernelDesc d = simt_f32_desc(X_VEC || KA ? 4 : 1, X_VEC ? 4 : 1, 1, kCpAsyncMinCc);
    d.variant = variant();
    return d;
  }
  static TileConfig tile_config() {
    TileConfig t;
    t.bm = BM;
    t.bn = BN;
    t.bk = BK;
    t.wm = WM;
    t.wn = WN;
    t.tm = TM;
    t.tn = TN;
    t.threads = kThreads;
    t.stages = STAGES;
    t.smem_bytes = kSmemBytes;
    return t;
  }
};

// The cp.async copy of one operand tile per pipeline stage, by one thread. The operand is seen
// as X x K (X = M for A, N for B): element (x, k) at src[x * ld + k] when K_CONTIG, else at
// src[k * ld + x]. Out-of-bounds elements are zero-filled through the src-size operand.
template <class Plan, int LD, bool K_CONTIG>
struct AsyncCopy {
  static_assert(Plan::valid(), "the copy plan must split the tile evenly among the threads");
  static_assert(Plan::kSlowPasses <= 32, "x predicates live in one 32-bit mask");

  const float* src;  // the thread's first element (x0, k0) of the next tile to load
  unsigned x_mask;   // bit i: the x of slow pass i is inside the matrix
  int x_bytes;       // kXVec4: bytes of the thread's 16-byte vector inside the matrix (0..16)
  int smem_off;      // the thread's first element in a stage: k0 * LD + x0

  // origin: element (x, k) = (0, 0) of the tile at the split's first K step; x_left: elements
  // from the tile's first x to the matrix edge.
  __device__ __forceinline__ void init(const float* origin, std::int64_t ld, int x_left, int tid) {
    const int x0 = Plan::x0(tid);
    const int k0 = Plan::k0(tid);
    src = K_CONTIG ? origin + x0 * ld + k0 : origin + k0 * ld + x0;
    smem_off = k0 * LD + x0;
    x_mask = 0;
#pragma unroll
    for (int i = 0; i < Plan::kSlowPasses; ++i) {
      const int x = x0 + (K_CONTIG ? i * Plan::kRowsPerPass : 0);
      if (x < x_left) x_mask |= 1u << i;
    }
    const int vec_left = x_left - x0;
    x_bytes = vec_left >= 4 ? 16 : vec_left > 0 ? 4 * vec_left : 0;
  }

  // Issues this thread's copies of one tile into `stage`. k_lim: elements along K from the
  // thread's first k of this tile to the matrix edge (may be <= 0: nothing to read).
  // fallback: any valid global address, given to copies that read nothing.
  __device__ __forceinline__ void issue(float* stage, std::int64_t ld, int k_lim,
                                        const float* fallback) const {
#pragma unroll
    for (int p = 0; p < Plan::kPasses; ++p) {
      const int dx = Plan::dx(p);
      const int dk = Plan::dk(p);
      const bool k_in = dk < k_lim;
      const float* g = K_CONTIG ? src + dx * ld + dk : src + dk * ld + dx;
      float* s = stage + smem_off + dk * LD + dx;
      if constexpr (Plan::kWidth == 4) {
        const int bytes = k_in ? x_bytes : 0;
        ladder::cp_async_16(s, bytes > 0 ? g : fallback, bytes);
      } else {
        const bool in = k_in && ((x_mask >> (p % Plan::kSlowPasses)) & 1u) != 0;
        ladder::cp_async_4(s, in ? g : fallback, in ? 4 : 0);
      }
    }
  }

  // issue() for a tile wholly inside the matrix (every x and every k in bounds): no predicates,
  // no fallback address, full copies.
  __device__ __forceinline__ void issue_interior(float* stage, std::int64_t ld) const {
#pragma unroll
    for (int p = 0; p < Plan::kPasses; ++p) {
      const int dx = Plan::dx(p);
      const int dk = Plan::dk(p);
      const float* g = K_CONTIG ? src + dx * ld + dk : src + dk * ld + dx;
      float* s = stage + smem_off + dk * LD + dx;
      if constexpr (Plan::kWidth == 4) {
        ladder::cp_async_16(s, g, 16);
      } else {
        ladder::cp_async_4(s, g, 4);
      }
    }
  }

  __device__ __forceinline__ void advance(std::int64_t step) {
    src += step;
  }
};

// The KA copy of a k-contiguous A tile: one 16-byte cp.async per 4 consecutive k of one row
// (4x fewer copy instructions than AsyncCopy's 4-byte transposing copies, no transposition).
// Row x of the tile lands at physical row pi(x) = (x % 4) * (BX / 4) + x / 4 of a [BX][LDK] tile:
// the rows a warp reads together in one LDS.128 (x = base + 4 * lane_m + c, lane_m = 0..7) become
// 8 consecutive physical rows, LDK floats apart; with LDK / 4 odd their 16-byte slots fall in 8
// different 16-byte bank groups, one wavefront (rows 4 apart unpermuted would share 2 of them).
// Edges: a row outside the matrix and the k beyond K are zero-filled via src-size.
template <class Plan, int LDK, int BX>
struct AsyncCopyKA {
  static_assert(Plan::valid() && Plan::kWidth == 4 && Plan::kAlongK,
                "16-byte vectors along k, the tile split evenly among the threads");
  static_assert(Plan::kSlowPasses <= 32, "row predicates live in one 32-bit mask");
  static_assert(Plan::kRowsPerPass % 4 == 0, "a pass moves whole groups of 4 rows");
  static_assert(BX % 4 == 0 && LDK % 4 == 0 && (LDK / 4) % 2 == 1,
                "16-byte aligned rows whose 16-byte slot count is odd");

  static constexpr TILEGEMM_HD int physical_row(int x) { return ladder::ka_physical_row<BX>(x); }

  const float* src;  // the thread's first vector (x0, k0) of the next tile to load
  unsigned x_mask;   // bit p: the row of pass p is inside the matrix
  int smem_off;      // physical_row(x0) * LDK + k0

  __device__ __forceinline__ void init(const float* origin, std::int64_t ld, int x_left, int tid) {
    const int x0 = Plan::x0(tid);
    const int k0 = Plan::k0(tid);
    src = origin + x0 * ld + k0;
    smem_off = physical_row(x0) * LDK + k0;
    x_mask = 0;
#pragma unroll
    for (int p = 0; p < Plan::kPasses; ++p) {
      if (x0 + Plan::dx(p) < x_left) x_mask |= 1u << p;
    }
  }

  // k_lim: elements along K from the thread's first k of this tile to the matrix edge.
  __device__ __forceinline__ void issue(float* stage, std::int64_t ld, int k_lim,
                                        const float* fallback) const {
    const int k_bytes = k_lim >= 4 ? 16 : k_lim > 0 ? 4 * k_lim : 0;
#pragma unroll
    for (int p = 0; p < Plan::kPasses; ++p) {
      const int dx = Plan::dx(p);  // a multiple of 4: physical_row(x0 + dx) = ... + dx / 4
      const int bytes = ((x_mask >> p) & 1u) != 0 ? k_bytes : 0;
      ladder::cp_async_16(stage + smem_off + (dx / 4) * LDK, bytes > 0 ? src + dx * ld : fallback,
                          bytes);
    }
  }

  // issue() for a tile wholly inside the matrix: every row in, all 4 k of every vector in.
  __device__ __forceinline__ void issue_interior(float* stage, std::int64_t ld) const {
#pragma unroll
    for (int p = 0; p < Plan::kPasses; ++p) {
      const int dx = Plan::dx(p);
      ladder::cp_async_16(stage + smem_off + (dx / 4) * LDK, src + dx * ld, 16);
    }
  }

  __device__ __forceinline__ void advance(std::int64_t step) {
    src += step;
  }
};

// C (or a split's slice of the workspace) for one thread tile.
template <class C>
__device__ __forceinline__ void epilogue(const GemmArgs& g, const Schedule& s, int m0, int n0,
                                         int rows_left, int cols_left, int row, int col,
                                         const float (&acc)[C::TM][C::TN]) {
  using Map = typename C::Map;
  if (s.workspace == nullptr) {
    float* c_tile = g.c + m0 * g.c_rs + n0 * g.c_cs;
#pragma unroll
    for (int i = 0; i < C::TM; ++i) {
#pragma unroll
      for (int sn = 0; sn < Map::kSubN; ++sn) {
        ladder::store_row<4>(g, c_tile, row + (i / 4) * Map::kSubStepM + i % 4,
                             col + sn * Map::kSubStepN, rows_left, cols_left, &acc[i][4 * sn]);
      }
    }
  } else {
    float* w_tile = s.workspace + static_cast<std::int64_t>(blockIdx.z) * s.ws_split_stride +
                    m0 * s.ws_rs + n0 * s.ws_cs;
#pragma unroll
    for (int i = 0; i < C::TM; ++i) {
      const int r = row + (i / 4) * Map::kSubStepM + i % 4;
      if (r >= rows_left) continue;
#pragma unroll
      for (int j = 0; j < C::TN; ++j) {
        const int c = col + (j / 4) * Map::kSubStepN + j % 4;
        if (c < cols_left) w_tile[r * s.ws_rs + c * s.ws_cs] = acc[i][j];
      }
    }
  }
}

/// The kernel: rung 7's tiling fed by a STAGES-deep cp.async pipeline, fragments of A and B
/// double-buffered in registers (the reads for k+1 are issued before the FMAs of k).
/// @tparam C    a Config
/// @tparam A_K  A is k-contiguous (row-major); otherwise m-contiguous (col-major)
/// @tparam B_K  B is k-contiguous (col-major); otherwise n-contiguous (row-major)
template <class C, bool A_K, bool B_K>
__global__ void __launch_bounds__(C::kThreads, C::kMinBlocks)
    cp_async_kernel(GemmArgs g, Schedule s) {
  using Map = typename C::Map;
  using APlan = CopyPlan<C::BM, C::BK, C::kThreads, C::a_kind(A_K)>;
  using BPlan = CopyPlan<C::BN, C::BK, C::kThreads, C::b_kind(B_K)>;
  constexpr int BK = C::BK;
  constexpr int STAGES = C::STAGES;
  static_assert(Map::valid(),
                "warp tiles must tile the block tile, 32 lanes of 4x4 sub-tiles each");
  static_assert(APlan::valid() && BPlan::valid(), "each stage must split evenly among the threads");
  static_assert(STAGES >= 2 && STAGES <= 4, "2..4 stages: one computing, the rest loading");
  static_assert(C::kIssueK < BK - 1,
                "the step's copies are committed before its wait for the next tile");
  static_assert(BK % 4 == 0 && BK >= 4, "k-contiguous copies take whole 4-k groups");
  static_assert(C::kPad % 4 == 0,
                "padded rows must stay 16-byte aligned for LDS.128 and cp.async 16");
  static_assert(C::TM * C::TN <= 128, "the accumulators must stay in registers");
  constexpr bool AKT = C::KA && A_K;  // A kept k-contiguous in shared memory (AsyncCopyKA)
  static_assert(!C::KA || (BK % 8 == 0 && Map::kSubStepM % 4 == 0),
                "KA: BK / 4 even (odd slot count per row), sub-tiles on 4-row boundaries");

  // STAGES x [ As (BK, BM + pad) | Bs (BK, BN + pad) ], k-major: As[kk][r] = A(m0 + r, k0 + kk).
  extern __shared__ float4 smem_raw[];
  float* const smem = reinterpret_cast<float*>(smem_raw);

  const int tid = static_cast<int>(threadIdx.x);
  const ladder::TileCoord tile =
      ladder::raster_tile(static_cast<int>(blockIdx.x), s.tiles_m, s.tiles_n, s.raster_group);
  const int m0 = tile.m * C::BM;
  const int n0 = tile.n * C::BN;
  const int rows_left = g.m - m0;
  const int cols_left = g.n - n0;

  // This block's share of K: tiles [t_begin, t_begin + num_tiles), never empty.
  const int k_tiles_total = (g.k - 1) / BK + 1;
  const int t_begin = static_cast<int>(blockIdx.z) * s.tiles_per_split;
  const int num_tiles = min(s.tiles_per_split, k_tiles_total - t_begin);
  const int k_begin = t_begin * BK;
  const int k_left = g.k - k_begin;  // elements of K from the split's start to the edge

  const std::int64_t lda = A_K ? g.a_rs : g.a_cs;  // stride of A's non-contiguous dimension
  const std::int64_t ldb = B_K ? g.b_cs : g.b_rs;
  const std::int64_t a_step = BK * g.a_cs;  // one K step of A, in elements
  const std::int64_t b_step = BK * g.b_rs;
  std::conditional_t<AKT, AsyncCopyKA<APlan, C::kLdK, C::BM>, AsyncCopy<APlan, C::kLdA, A_K>>
      a_copy;
  AsyncCopy<BPlan, C::kLdB, B_K> b_copy;
  a_copy.init(g.a + m0 * g.a_rs + k_begin * g.a_cs, lda, rows_left, tid);
  b_copy.init(g.b + n0 * g.b_cs + k_begin * g.b_rs, ldb, cols_left, tid);
  const int a_k0 = APlan::k0(tid);
  const int b_k0 = BPlan::k0(tid);

  auto a_stage = [&](int st) { return smem + st * C::kStageFloats; };
  auto b_stage = [&](int st) { return smem + st * C::kStageFloats + C::kAFloats; };

  // Prologue: tiles 0 .. STAGES-2 in flight, one commit group each (empty past the last tile).
#pragma unroll
  for (int st = 0; st < STAGES - 1; ++st) {
    if (st < num_tiles) {
      const int k_lim = k_left - st * BK;
      a_copy.issue(a_stage(st), lda, k_lim - a_k0, g.a);
      b_copy.issue(b_stage(st), ldb, k_lim - b_k0, g.b);
      a_copy.advance(a_step);
      b_copy.advance(b_step);
    }
    ladder::cp_async_commit();
  }
  ladder::cp_async_wait<STAGES - 2>();  // tile 0 has landed (this thread's copies) ...
  __syncthreads();                      // ... and everybody's

  const int row = Map::row(tid, 0);  // first row of the thread's first sub-tile (block-relative)
  const int col = Map::col(tid, 0);
  float a_frag[2][C::TM];        // (2, TM): this k's and the next k's A values of the thread's rows
  float a_grp[C::TM][4];         // (TM, 4), AKT only: the A values of 4 consecutive k
  float b_frag[2][C::TN];        // (2, TN): the same for B's columns
  float acc[C::TM][C::TN] = {};  // acc[i][j] = C(m0 + row + (i/4)*kSubStepM + i%4, n0 + col + ...)

  int read_stage = 0;
  int write_stage = STAGES - 1;
  const float* a_read = a_stage(0);
  const float* b_read = b_stage(0);
  // AKT: thread row row + s * kSubStepM + c (acc index i = 4 s + c) sits at physical row
  // c * BM/4 + (row + s * kSubStepM) / 4; one LDS.128 gives its 4 k of group kg.
  auto load_a_group = [&](const float* base, int kg) {
#pragma unroll
    for (int s2 = 0; s2 < Map::kSubM; ++s2) {
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const int prow = ladder::ka_physical_row<C::BM>(row + s2 * Map::kSubStepM + c);
        const float4 v = *reinterpret_cast<const float4*>(base + prow * C::kLdK + kg);
        a_grp[4 * s2 + c][0] = v.x;
        a_grp[4 * s2 + c][1] = v.y;
        a_grp[4 * s2 + c][2] = v.z;
        a_grp[4 * s2 + c][3] = v.w;
      }
    }
  };
  if constexpr (AKT) {
    load_a_group(a_read, 0);
  } else {
    ladder::load_fragment<Map::kSubM, Map::kSubStepM>(a_frag[0], a_read + row);
  }
  ladder::load_fragment<Map::kSubN, Map::kSubStepN>(b_frag[0], b_read + col);

  // kLean: tiles [0, full_tiles) of the split lie wholly inside the matrix (the block tile inside
  // M and N, the K tile inside K) and take the predicate-free copy.
  const bool block_interior = rows_left >= C::BM && cols_left >= C::BN;
  const int full_tiles = C::kLean && block_interior ? min(num_tiles, k_left / BK) : 0;

  for (int t = 0; t < num_tiles; ++t) {
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      if (kk == C::kIssueK) {
        // Refill the stage computed in step t-1 (everybody passed the barrier after reading it,
        // before the first k of this step).
        const int t_load = t + STAGES - 1;
        if (C::kLean && t_load < full_tiles) {
          a_copy.issue_interior(a_stage(write_stage), lda);
          b_copy.issue_interior(b_stage(write_stage), ldb);
          a_copy.advance(a_step);
          b_copy.advance(b_step);
        } else if (t_load < num_tiles) {
          const int k_lim = k_left - t_load * BK;
          a_copy.issue(a_stage(write_stage), lda, k_lim - a_k0, g.a);
          b_copy.issue(b_stage(write_stage), ldb, k_lim - b_k0, g.b);
          a_copy.advance(a_step);
          b_copy.advance(b_step);
        }
        ladder::cp_async_commit();
      }
      if (kk == BK - 1) {
        // Before reading the next stage: its copies have landed (the STAGES-2 newer groups may
        // still fly) and every thread's copies are visible.
        ladder::cp_async_wait<STAGES - 2>();
        __syncthreads();
        read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
        write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
        a_read = a_stage(read_stage);
        b_read = b_stage(read_stage);
      }
      const int next = (kk + 1) % BK;  // after the last k: k = 0 of the next stage
      if constexpr (AKT) {
        // This k's A values leave the group first; the group is reloaded after its last k.
#pragma unroll
        for (int i = 0; i < C::TM; ++i) a_frag[kk % 2][i] = a_grp[i][kk % 4];
        if (next % 4 == 0) load_a_group(a_read, next);
      } else {
        ladder::load_fragment<Map::kSubM, Map::kSubStepM>(a_frag[(kk + 1) % 2],
                                                          a_read + next * C::kLdA + row);
      }
      ladder::load_fragment<Map::kSubN, Map::kSubStepN>(b_frag[(kk + 1) % 2],
                                                        b_read + next * C::kLdB + col);
      ladder::outer_product(acc, a_frag[kk % 2], b_frag[kk % 2]);
    }
  }
  ladder::cp_async_wait<0>();  // only empty groups can be left; the contract stays explicit

  epilogue<C>(g, s, m0, n0, rows_left, cols_left, row, col, acc);
}

// What every instance of the family needs of a problem: a grid that fits, 16-byte alignment of
// the x-contiguous operands when X_VEC, and room above m, n, k for one tile (the index math
// stays in int: m0 + BM, k_begin + BK never overflow).
template <class C>
bool can_implement(const Problem& p) {
  if (!views::dims_fit_int(p, /*margin=*/1024)) return false;
  if (!views::linear_tile_grid_fits(p, C::BM, C::BN)) return false;
  if (C::KA && views::a_k_contiguous(p) && !views::aligned(p.a, 16)) return false;
  if (C::X_VEC) {
    if (!views::a_k_contiguous(p) && !views::aligned(p.a, 16)) return false;
    if (!views::b_k_contiguous(p) && !views::aligned(p.b, 16)) return false;
  }
  return true;
}

// A schedule without split-K or rasterisation (rung 8); rung 9 fills in the rest.
template <class C>
Schedule plain_schedule(const Problem& p) {
  Schedule s;
  s.tiles_m = static_cast<int>(ceil_div(p.m, C::BM));
  s.tiles_n = static_cast<int>(ceil_div(p.n, C::BN));
  s.tiles_per_split = static_cast<int>(ceil_div(p.k, C::BK));
  return s;
}

// Launches the main kernel with the given schedule (for s.workspace != null, the caller reduces
// the splits afterwards).
template <class C>
cudaError_t launch(const Problem& p, const Schedule& s, cudaStream_t stream) {
  const GemmArgs args = make_args(p);
  const dim3 grid(static_cast<unsigned>(s.tiles_m) * static_cast<unsigned>(s.tiles_n), 1,
                  static_cast<unsigned>(s.splits));
  return ladder::dispatch_layouts(p, [&](auto a_k, auto b_k) {
    auto* kernel = &cp_async_kernel<C, decltype(a_k)::value, decltype(b_k)::value>;
    static std::atomic<std::uint64_t> opted_in{0};  // one per kernel instantiation
    if (cudaError_t err =
            runtime::opt_in_smem(reinterpret_cast<const void*>(kernel), C::kSmemBytes, opted_in);
        err != cudaSuccess) {
      return err;
    }
    kernel<<<grid, C::kThreads, C::kSmemBytes, stream>>>(args, s);
    return cudaGetLastError();
  });
}

// The instantiation launch() runs for this problem (its operand layouts); null when
// can_implement rejects it.
template <class C>
const void* device_function(const Problem& p) {
  if (!can_implement<C>(p)) return nullptr;
  return ladder::dispatch_layouts(p, [](auto a_k, auto b_k) {
    return kernel_address(&cp_async_kernel<C, decltype(a_k)::value, decltype(b_k)::value>);
  });
}

}  // namespace tilegemm::kernels::cp_async
