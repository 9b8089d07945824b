// The pad-to-pitch copy: an operand whose leading dimension or base no 16-byte access path can
// take is copied, inside the call, into the library's stream workspace at a pitch rounded up to
// 16 bytes, and the fast kernel runs on the copy. Used by rung 16 (wgmma: tensor maps need the
// 16-byte pitch) and by rung 9's any-alignment instances on large problems (16-byte cp.async).
// The kernel and its launchers are in an anonymous namespace: each translation unit that launches
// it (one built for sm_90a only, one for every architecture) keeps its own instance.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "../core/device_runtime.hpp"
#include "tilegemm/problem.hpp"
#include "problem_views.hpp"

namespace tilegemm::kernels {

namespace {

// Copies `rows` lines of `cols` elements of kBytes each, `src_pitch` elements apart, into lines
// `dst_pitch` elements apart (dst 16-byte aligned, dst_pitch * kBytes a multiple of 16), the tail
// of each line past `cols` zero-filled. A block takes one 4 KiB segment of a destination line at a
// time: its threads read the segment's elements one each, consecutive threads consecutive
// elements (coalesced whatever the source alignment), into shared memory, then write it out as
// 16-byte vectors.
template <int kBytes>
__global__ void __launch_bounds__(256) pad_pitch_kernel(const unsigned char* __restrict__ src,
                                                        std::int64_t src_pitch,
                                                        unsigned char* __restrict__ dst,
                                                        std::int64_t dst_pitch, std::int64_t rows,
                                                        std::int64_t cols) {
  using Elem = std::conditional_t<kBytes == 2, std::uint16_t, std::uint32_t>;
  constexpr int kThreads = 256;
  constexpr int kSeg = 4096 / kBytes;  // elements per segment
  constexpr int kPer = 16 / kBytes;    // elements per 16-byte vector
  __shared__ __align__(16) Elem seg[kSeg];
  const std::int64_t segs_per_row = (dst_pitch + kSeg - 1) / kSeg;
  const std::int64_t total = rows * segs_per_row;
  const Elem* const s = reinterpret_cast<const Elem*>(src);
  Elem* const d = reinterpret_cast<Elem*>(dst);
  for (std::int64_t t = blockIdx.x; t < total; t += gridDim.x) {
    const std::int64_t r = t / segs_per_row;
    const std::int64_t c0 = (t - r * segs_per_row) * kSeg;
    const Elem* const line = s + r * src_pitch;
#pragma unroll 4
    for (int i = static_cast<int>(threadIdx.x); i < kSeg; i += kThreads) {
      seg[i] = c0 + i < cols ? line[c0 + i] : Elem{0};
    }
    __syncthreads();
    const std::int64_t width = dst_pitch - c0 < kSeg ? dst_pitch - c0 : kSeg;  // whole vectors
    for (int v = static_cast<int>(threadIdx.x); v * kPer < width; v += kThreads) {
      *reinterpret_cast<uint4*>(d + r * dst_pitch + c0 + v * kPer) =
          *reinterpret_cast<const uint4*>(seg + v * kPer);
    }
    __syncthreads();  // the segment is free for the next one
  }
}

}  // namespace

// An operand as the copy sees it: lines of contiguous elements.
struct Copy {
  bool needed = false;
  bool transposed = false;  // the copy's lines are the operand's columns (rung 16's tf32 B)
  std::int64_t rows = 0, cols = 0, pitch = 0;  // pitch: the copy's, in elements
  std::size_t bytes = 0;                       // the copy's size, rounded up to 256 bytes
};

// Stands in for a copy's address where only its alignment matters (can_implement).
alignas(16) inline const unsigned char kPadAligned[16] = {};

// A copy of `rows` lines of `cols` elements at a 16-byte pitch, padded to 256 bytes.
inline Copy sized_copy(DType dtype, std::int64_t rows, std::int64_t cols, bool transposed) {
  const auto es = static_cast<std::int64_t>(dtype_bytes(dtype));
  Copy c;
  c.needed = true;
  c.transposed = transposed;
  c.rows = rows;
  c.cols = cols;
  c.pitch = views::round_up(cols, 16 / es);
  c.bytes = static_cast<std::size_t>(views::round_up(rows * c.pitch * es, 256));
  return c;
}

// The problem with each operand that has a copy pointing at it (at a_copy, b_copy; where only
// alignment matters, kPadAligned): the copy's pitch, and for a transposed copy the other layout.
inline Problem on_copies(const Problem& p, const Copy& ca, const Copy& cb, const void* a_copy,
                         const void* b_copy) {
  Problem q = p;
  if (ca.needed) {
    q.a.data = a_copy;
    q.a.ld = ca.pitch;
    if (ca.transposed) q.a.layout = views::flipped(q.a.layout);
  }
  if (cb.needed) {
    q.b.data = b_copy;
    q.b.ld = cb.pitch;
    if (cb.transposed) q.b.layout = views::flipped(q.b.layout);
  }
  return q;
}

namespace {

template <int kBytes>
cudaError_t copy_lines(const void* src, std::int64_t src_pitch, void* dst, const Copy& c,
                       cudaStream_t stream) {
  constexpr std::int64_t kSeg = 4096 / kBytes;
  const std::int64_t segments = c.rows * ((c.pitch + kSeg - 1) / kSeg);
  const int threads = 256;
  const auto blocks =
      static_cast<unsigned>(std::min<std::int64_t>(segments, 16LL * runtime::sm_count()));
  pad_pitch_kernel<kBytes><<<blocks, threads, 0, stream>>>(
      static_cast<const unsigned char*>(src), src_pitch, static_cast<unsigned char*>(dst),
      c.pitch, c.rows, c.cols);
  return cudaGetLastError();
}

// Copies the operand's lines (not transposed) into `dst` as `c` plans them.
cudaError_t copy_operand(DType dtype, const void* src, std::int64_t src_pitch, void* dst,
                         const Copy& c, cudaStream_t stream) {
  return dtype_bytes(dtype) == 4 ? copy_lines<4>(src, src_pitch, dst, c, stream)
                                 : copy_lines<2>(src, src_pitch, dst, c, stream);
}

}  // namespace

}  // namespace tilegemm::kernels
