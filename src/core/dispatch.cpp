// The `auto` rule: which registered kernel runs a problem when the caller names none.
//
// Only kernels that compute the problem's exact element types and run on the GPU are candidates
// (so tf32 math never replaces an fp32 problem's); fp32 as three tf32 products (rung 22) only
// where set_fp32_math allows it (include/tilegemm/gemm.hpp). Within those, the shape rules
// below, held as data, name kernels by their properties (family, block tile, split-K, main-loop
// variant), never by instance name. The first rule whose shape class holds and that has a
// candidate able to implement the problem wins; candidates are tried in registration order,
// which puts each 16-byte-copy instance before its any-alignment twin, so an unaligned leading
// dimension or base pointer falls to the twin, never to a refusal. If no rule fits, the highest
// rung that can implement the problem runs (the naive kernel takes every fp32 problem whose grid
// fits).
//
// The fp32 thresholds come from the measured runs that docs/perf-notes.md records (rung 9 and
// the third pass): which instance won in each shape class, on which B layout, and by how much.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "device_runtime.hpp"
#include "tilegemm/device_info.hpp"
#include "tilegemm/gemm.hpp"
#include "tilegemm/tune.hpp"

namespace tilegemm {

namespace {

// Shape classes, tested against the problem and the SM count.
enum class When : std::uint8_t {
  kVector,  // M == 1 or N == 1
  // An fp32 matrix-vector product of K <= 12: rung 10's cute_simple, a thread per output and no
  // shared memory, which was as fast as gemv or faster on all but one such row of five seeds
  // (gemv's column kernel adds its warps' sums through shared memory; perf-notes.md, "fp32
  // matrix-vector products of a short K").
  kVectorShortKF32,
  // A tiny 16-bit product or matrix-vector product of K <= 12 (M x N <= 2^15): rung 1's one
  // thread per output on fp32 values of the elements, which beat gemv and rungs 24 and 28 there
  // and cuBLAS on most such rows (perf-notes.md, "Rung 1 in 16-bit types").
  kTinyShortK16,
  // A tiny 16-bit product of K <= 80 over at most eight 16x8 tiles of C per SM (as a row-major
  // C), M and N up to 8192 (the random shapes' range, where it was measured): rung 28's one warp
  // a 16x8 tile over the whole K, which beat the rules' rung 28, 24 and 27 kernels on such rows of
  // six seeds' random shapes (K of 97..128 lost, 81..96 tied; over more tiles rung 28's 32x32
  // one-warp tile won) (perf-notes.md, "Rung 28's 16 x 8 tile").
  kTinyFrag16,
  // The same class with K up to 128 where no rule above took the product (no tensor map for the
  // wgmma tiles, too little work for the copies): rung 28's 16x8 tile again, ahead of the
  // mma.sync 128x128 tile that was left to compute it, and lost to it there (perf-notes.md,
  // "Rung 28's 16 x 8 tile, past K = 80").
  kTinyFrag16Rest,
  kThinK,          // K <= 64 against at least 2^19 elements of C
  kSkinny,         // min(M, N) <= 32
  kWaveOf128x256,  // about a wave of 128x256 tiles (>= 7/8 of the SMs, 1 block per SM)
  // The same, where the 128x256 tiles' waves (1 block per SM) are at least 88% busy or more than
  // four: a partial last wave costs the 128x256 tile more than the 128x128 tile (2 blocks per
  // SM), which wins there (the SIMT pair's wave tails).
  kWaveOf128x256Full,
  kWaves8Of128x256,  // at least 8 waves of 128x256 tiles
  kTilePerSm128,     // at least one 128x128 tile per SM
  kUnderSms128,      // 128x64 tiles fit in one wave (at most half as many 128x128 tiles as SMs)
  kSmallMN64x64,     // min(M, N) <= 256 and 64x64 tiles fit in one wave
  kSmallMN64x128,    // min(M, N) <= 256 and 64x128 tiles fit in one wave
  // min(M, N) <= 64 with more 64x128 tiles than SMs (the other side past 128 x SMs; below that
  // kSmallMN64x64 and kSmallMN64x128 hold): a 128x256 or 128x128 tile would compute mostly zeros
  // past the short side. N <= 64 takes 128 x 64 tiles, M <= 64 64 x 64 tiles (measured on both).
  kSkinnyNManyTiles,
  kSkinnyManyTiles,
  // A or B has a pitch that is an odd multiple of 16 bytes (a tensor map takes it, but its rows
  // start 16 bytes off a 32-byte sector and the wgmma kernels read it up to 40% slower),
  // min(M, N) > 256, M N K >= 1200 x the elements of the operands to copy (the copy, one read
  // and one write of them, then costs less than the time it saves) and >= 2^33 (below, the
  // copy's launch cost more: 586 x 1632 x 72 ran 7.5 -> 14.7 us; perf-notes.md, "A pitch cliff
  // of our own"): rung 16's copies at a 128-byte pitch; with the 128x256 tile where its waves
  // are at least 80% busy or more than four.
  kOffSectorCopiesWave,
  kOffSectorCopies,
  // 128x128 tiles fill at most a third of the SMs and K >= 4 max(M, N): the tile's own split-K
  // (3 or more splits) fills them; the 128x64 tile, unsplit, reads A and B more often and was
  // slower there, faster with a shorter K (tensor types).
  kFewTiles128LongK,
  kThinK15,  // K < 16 (tensor types: thin_k beat the copies and mma.sync there)
  // The same with the copies paying: K >= 128, or K >= 16 and at least 2^23 multiply-adds, where
  // copying operands to a 16-byte pitch (rung 16: one extra launch and a pass over A and B)
  // measured faster than mma.sync's any-alignment path (whose k-tiles cost about a microsecond
  // each on a tiny problem); for 128x256 tiles also their waves at least 80% busy or more than
  // four (a partial last wave of them lost to 128x128 tiles).
  kSmallMN64x64Copies,
  kSkinnyManyTilesCopies,
  kWaveOf128x256Copies,
  kUnderSms128Copies,
  kCopiesPay,
  // K >= 4 max(M, N), 128x128 tiles fill at most half the SMs, at least 2^27 multiply-adds
  // (below, its wave-filling split of a tiny problem took several times cuBLAS's time:
  // perf-notes.md, "Rung 22")
  kLongKFewTiles,
  // K >= 1024, min(M, N) >= 64, at least 2^29 multiply-adds, fewer 128x128 tiles than two
  // blocks per SM: where the tuned 128x128 tile's last wave would be mostly idle unless K is split.
  kUnderWave128,
  // Rung 23 (16-bit A read in place at any pitch): the long side's operand (A where M >= N) is
  // one no tensor map describes, or the short one is, against a long one under 4 MiB (one launch
  // where rung 16 takes two; from 12 MB the copies were faster: perf-notes.md, "Rung 23's bound
  // for a short operand without a map"). kResidue64: min(M, N) <= 64 where the copies would pay
  // (kCopiesPay; below, mma.sync's one launch was as fast), unless both operands are such and
  // the long one is under 1 MiB (rung 23 then copies the short one too: two launches, its k-tile
  // the slower); kResidue128: min(M, N) <= 128 and a long operand of 16 MiB or more that no map
  // describes (on smaller ones the copies stayed faster there). perf-notes.md, "Rung 23" has the
  // shapes these bounds come from.
  kResidue64,
  kResidue128,
  // Narrow products (rung 21; the matrix-vector products, M or N of 1, come first):
  kNarrowTo4,  // min(M, N) <= 4
  // min(M, N) <= 8 and K >= 256; K >= 128 before rung 23, which beat it below 256 where the long
  // operand has no tensor map (perf-notes.md, "Rung 23"), and from K = 4096 on a long operand of
  // 4 MiB or more (rung 23 where it holds, else the copies: perf-notes.md, "Rung 25")
  kNarrowTo8K256,
  // Thin K for 16-bit operands that no tensor map reads (the wgmma rules above took the rest):
  // 2 <= K <= 64, with K <= 32 or under 2^23 elements of C: rung 25's one launch on mma.sync,
  // whose rows of C leave as bulk copies at any pitch. At K = 1 thin_k (CUDA cores) wrote a large
  // C faster; from K = 40 on a larger C rung 16's copies under the wgmma tiles did
  // (perf-notes.md, "Rung 25").
  kThinKMma,
  // Thin K on a large C (16-bit types, and tf32 up to K = 32 as three tf32 products, which beat
  // thin_k and the tf32 wgmma tiles there): 2 <= K <= 64 and at least 6 * 2^20 elements of C,
  // rung 25's strip
  // walk (16 x 512 steps, rows of C of 1 KiB), ahead of kThinKMma's 64 x 128 tile, which a block
  // walking a handful of steps lost to on smaller C, and of rung 16's copies (perf-notes.md,
  // "Rung 25's strip walk"). kThinKStripAligned: 2 <= K <= 16 and at least 2^24 elements of C
  // at any pitch, ahead of the wgmma tiles, which wrote such a C slower.
  kThinKStrip,
  kThinKStripAligned,
  // fp32 thin K, where set_fp32_math allows tf32 products: 2 <= K <= 32 and at least 2^22
  // elements of C, rung 25's strip walk on three tf32 products, ahead of rung 22's 128x128 tile
  // and thin_k; past K = 16 with both operands at 16-byte pitches rung 22's tile stays (it was
  // faster at 4096^2 x 32; perf-notes.md, "Rung 25's strip walk in fp32").
  kThinKStripF32,
  // The same strip walk under a thinner C (fp32, tf32 products allowed), M or N of 300..1023:
  // over 2^19..2^20 elements of C with 12 <= K <= 32 (K <= 24 where C's rows, as a row-major C,
  // run along its short side), ahead of rung 24's 64x64 tile (kShortKMidF32); over 2^20..2^22
  // with K = 16, or 16 <= K <= 24 where M or N is at most 470, ahead of rung 22's 128x128 tile
  // (kF32TensorThinK). It beat them there on a grid and on held-out shapes (two rounds set the
  // bounds, a third checked them); past those bounds rung 22's tile (K over 16 on a wider C, a
  // square C of 1200 or 2000), thin_k (K under 16) or rung 24's tile (short rows past K = 24)
  // stayed as fast or faster (perf-notes.md, "Rung 25's strip walk under a thin fp32 C").
  kThinKStripThinCF32,
  kFewTiles64MLeN,  // 64x64 tiles fill at most half the SMs and M <= N
  // fp32 on the tensor cores (rung 22, three tf32 products), where set_fp32_math allows them
  // (the default). kF32Tensor: min(M, N) > 32 and M N >= 288 (M + N), or M N >= 128 (M + N)
  // with K >= 256, or M N >= 64 (M + N) with K >= 4 max(M, N). The split pass moves 16 bytes per
  // element of A and B and the tf32 kernel reads 12, against 2 M N K flops at the FFMA rate
  // saved: past 288 the flops saved outweigh the bytes at the H200's rates; the CUDA cores'
  // tiles run well below that rate on small M or N with a longer K, where rung 22 measured faster
  // down to the lower bounds (perf-notes.md, "Rung 22" and "Rung 22's bound").
  // kF32TensorThinK: that and 16 <= K <= 64, ahead of thin_k, which the 128x128 tile beat from
  // K = 16 (thin_k won at K <= 8 and keeps K < 16; perf-notes.md, "Rung 22's rules").
  // kF32TensorUnder: that, kUnderSms128 and K < 2 max(M, N): with a longer K the 128x128 tile's
  // own split-K beat the 128x64 tile (perf-notes.md, "Rung 22's rules").
  kF32TensorThinK,
  // kF32TensorUnder's class where 64x64 tiles are at most the SMs, with K <= 512 or those tiles
  // at least two thirds of the SMs: rung 22's 64x64 tile (13 stages), twice the 128x64 tile's
  // blocks without a split; with a longer K over fewer tiles the 128x64 tile's split-K stayed
  // faster (perf-notes.md, "Rung 22's 64x64 tile over few tiles").
  kF32TensorUnder64,
  // Rung 22's 128x128 tile also for M or N of 200..499 against 4000..8192 with 64 <= K < 256
  // (tf32 products allowed), below kF32Tensor's bounds, where it beat the CUDA cores' tiles and
  // thin_k that the rules took there on a grid and on held-out shapes; at 120 lines no tile won
  // throughout (perf-notes.md, "Rung 22's tile for a mid K under a thin fp32 C").
  kF32TensorMidK,
  kF32TensorUnder,
  kF32Tensor,
  // fp32 where rung 22's in-kernel split reads the operand of the longer side once, where the
  // split beforehand writes and reads it three times and the CUDA cores' skinny tiles ran at a
  // fraction of cuBLAS (perf-notes.md, "Rung 22's split in the kernel"): M or N of 16..256
  // against the other of 256 or more and K >= 512, with that operand at a 16-byte base and
  // pitch and K-major, or in the kernel's A role, read in place; or M or N of 48..192 against 256
  // or more, K >= 256 and at least 2^25 multiply-adds, with that operand of at most 40 MiB,
  // copied once (its copy stays in the L2; past it, and with fewer rows or columns, the CUDA
  // cores' tiles were faster). kF32InKernel64: that with the 64x64 tile, where the oriented N
  // (N, or M under a column-major C) is at most 64, where K < 512, or where 64x128 tiles fill more
  // than a third of the SMs and 64x64 tiles no more than a wave with K < 4096 (the 64x128 tile
  // then neither splits K nor fills a wave).
  kF32InKernel64,
  kF32InKernel,
  // fp32 where the long side's operand has a pitch or base no tensor map reads, in a role the
  // in-kernel split reads in place (A in either layout, or a K-major B): rung 22's in-kernel
  // split with a producer of element copies, which reads it once without a copy pass
  // (perf-notes.md, "Rung 22's split at any pitch"): M or N of 10..256 against 256 or more, K >=
  // 512 (with M or N of 5 and 9 the CUDA cores' skinny tile was faster). kF32InKernelAnyPitch64:
  // that with the 64x64 tile, by kF32InKernel64's tile test or where 64x64 tiles are at most 16
  // (split K then sets the time, and the shorter k-tile of 64x64 won).
  kF32InKernelAnyPitch64,
  kF32InKernelAnyPitch,
  // The same split with element copies on 64x64 tiles for M or N of 33..64 against 2048 or more
  // with K of 250..511, the long operand at an odd pitch in a role the split reads in place: it
  // beat the CUDA cores' tuned split-K tile that the rules took there on the random shapes of
  // seeds 5 and 11 (perf-notes.md, "Rung 22's split at a mid K").
  kF32InKernelAnyPitchMidK,
  // fp32 with M or N of 12..32 against 2048 or more and K >= 1024, where set_fp32_math allows
  // tf32 products: rung 29's 128x32 tile on mma.sync, the narrow side as its N, which beat rung
  // 22's 64-row in-kernel split (tensor maps or element copies) and the CUDA cores' tiles there at
  // 16-byte and odd pitches on an H200; with K of 300 or 33..64 columns those stayed as fast or
  // faster, and with a wide side of 1500 rung 29 won only at K = 5000 in one read class; the lower
  // bound lies between 10 columns (rung 21 faster) and 14 (rung 29 faster) (perf-notes.md, "Rung
  // 29"). Also 33..64 where C and the wide side's operand both run along the wide side (so that
  // in the kernels' orientation the wide operand is an N-major B): there rung 29 beat the rules'
  // earlier choices (the 64-row split, the CUDA cores' tiles) in every case measured, and where
  // either runs along K or the narrow side the 64-row split stayed faster (perf-notes.md, "fp32
  // narrow and mid-K rows of the held-out seeds").
  kF32NarrowMma,
  // fp32 with M or N of 96..256 against 3000 or more, at least 400,000 elements of C and K of
  // 128..255, the long operand K-major at a 16-byte pitch: rung 22's in-kernel split on its 64x128
  // tile, behind the 128-row tensor rules, ahead of the CUDA cores' 64x64 tile, which was slower
  // there. The split lost on a smaller C, and with the long operand M/N-major (read as the
  // kernel's A, at a higher host time) on the smallest of them (perf-notes.md, "fp32 narrow and
  // mid-K rows of the held-out seeds").
  kF32InKernelShortK,
  // A small product (bf16, f16, tf32; fp32 in kSmallProductF32 below): at most one 32x32 tile
  // per SM, K <= 4096 and under 2^24 multiply-adds over whole 32x32 tiles: rung 24's one launch,
  // where the other paths' copies, tensor maps and second kernels cost more host time than the
  // product takes on the GPU
  // (perf-notes.md, "Rung 24": more tiles, a longer K or more work were slower there than
  // the tensor cores; K of 1 or 2 over many tiles lost to thin_k).
  kSmallProduct,
  // The same in fp32 up to 2^25 multiply-adds: between 2^24 and 2^25 rung 24 beat the skinny
  // tile, rung 22 and rung 21 on the random seeds' rows (perf-notes.md, "fp32 small products up
  // to 2^25").
  kSmallProductF32,
  // fp32 (three tf32 products allowed) with M and N over 1, K of 97..512 and 32x32 tiles of C
  // between 32 (48 past K = 256) and the SM count: rung 28's block per 32x32 tile, its eight warps
  // over K and its loads in one or two rounds, where rung 24 split K over blocks and rung 22's
  // tiles paid their pipeline; on fewer tiles or a K up to 96 rung 24 and rung 2 were as fast or
  // faster (perf-notes.md, "Rung 28 in fp32").
  kTinyMmaF32,
  // The same past K = 512 (sm_90): M and N over 1, more than 8 32x32 tiles and at most the SM
  // count, K up to 2048 where M or N is 9..24 (2..8: up to 1024, or 2048 over at most 48 tiles),
  // else up to 1024 over at most 64 tiles: rung 28's K split over the blocks of one cluster a
  // tile, ahead of rungs 21, 22 and 29 (the narrow and in-kernel-split rules), which read the
  // operands in a pipeline of their own or split K through the workspace. A longer K, wider
  // products over more tiles, or 2..8 lines over more tiles (whose clusters do not all fit, so
  // that a block walks the whole K) ran faster on those (perf-notes.md, "Rung 28 in fp32").
  kTinyMmaClusterF32,
  // Its cluster split over a longer K (sm_90): M and N over 1 and M or N at most 48, 9 tiles up to
  // a third of the SM count (a sixth where M or N is 2..4), 2048 < K <= 1024 min(8, SMs / tiles)
  // (at most four rounds of loads a warp), or up to 8192 where the wide operand is not K-major
  // (the CUDA cores' tiles, the alternative there, were slower still), A and B not both K-major:
  // ahead of rungs 21, 22 and 29 and the SIMT split tiles; rung 21's 4-column kernel stayed ahead
  // on 2..4 lines over more tiles (perf-notes.md, "Rung 28 in fp32" and "Rung 28's fp32 cluster
  // split to K = 8192").
  kTinyMmaLongKF32,
  // fp32 K of 10..32 under a column-major C of at most 1024 32x32 tiles, M and N over 1, past
  // rung 25's strip, rung 24's 64x64 short-K tile and its small products: rung 28's one warp a
  // tile (C computed as its mirror), where the SIMT tuned and thin-K tiles took it; under a
  // row-major C, over more tiles, at K < 10, or against rung 24's one launch those were as fast
  // or faster (perf-notes.md, "Rung 28 in fp32").
  kTinySoloColCF32,
  // A tiny fp32 product: M and N over 1, K <= 128 and M x N <= 32768: rung 2's 16x16 shared-
  // memory tile, a block per 256 outputs walking the whole K, no split. Rung 24 splits K there
  // and pays the split's arrival and sum, and its 32x32 tiles give fewer blocks
  // (perf-notes.md, "Split counts by GPU time").
  kTinyF32,
  // fp32 K <= 8 over a mid-sized C (32768 < M x N <= 2^19, M and N over 1): rung 10's
  // cute_simple, a thread per element of C and no shared memory, where the split tiles pay a
  // split for a K that needs none; past 2^19 elements of C thin_k takes over (perf-notes.md,
  // "fp32 rules by GPU time").
  kThinKMidF32,
  // fp32 that rung 22's 128-row tiles would take (kF32Tensor) with 8 < K <= 48 over 2^18..2^20
  // elements of C, M and N of at least 128: rung 24's 64x64 tile, a K this short unsplit, where
  // rung 22 paid its split pass and a tile of 128 rows; past 2^20 elements, below 128 rows or
  // columns or past K = 48 the other paths were as fast or faster, and where the other fp32 rules
  // take such a product (thin_k, the tuned small tile) rung 24 lost on held-out seeds
  // (perf-notes.md, "fp32 short K over a mid-sized C").
  kShortKMidF32,
  // fp32 M or N of 5..8 against K >= 512, past rung 24's small products: rung 21's 8-column
  // narrow kernel, which streams the wide operand once where the skinny and small tiles compute
  // mostly zero rows (perf-notes.md, "fp32 rules by GPU time").
  kNarrowTo8LongKF32,
  // M or N of 2..4 against K of 65..512 and a long side of 128 or more, the wide operand K-major
  // (fp32): rung 21's 4-column kernel, which beat the tiny and small tiles the rules took there on
  // a grid of narrow products and on six seeds' random shapes (perf-notes.md, "Narrow products by
  // grid").
  kNarrowTo4MidKF32,
  // fp32 M or N of 9..16 against K >= 1024 where rung 21 reads the wide operand by elements down
  // its columns (the wide operand contiguous along the wide side, at a pitch no 16-byte load
  // reads): rung 21's 16-column narrow kernel, which beat the skinny tile and rung 22's element
  // copies there on the random seeds' rows and a grid of widths and lengths (perf-notes.md,
  // "Rung 21's element path").
  kNarrowTo16ColsF32,
  // A short K (<= 64) under a long thin C (M or N of 2..32, the other 4096..8192, one wave of
  // 64-line tiles), 16-bit types: rung 27's 64x64 tile, one stage of 64 k a tile and no split,
  // ahead of the narrow, thin-K and wgmma paths (perf-notes.md, "bf16 rules by GPU time").
  kShortKThinC16,
  // A K of 65..128 under a long thin C (16-bit types): M or N of 20..64, the other 4096..8192,
  // and an operand that no tensor map reads (A or B at a pitch or base off 16 bytes): rung 27's
  // 64x64 tile again, two stages of 64 k a tile, where 32x32 tiles are more than the SMs (the
  // tiny rules above take the rest). Rung 16's copies under rung 18's tile and rung 23's residue
  // maps, which the rules took there, paid a copy launch or a split; rung 27 beat them on a grid
  // of such products at odd pitches in four layout mixes (perf-notes.md, "Rung 27 for a K of
  // 65..128 under a long thin C").
  kMidKThinC16,
  // A tiny product (16-bit types): M and N over 1, at most one 32x32 tile per SM, 8 <= K <= 512,
  // and K > 64 where those tiles fill more than half the SMs: rung 28's block per tile over the
  // whole K, split over its warps, which beat rungs 24 and 27 there and rung 23 on the few such
  // products of more work (2768 x 18 x 264); from K = 513 its warps' longer slices lost to rung
  // 24's split over blocks, and with K <= 64 over many tiles its one busy warp a block lost to
  // rung 24's block-wide loads (perf-notes.md, "Rung 28").
  kTinyMma16,
  // A short K over a mid-sized C (16-bit types): K <= 32 over 2^13..2^19 elements of C, M and N
  // up to 8192 (the random shapes' range, where it was measured), where the rules ahead (rung 1,
  // gemv, rung 28's 8 <= K class, rungs 27 and 24's small products) have not taken it: rung 28's
  // one warp a tile (its whole K in one round of loads, C from the registers), ahead of rung 27's
  // thin-C tile, rung 21's narrow products and rung 25, which it beat on most such rows of six
  // seeds' random shapes; past 2^19 elements rung 25's larger tiles won (perf-notes.md, "Rung 28's
  // one warp a tile").
  kTinySolo16,
  // A tiny product of longer K (16-bit types, sm_90): M and N over 1, 32x32 tiles at most half
  // the SMs (a cluster of at least 2 blocks each), 512 < K <= 8192 and K at most
  // 1024 x min(8, SMs / tiles) (rung 28 splits K over a cluster of the blocks that fit beside the
  // tiles, and each warp then takes at most four rounds of loads), and M or N under 128: rung 28,
  // which beat rungs 24, 21 and 23 there; not K <= 1024 over at most 8 tiles, where rung 24's
  // finer split was faster, nor M and N both 128 or more, where a 64x64 wgmma tile's reuse won
  // (128 x 256 x 2048), nor more tiles than half the SMs, where one block takes the whole K and
  // the wgmma tile won (2502 x 24 x 640) (perf-notes.md, "Rung 28 over a cluster"), nor M and N
  // both 17 or more with A and B K-major at 16-byte pitches, where rung 18's 64x64 tile read them
  // by tensor maps faster (perf-notes.md, "Narrow products by grid").
  kTinyMma16Cluster,
  // A narrow tiny product past half a wave (16-bit types, sm_90): 32x32 tiles between half the
  // SMs and the SMs, M or N of 2..8 with 512 < K <= 4096 or of 9..32 with 512 < K <= 2048: rung
  // 28 with one block taking the whole K (no cluster fits beside that many tiles), behind the
  // wgmma rules (where the operands have tensor maps the wgmma tile won) and ahead of rung 21's
  // narrow products, rung 23's residue maps and rung 16's copies: it beat rung 21 in every layout
  // mix and pitch measured up to K = 4000 (at K = 8000 it lost to the wgmma tile), and rungs 23
  // and 16 on 9..32 columns up to K = 2000 but one row (from K = 3000 it lost to rung 23)
  // (perf-notes.md, "Rung 28 over a cluster", "Rung 28's whole K past K = 1024").
  kTinyMma16Narrow,
  // A narrow product whose wide operand runs along the long side (16-bit types: A column-major
  // under a narrow N, B row-major under a narrow M), K >= 13, the long side up to 8192, not K
  // past 512 over at most 8 32x32 tiles (kTinyMma16Cluster's bound: rung 24's finer split):
  // - M or N of 2..8: where A and B have 16-byte pitches, with the narrow operand along its
  //   narrow side too (a tensor map then fills 64-element boxes of it mostly with zeros: the short
  //   boxes of a K-major narrow operand do not apply), up to K = 1024 (past it
  //   kNarrowMnMajorCopies16); at other pitches up to K = 2048;
  // - M or N of 9..16, the narrow operand along its narrow side: up to K = 512 at 16-byte
  //   pitches, 1024 at others.
  // Rung 28, ahead of every rule past gemv: it beat the wgmma tiles, rung 21 and rung 27 there
  // on a grid of narrow products and on six seeds' random shapes (perf-notes.md, "Narrow products
  // by grid").
  kNarrowMnMajor16,
  // Past those K bounds (16-bit types, an operand off 16 bytes): M or N of 8..24, 32x32 tiles at
  // most the SMs, K of 1025..8192, the narrow operand along its narrow side, and the wide one
  // along the long side too or, with M or N of 8 or less and K past 4096, K-major at a 4-byte
  // pitch (rung 28 loads its element pairs as words): rung 28 again, ahead of rung 23's residue
  // maps, which the rules took there and which it beat on grids of such products at 2- and
  // 4-byte pitches; with the narrow operand K-major, or 46 columns past K = 1536, rung 23 stayed
  // faster (perf-notes.md, "Rung 28 past the narrow rules' K"). Also M or N of 25..48, K of
  // 1025..1536, either operand along either side, where the wide operand is off 16 bytes: there
  // rung 23 was the rules' choice and lost to rung 28; with the wide operand at 16 bytes the rules'
  // copies (rung 16), and past K = 1536 rung 23, stayed faster ("Rung 28 on 25..48 lines").
  kNarrowMnMajorLongK16,
  // The same class's narrow operand along its narrow side, A and B at 16-byte pitches, M or N of
  // 8..48, K >= 2048, the long side 2048..8192 (16-bit types): rung 16 copies that operand
  // transposed (K-major, read by short boxes) and runs rung 18's 64x64 tile, which beat that tile
  // in place, rung 28 and the 64x128 tile there; over a long side of 1024 (16 tiles or fewer) the
  // copy's launch cost more than it saved (perf-notes.md, "Narrow products by grid").
  kNarrowMnMajorCopies16,
  kAlways,
};
enum class BNeeds : std::uint8_t { kAny, kRowMajor, kColMajor };

// A rule: in this shape class, with this B layout, try the instances of `family` with this block
// tile (0: any), split-K property and main-loop variant.
struct Rule {
  When when;
  BNeeds b;
  const char* family;
  int bm, bn, bk;
  bool split_k;
  const char* variant;
  int min_cc = 0;  // the rule holds only on devices of this compute capability and up
};

// fp32 (SIMT). Why each: docs/perf-notes.md (rung 9; third pass; rung 17).
//  - a matrix-vector product (M or N of 1): the gemv family, which streams the matrix once; with
//    K <= 12 rung 10's cute_simple (kVectorShortKF32).
//  - M or N of 2..4 against K of 65..512, the wide operand K-major (kNarrowTo4MidKF32): rung 21's
//    4-column kernel, ahead of the tiny and small tiles.
//  - a tiny product (kTinyF32): rung 2's 16x16 tile, no split.
//  - K of 97..512 over 32 (48 past K = 256) to a wave of 32x32 tiles (kTinyMmaF32, where three
//    tf32 products are allowed): rung 28's block per tile on mma.sync, ahead of the rules below;
//    past K = 512 (kTinyMmaClusterF32, sm_90) over 9 to a wave of tiles, up to K = 2048 where M
//    or N is 9..24 (2..8: over at most 48 tiles past K = 1024) and K = 1024 over at most 64
//    tiles otherwise: its cluster split; past K = 2048 (kTinyMmaLongKF32) over 9 to a third of
//    a wave of tiles (a sixth for 2..4 lines), M or N at most 48, K up to 1024 min(8, SMs /
//    tiles), A and B not both K-major.
//  - K <= 8 over a mid-sized C (kThinKMidF32): rung 10's cute_simple; 8 < K <= 48 over a
//    mid-sized C that rung 22 would take (kShortKMidF32): rung 24's 64x64 tile.
//  - a small product (kSmallProductF32, up to 2^25 multiply-adds): rung 24's one launch, which
//    the launch itself bounds; past it, K of 10..32 under a column-major C of at most 1024
//    32x32 tiles (kTinySoloColCF32): rung 28's one warp a tile.
//  - M or N of 5..8 against K >= 512 (kNarrowTo8LongKF32): rung 21's 8-column narrow kernel; of
//    9..16 against K >= 1024 where it reads the wide operand down its columns by elements
//    (kNarrowTo16ColsF32): its 16-column kernel.
//  - thin K (K <= 64) against a large C: the thin_k family, which writes C and little else.
//  - narrow (M or N of at most 4): rung 21's narrow products, which stream the wide operand
//    once; with 5..16 columns the SIMT skinny and small tiles were as fast or faster on the
//    random shapes of three seeds (perf-notes.md, rung 21).
//  - skinny: the 16x64 split-K tile beat every instance at 16x4096x4096 in both B layouts.
//  - a wave of 128x256 tiles: the lean mid-step-copy 128x256 instances (BK 16 with row-major B,
//    BK 8 with column-major B, each the better of the two in its layout), else the tuned 128x256
//    tile and its any-alignment twin where 16-byte copies do not fit; only where those tiles'
//    waves are at least 88% busy (or more than four): below it the 128x128 tile, two blocks per
//    SM, was faster in most cases measured across one to four waves (perf-notes.md, "The wave
//    rule of the SIMT pair").
//  - fewer 128x128 tiles than two per SM, K >= 1024, at least 2^29 multiply-adds: the 128x128
//    tile with K split until its waves are 85% busy (perf-notes.md, "Wave-filling split-K");
//    below K = 1024 the 64x64 split tile was as fast.
//  - one 128x128 tile per SM: the tuned 128x128 tile (not measured apart in this band).
//  - long K with few tiles: 128x128 with split-K (the same wave-filling split).
//  - few 64x64 tiles with row-major B and M <= N: the skinny tile, which copies B 16 bytes at a
//    time (with column-major B it copies B 4 bytes at a time and lost to small split-K).
//  - the rest: the 64x64 tile, splitting K itself when its tiles are too few.
// Where set_fp32_math allows three tf32 products (rung 22; the default) and the product is large
// against its operands (kF32Tensor), those run ahead of every tile rule: the 128x64 tile where
// 128x128 tiles leave SMs idle and K is short, else the 128x128 tile (rung 22 has no 128x256
// tile); with K of 16..64 ahead of thin_k too. Ahead of all of them, small M or N against a long
// side whose operand is read in place, by element copies where no tensor map reads it
// (kF32InKernelAnyPitch) or by tensor maps, or copied once into the L2 (kF32InKernel): rung 22's
// in-kernel split on 64-row tiles; and ahead of those, M or N of 12..32 (33..64 where C and the
// wide operand run along the wide side) against 2048 or more with K >= 1024 (kF32NarrowMma): rung
// 29's 128x32 mma.sync tile. Behind the 128-row tensor rules, M or N of 96..256 against 3000 or
// more with K of 128..255 and the long operand K-major (kF32InKernelShortK): rung 22's in-kernel
// split on its 64x128 tile, ahead of the CUDA cores' tiles.
constexpr Rule kSimtRules[] = {
    {When::kVectorShortKF32, BNeeds::kAny, "cute_simple", 8, 32, 0, false, ""},
    {When::kVector, BNeeds::kAny, "gemv", 8, 1, 0, true, ""},
    {When::kNarrowTo4MidKF32, BNeeds::kAny, "narrow", 32, 4, 0, true, ""},
    {When::kTinyF32, BNeeds::kAny, "smem_tiled", 16, 16, 16, false, ""},
    {When::kTinyMmaF32, BNeeds::kAny, "tiny_mma", 32, 32, 32, true, ""},
    {When::kTinyMmaClusterF32, BNeeds::kAny, "tiny_mma", 32, 32, 32, true, "", 90},
    {When::kTinyMmaLongKF32, BNeeds::kAny, "tiny_mma", 32, 32, 32, true, "", 90},
    {When::kThinKMidF32, BNeeds::kAny, "cute_simple", 8, 32, 0, false, ""},
    {When::kThinKStripThinCF32, BNeeds::kAny, "thin_k_mma", 16, 512, 0, false, ""},
    {When::kShortKMidF32, BNeeds::kAny, "small", 64, 64, 32, true, ""},
    {When::kSmallProductF32, BNeeds::kAny, "small", 32, 32, 32, true, ""},
    {When::kTinySoloColCF32, BNeeds::kAny, "tiny_mma", 32, 32, 32, true, ""},
    {When::kNarrowTo8LongKF32, BNeeds::kAny, "narrow", 32, 8, 0, true, ""},
    {When::kNarrowTo16ColsF32, BNeeds::kAny, "narrow", 32, 16, 0, true, ""},
    {When::kThinKStripF32, BNeeds::kAny, "thin_k_mma", 16, 512, 0, false, ""},
    {When::kF32NarrowMma, BNeeds::kAny, "mma_3xtf32", 128, 32, 32, true, ""},
    {When::kF32InKernelAnyPitch64, BNeeds::kAny, "wgmma_3xtf32", 64, 64, 0, true, "cs_ra"},
    {When::kF32InKernelAnyPitch, BNeeds::kAny, "wgmma_3xtf32", 64, 128, 0, true, "cs_ra"},
    {When::kF32InKernel64, BNeeds::kAny, "wgmma_3xtf32", 64, 64, 0, true, "cs"},
    {When::kF32InKernel, BNeeds::kAny, "wgmma_3xtf32", 64, 128, 0, true, "cs"},
    {When::kF32InKernelAnyPitchMidK, BNeeds::kAny, "wgmma_3xtf32", 64, 64, 0, true, "cs_ra"},
    {When::kF32TensorThinK, BNeeds::kAny, "wgmma_3xtf32", 128, 128, 0, true, ""},
    {When::kF32TensorMidK, BNeeds::kAny, "wgmma_3xtf32", 128, 128, 0, true, ""},
    {When::kThinK, BNeeds::kAny, "thin_k", 64, 128, 32, false, ""},
    {When::kNarrowTo4, BNeeds::kAny, "narrow", 32, 4, 0, true, ""},
    {When::kSkinny, BNeeds::kAny, "tuned", 16, 64, 32, true, ""},
    {When::kF32TensorUnder64, BNeeds::kAny, "wgmma_3xtf32", 64, 64, 0, true, ""},
    {When::kF32TensorUnder, BNeeds::kAny, "wgmma_3xtf32", 128, 64, 0, true, ""},
    {When::kF32Tensor, BNeeds::kAny, "wgmma_3xtf32", 128, 128, 0, true, ""},
    {When::kF32InKernelShortK, BNeeds::kAny, "wgmma_3xtf32", 64, 128, 0, true, "cs"},
    {When::kWaveOf128x256Full, BNeeds::kRowMajor, "cp_async", 128, 256, 16, false, "lean_mid"},
    {When::kWaveOf128x256Full, BNeeds::kColMajor, "cp_async", 128, 256, 8, false, "lean_mid"},
    {When::kWaveOf128x256Full, BNeeds::kAny, "tuned", 128, 256, 8, false, ""},
    {When::kUnderWave128, BNeeds::kAny, "tuned", 128, 128, 8, true, ""},
    {When::kTilePerSm128, BNeeds::kAny, "tuned", 128, 128, 8, false, ""},
    {When::kLongKFewTiles, BNeeds::kAny, "tuned", 128, 128, 8, true, ""},
    {When::kFewTiles64MLeN, BNeeds::kRowMajor, "tuned", 16, 64, 32, true, ""},
    {When::kAlways, BNeeds::kAny, "tuned", 64, 64, 16, true, ""},
};

// Tensor cores (bf16, f16, tf32). A tiny bf16 or f16 product or matrix-vector product of K <= 12
// (M x N <= 2^15) goes to rung 1's thread per output (kTinyShortK16). A matrix-vector product
// goes to the gemv family (CUDA cores: the
// matrix stream bounds it, a tensor-core tile would compute zeros; perf-notes.md, rung 17), a
// tiny product of K <= 80 over at most eight 16x8 tiles per SM to rung 28's one warp a 16x8 tile
// (kTinyFrag16), a
// narrow product (M or N of 2..16) whose wide operand runs along the long side, over the K its
// width allows, to rung 28 (kNarrowMnMajor16; at 16-byte pitches with K >= 2048, M or N of 8..48
// and a narrow operand along its narrow side, rung 16's transposed copy of it under rung 18's
// tile, kNarrowMnMajorCopies16), a
// tiny bf16 or f16 product (K of 8..512 over at most a wave of 32x32 tiles, or on sm_90 K of
// 513..8192 over at most half a wave where its split over a cluster leaves each warp at most
// four rounds of loads; behind the wgmma rules also M or N of 2..8 with K of 513..4096, or of
// 9..32 with K of 513..2048, over up to a wave, kTinyMma16Narrow) to rung 28's block per tile on
// mma.sync (kTinyMma16, kTinyMma16Cluster; K <= 32 over 2^13..2^19 elements of C past the small
// products, kTinySolo16, its one warp a tile), a
// small product to rung 24's one launch on the CUDA cores (kSmallProduct; its class in bf16 and
// f16 with K of 49..128, once rung 27's, lies inside kTinyFrag16's and kTinyMma16's), a
// K under 16 that no wgmma tile takes (K under 8 or an ld no tensor map describes) to the
// thin_k family (the store of C bounds it; rung 19; from K = 16 rung 16's copies were faster:
// perf-notes.md, "One copy launch, staged stores in pieces"). On
// sm_90 the wgmma families (candidates only there): rung
// 15's TMA-store epilogue without a cluster (its cluster variant "c2" lost to it), its 128x256
// tile from about a wave of it up, its 128x64 tile where 128x128 tiles would leave SMs idle,
// unless they are at most a third of the SMs against K >= 4 max(M, N), where the 128x128 tile's
// split-K fills them (perf-notes.md, "Long K over few tiles on the tensor cores"), its 128x128
// tile between (docs/perf-notes.md, rungs 14 and 15); for small M or N (up to 256),
// rung 18's one-consumer 64x64 or 64x128 tile where one wave of it holds the problem (rung 18),
// and for M or N up to 64 against more tiles than that, rung 15's 128x64 tile (N) or rung 18's
// 64x64 tile (M; on the copies both) (17024 x 64 x 4096: the 128x256 tile, taken before,
// computed 3/4 zeros; perf-notes.md, "Wave tails on the tensor cores");
// rung 14 behind them (the same kernel with the register epilogue, which rung 15 runs
// itself when beta != 0 or N is not a whole number of 16-byte granules); for A or B that no
// tensor map can describe (odd leading dimension, base off 16 bytes), rung 16, which copies them
// to a 16-byte pitch first, from K = 128 up or from K = 16 with at least 2^23 multiply-adds
// (below that the copy's launch costs more than it saves: perf-notes.md, rung 16 and "One copy
// launch, staged stores in pieces"; it also copies B transposed for tf32 with A and B both
// M/N-major, the one mix the wgmma kernel refuses), its 128x256 tile only where that tile's
// waves are at least 80% busy or more than four; where rung 18's 64x64 class holds (small M or
// N) its tile runs on the copies (a few percent faster than the 128x64 tile there: perf-notes.md,
// "Rung 16's copies under rung 18's tile"). Ahead of them, where M or N is at most 4, or at most 8
// with K >= 256 (K < 4096 or a long operand under 4 MiB), rung 21's narrow products on the CUDA
// cores: one pass over the wide
// operand instead of a copy and a 64-row tile of zeros (perf-notes.md, rung 21); with 16-byte
// operands rung 18's tile, above, stays faster. Then thin K (2 <= K <= 64; K <= 32 or under
// 2^23 elements of C) on rung 25's one launch on mma.sync (kThinKMma; on a C of 6 * 2^20
// elements or more its strip walk, kThinKStrip, which also takes K <= 16 on a C of 2^24 elements
// or more at any pitch, ahead of every wgmma rule). Between those and the
// copies, for M or N up to
// 64 (128 on a long operand of 16 MiB or more) whose long operand no tensor map describes, rung
// 23, which reads that operand in place through eight residue-class tensor maps (kResidue64,
// kResidue128; perf-notes.md, rung 23). Rung 20's realigning producer, once ahead of the
// copies for K >= 5000 over few tiles, lost that class to the one-launch copies (perf-notes.md,
// "One copy launch, staged stores in pieces"); it stays a candidate for tune. Elsewhere
// mma.sync: rung 28's 16x8 tile for K <= 128 over at most eight such tiles per SM
// (kTinyFrag16Rest), the larger tile only on many waves of it, the 128x128 tile otherwise.
// On the H100 development runs perf-notes.md (rung 13) records, 128x256 won at 8192^3 (2048
// tiles) and lost to 128x128 at 4096^3 (512 tiles, about 4 waves).
constexpr Rule kTensorRules[] = {
    {When::kTinyShortK16, BNeeds::kAny, "naive", 8, 32, 0, false, ""},
    {When::kVector, BNeeds::kAny, "gemv", 8, 1, 0, true, ""},
    {When::kTinyFrag16, BNeeds::kAny, "tiny_mma", 16, 8, 128, false, ""},
    {When::kNarrowMnMajor16, BNeeds::kAny, "tiny_mma", 32, 32, 32, true, ""},
    {When::kNarrowMnMajorLongK16, BNeeds::kAny, "tiny_mma", 32, 32, 32, true, ""},
    {When::kTinyMma16, BNeeds::kAny, "tiny_mma", 32, 32, 32, true, ""},
    {When::kTinyMma16Cluster, BNeeds::kAny, "tiny_mma", 32, 32, 32, true, "", 90},
    {When::kNarrowMnMajorCopies16, BNeeds::kAny, "wgmma_padded", 64, 64, 0, true, "", 90},
    {When::kSmallProduct, BNeeds::kAny, "small", 32, 32, 32, true, ""},
    {When::kTinySolo16, BNeeds::kAny, "tiny_mma", 32, 32, 32, true, ""},
    {When::kShortKThinC16, BNeeds::kAny, "small_mma", 64, 64, 64, true, ""},
    {When::kMidKThinC16, BNeeds::kAny, "small_mma", 64, 64, 64, true, ""},
    {When::kThinKStripAligned, BNeeds::kAny, "thin_k_mma", 16, 512, 0, false, ""},
    {When::kOffSectorCopiesWave, BNeeds::kAny, "wgmma_padded", 128, 256, 0, true, ""},
    {When::kOffSectorCopies, BNeeds::kAny, "wgmma_padded", 128, 128, 0, true, ""},
    {When::kSkinnyNManyTiles, BNeeds::kAny, "wgmma_tma_store", 128, 64, 0, true, ""},
    {When::kSkinnyManyTiles, BNeeds::kAny, "wgmma_skinny", 64, 64, 0, true, ""},
    {When::kWaveOf128x256, BNeeds::kAny, "wgmma_tma_store", 128, 256, 0, true, ""},
    {When::kSmallMN64x64, BNeeds::kAny, "wgmma_skinny", 64, 64, 0, true, ""},
    {When::kSmallMN64x128, BNeeds::kAny, "wgmma_skinny", 64, 128, 0, true, ""},
    {When::kFewTiles128LongK, BNeeds::kAny, "wgmma_tma_store", 128, 128, 0, true, ""},
    {When::kUnderSms128, BNeeds::kAny, "wgmma_tma_store", 128, 64, 0, true, ""},
    {When::kAlways, BNeeds::kAny, "wgmma_tma_store", 128, 128, 0, true, ""},
    {When::kTinyMma16Narrow, BNeeds::kAny, "tiny_mma", 32, 32, 32, true, "", 90},
    {When::kNarrowTo4, BNeeds::kAny, "narrow", 32, 4, 0, true, ""},
    {When::kNarrowTo8K256, BNeeds::kAny, "narrow", 32, 8, 0, true, ""},
    {When::kThinKStrip, BNeeds::kAny, "thin_k_mma", 16, 512, 0, false, ""},
    {When::kThinKMma, BNeeds::kAny, "thin_k_mma", 64, 128, 0, false, ""},
    {When::kResidue64, BNeeds::kAny, "wgmma_residue", 64, 64, 0, true, ""},
    {When::kResidue128, BNeeds::kAny, "wgmma_residue", 64, 128, 0, true, ""},
    {When::kThinK15, BNeeds::kAny, "thin_k", 64, 128, 32, false, ""},
    {When::kSmallMN64x64Copies, BNeeds::kAny, "wgmma_padded", 64, 64, 0, true, ""},
    {When::kSkinnyManyTilesCopies, BNeeds::kAny, "wgmma_padded", 64, 64, 0, true, ""},
    {When::kWaveOf128x256Copies, BNeeds::kAny, "wgmma_padded", 128, 256, 0, true, ""},
    {When::kFewTiles128LongK, BNeeds::kAny, "wgmma_padded", 128, 128, 0, true, ""},
    {When::kUnderSms128Copies, BNeeds::kAny, "wgmma_padded", 128, 64, 0, true, ""},
    {When::kCopiesPay, BNeeds::kAny, "wgmma_padded", 128, 128, 0, true, ""},
    {When::kWaveOf128x256, BNeeds::kAny, "wgmma", 128, 256, 0, true, ""},
    {When::kAlways, BNeeds::kAny, "wgmma", 128, 128, 0, true, ""},
    {When::kTinyFrag16Rest, BNeeds::kAny, "tiny_mma", 16, 8, 128, false, ""},
    {When::kWaves8Of128x256, BNeeds::kAny, "mma_sync", 128, 256, 0, false, ""},
    {When::kAlways, BNeeds::kAny, "mma_sync", 128, 128, 0, false, ""},
};

std::int64_t tiles(const Problem& p, std::int64_t bm, std::int64_t bn) {
  return ((p.m + bm - 1) / bm) * ((p.n + bn - 1) / bn);
}

// bm x bn tiles of C as the kernels that store C row by row see it (a column-major C as C^T).
std::int64_t row_c_tiles(const Problem& p, std::int64_t bm, std::int64_t bn) {
  return p.c.layout == Layout::kRowMajor ? tiles(p, bm, bn) : tiles(p, bn, bm);
}

// The busy share of the slots over the waves `count` tiles take, `slots` tiles per wave.
double wave_fill(std::int64_t count, std::int64_t slots) {
  const std::int64_t waves = (count + slots - 1) / slots;
  return waves == 0 ? 1.0 : static_cast<double>(count) / static_cast<double>(waves * slots);
}

// views::off_sector_pitch (src/kernels/problem_views.hpp), for the rules.
bool off_sector(const ConstMatrixRef& x) {
  return static_cast<std::uint64_t>(x.ld) * dtype_bytes(x.dtype) % 32 == 16;
}

// The bytes that divide both x's base and its pitch, up to 16 (the tune cache's alignment class).
int alignment_of(const ConstMatrixRef& x) {
  return tune::alignment_class(reinterpret_cast<std::uintptr_t>(x.data), x.ld,
                               dtype_bytes(x.dtype));
}

// Whether a tensor map can read x in place: a 16-byte-aligned base and pitch.
bool pitch_16b(const ConstMatrixRef& x) {
  return alignment_of(x) == 16;
}

// A base and pitch of at least 4-byte alignment: rung 28 loads a K-contiguous operand's element
// pairs as one word there.
bool pitch_4b(const ConstMatrixRef& x) {
  return alignment_of(x) >= 4;
}

// A and B at 16-byte pitches: the wgmma tiles read both by tensor maps in place.
bool both_16b(const Problem& p) {
  return pitch_16b(p.a) && pitch_16b(p.b);
}

// 16-bit A and B (bf16, f16).
bool sixteen_bit(const Problem& p) {
  return dtype_bytes(p.a.dtype) == 2;
}

// A K-major: row-major; B K-major: column-major.
bool a_k_major(const Problem& p) {
  return p.a.layout == Layout::kRowMajor;
}
bool b_k_major(const Problem& p) {
  return p.b.layout == Layout::kColMajor;
}

// A narrow product's wide operand (A where N <= M, else B; the other is its narrow operand), and
// whether each is K-major (else it runs along M or N).
const ConstMatrixRef& wide_operand(const Problem& p) {
  return p.n <= p.m ? p.a : p.b;
}
bool wide_k_major(const Problem& p) {
  return p.n <= p.m ? a_k_major(p) : b_k_major(p);
}
// C's rows (a row-major C's, a column-major C's columns) run along the longer of M and N.
bool c_along_wide(const Problem& p) {
  return p.c.layout == Layout::kRowMajor ? p.n >= p.m : p.m >= p.n;
}
bool narrow_k_major(const Problem& p) {
  return p.n <= p.m ? b_k_major(p) : a_k_major(p);
}

// Bytes of the operand along the longer of M and N (A where M >= N), the one a skinny product
// streams.
std::int64_t long_operand_bytes(const Problem& p) {
  return std::max(p.m, p.n) * p.k * static_cast<std::int64_t>(dtype_bytes(p.a.dtype));
}

// The long side's operand in the in-kernel split (rung 22's `cs` instances): where that kernel
// reads it without a copy, given a tensor map (a 16-byte pitch) or its element copies (any
// pitch) read it. It reads A in either layout and a K-major B; A and B trade roles under a
// column-major C.
struct LongOperand {
  bool readable_layout;  // A in the kernel, or a K-major B
  bool pitch_16b;        // a tensor map reads it
};
LongOperand long_operand(const Problem& p) {
  const bool kernel_a = (p.m >= p.n) == (p.c.layout == Layout::kRowMajor);
  return {wide_k_major(p) || kernel_a, pitch_16b(wide_operand(p))};
}

// Rung 22's in-kernel split with element copies applies (kF32InKernelAnyPitch and its mid-K
// twin): tf32 products allowed, and the long operand at a pitch or base no tensor map reads, in a
// role the split reads in place.
bool odd_pitch_in_place(const Problem& p) {
  const LongOperand x = long_operand(p);
  return fp32_math() == Fp32Math::kThreeTf32 && x.readable_layout && !x.pitch_16b;
}

// kF32InKernel64's tile test: the 64x64 tile where the oriented N (N, or M under a column-major
// C) is at most 64, where K < 512, or where 64x128 tiles fill more than a third of the SMs and
// 64x64 tiles no more than a wave with K < 4096.
bool in_kernel_64(const Problem& p, std::int64_t sms) {
  const bool c_row = p.c.layout == Layout::kRowMajor;
  const std::int64_t n = c_row ? p.n : p.m;
  const std::int64_t t128 = row_c_tiles(p, 64, 128);
  return n <= 64 || p.k < 512 || (3 * t128 > sms && tiles(p, 64, 64) <= sms && p.k < 4096);
}

bool holds(When when, const Problem& p, std::int64_t sms) {
  switch (when) {
    case When::kVector:
      return std::min(p.m, p.n) == 1;
    case When::kVectorShortKF32:
      return std::min(p.m, p.n) == 1 && p.k <= 12;
    case When::kTinyShortK16:
      return sixteen_bit(p) && p.k <= 12 && p.m * p.n <= (std::int64_t{1} << 15);
    case When::kTinyFrag16:
    case When::kTinyFrag16Rest: {
      const std::int64_t k_max = when == When::kTinyFrag16 ? 80 : 128;
      return sixteen_bit(p) && p.k <= k_max && row_c_tiles(p, 16, 8) <= 8 * sms &&
             std::max(p.m, p.n) <= 8192;
    }
    case When::kThinK:
      return p.k <= 64 && p.m * p.n >= (std::int64_t{1} << 19);
    case When::kSkinny:
      return std::min(p.m, p.n) <= 32;
    case When::kWaveOf128x256:
      return 8 * tiles(p, 128, 256) >= 7 * sms;
    case When::kWaveOf128x256Full:
      return holds(When::kWaveOf128x256, p, sms) &&
             (tiles(p, 128, 256) > 4 * sms || wave_fill(tiles(p, 128, 256), sms) >= 0.88);
    case When::kWaves8Of128x256:
      return tiles(p, 128, 256) >= 8 * sms;
    case When::kTilePerSm128:
      return tiles(p, 128, 128) >= sms;
    case When::kUnderSms128:
      return 2 * tiles(p, 128, 128) <= sms;
    case When::kSmallMN64x64:
      return std::min(p.m, p.n) <= 256 && tiles(p, 64, 64) <= sms;
    case When::kSmallMN64x128:
      return std::min(p.m, p.n) <= 256 && tiles(p, 64, 128) <= sms;
    case When::kOffSectorCopies: {
      const std::int64_t copied =
          (off_sector(p.a) ? p.m * p.k : 0) + (off_sector(p.b) ? p.k * p.n : 0);
      return copied > 0 && std::min(p.m, p.n) > 256 && p.m * p.n * p.k >= 1200 * copied &&
             p.m * p.n * p.k >= (std::int64_t{1} << 33);
    }
    case When::kOffSectorCopiesWave:
      return holds(When::kOffSectorCopies, p, sms) && holds(When::kWaveOf128x256, p, sms) &&
             (tiles(p, 128, 256) > 4 * sms || wave_fill(tiles(p, 128, 256), sms) >= 0.80);
    case When::kSkinnyNManyTiles:
      return p.n <= 64 && holds(When::kSkinnyManyTiles, p, sms);
    case When::kSkinnyManyTiles:
      return std::min(p.m, p.n) <= 64 && tiles(p, 64, 128) > sms;
    case When::kSkinnyManyTilesCopies:
      return holds(When::kCopiesPay, p, sms) && holds(When::kSkinnyManyTiles, p, sms);
    case When::kThinK15:
      return p.k < 16;
    case When::kFewTiles128LongK:
      return 3 * tiles(p, 128, 128) <= sms && p.k >= 4 * std::max(p.m, p.n);
    case When::kSmallMN64x64Copies:
      return holds(When::kCopiesPay, p, sms) && holds(When::kSmallMN64x64, p, sms);
    case When::kWaveOf128x256Copies:
      return holds(When::kCopiesPay, p, sms) && holds(When::kWaveOf128x256, p, sms) &&
             (tiles(p, 128, 256) > 4 * sms || wave_fill(tiles(p, 128, 256), sms) >= 0.80);
    case When::kUnderSms128Copies:
      return holds(When::kCopiesPay, p, sms) && holds(When::kUnderSms128, p, sms);
    case When::kCopiesPay:
      return p.k >= 128 || (p.k >= 16 && p.m * p.n * p.k >= (std::int64_t{1} << 23));
    case When::kLongKFewTiles:
      return p.k >= 4 * std::max(p.m, p.n) && 2 * tiles(p, 128, 128) <= sms &&
             p.m * p.n * p.k >= (std::int64_t{1} << 27);
    case When::kUnderWave128:
      return p.k >= 1024 && std::min(p.m, p.n) >= 64 &&
             p.m * p.n * p.k >= (std::int64_t{1} << 29) && tiles(p, 128, 128) < 2 * sms;
    case When::kResidue64:
    case When::kResidue128: {
      const bool a_long = p.m >= p.n;
      const bool long_off = !pitch_16b(a_long ? p.a : p.b);
      const bool short_off = !pitch_16b(a_long ? p.b : p.a);
      const std::int64_t long_bytes = long_operand_bytes(p);
      if (when == When::kResidue128) {
        return std::min(p.m, p.n) <= 128 && long_off && long_bytes >= (std::int64_t{16} << 20);
      }
      if (std::min(p.m, p.n) > 64 || !holds(When::kCopiesPay, p, sms)) return false;
      if (long_off) return !short_off || long_bytes >= (std::int64_t{1} << 20);
      return short_off && long_bytes < (std::int64_t{4} << 20);
    }
    case When::kNarrowTo4:
      return std::min(p.m, p.n) <= 4;
    case When::kNarrowTo8K256:
      return std::min(p.m, p.n) <= 8 && p.k >= 256 &&
             (p.k < 4096 || long_operand_bytes(p) < (std::int64_t{4} << 20));
    case When::kThinKMma:
      return p.k >= 2 && p.k <= 64 && (p.k <= 32 || p.m * p.n < (std::int64_t{1} << 23));
    case When::kThinKStrip:
      return p.k >= 2 && p.k <= 64 && p.m * p.n >= (std::int64_t{6} << 20);
    case When::kThinKStripThinCF32: {
      const std::int64_t c = p.m * p.n;
      const std::int64_t narrow = std::min(p.m, p.n);
      if (fp32_math() != Fp32Math::kThreeTf32 || p.k < 12 || p.k > 32 ||
          c < (std::int64_t{1} << 19) || c >= (std::int64_t{1} << 22) || narrow < 300 ||
          narrow >= 1024) {
        return false;
      }
      if (c > (std::int64_t{1} << 20)) return p.k >= 16 && p.k <= (narrow <= 470 ? 24 : 16);
      // The strip's 512-wide rows of C (as a row-major C) along the long side, or K <= 24.
      return c_along_wide(p) || p.k <= 24;
    }
    case When::kThinKStripF32:
      return fp32_math() == Fp32Math::kThreeTf32 && p.k >= 2 && p.k <= 32 &&
             p.m * p.n >= (std::int64_t{1} << 22) &&
             !(p.k > 16 && pitch_16b(p.a) && pitch_16b(p.b));
    case When::kThinKStripAligned:
      return p.k >= 2 && p.k <= 16 && p.m * p.n >= (std::int64_t{1} << 24);
    case When::kFewTiles64MLeN:
      return 2 * tiles(p, 64, 64) <= sms && p.m <= p.n;
    case When::kF32Tensor: {
      if (fp32_math() != Fp32Math::kThreeTf32 || std::min(p.m, p.n) <= 32) return false;
      const std::int64_t mn = p.m * p.n;
      const std::int64_t sum = p.m + p.n;
      return mn >= 288 * sum || (mn >= 128 * sum && p.k >= 256) ||
             (mn >= 64 * sum && p.k >= 4 * std::max(p.m, p.n));
    }
    case When::kF32TensorThinK:
      return holds(When::kF32Tensor, p, sms) && p.k >= 16 && p.k <= 64;
    case When::kF32TensorUnder64: {
      const std::int64_t t = tiles(p, 64, 64);
      return holds(When::kF32TensorUnder, p, sms) && t <= sms && (p.k <= 512 || 3 * t >= 2 * sms);
    }
    case When::kF32TensorMidK:
      return fp32_math() == Fp32Math::kThreeTf32 && p.k >= 64 && p.k < 256 &&
             std::min(p.m, p.n) >= 200 && std::min(p.m, p.n) < 500 && std::max(p.m, p.n) >= 4000 &&
             std::max(p.m, p.n) <= 8192;
    case When::kF32TensorUnder:
      return holds(When::kF32Tensor, p, sms) && holds(When::kUnderSms128, p, sms) &&
             p.k < 2 * std::max(p.m, p.n);
    case When::kF32InKernel: {
      if (fp32_math() != Fp32Math::kThreeTf32) return false;
      const std::int64_t small = std::min(p.m, p.n);
      const std::int64_t large = std::max(p.m, p.n);
      if (large < 256) return false;
      // The long operand is read in place where a tensor map reads it in its role.
      const LongOperand x = long_operand(p);
      const bool in_place = x.readable_layout && x.pitch_16b;
      if (in_place && small >= 16 && small <= 256 && p.k >= 512) return true;
      constexpr std::int64_t kCopiedBytes = std::int64_t{40} << 20;
      return small >= 48 && small <= 192 && p.k >= 256 &&
             p.m * p.n * p.k >= (std::int64_t{1} << 25) &&
             long_operand_bytes(p) <= kCopiedBytes;
    }
    case When::kF32InKernel64:
      return holds(When::kF32InKernel, p, sms) && in_kernel_64(p, sms);
    case When::kF32InKernelAnyPitch:
      return odd_pitch_in_place(p) && std::min(p.m, p.n) >= 10 && std::min(p.m, p.n) <= 256 &&
             std::max(p.m, p.n) >= 256 && p.k >= 512;
    case When::kF32InKernelAnyPitch64:
      return holds(When::kF32InKernelAnyPitch, p, sms) &&
             (in_kernel_64(p, sms) || tiles(p, 64, 64) <= 16);
    case When::kF32InKernelShortK:
      return fp32_math() == Fp32Math::kThreeTf32 && wide_k_major(p) && pitch_16b(wide_operand(p)) &&
             std::min(p.m, p.n) >= 96 && std::min(p.m, p.n) <= 256 && std::max(p.m, p.n) >= 3000 &&
             p.m * p.n >= 400000 && p.k >= 128 && p.k < 256;
    case When::kF32InKernelAnyPitchMidK:
      return odd_pitch_in_place(p) && std::min(p.m, p.n) >= 33 && std::min(p.m, p.n) <= 64 &&
             std::max(p.m, p.n) >= 2048 && p.k >= 250 && p.k < 512;
    case When::kF32NarrowMma: {
      const std::int64_t narrow = std::min(p.m, p.n);
      if (fp32_math() != Fp32Math::kThreeTf32 || narrow < 12 || std::max(p.m, p.n) < 2048 ||
          p.k < 1024) {
        return false;
      }
      // 33..64: C and the wide side's operand along the wide side
      return narrow <= 32 || (narrow <= 64 && c_along_wide(p) && !wide_k_major(p));
    }
    case When::kSmallProduct:
    case When::kSmallProductF32: {
      const std::int64_t t = tiles(p, 32, 32);
      const int log2_work = when == When::kSmallProduct ? 24 : 25;
      return p.k <= 4096 && t <= sms && t * 1024 * p.k < (std::int64_t{1} << log2_work);
    }
    case When::kTinyF32:
      return p.m > 1 && p.n > 1 && p.k <= 128 && p.m * p.n <= 32768;
    case When::kTinyMmaClusterF32: {
      const std::int64_t t = tiles(p, 32, 32);
      const std::int64_t narrow = std::min(p.m, p.n);
      if (fp32_math() != Fp32Math::kThreeTf32 || narrow < 2 || p.k <= 512 || t <= 8 || t > sms) {
        return false;
      }
      if (narrow <= 8) return p.k <= 1024 || (p.k <= 2048 && t <= 48);
      return narrow <= 24 ? p.k <= 2048 : p.k <= 1024 && t <= 64;
    }
    case When::kTinyMmaLongKF32: {
      const std::int64_t t = tiles(p, 32, 32);
      const std::int64_t narrow = std::min(p.m, p.n);
      const bool k_fits =
          p.k <= 1024 * std::min<std::int64_t>(8, sms / t) || (p.k <= 8192 && !wide_k_major(p));
      return fp32_math() == Fp32Math::kThreeTf32 && narrow > 1 && narrow <= 48 && t > 8 &&
             (narrow <= 4 ? 6 : 3) * t <= sms && p.k > 2048 && k_fits &&
             !(a_k_major(p) && b_k_major(p));
    }
    case When::kTinySoloColCF32:
      return fp32_math() == Fp32Math::kThreeTf32 && p.c.layout == Layout::kColMajor && p.m > 1 &&
             p.n > 1 && p.k >= 10 && p.k <= 32 && tiles(p, 32, 32) <= 1024;
    case When::kTinyMmaF32: {
      const std::int64_t t = tiles(p, 32, 32);
      return fp32_math() == Fp32Math::kThreeTf32 && p.m > 1 && p.n > 1 && p.k > 96 && p.k <= 512 &&
             t <= sms && t >= (p.k <= 256 ? 32 : 48);
    }
    case When::kThinKMidF32:
      return p.m > 1 && p.n > 1 && p.k <= 8 && p.m * p.n > 32768 &&
             p.m * p.n <= (std::int64_t{1} << 19);
    case When::kShortKMidF32:
      return holds(When::kF32Tensor, p, sms) && p.k > 8 && p.k <= 48 &&
             std::min(p.m, p.n) >= 128 &&
             p.m * p.n >= (std::int64_t{1} << 18) && p.m * p.n <= (std::int64_t{1} << 20);
    case When::kNarrowTo8LongKF32:
      return std::min(p.m, p.n) >= 5 && std::min(p.m, p.n) <= 8 && p.k >= 512;
    case When::kNarrowTo16ColsF32:
      // Rung 21 makes the narrow side N (an M-narrow product as its mirror, B^T the wide
      // operand); its column kernel reads a wide operand contiguous along the wide side.
      return std::min(p.m, p.n) >= 9 && std::min(p.m, p.n) <= 16 && p.k >= 1024 &&
             !wide_k_major(p) && !pitch_16b(wide_operand(p));
    case When::kNarrowTo4MidKF32:
      return std::min(p.m, p.n) >= 2 && std::min(p.m, p.n) <= 4 && p.k >= 65 && p.k <= 512 &&
             std::max(p.m, p.n) >= 128 && wide_k_major(p);
    case When::kNarrowMnMajor16: {
      const std::int64_t narrow = std::min(p.m, p.n);
      if (!sixteen_bit(p) || wide_k_major(p) || narrow < 2 || narrow > 16 || p.k < 13 ||
          std::max(p.m, p.n) > 8192 || (p.k > 512 && tiles(p, 32, 32) <= 8)) {
        return false;
      }
      const bool maps = both_16b(p);
      const bool narrow_mn_major = !narrow_k_major(p);
      if (narrow <= 8) return maps ? narrow_mn_major && p.k <= 1024 : p.k <= 2048;
      return narrow_mn_major && p.k <= (maps ? 512 : 1024);
    }
    case When::kNarrowMnMajorLongK16: {
      const std::int64_t narrow = std::min(p.m, p.n);
      if (!sixteen_bit(p) || both_16b(p) || narrow < 8 || narrow > 48 || tiles(p, 32, 32) > sms ||
          p.k <= 1024 || p.k > 8192) {
        return false;
      }
      if (narrow > 24) return p.k <= 1536 && !pitch_16b(wide_operand(p));
      if (narrow_k_major(p)) return false;
      return !wide_k_major(p) || (narrow <= 8 && p.k > 4096 && pitch_4b(wide_operand(p)));
    }
    case When::kTinySolo16:
      return p.k <= 32 && p.m * p.n >= (std::int64_t{1} << 13) &&
             p.m * p.n <= (std::int64_t{1} << 19) && std::max(p.m, p.n) <= 8192;
    case When::kShortKThinC16:
      return p.k <= 64 && std::max(p.m, p.n) >= 4096 && std::max(p.m, p.n) <= 8192 &&
             std::min(p.m, p.n) >= 2 && std::min(p.m, p.n) <= 32;
    case When::kMidKThinC16:
      return sixteen_bit(p) && !both_16b(p) && p.k > 64 && p.k <= 128 &&
             std::max(p.m, p.n) >= 4096 && std::max(p.m, p.n) <= 8192 && std::min(p.m, p.n) >= 20 &&
             std::min(p.m, p.n) <= 64;
    case When::kTinyMma16: {
      const std::int64_t t = tiles(p, 32, 32);
      return p.m > 1 && p.n > 1 && t <= sms && p.k >= 8 && p.k <= 512 && (p.k > 64 || 2 * t <= sms);
    }
    case When::kNarrowMnMajorCopies16: {
      const std::int64_t narrow = std::min(p.m, p.n);
      return sixteen_bit(p) && both_16b(p) && !narrow_k_major(p) && narrow >= 8 && narrow <= 48 &&
             p.k >= 2048 && std::max(p.m, p.n) >= 2048 && std::max(p.m, p.n) <= 8192;
    }
    case When::kTinyMma16Cluster: {
      const std::int64_t t = tiles(p, 32, 32);
      return p.m > 1 && p.n > 1 && 2 * t <= sms && p.k > 512 && p.k <= 8192 &&
             p.k <= 1024 * std::min<std::int64_t>(8, sms / t) && (p.k > 1024 || t > 8) &&
             std::min(p.m, p.n) < 128 &&
             !(std::min(p.m, p.n) >= 17 && a_k_major(p) && b_k_major(p) && both_16b(p));
    }
    case When::kTinyMma16Narrow: {
      const std::int64_t t = tiles(p, 32, 32);
      const std::int64_t narrow = std::min(p.m, p.n);
      return narrow > 1 && 2 * t > sms && t <= sms && p.k > 512 &&
             (narrow <= 8 ? p.k <= 4096 : narrow <= 32 && p.k <= 2048);
    }
    case When::kAlways:
      return true;
  }
  return false;
}

bool layout_fits(BNeeds b, const Problem& p) {
  return b == BNeeds::kAny || (b == BNeeds::kRowMajor) == (p.b.layout == Layout::kRowMajor);
}

bool selects(const Rule& r, const KernelInfo& k) {
  return k.family == r.family && k.tile.bm == r.bm && k.tile.bn == r.bn &&
         (r.bk == 0 || k.tile.bk == r.bk) && k.desc.split_k == r.split_k &&
         k.desc.variant == r.variant;
}

template <std::size_t N>
const KernelInfo* apply_rules(const Rule (&rules)[N], const Problem& p,
                              const std::vector<const KernelInfo*>& candidates, int cc) {
  const std::int64_t sms = runtime::sm_count();
  for (const Rule& r : rules) {
    if (cc < r.min_cc || !layout_fits(r.b, p) || !holds(r.when, p, sms)) continue;
    for (const KernelInfo* k : candidates) {
      if (selects(r, *k) && k->can_implement(p)) return k;
    }
  }
  return nullptr;
}

// auto's choices, cached: the tune lookup and the walk over the rules run on the host at every
// call, and a tiny product's call pays for them in full. Keyed by everything the choice reads
// (the tune key, the leading dimensions, the device and its compute capability), dropped when
// the tune tables change (tune::generation) and bounded in size; a hit is still asked
// can_implement.
struct ChoiceKey {
  tune::EntryKey problem;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  int device = 0, cc = 0;
  Fp32Math math = Fp32Math::kSimt;
  bool operator==(const ChoiceKey& o) const {
    return problem == o.problem && lda == o.lda && ldb == o.ldb && ldc == o.ldc &&
           device == o.device && cc == o.cc && math == o.math;
  }
};
struct ChoiceKeyHash {
  std::size_t operator()(const ChoiceKey& k) const {
    std::uint64_t h = 1469598103934665603ull;
    auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
    const tune::EntryKey& e = k.problem;
    mix(static_cast<std::uint64_t>(e.m));
    mix(static_cast<std::uint64_t>(e.n));
    mix(static_cast<std::uint64_t>(e.k));
    mix(static_cast<std::uint64_t>(k.lda));
    mix(static_cast<std::uint64_t>(k.ldb));
    mix(static_cast<std::uint64_t>(k.ldc));
    mix((static_cast<std::uint64_t>(e.types.ab) << 8) | static_cast<std::uint64_t>(e.types.c));
    mix((static_cast<std::uint64_t>(e.la) << 2) | (static_cast<std::uint64_t>(e.lb) << 1) |
        static_cast<std::uint64_t>(e.lc));
    mix((static_cast<std::uint64_t>(e.align_a) << 16) |
        (static_cast<std::uint64_t>(e.align_b) << 8) | static_cast<std::uint64_t>(e.align_c));
    mix(static_cast<std::uint64_t>(k.math));
    mix((static_cast<std::uint64_t>(e.beta_zero) << 40) |
        (static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.device)) << 8) |
        static_cast<std::uint64_t>(k.cc));
    return static_cast<std::size_t>(h);
  }
};
class ChoiceCache {
 public:
  static constexpr std::size_t kMaxEntries = 4096;
  bool find(const ChoiceKey& key, std::uint64_t generation, const KernelInfo** out) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (generation != generation_) return false;
    const auto it = map_.find(key);
    if (it == map_.end()) return false;
    *out = it->second;
    return true;
  }
  void insert(const ChoiceKey& key, std::uint64_t generation, const KernelInfo* choice) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (generation != generation_ || map_.size() >= kMaxEntries) {
      map_.clear();
      generation_ = generation;
    }
    map_[key] = choice;
  }

 private:
  std::mutex mutex_;
  std::uint64_t generation_ = 0;
  std::unordered_map<ChoiceKey, const KernelInfo*, ChoiceKeyHash> map_;
};

