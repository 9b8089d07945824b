// Host-side views and checks of a Problem that every kernel family shares, SIMT ladder and CuTe
// alike, written once:
//   - the mirror view, C^T = B^T A^T: the same product on the same memory with M and N, A and B
//     exchanged and every layout flipped (a kernel instantiated for one layout mix thereby
//     serves its mirror image too);
//   - which operand is contiguous along K, and the dispatch of the four layout mixes to
//     template instances;
//   - alignment in bytes of a view's base pointer and leading dimension, for any element type;
//   - the checks that a kernel's 32-bit sizes, offsets and grid fit a problem;
//   - tile counts and the group-of-rows rasterisation of the tile order.
// No CUDA here beyond the host/device marker of raster_tile (also called in kernels): the CPU
// tests include this header from plain C++ (tests/cpu/problem_views_test.cpp).
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "tilegemm/problem.hpp"

#if defined(__CUDACC__)
#define TILEGEMM_HD __host__ __device__
#else
#define TILEGEMM_HD
#endif

namespace tilegemm::kernels::views {

// ---- The mirror view ----------------------------------------------------------------------------

constexpr Layout flipped(Layout layout) {
  return layout == Layout::kRowMajor ? Layout::kColMajor : Layout::kRowMajor;
}

// The transpose of a matrix, as a view of the same memory: a row-major rows x cols matrix read
// column-major is its cols x rows transpose.
template <typename Pointer>
constexpr MatrixView<Pointer> transposed(const MatrixView<Pointer>& x) {
  return MatrixView<Pointer>{x.data, flipped(x.layout), x.ld, x.dtype};
}

// C^T = B^T A^T: the same sums written to the same addresses. m and n exchange, A becomes B^T's
// view and B A^T's, C becomes C^T's; alpha, beta and k stay. mirrored(mirrored(p)) == p.
inline Problem mirrored(const Problem& p) {
  Problem t = p;
  t.m = p.n;
  t.n = p.m;
  t.a = transposed(p.b);
  t.b = transposed(p.a);
  t.c = transposed(p.c);
  return t;
}

// The problem with C's narrow side as N: itself where C has at least as many rows as columns,
// else its mirror. The narrow families (rungs 21 and 29) run this.
inline Problem narrow_as_n(const Problem& p) {
  return p.n <= p.m ? p : mirrored(p);
}

// The problem with a row-major C: itself, or (C column-major) its mirror. The tile kernels that
// store C row by row run this.
inline Problem row_major_c(const Problem& p) {
  return p.c.layout == Layout::kRowMajor ? p : mirrored(p);
}

// ---- Contiguity ---------------------------------------------------------------------------------

// A tile of A is k-contiguous when A is row-major; a tile of B is k-contiguous when B is
// col-major. The other layout is contiguous along m (A) or n (B).
inline bool a_k_contiguous(const Problem& p) {
  return p.a.layout == Layout::kRowMajor;
}
inline bool b_k_contiguous(const Problem& p) {
  return p.b.layout == Layout::kColMajor;
}

// Calls f(std::bool_constant<A_K>{}, std::bool_constant<B_K>{}) with a_k and b_k as
// compile-time values (A_K: A is k-contiguous; B_K: B is k-contiguous) and returns what f
// returns (the same type for all four): a launch's error, or the instantiation it would run.
template <typename F>
auto dispatch_layouts(bool a_k, bool b_k, F&& f) {
  using T = std::true_type;
  using N = std::false_type;
  if (a_k) return b_k ? f(T{}, T{}) : f(T{}, N{});
  return b_k ? f(N{}, T{}) : f(N{}, N{});
}
// The same with the problem's layouts.
template <typename F>
auto dispatch_layouts(const Problem& p, F&& f) {
  return dispatch_layouts(a_k_contiguous(p), b_k_contiguous(p), std::forward<F>(f));
}

// ---- Alignment ----------------------------------------------------------------------------------

// Stands in for the address of a buffer the launcher allocates itself (a workspace copy of an
// operand) where only its alignment matters: can_implement of a problem on that copy.
alignas(16) inline const unsigned char kAlignedStandIn[16] = {};

// The address is a multiple of `bytes` (a power of two: 4, 8, 16).
inline bool aligned(const void* data, std::size_t bytes) {
  return reinterpret_cast<std::uintptr_t>(data) % bytes == 0;
}

// The base pointer and the leading dimension, in bytes, are multiples of `bytes`: then every
// access of `bytes` bytes that starts at a multiple of bytes / dtype_bytes elements along the
// contiguous dimension is aligned (for 16 bytes: every 4th fp32 element, every 8th bf16 one).
template <typename Pointer>
bool aligned(const MatrixView<Pointer>& x, std::size_t bytes) {
  const auto ld_bytes = static_cast<std::uint64_t>(x.ld) * dtype_bytes(x.dtype);
  return aligned(static_cast<const void*>(x.data), bytes) && ld_bytes % bytes == 0;
}

// The pitch is an odd multiple of 16 bytes: a tensor map describes it, but its rows start 16
// bytes off a 32-byte sector, and the wgmma kernels read it up to 40% slower
// (docs/perf-notes.md, "A pitch cliff of our own").
template <typename Pointer>
bool off_sector_pitch(const MatrixView<Pointer>& x) {
  return static_cast<std::uint64_t>(x.ld) * dtype_bytes(x.dtype) % 32 == 16;
}

// ---- 32-bit fits --------------------------------------------------------------------------------

constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}
constexpr std::int64_t round_up(std::int64_t v, std::int64_t tile) {
  return ceil_div(v, tile) * tile;
}

