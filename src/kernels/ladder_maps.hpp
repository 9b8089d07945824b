// Index maps of the SIMT ladder (rungs 4..9): which thread copies which element of an operand
// tile into shared memory, and which elements of C a thread accumulates. Pure integer functions,
// usable on the host, so tests/cpu/ladder_maps_test.cpp proves on the CPU that every map covers
// its tile exactly once and counts the shared-memory wavefronts each rung's accesses need.
//
// Vocabulary. An operand tile is BX x BK: X is M for A and N for B. In shared memory every rung
// from 5 on keeps it k-major, S[k][x] at k * (BX + PAD) + x, so a thread reads the x-values of one
// k as a 16-byte vector. In global memory the tile is either k-contiguous (A row-major, B
// col-major) or x-contiguous (A col-major, B row-major); the copy plans below are per case.
#pragma once

#include "problem_views.hpp"  // TILEGEMM_HD, the rasterisation (views::raster_tile)

namespace tilegemm::kernels::ladder {

constexpr int kWarpSize = 32;

// How one operand tile travels from global to shared memory.
enum class CopyKind {
  kKVec4,    // 16-byte vectors along k, stored transposed as 4 scalars (rungs 5-7, k-contiguous)
  kKScalar,  // 4-byte copies, k fastest: cp.async can land them transposed (rungs 8-9,
             // k-contiguous)
  kXVec4,    // 16-byte vectors along x, stored as one 16-byte vector (x-contiguous)
  kXScalar,  // 4-byte copies along x: any alignment (x-contiguous, unaligned instances)
};

// The copy plan of a BX x BK tile by THREADS threads. Thread `tid` copies, in pass p, the
// kWidth elements starting at (x0(tid) + dx(p), k0(tid) + dk(p)), consecutive along k (k kinds)
// or along x (x kinds). Passes are compile-time, so their offsets become immediates.
//
// Coalescing: kKScalar gives each warp 8 consecutive k (one 32-byte sector) of 4 rows,
// kKVec4 BK/4 vectors of a row side by side, the x kinds 32 consecutive copies along x.
template <int BX, int BK, int THREADS, CopyKind KIND>
struct CopyPlan {
  static constexpr bool kAlongK = KIND == CopyKind::kKVec4 || KIND == CopyKind::kKScalar;
  static constexpr int kWidth = (KIND == CopyKind::kKVec4 || KIND == CopyKind::kXVec4) ? 4 : 1;
  // k-fastest scalar copies take 8 k (32 bytes, one sector) per row before moving along x.
  static constexpr int kKChunk = KIND == CopyKind::kKScalar ? (BK < 8 ? BK : 8) : 4;
  // Threads side by side along the fast dimension, and the rows one pass covers.
  static constexpr int kFast = KIND == CopyKind::kKVec4     ? BK / 4
                               : KIND == CopyKind::kKScalar ? kKChunk
                               : KIND == CopyKind::kXVec4   ? BX / 4
                                                            : BX;
  static constexpr int kRowsPerPass = THREADS / kFast;
  // Passes along the slow dimension (x for k kinds, k for x kinds), times k chunks (kKScalar).
  static constexpr int kSlowPasses = (kAlongK ? BX : BK) / kRowsPerPass;
  static constexpr int kPasses =
      KIND == CopyKind::kKScalar ? kSlowPasses * (BK / kKChunk) : kSlowPasses;

  // The preconditions, as a value the kernels static_assert and the CPU test checks.
  static constexpr bool valid() {
    return BX % 4 == 0 && BK % 4 == 0 && kFast > 0 && THREADS % kFast == 0 && kRowsPerPass > 0 &&
           (kAlongK ? BX : BK) % kRowsPerPass == 0 &&
           (KIND != CopyKind::kKScalar || BK % kKChunk == 0) &&
           kPasses * THREADS * kWidth == BX * BK;
  }