const KernelInfo* select_uncached(const Problem& problem, int cc);

// Whether auto may run the kernel on the problem under the fp32 math setting: an fp32 problem
// goes to the tensor cores (rung 22, rung 25's strip walk: tf32 products) only where it is
// allowed (the rules ask for them only there; the tune table and the fallback go through this).
bool allowed(const KernelInfo& k, const Problem& p) {
  const bool tensor_f32 = p.a.dtype == DType::kF32 && k.desc.op_class != OpClass::kSimt;
  return !tensor_f32 || fp32_math() == Fp32Math::kThreeTf32;
}

// TILEGEMM_FP32_MATH as it reads now: the setting and, for a value that is neither, the
// one-line note fp32_math_env_note() returns.
struct Fp32MathEnv {
  Fp32Math math = Fp32Math::kThreeTf32;
  std::string note;
};
Fp32MathEnv fp32_math_env() {
  Fp32MathEnv e;
  const char* v = std::getenv("TILEGEMM_FP32_MATH");
  const std::string_view text = v != nullptr ? v : "";
  if (text == "simt") {
    e.math = Fp32Math::kSimt;
  } else if (!text.empty() && text != "3xtf32") {
    e.note = "TILEGEMM_FP32_MATH='" + std::string(text) +
             "' is neither '3xtf32' nor 'simt': the default, 3xtf32";
  }
  return e;
}

