// The pad-to-pitch copy: an operand whose leading dimension or base no 16-byte access path can
// take is copied, inside the call, into the library's stream workspace at a pitch rounded up to
// 128 bytes, and the fast kernel runs on the copy. Used by rung 16 (wgmma: tensor maps need the
// 16-byte pitch) and by rung 9's any-alignment instances on large problems (16-byte cp.async).
// The kernel and its launchers are in an anonymous namespace: each translation unit that launches
// it (one built for sm_90a only, one for every architecture) keeps its own instance.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "../core/device_runtime.hpp"
#include "tilegemm/problem.hpp"
#include "problem_views.hpp"
#include "stream_common.cuh"

namespace tilegemm::kernels {

namespace {

// One operand's copy as the kernel sees it: `rows` lines of `cols` elements, `src_pitch` elements
// apart, into lines `dst_pitch` elements apart (dst 16-byte aligned, dst_pitch * element size a
// multiple of 16), the tail of each line past `cols` zero-filled; `segments` segments of dst.
struct PadJob {
  const unsigned char* src;
  unsigned char* dst;
  std::int64_t src_pitch, dst_pitch, rows, cols, segments;
};

// The copy's unit of work: one segment of the destination per block and pass; its block size.
constexpr int kPadSegmentBytes = 4096;
constexpr int kPadThreads = 256;

// One 16-byte piece of a source line, kPer = 16 / kBytes elements from `p` (element-aligned):
// one 16-byte load where p is 16-byte aligned, two 8-byte or four 4-byte loads where it is 8- or
// 4-byte aligned, and for 16-bit elements off a 4-byte boundary five aligned 4-byte loads and a
// funnel shift, whose extra halves are the neighbouring elements (the caller takes this path only
// where the line holds one element before the piece and one after it). All pieces of a line share
// its alignment, so a warp diverges only where its pieces cross into another line.
template <int kBytes>
__device__ __forceinline__ uint4 load_piece(const unsigned char* p) {
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  if ((addr & 15u) == 0) return __ldg(reinterpret_cast<const uint4*>(p));
  if ((addr & 7u) == 0) {
    const auto* d = reinterpret_cast<const uint2*>(p);
    const uint2 lo = __ldg(d), hi = __ldg(d + 1);
    return make_uint4(lo.x, lo.y, hi.x, hi.y);
  }
  if (kBytes == 4 || (addr & 3u) == 0) {
    const auto* w = reinterpret_cast<const unsigned*>(p);
    return make_uint4(__ldg(w), __ldg(w + 1), __ldg(w + 2), __ldg(w + 3));
  }
  const auto* w = reinterpret_cast<const unsigned*>(p - 2);
  const unsigned w0 = __ldg(w), w1 = __ldg(w + 1), w2 = __ldg(w + 2), w3 = __ldg(w + 3),
                 w4 = __ldg(w + 4);
  return make_uint4(__funnelshift_r(w0, w1, 16), __funnelshift_r(w1, w2, 16),
                    __funnelshift_r(w2, w3, 16), __funnelshift_r(w3, w4, 16));
}

// Copies one or two operands (job b has no segments when there is one). The destination is one
// contiguous run of rows * dst_pitch elements, taken a 4 KiB segment per block and pass whatever
// lines it spans (short lines: many per segment). Each thread writes 16-byte pieces of it: a piece
// inside its source line comes from aligned loads as wide as the line's alignment allows
// (load_piece), a piece at a line's start or end element by element, past `cols` zeros. Each
// block then lets a dependent launch (programmatic dependent launch) start: the kernel after the
// copies waits for this grid's completion and memory with griddepcontrol.wait before it reads
// them.
template <int kBytes>
__global__ void __launch_bounds__(kPadThreads) pad_pitch_kernel(const PadJob a, const PadJob b) {
  constexpr int kSeg = kPadSegmentBytes / kBytes;  // elements per segment
  constexpr int kPer = 16 / kBytes;                // elements per 16-byte piece
  const std::int64_t total = a.segments + b.segments;
  for (std::int64_t t = blockIdx.x; t < total; t += gridDim.x) {
    const bool in_a = t < a.segments;
    const PadJob j = in_a ? a : b;
    const std::int64_t e0 = (in_a ? t : t - a.segments) * kSeg;  // first dst element
    const std::int64_t left = j.rows * j.dst_pitch - e0;
    const int here = left < kSeg ? static_cast<int>(left) : kSeg;
    const std::int64_t r0 = e0 / j.dst_pitch;
    const std::int64_t c0 = e0 - r0 * j.dst_pitch;  // offset of e0 in line r0
    for (int i = static_cast<int>(threadIdx.x) * kPer; i < here; i += kPadThreads * kPer) {
      // Element i lies l = c0 + i < dst_pitch + kSeg elements past line r0's start: one line on
      // at most when lines are at least a segment long, else a 32-bit division. c, like the
      // pitch and c0, is a multiple of kPer.
      const std::int64_t l = c0 + i;
      std::int64_t dr = 0;
      if (j.dst_pitch >= kSeg) {
        dr = l >= j.dst_pitch ? 1 : 0;
      } else {
        dr = static_cast<unsigned>(l) / static_cast<unsigned>(j.dst_pitch);
      }
      const std::int64_t c = l - dr * j.dst_pitch;
      const unsigned char* const line = j.src + (r0 + dr) * j.src_pitch * kBytes;
      // fp32 pieces need no neighbours (no shift); 16-bit ones may
      const bool inside = kBytes == 4 ? c + kPer <= j.cols : c > 0 && c + kPer < j.cols;
      uint4 piece;
      if (inside) {
        piece = load_piece<kBytes>(line + c * kBytes);
      } else {
        piece = stream::load_cut_piece<kBytes>(
            line + c * kBytes, static_cast<int>(std::min<std::int64_t>(kPer, j.cols - c)));
      }
      *reinterpret_cast<uint4*>(j.dst + (e0 + i) * kBytes) = piece;
    }
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

}  // namespace

// An operand as the copy sees it: lines of contiguous elements.
struct Copy {
  bool needed = false;
  bool transposed = false;  // the copy's lines are the operand's columns (rung 16's tf32 B)
  std::int64_t rows = 0, cols = 0, pitch = 0;  // pitch: the copy's, in elements
  std::size_t bytes = 0;                       // the copy's size, rounded up to 256 bytes
};

// The copy runs in pad_pitch_kernel (lines as they are); a transposed copy is its caller's.
inline bool by_lines(const Copy& c) { return c.needed && !c.transposed; }

// A copy of `rows` lines of `cols` elements at a pitch of whole 128-byte lines, padded to 256
// bytes. A 16-byte pitch would do for the tensor maps, but the wgmma kernels read a pitch that
// is an odd multiple of 16 bytes up to 40% slower (docs/perf-notes.md, "A pitch cliff of our
// own").
inline Copy sized_copy(DType dtype, std::int64_t rows, std::int64_t cols, bool transposed) {
  const auto es = static_cast<std::int64_t>(dtype_bytes(dtype));
  Copy c;
  c.needed = true;
  c.transposed = transposed;
  c.rows = rows;
  c.cols = cols;
  c.pitch = views::round_up(cols, 128 / es);
  c.bytes = static_cast<std::size_t>(views::round_up(rows * c.pitch * es, 256));
  return c;
}

// The problem with each operand that has a copy pointing at it (at a_copy, b_copy; left out
// where only alignment matters): the copy's pitch, and for a transposed copy the other layout.
inline Problem on_copies(const Problem& p, const Copy& ca, const Copy& cb,
                         const void* a_copy = views::kAlignedStandIn,
                         const void* b_copy = views::kAlignedStandIn) {
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

// The kernel's view of copy `c` of `src` into `dst` (no segments when the copy is not needed).
template <int kBytes>
PadJob pad_job(const void* src, std::int64_t src_pitch, void* dst, const Copy& c) {
  constexpr std::int64_t kSeg = kPadSegmentBytes / kBytes;
  PadJob j{static_cast<const unsigned char*>(src), static_cast<unsigned char*>(dst), src_pitch,
           c.pitch, c.rows, c.cols, 0};
  if (by_lines(c)) j.segments = views::ceil_div(c.rows * c.pitch, kSeg);
  return j;
}

template <int kBytes>
cudaError_t copy_pair(const PadJob& a, const PadJob& b, cudaStream_t stream) {
  const std::int64_t segments = a.segments + b.segments;
  if (segments == 0) return cudaSuccess;
  const auto blocks =
      static_cast<unsigned>(std::min<std::int64_t>(segments, 16LL * runtime::sm_count()));
  pad_pitch_kernel<kBytes><<<blocks, kPadThreads, 0, stream>>>(a, b);
  return cudaGetLastError();
}

// Copies A's and B's lines (those of the two plans that are needed and not transposed) into
// `a_dst` and `b_dst` as the plans say, in one launch. A and B have the same element size.
cudaError_t copy_operands(DType dtype, const void* a, std::int64_t lda, void* a_dst,
                          const Copy& ca, const void* b, std::int64_t ldb, void* b_dst,
                          const Copy& cb, cudaStream_t stream) {
  if (dtype_bytes(dtype) == 4) {
    return copy_pair<4>(pad_job<4>(a, lda, a_dst, ca), pad_job<4>(b, ldb, b_dst, cb), stream);
  }
  return copy_pair<2>(pad_job<2>(a, lda, a_dst, ca), pad_job<2>(b, ldb, b_dst, cb), stream);
}

}  // namespace

}  // namespace tilegemm::kernels