  static constexpr TILEGEMM_HD int x0(int tid) {
    return kAlongK ? tid / kFast : (tid % kFast) * kWidth;
  }
  static constexpr TILEGEMM_HD int k0(int tid) {
    return kAlongK ? (tid % kFast) * (KIND == CopyKind::kKVec4 ? 4 : 1) : tid / kFast;
  }
  static constexpr TILEGEMM_HD int dx(int pass) {
    return kAlongK ? (pass % kSlowPasses) * kRowsPerPass : 0;
  }
  static constexpr TILEGEMM_HD int dk(int pass) {
    return KIND == CopyKind::kKScalar ? (pass / kSlowPasses) * kKChunk
           : kAlongK                  ? 0
                                      : pass * kRowsPerPass;
  }
};

// Which C elements a thread owns when the block is one grid of threads (rungs 4-6). The block
// is TY x TX = (BM/TM) x (BN/TN) threads, tx fastest; a thread's TM x TN tile is split into
// (TM/SUBM) x (TN/SUBN) sub-tiles of SUBM x SUBN, sub-tile s lying s * BM/(TM/SUBM) rows down.
// SUBM == TM is the contiguous 8 x 8 tile of rungs 4-5; SUBM == 4 the strips of rung 6.
template <int BM, int BN, int TM, int TN, int SUBM, int SUBN>
struct BlockThreadMap {
  static constexpr int kThreadsN = BN / TN;
  static constexpr int kThreads = (BM / TM) * kThreadsN;
  static constexpr int kSubM = TM / SUBM;
  static constexpr int kSubN = TN / SUBN;
  static constexpr bool valid() {
    return BM % TM == 0 && BN % TN == 0 && TM % SUBM == 0 && TN % SUBN == 0;
  }
  // First row / column of sub-tile s of thread tid, relative to the block tile.
  static constexpr TILEGEMM_HD int row(int tid, int s) {
    return s * (BM / kSubM) + (tid / kThreadsN) * SUBM;
  }
  static constexpr TILEGEMM_HD int col(int tid, int s) {
    return s * (BN / kSubN) + (tid % kThreadsN) * SUBN;
  }
};

// Which C elements a thread owns under warp tiling (rungs 7-9): the BM x BN block tile is a
// (BM/WM) x (BN/WN) grid of warp tiles; a warp's 32 lanes form a (WM/TM) x (WN/TN) grid, and a
// lane's TM x TN tile is (TM/4) x (TN/4) sub-tiles of 4 x 4 spaced WM/(TM/4) rows and
// WN/(TN/4) columns apart, so at one k the lanes of a warp read contiguous 16-byte vectors.
template <int BM, int BN, int WM, int WN, int TM, int TN>
struct WarpTileMap {
  static constexpr int kWarpsM = BM / WM;
  static constexpr int kWarpsN = BN / WN;
  static constexpr int kThreads = kWarpsM * kWarpsN * kWarpSize;
  static constexpr int kLanesM = WM / TM;
  static constexpr int kLanesN = WN / TN;
  static constexpr int kSubM = TM / 4;
  static constexpr int kSubN = TN / 4;
  static constexpr int kSubStepM = WM / kSubM;  // rows between a lane's sub-tiles
  static constexpr int kSubStepN = WN / kSubN;
  static constexpr bool valid() {
    return BM % WM == 0 && BN % WN == 0 && WM % TM == 0 && WN % TN == 0 && TM % 4 == 0 &&
           TN % 4 == 0 && kLanesM * kLanesN == kWarpSize;
  }
  static constexpr TILEGEMM_HD int warp_m(int tid) { return (tid / kWarpSize) % kWarpsM; }
  static constexpr TILEGEMM_HD int warp_n(int tid) { return (tid / kWarpSize) / kWarpsM; }
  static constexpr TILEGEMM_HD int lane_m(int tid) { return (tid % kWarpSize) / kLanesN; }
  static constexpr TILEGEMM_HD int lane_n(int tid) { return (tid % kWarpSize) % kLanesN; }
  static constexpr TILEGEMM_HD int row(int tid, int s) {
    return warp_m(tid) * WM + s * kSubStepM + lane_m(tid) * 4;
  }
  static constexpr TILEGEMM_HD int col(int tid, int s) {
    return warp_n(tid) * WN + s * kSubStepN + lane_n(tid) * 4;
  }
};

// Rung 8's k-contiguous A tile (Config::KA): row x of a BX-row tile is stored at physical row
// (x % 4) * (BX / 4) + x / 4, so rows 4 apart (the rows one LDS.128 of a warp reads together
// under WarpTileMap) are neighbours in shared memory.
template <int BX>
constexpr TILEGEMM_HD int ka_physical_row(int x) {
  return (x % 4) * (BX / 4) + x / 4;
}

// Group-of-rows rasterisation (rung 9): problem_views.hpp's, shared with the host side.
using views::raster_tile;
using views::TileCoord;

}  // namespace tilegemm::kernels::ladder