// Read from the environment once, on first use.
std::atomic<int>& fp32_math_setting() {
  static std::atomic<int> setting{static_cast<int>(fp32_math_env().math)};
  return setting;
}

}  // namespace

void set_fp32_math(Fp32Math math) {
  fp32_math_setting().store(static_cast<int>(math), std::memory_order_relaxed);
}

Fp32Math fp32_math() {
  return static_cast<Fp32Math>(fp32_math_setting().load(std::memory_order_relaxed));
}

std::string fp32_math_env_note() { return fp32_math_env().note; }

const KernelInfo* select_kernel(const Problem& problem, int cc) {
  static ChoiceCache cache;
  ChoiceKey key;
  key.problem = tune::entry_key(problem);
  key.lda = problem.a.ld;
  key.ldb = problem.b.ld;
  key.ldc = problem.c.ld;
  if (cudaGetDevice(&key.device) != cudaSuccess) {
    static_cast<void>(cudaGetLastError());  // no device: rules for the fallback SM count
    key.device = -1;
  }
  key.cc = cc;
  key.math = fp32_math();
  const std::uint64_t generation = tune::generation();
  const KernelInfo* chosen = nullptr;
  if (cache.find(key, generation, &chosen) &&
      (chosen == nullptr || chosen->can_implement(problem))) {
    return chosen;
  }
  chosen = select_uncached(problem, cc);
  cache.insert(key, generation, chosen);
  return chosen;
}