// m, n, k fit a kernel's int arguments, with `margin` to spare above each (a kernel that forms
// m0 + BM or k0 + BK for the last tile needs a margin of at least its tile).
inline bool dims_fit_int(const Problem& p, std::int64_t margin = 0) {
  const std::int64_t limit = INT_MAX - margin;
  return p.m <= limit && p.n <= limit && p.k <= limit;
}

// Largest element offset of a rows x cols view with these strides, plus one, with the extents
// first rounded up to whole tile_rows x tile_cols tiles (a kernel that forms addresses for whole
// tiles, predicating off the elements outside the matrix, still computes their offsets).
constexpr std::int64_t span_elements(std::int64_t rows, std::int64_t cols, Strides s,
                                     std::int64_t tile_rows = 1, std::int64_t tile_cols = 1) {
  return (round_up(rows, tile_rows) - 1) * s.row + (round_up(cols, tile_cols) - 1) * s.col + 1;
}

// span_elements(...) <= INT_MAX, without overflowing on the way for huge strides.
constexpr bool span_fits_int(std::int64_t rows, std::int64_t cols, Strides s,
                             std::int64_t tile_rows = 1, std::int64_t tile_cols = 1) {
  const std::int64_t r = round_up(rows, tile_rows) - 1;
  const std::int64_t c = round_up(cols, tile_cols) - 1;
  if (r > 0 && s.row > (INT_MAX - 1) / r) return false;
  if (c > 0 && s.col > (INT_MAX - 1) / c) return false;
  return r * s.row + c * s.col + 1 <= INT_MAX;
}

// Every element offset of A (m x k), B (k x n) and C (m x n) fits an int, for a kernel that
// forms offsets of whole bm x bk, bk x bn and bm x bn tiles (1, 1, 1: of the matrices alone).
// Needs dims_fit_int(p).
inline bool offsets_fit_int(const Problem& p, int bm = 1, int bn = 1, int bk = 1) {
  return span_fits_int(p.m, p.k, strides_of(p.a.layout, p.a.ld), bm, bk) &&
         span_fits_int(p.k, p.n, strides_of(p.b.layout, p.b.ld), bk, bn) &&
         span_fits_int(p.m, p.n, strides_of(p.c.layout, p.c.ld), bm, bn);
}

// ---- Tiles and their order ----------------------------------------------------------------------

// Block tiles of bm x bn along M and N.
struct TileCounts {
  std::int64_t m, n;
};
inline TileCounts tile_counts(const Problem& p, int bm, int bn) {
  return TileCounts{ceil_div(p.m, bm), ceil_div(p.n, bn)};
}

// A 2-D grid of block tiles fits the hardware and the kernel's ints: x walks the N tiles (up to
// INT_MAX), y the M tiles (up to 65535), and m, n, k fit an int.
inline bool tile_grid_fits(const Problem& p, int bm, int bn) {
  const TileCounts t = tile_counts(p, bm, bn);
  return dims_fit_int(p) && t.n <= INT_MAX && t.m <= 65535;
}

// A 1-D grid of every tile (the rasterised order below numbers blocks with an int).
inline bool linear_tile_grid_fits(const Problem& p, int bm, int bn) {
  const TileCounts t = tile_counts(p, bm, bn);
  return t.m * t.n <= INT_MAX;
}

// Group-of-rows rasterisation: block `bid` of a tiles_m x tiles_n grid walks `group` tile-rows
// down before moving one tile-column right, so blocks resident together share A rows and B
// columns in L2. group == 1 is plain row-major order. Needs 1 <= group <= tiles_m
// (clamp_raster_group) and group * tiles_n to fit an int.
struct TileCoord {
  int m, n;
};
constexpr TILEGEMM_HD TileCoord raster_tile(int bid, int tiles_m, int tiles_n, int group) {
  const int blocks_per_group = group * tiles_n;
  const int first_m = (bid / blocks_per_group) * group;
  const int rows_here = tiles_m - first_m < group ? tiles_m - first_m : group;
  const int in_group = bid % blocks_per_group;
  return TileCoord{first_m + in_group % rows_here, in_group / rows_here};
}

// The group a launcher passes to raster_tile: the requested rows, within 1..tiles_m.
constexpr int clamp_raster_group(int requested, int tiles_m) {
  return std::max(1, std::min(requested, tiles_m));
}

// ---- The checks a tiled kernel with 32-bit indices makes ----------------------------------------

// m, n, k, the 2-D grid of bm x bn tiles and every offset of whole bm x bk, bk x bn and bm x bn
// tiles fit an int (the CuTe kernels index everything with int).
inline bool fits_int32(const Problem& p, int bm, int bn, int bk) {
  return tile_grid_fits(p, bm, bn) && offsets_fit_int(p, bm, bn, bk);
}

}  // namespace tilegemm::kernels::views