namespace {

const KernelInfo* select_uncached(const Problem& problem, int cc) {
  // A measured winner for exactly this problem on this GPU (tilegemm/tune.hpp) beats any rule;
  // one computed as three tf32 products only where set_fp32_math allows those.
  if (const KernelInfo* tuned = tune::lookup(problem, cc)) {
    if (allowed(*tuned, problem)) return tuned;
  }
  const std::vector<const KernelInfo*> candidates = kernels_for(problem.types(), cc);
  const KernelInfo* k = problem.a.dtype == DType::kF32
                            ? apply_rules(kSimtRules, problem, candidates, cc)
                            : apply_rules(kTensorRules, problem, candidates, cc);
  if (k != nullptr) return k;
  // Highest rung first: each rung is meant to be faster than the one below it, and every
  // family refuses through can_implement what it cannot do (types included).
  for (auto it = candidates.rbegin(); it != candidates.rend(); ++it) {
    if (!allowed(**it, problem)) continue;
    if ((*it)->can_implement(problem)) return *it;
  }
  return nullptr;
}

}  // namespace

const KernelInfo* select_kernel(const Problem& problem) {
  constexpr int kAssumedCc = 90;  // without a GPU: rules stay defined, as runtime::sm_count()
  const int cc = current_compute_capability();
  return select_kernel(problem, cc > 0 ? cc : kAssumedCc);
}

}  // namespace tilegemm
