// The `auto` rule's shape classes (src/core/dispatch.cpp), on the CPU: without a device the rule
// assumes 132 SMs (H100/H200 SXM), so these are the choices the GPU run will exercise there.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "tilegemm/gemm.hpp"

namespace tilegemm {
namespace {

alignas(16) float g_buf[8];

// Sets the fp32 math for a scope and puts the previous setting back.
class Fp32MathScope {
 public:
  explicit Fp32MathScope(Fp32Math math) : saved_(fp32_math()) { set_fp32_math(math); }
  ~Fp32MathScope() { set_fp32_math(saved_); }
  Fp32MathScope(const Fp32MathScope&) = delete;
  Fp32MathScope& operator=(const Fp32MathScope&) = delete;

 private:
  Fp32Math saved_;
};

// The fp32 kernel auto takes for A, B and C in these layouts, under this fp32 math, the bases
// `offset` floats past 16-byte alignment and each leading dimension `pad` elements past its least.
std::string chosen_in(std::int64_t m, std::int64_t n, std::int64_t k, Layout la, Layout lb,
                      Layout lc, Fp32Math math, int offset = 0, std::int64_t pad = 0) {
  const Fp32MathScope scope(math);
  Problem p = Problem::make(m, n, k, g_buf + offset, g_buf + offset, g_buf + offset, 1.0f, 0.0f, la,
                            lb, lc);
  p.a.ld += pad;
  p.b.ld += pad;
  p.c.ld += pad;
  const KernelInfo* kernel = select_kernel(p);
  return kernel == nullptr ? "(none)" : kernel->name;
}

// The same with row-major A and C; by default the CUDA cores' rules (set_fp32_math(kSimt)),
// which most tests here pin down; Fp32TakesThreeTf32ProductsOnHopper asks for the tensor cores.
std::string chosen(std::int64_t m, std::int64_t n, std::int64_t k, Layout lb = Layout::kRowMajor,
                   int offset = 0, Fp32Math math = Fp32Math::kSimt) {
  return chosen_in(m, n, k, Layout::kRowMajor, lb, Layout::kRowMajor, math, offset);
}

// auto's choice for a bf16 product (row-major operands, sm_90).
std::string chosen_bf16(std::int64_t m, std::int64_t n, std::int64_t k) {
  alignas(16) static std::uint16_t buf16[64];
  const KernelInfo* kernel = select_kernel(
      Problem::make_typed(m, n, k, GemmTypes{DType::kBF16, DType::kBF16}, buf16, buf16, buf16), 90);
  return kernel == nullptr ? "(none)" : kernel->name;
}

// One combination of each A/B type: the tests that walk the types.
constexpr GemmTypes kFourTypes[] = {
    GemmTypes{DType::kF32, DType::kF32}, GemmTypes{DType::kBF16, DType::kBF16},
    GemmTypes{DType::kF16, DType::kF32}, GemmTypes{DType::kTF32, DType::kF32}};

// auto's choice on a device of compute capability `cc` for an M x N x K product of types `t`
// with row-major operands, A at a pitch `pad` elements past K (any pitch of at least K).
std::string chosen_for(GemmTypes t, std::int64_t m, std::int64_t n, std::int64_t k,
                       std::int64_t pad = 0, int cc = 90) {
  alignas(16) static std::uint16_t buf16[64];
  const bool wide = t.ab == DType::kF32 || t.ab == DType::kTF32;
  void* buf = wide ? static_cast<void*>(g_buf) : static_cast<void*>(buf16);
  Problem p = Problem::make_typed(m, n, k, t, buf, buf, buf);
  p.a.ld = k + pad;
  const KernelInfo* kernel = select_kernel(p, cc);
  return kernel == nullptr ? "(none)" : kernel->name;
}

using Shapes = std::vector<std::array<std::int64_t, 3>>;

// Over `shapes` (M x N x K, A at a pitch `pad` past K), auto takes `kernel` for types `t` if
// `taken`, else another kernel.
void expect_taken_if(bool taken, GemmTypes t, const std::string& kernel, const Shapes& shapes,
                     std::int64_t pad) {
  for (const auto& s : shapes) {
    const std::string got = chosen_for(t, s[0], s[1], s[2], pad);
    EXPECT_EQ(got == kernel, taken)
        << s[0] << "x" << s[1] << "x" << s[2] << " pad " << pad << ": " << got;
  }
}

// ... where the types are 16-bit, and another kernel where they are fp32 or tf32.
void expect_16bit_takes(GemmTypes t, const std::string& kernel, const Shapes& shapes,
                        std::int64_t pad = 0) {
  expect_taken_if(t.ab == DType::kBF16 || t.ab == DType::kF16, t, kernel, shapes, pad);
}

// ... where the types are 16-bit or fp32 (rung 28 computes fp32 as three tf32 products), and
// another kernel where they are tf32.
void expect_taken_but_tf32(GemmTypes t, const std::string& kernel, const Shapes& shapes,
                           std::int64_t pad = 0) {
  expect_taken_if(t.ab != DType::kTF32, t, kernel, shapes, pad);
}

// Over `shapes`, auto does not take `kernel` for types `t`.
void expect_not_taken(GemmTypes t, const std::string& kernel, const Shapes& shapes,
                      std::int64_t pad = 0) {
  for (const auto& s : shapes) {
    EXPECT_NE(chosen_for(t, s[0], s[1], s[2], pad), kernel)
        << s[0] << "x" << s[1] << "x" << s[2] << " pad " << pad;
  }
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

TEST(AutoRule, LargeShapesTakeThe128x256LeanMidTile) {
  // BK = 16 with row-major B, BK = 8 with column-major B: what measured best in each layout.
  const std::string row_b = "cp_async_128x256x16_w64x64_t8x16_s3_lean_mid";
  const std::string col_b = "cp_async_128x256x8_w64x64_t8x16_s3_lean_mid";
  for (std::int64_t s : {2048, 4096, 8192}) {
    EXPECT_EQ(chosen(s, s, s, Layout::kRowMajor), row_b) << s;
    EXPECT_EQ(chosen(s, s, s, Layout::kColMajor), col_b) << s;
  }
  EXPECT_EQ(chosen(8192, 1024, 8192), row_b);
  EXPECT_EQ(chosen(4096, 4096, 16384), row_b);
  EXPECT_EQ(chosen(4096, 4096, 16384, Layout::kColMajor), col_b);
}

TEST(AutoRule, WaveTailsOf128x256TilesTakeThe128x128Tile) {
  // 4384x1828: 280 tiles of 128x256 take 3 waves of 132 (0.71 busy), 525 of 128x128 two waves
  // of 264 (0.99); 5948x599: 0.53 against 0.89. 2744x5528: 0.92 both, 128x256 stays.
  const std::string large = "tuned_large_128x128x8_w64x32_t8x8_s3";
  EXPECT_EQ(chosen(4384, 1828, 4728), large);
  EXPECT_EQ(chosen(5948, 600, 336), large);
  EXPECT_EQ(chosen(2744, 5528, 4424), "cp_async_128x256x16_w64x64_t8x16_s3_lean_mid");
  // 3912x2568: 341 tiles of 128x256 in 3 waves, 86% busy; 1480x3800: 180 in 2, 68%: the 128x128
  // tile (measured faster there); 3000x2600: 264 in 2 waves, full: the 128x256 tile
  EXPECT_EQ(chosen(3912, 2568, 2400), large);
  EXPECT_EQ(chosen(1480, 3800, 640), large);
  EXPECT_EQ(chosen(3000, 2600, 2400), "cp_async_128x256x16_w64x64_t8x16_s3_lean_mid");
}

TEST(AutoRule, BetweenOne128x128TilePerSmAndAWaveOf128x256Tiles) {
  // 1536^2: 144 tiles of 128x128 (>= 132 SMs), 72 of 128x256 (< 7/8 of 132); with K = 512 the
  // tuned 128x128 tile runs unsplit
  EXPECT_TRUE(starts_with(chosen(1536, 1536, 512), "tuned_large_128x128x8_"))
      << chosen(1536, 1536, 512);
}

TEST(AutoRule, FewerThanTwo128x128TilesPerSmSplitKToFillTheWaves) {
  // 144 (1536^3) or 105 (365x4393x2315) tiles of 128x128 against 264 slots, K >= 1024: the
  // longk instance, whose K split fills the waves; its any-alignment twin for an odd pitch
  for (auto shape : {std::array<std::int64_t, 3>{1536, 1536, 1536},
                     {365, 4393, 2315},
                     {1024, 1024, 1024},
                     {2112, 1504, 6004}}) {
    const std::string name = chosen(shape[0], shape[1], shape[2], Layout::kColMajor);
    EXPECT_TRUE(starts_with(name, "tuned_longk_128x128x8_") && ends_with(name, "_splitk"))
        << shape[0] << "x" << shape[1] << "x" << shape[2] << ": " << name;
  }
  EXPECT_EQ(chosen(2315, 4393, 365, Layout::kColMajor, 1).find("tuned_longk_"), std::string::npos)
      << "K < 1024 keeps the small split tile";
  const std::string odd = chosen(1536, 1536, 1536, Layout::kRowMajor, 1);
  EXPECT_TRUE(starts_with(odd, "tuned_longk_") && odd.find("_anyalign") != std::string::npos)
      << odd;
}

// By default (set_fp32_math(kThreeTf32)), on sm_90, an fp32 product with M and N past 32 and
// M N >= 288 (M + N) runs as three tf32 products (rung 22): the 128x64 tile where 128x128 tiles
// leave SMs idle, else the 128x128 tile, at any pitch or alignment; the shapes bound by one
// operand's bytes keep the CUDA cores, and so does every shape under kSimt.
TEST(AutoRule, Fp32TakesThreeTf32ProductsOnHopper) {
  if (find_kernel("wgmma_3xtf32_128x128x32_s6_ts_p4") == nullptr) {
    GTEST_SKIP() << "built without sm_90a";
  }
  const char* getenv_math = std::getenv("TILEGEMM_FP32_MATH");
  if (getenv_math == nullptr) {
    EXPECT_EQ(fp32_math(), Fp32Math::kThreeTf32) << "the default";
  }
  constexpr Fp32Math kX3 = Fp32Math::kThreeTf32;
  const std::string x128 = "wgmma_3xtf32_128x128x32_s6_ts_p4";
  for (Layout lb : {Layout::kRowMajor, Layout::kColMajor}) {
    EXPECT_EQ(chosen(4096, 4096, 4096, lb, 0, kX3), x128);
    EXPECT_EQ(chosen(4095, 4095, 4095, lb, 1, kX3), x128);
    EXPECT_EQ(chosen(1536, 1536, 1536, lb, 0, kX3), x128);
    EXPECT_EQ(chosen(1000, 1000, 1000, lb, 0, kX3), "wgmma_3xtf32_128x64x32_s8_ts_p4");
    EXPECT_EQ(chosen(5948, 599, 333, lb, 0, kX3), x128);
    EXPECT_EQ(chosen(640, 2000, 1000, lb, 0, kX3), x128);
    // thin K (2..32) on a C of 2^22 elements or more: rung 25's strip walk on three tf32
    // products (past K = 16 only where an operand's pitch is off 16 bytes); under kSimt thin_k
    // (ThinKShapesTakeThinK), and rung 22 on a smaller C
    EXPECT_EQ(chosen(7155, 5417, 26, lb, 0, kX3), "thin_k_mma_16x512");  // ld 26: off 16 bytes
    EXPECT_EQ(chosen(2982, 6722, 2, lb, 0, kX3), "thin_k_mma_16x512");
    EXPECT_EQ(chosen(863, 5519, 27, lb, 0, kX3), "thin_k_mma_16x512");
    EXPECT_NE(chosen(2982, 6722, 33, lb, 0, kX3), "thin_k_mma_16x512");
    EXPECT_EQ(chosen(4096, 4096, 32, lb, 0, kX3), x128);  // 16-byte pitches, K past 16
    EXPECT_NE(chosen(1000, 4000, 27, lb, 0, kX3), "thin_k_mma_16x512");  // under 2^22
    EXPECT_EQ(chosen(7155, 5417, 26, lb, 0, Fp32Math::kSimt), "thin_k");
    // bound by the bytes of the split operands, or too short a K: the CUDA cores (with B
    // column-major and of odd pitch, the in-kernel split reads it in place: Fp32SmallMOrNWith...)
    if (lb == Layout::kRowMajor) {
      EXPECT_TRUE(starts_with(chosen(40, 5574, 527, lb, 0, kX3), "tuned_"));
    }
    if (lb == Layout::kRowMajor) {  // (column-major: Fp32SmallMOrNReadInPlace...)
      // B (the wide side's operand) and C along N: rung 29 (Fp32NarrowLongKTakesRung29)
      EXPECT_EQ(chosen(64, 4096, 4096, lb, 0, kX3), "mma_3xtf32_128x32");
    }
    EXPECT_TRUE(starts_with(chosen(576, 471, 161, lb, 0, kX3), "tuned_"));
    // small M or N with a longer K, where the CUDA cores' tiles run far below their peak
    EXPECT_EQ(chosen(169, 3579, 1383, lb, 0, kX3).rfind("wgmma_3xtf32_", 0), 0u);
    EXPECT_EQ(chosen(1000, 329, 4514, lb, 0, kX3), x128);
    EXPECT_EQ(chosen(1, 8192, 8192, lb, 0, kX3), "gemv");
    EXPECT_EQ(chosen(2, 8192, 8192, lb, 0, kX3), "narrow_n4");
    EXPECT_EQ(chosen(3404, 5730, 1, lb, 0, kX3), "thin_k");
    // thin K from 33 and a long K over few 128x128 tiles: the 128x128 tile; thin K on a large
    // C, rung 25's strip walk (below)
    EXPECT_EQ(chosen(4096, 4096, 64, lb, 0, kX3), x128);
    EXPECT_EQ(chosen(4096, 4096, 16, lb, 0, kX3), "thin_k_mma_16x512");
    EXPECT_EQ(chosen(4096, 4096, 15, lb, 0, kX3), "thin_k_mma_16x512");
    EXPECT_EQ(chosen(2048, 2048, 16, lb, 0, kX3), "thin_k_mma_16x512");
    EXPECT_EQ(chosen(1024, 2048, 16, lb, 0, kX3), x128);
    EXPECT_EQ(chosen(1024, 2048, 15, lb, 0, kX3), "thin_k");
    EXPECT_EQ(chosen(1024, 1024, 8192, lb, 0, kX3), x128);
    EXPECT_EQ(chosen(1024, 1024, 2047, lb, 0, kX3), "wgmma_3xtf32_128x64x32_s8_ts_p4");
    // the CUDA cores only
    EXPECT_TRUE(starts_with(chosen(4096, 4096, 4096, lb), "cp_async_128x256x"));
  }
}

// M or N of 16..256 against a long side of 256 or more and K >= 512, whose long-side operand a
// tensor map reads in place (A in either layout, B column-major; 16-byte base and pitch), or M
// or N of 48..192 with K >= 256, 2^25 multiply-adds and a long-side operand of at most 40 MiB
// (copied): rung 22's in-kernel split, on 64x64 tiles where the oriented N is at most 64, K <
// 512, or 64x128 tiles fill more than a third of the SMs and 64x64 tiles at most a wave with K <
// 4096, else on 64x128 tiles. Not otherwise, nor under kSimt.
TEST(AutoRule, Fp32SmallMOrNTakesTheInKernelSplit) {
  const std::string cs128 = "wgmma_3xtf32_64x128x32_s8_p1_cs";
  const std::string cs64 = "wgmma_3xtf32_64x64x32_s12_p1_cs";
  if (find_kernel(cs128) == nullptr) GTEST_SKIP() << "built without sm_90a";
  constexpr Fp32Math kX3 = Fp32Math::kThreeTf32;
  constexpr Layout kRow = Layout::kRowMajor;
  constexpr Layout kCol = Layout::kColMajor;
  EXPECT_EQ(chosen(64, 8192, 8192, kCol, 0, kX3), cs128);
  EXPECT_EQ(chosen(64, 4096, 4096, kCol, 0, kX3), cs128);
  // (16 x 4096 x 4096 with K >= 1024: rung 29, Fp32NarrowLongKTakesRung29)
  EXPECT_EQ(chosen(256, 4096, 4096, kCol, 0, kX3), cs128);
  EXPECT_EQ(chosen(36, 7672, 1728, kCol, 0, kX3), cs64);  // 60 tiles of 64x128
  // the long side is A's (row-major); past a wave of 32x32 tiles (under it, at K <= 2048, rung
  // 28: Fp32TinyProductsTakeRung28)
  EXPECT_EQ(chosen(4502, 24, 640, kCol, 0, kX3), cs64);
  EXPECT_EQ(chosen(3384, 42, 6316, kRow, 0, kX3), cs64);
  // the long side's A column-major (M-major): its fragments are read from either layout
  EXPECT_EQ(chosen_in(4096, 64, 4096, kCol, kRow, kRow, kX3), cs64);
  // under a column-major C, A takes B's role in the kernel, which must be K-major: copied, and
  // 64 MiB is past the copy bound
  const std::string copied = chosen_in(4096, 64, 4096, kCol, kRow, kCol, kX3);
  EXPECT_FALSE(ends_with(copied, "_cs")) << copied;
  // copied (B row-major here): M or N of 48..192, the long side's operand of at most 40 MiB
  EXPECT_EQ(chosen(131, 4188, 2207, kRow, 0, kX3), cs128);
  EXPECT_EQ(chosen(169, 3579, 1383, kRow, 0, kX3), cs128);
  EXPECT_EQ(chosen(139, 5420, 288, kRow, 0, kX3), cs64);  // K < 512
  // (63 x 2318 x 3586, B row-major: B and C along N, rung 29: Fp32NarrowLongKTakesRung29)
  for (const std::string& other :
       {chosen(64, 8192, 8192, kRow, 0, kX3), chosen(8, 8192, 8192, kCol, 0, kX3),
        chosen(300, 4096, 4096, kCol, 0, kX3), chosen(64, 4096, 200, kCol, 0, kX3),
        chosen(64, 200, 4096, kCol, 0, kX3), chosen(45, 7302, 1944, kRow, 0, kX3),
        chosen(269, 113, 322, kRow, 0, kX3)}) {
    EXPECT_FALSE(ends_with(other, "_cs")) << other;
  }
  EXPECT_FALSE(starts_with(chosen(64, 8192, 8192, kCol), "wgmma_3xtf32")) << "under kSimt";
}

// fp32 with M or N of 10..256 where the long side's operand has a pitch or base no tensor map
// reads: the in-kernel split loaded by element copies, which reads it in place (no copy), in the
// roles the split reads (A in either layout, a K-major B), by the same tile test or on 64x64
// tiles where those are at most 16.
TEST(AutoRule, Fp32SmallMOrNWithAnOddPitchTakesTheSplitWithElementCopies) {
  const std::string ra128 = "wgmma_3xtf32_64x128x32_s8_ra_p1_cs";
  const std::string ra64 = "wgmma_3xtf32_64x64x32_s12_ra_p1_cs";
  if (find_kernel(ra128) == nullptr) GTEST_SKIP() << "built without sm_90a";
  constexpr Fp32Math kX3 = Fp32Math::kThreeTf32;
  constexpr Layout kRow = Layout::kRowMajor;
  constexpr Layout kCol = Layout::kColMajor;
  // a K-major B of odd pitch (row-major C: B is the kernel's B)
  EXPECT_EQ(chosen(64, 8191, 8191, kCol, 0, kX3), ra128);
  EXPECT_EQ(chosen(33, 2501, 5639, kCol, 0, kX3), ra128);  // 12..32 of them: rung 29
  EXPECT_EQ(chosen(10, 2501, 5639, kCol, 0, kX3), ra128);
  EXPECT_EQ(chosen(40, 5574, 527, kCol, 0, kX3), ra128);
  // the long side A (row-major, odd pitch) in either B layout
  for (Layout lb : {kRow, kCol}) EXPECT_EQ(chosen(5312, 122, 3719, lb, 0, kX3), ra128);
  // at most 16 tiles of 64x64: the 64x64 tile (11 x 531 x 727 is a small product: rung 24)
  EXPECT_EQ(chosen(11, 531, 2727, kCol, 0, kX3), ra64);
  // a base off 16 bytes
  EXPECT_EQ(chosen(64, 4096, 4096, kCol, 1, kX3), ra128);
  // the long side A (row-major, odd pitch): the 64x64 tile where N <= 64 (N of 12..32 with K >=
  // 1024: rung 29)
  EXPECT_EQ(chosen(2491, 31, 1011, kCol, 0, kX3), ra64);
  // A M-major in the kernel's A role, odd pitch (with 9..16 columns rung 21's 16-column kernel
  // reads it: NineToSixteenColumnsReadDownColumnsInF32TakeNarrowN16)
  EXPECT_EQ(chosen_in(5169, 40, 1413, kCol, kRow, kRow, kX3), ra64);
  // not: a 16-byte pitch (the TMA split), an N-major long B, M or N of 9 or of 257, K < 512,
  // the long side under 256, kSimt
  for (const std::string& other :
       {chosen(64, 4096, 4096, kCol, 0, kX3), chosen(64, 8191, 8191, kRow, 0, kX3),
        chosen(9, 8191, 8191, kCol, 0, kX3), chosen(257, 8191, 8191, kCol, 0, kX3),
        chosen(64, 8191, 511, kCol, 0, kX3), chosen(64, 255, 8191, kCol, 0, kX3),
        chosen(64, 8191, 8191, kCol)}) {
    EXPECT_FALSE(ends_with(other, "_ra_p1_cs")) << other;
  }
}

// fp32 with M or N of 12..32 against 2048 or more and K >= 1024: rung 29's 128x32 mma.sync tile
// (the narrow side as its N) in every layout mix, at 16-byte and odd pitches, ahead of rung 22's
// in-kernel split; not with 11 columns, a wide side under 2048, K under 1024 or kSimt. With 33..64
// columns only where C and the wide side's operand run along the wide side.
TEST(AutoRule, Fp32NarrowLongKTakesRung29) {
  const std::string mma = "mma_3xtf32_128x32";
  ASSERT_NE(find_kernel(mma), nullptr);
  constexpr Fp32Math kX3 = Fp32Math::kThreeTf32;
  constexpr Layout kRow = Layout::kRowMajor;
  constexpr Layout kCol = Layout::kColMajor;
  for (Layout la : {kRow, kCol}) {
    for (Layout lb : {kRow, kCol}) {
      for (Layout lc : {kRow, kCol}) {
        SCOPED_TRACE(std::to_string(static_cast<int>(la)) + std::to_string(static_cast<int>(lb)) +
                     std::to_string(static_cast<int>(lc)));
        EXPECT_EQ(chosen_in(32, 4533, 1297, la, lb, lc, kX3), mma);
        EXPECT_EQ(chosen_in(5891, 29, 4519, la, lb, lc, kX3), mma);
        // (12 x 2048 x 1024 and others of K <= 2048 over at most a wave of 32x32 tiles: rung 28,
        // Fp32TinyProductsTakeRung28)
        EXPECT_EQ(chosen_in(12, 4300, 1024, la, lb, lc, kX3), mma);
        EXPECT_EQ(chosen_in(24, 6000, 5000, la, lb, lc, kX3, 0, 1), mma);  // odd pitches
      }
    }
  }
  EXPECT_EQ(chosen(16, 4096, 4096, kCol, 0, kX3), mma);
  for (const std::string& other :
       {chosen(11, 4533, 1297, kCol, 0, kX3), chosen(33, 4533, 1297, kCol, 0, kX3),
        chosen(32, 2047, 1297, kCol, 0, kX3), chosen(32, 4533, 1023, kCol, 0, kX3),
        chosen(32, 4533, 1297, kCol)}) {
    EXPECT_NE(other, mma);
  }
  // 33..64 columns: N wide with B and C row-major, or M wide with A and C column-major, either
  // layout of the narrow operand, at 16-byte and odd pitches
  for (Layout narrow : {kRow, kCol}) {
    EXPECT_EQ(chosen_in(33, 2048, 1024, narrow, kRow, kRow, kX3), mma);
    EXPECT_EQ(chosen_in(64, 8192, 4096, narrow, kRow, kRow, kX3, 0, 1), mma);
    EXPECT_EQ(chosen_in(8192, 48, 1024, kCol, narrow, kCol, kX3), mma);
    EXPECT_EQ(chosen_in(6685, 33, 6294, kCol, narrow, kCol, kX3, 0, 1), mma);
  }
  // ... not where C or the wide operand runs another way, past 64 columns or under K = 1024
  for (const std::string& other : {chosen_in(64, 8192, 4096, kRow, kCol, kRow, kX3),
                                   chosen_in(64, 8192, 4096, kRow, kRow, kCol, kX3),
                                   chosen_in(8192, 64, 4096, kRow, kRow, kCol, kX3),
                                   chosen_in(8192, 64, 4096, kCol, kRow, kRow, kX3),
                                   chosen_in(65, 8192, 4096, kRow, kRow, kRow, kX3),
                                   chosen_in(64, 8192, 1023, kRow, kRow, kRow, kX3)}) {
    EXPECT_NE(other, mma);
  }
}

// fp32 with M or N of 96..256 against 3000 or more, K of 128..255, at least 400,000 elements of
// C and the wide operand K-major at a 16-byte pitch: rung 22's in-kernel split on its 64x128 tile
// where no 128-row tensor rule holds; not with the wide operand M/N-major, at an odd pitch, past
// the bounds or under kSimt.
TEST(AutoRule, Fp32ShortKUnderAThinCTakesTheInKernelSplit) {
  const std::string cs128 = "wgmma_3xtf32_64x128x32_s8_p1_cs";
  if (find_kernel(cs128) == nullptr) GTEST_SKIP() << "built without sm_90a";
  constexpr Fp32Math kX3 = Fp32Math::kThreeTf32;
  constexpr Layout kRow = Layout::kRowMajor;
  constexpr Layout kCol = Layout::kColMajor;
  for (Layout la : {kRow, kCol}) {
    for (Layout lc : {kRow, kCol}) {
      EXPECT_EQ(chosen_in(117, 7598, 168, la, kCol, lc, kX3), cs128);  // N wide, B K-major
      EXPECT_EQ(chosen_in(160, 3000, 128, la, kCol, lc, kX3), cs128);
      EXPECT_EQ(chosen_in(7000, 96, 192, kRow, la, lc, kX3), cs128);  // M wide, A K-major
    }
  }
  for (const std::string& other :
       {chosen_in(117, 7598, 168, kRow, kRow, kRow, kX3),        // B N-major
        chosen_in(117, 7598, 168, kCol, kRow, kCol, kX3),        // B N-major (the kernel's A)
        chosen_in(117, 7598, 168, kRow, kCol, kRow, kX3, 0, 1),  // odd pitches
        chosen_in(96, 3000, 192, kRow, kCol, kRow, kX3),         // under 400,000 elements of C
        chosen_in(95, 7000, 192, kRow, kCol, kRow, kX3),
        chosen_in(117, 2999, 168, kRow, kCol, kRow, kX3),
        chosen_in(117, 7598, 127, kRow, kCol, kRow, kX3),
        chosen_in(117, 7598, 256, kRow, kCol, kRow, kX3),
        chosen_in(117, 7598, 168, kRow, kCol, kRow, Fp32Math::kSimt)}) {
    EXPECT_NE(other, cs128);
  }
}

// fp32 with M or N of 33..64 against 2048 or more, K of 250..511 and the long operand at an odd
// pitch read in place: rung 22's 64x64 split with element copies (from K = 512 the
// kF32InKernelAnyPitch rules take them); not with 32 or 65 of them, a long side under 2048, K of
// 249, a 16-byte pitch or kSimt.
TEST(AutoRule, Fp32MidKWithAnOddPitchTakesTheSplitWithElementCopies) {
  const std::string ra64 = "wgmma_3xtf32_64x64x32_s12_ra_p1_cs";
  if (find_kernel(ra64) == nullptr) GTEST_SKIP() << "built without sm_90a";
  constexpr Fp32Math kX3 = Fp32Math::kThreeTf32;
  constexpr Layout kRow = Layout::kRowMajor;
  constexpr Layout kCol = Layout::kColMajor;
  EXPECT_EQ(chosen_in(33, 3620, 321, kRow, kCol, kCol, kX3), ra64);
  EXPECT_EQ(chosen_in(3697, 39, 282, kRow, kCol, kCol, kX3), ra64);
  EXPECT_EQ(chosen_in(39, 6727, 254, kRow, kCol, kCol, kX3), ra64);
  for (const std::string& other : {chosen_in(32, 3620, 321, kRow, kCol, kCol, kX3),
                                   chosen_in(65, 3620, 321, kRow, kCol, kCol, kX3),
                                   chosen_in(33, 2047, 321, kRow, kCol, kCol, kX3),
                                   chosen_in(33, 3620, 249, kRow, kCol, kCol, kX3),
                                   chosen_in(36, 3620, 320, kRow, kCol, kCol, kX3),
                                   chosen_in(33, 3620, 321, kRow, kCol, kCol, Fp32Math::kSimt)}) {
    EXPECT_NE(other, ra64);
  }
}

// A TILEGEMM_FP32_MATH that is neither value gets a one-line note naming it (the CLI prints it);
// the two values and no variable get none.
TEST(AutoRule, Fp32MathEnvironmentNote) {
  const char* saved = std::getenv("TILEGEMM_FP32_MATH");
  const std::string before = saved != nullptr ? saved : "";
  ::setenv("TILEGEMM_FP32_MATH", "tf32", 1);
  const std::string note = fp32_math_env_note();
  EXPECT_NE(note.find("TILEGEMM_FP32_MATH='tf32'"), std::string::npos) << note;
  EXPECT_NE(note.find("neither '3xtf32' nor 'simt'"), std::string::npos) << note;
  for (const char* ok : {"3xtf32", "simt"}) {
    ::setenv("TILEGEMM_FP32_MATH", ok, 1);
    EXPECT_EQ(fp32_math_env_note(), "") << ok;
  }
  ::unsetenv("TILEGEMM_FP32_MATH");
  EXPECT_EQ(fp32_math_env_note(), "");
  if (saved != nullptr) ::setenv("TILEGEMM_FP32_MATH", before.c_str(), 1);
}

TEST(AutoRule, NarrowShapesTakeTheNarrowFamily) {
  // M or N of 2..4: narrow_n4 at any K, in both orientations and B layouts; 5..8 against
  // K >= 512 narrow_n8 (FiveToEightColumnsAgainstALongKInF32TakeNarrowN8); wider, the SIMT tiles
  for (Layout lb : {Layout::kRowMajor, Layout::kColMajor}) {
    EXPECT_EQ(chosen(2394, 3, 4182, lb), "narrow_n4");
    EXPECT_EQ(chosen(2, 8192, 8192, lb), "narrow_n4");
    EXPECT_EQ(chosen(4, 4, 8191, lb), "narrow_n4");  // K past rung 24's small products
    EXPECT_EQ(chosen(6, 2834, 1188, lb), "narrow_n8");
    EXPECT_TRUE(starts_with(chosen(6, 2834, 500, lb), "tuned_")) << chosen(6, 2834, 500, lb);
    EXPECT_TRUE(starts_with(chosen(9, 4096, 4096, lb), "tuned_skinny_"));
  }
}

// M or N of 2..4 against K of 65..512 and a long side of at least 128, the wide operand K-major
// (A row-major under a narrow N, B column-major under a narrow M): narrow_n4 ahead of the tiny
// and small tiles; the wide operand along the long side, or K outside 65..512, keeps the rules
// past it.
TEST(AutoRule, NarrowTo4AgainstAMidKInF32TakesNarrowN4) {
  const Layout r = Layout::kRowMajor, c = Layout::kColMajor;
  for (Layout lc : {r, c}) {
    EXPECT_EQ(chosen_in(5120, 2, 256, r, c, lc, Fp32Math::kThreeTf32), "narrow_n4");
    EXPECT_EQ(chosen_in(1024, 4, 128, r, r, lc, Fp32Math::kThreeTf32), "narrow_n4");
    EXPECT_EQ(chosen_in(2, 8192, 128, r, c, lc, Fp32Math::kThreeTf32), "narrow_n4");
    EXPECT_EQ(chosen_in(3, 253, 145, c, c, lc, Fp32Math::kThreeTf32, 0, 1), "narrow_n4");
    EXPECT_NE(chosen_in(2, 8192, 128, r, r, lc, Fp32Math::kThreeTf32), "narrow_n4");
    EXPECT_NE(chosen_in(1024, 4, 128, c, r, lc, Fp32Math::kThreeTf32), "narrow_n4");
    EXPECT_NE(chosen_in(1024, 4, 64, r, r, lc, Fp32Math::kThreeTf32), "narrow_n4");
    EXPECT_NE(chosen_in(112, 2, 407, r, r, lc, Fp32Math::kThreeTf32), "narrow_n4");
  }
}

// A narrow 16-bit product whose wide operand runs along the long side (A column-major under a
// narrow N, B row-major under a narrow M): rung 28 for M or N of 2..8 with 13 <= K <= 2048 at odd
// pitches, to 8192 at 16-byte pitches with the narrow operand along its narrow side too; of 9..16
// with that narrow operand and 13 <= K <= 512 (1024 at odd pitches).
TEST(AutoRule, NarrowProductsAlongTheLongSideTakeRung28In16BitTypes) {
  alignas(16) static std::uint16_t buf[64];
  const Layout r = Layout::kRowMajor, c = Layout::kColMajor;
  for (GemmTypes t : {GemmTypes{DType::kBF16, DType::kBF16}, GemmTypes{DType::kF16, DType::kF32}}) {
    auto pick = [&](std::int64_t m, std::int64_t n, std::int64_t k, Layout la, Layout lb,
                    std::int64_t pad = 0) {
      Problem p = Problem::make_typed(m, n, k, t, buf, buf, buf, 1.0f, 0.0f, la, lb, c);
      p.a.ld += pad;
      p.b.ld += pad;
      p.c.ld += pad;
      const KernelInfo* chosen = select_kernel(p, 90);
      return chosen == nullptr ? std::string("(none)") : chosen->name;
    };
    const std::string tiny = "tiny_mma_32x32";
    EXPECT_EQ(pick(8192, 8, 1024, c, r), tiny);
    EXPECT_EQ(pick(8192, 8, 2048, c, r, 1), tiny);
    // 16-byte pitches with K >= 2048 and 8..48 columns along their narrow side: rung 16's
    // transposed copy of them under rung 18's tile, the wide operand in either layout
    const std::string copied = "wgmma_64x64x64_s13_pad";
    EXPECT_EQ(pick(8192, 8, 8192, c, r), copied);
    EXPECT_EQ(pick(8192, 8, 2048, c, r), copied);
    EXPECT_EQ(pick(5120, 32, 4096, r, r), copied);
    EXPECT_EQ(pick(48, 2560, 2048, c, c), copied);
    EXPECT_NE(pick(5120, 56, 4096, c, r), copied);
    EXPECT_NE(pick(5120, 32, 1024, c, r), copied);
    EXPECT_NE(pick(5120, 32, 4096, r, c), copied);
    EXPECT_NE(pick(16384, 16, 4096, c, r), copied);
    EXPECT_NE(pick(1024, 16, 4096, c, r), copied);
    // A and B K-major at 16-byte pitches: rung 28's split over a cluster up to 16 columns, rung
    // 18's tile in place from 17
    EXPECT_EQ(pick(1024, 16, 4096, r, c), tiny);
    EXPECT_EQ(pick(1024, 32, 4096, r, c), "wgmma_64x64x64_s13");
    EXPECT_EQ(pick(48, 1024, 2048, r, c), "wgmma_64x64x64_s13");
    EXPECT_EQ(pick(1024, 32, 4096, r, c, 1), tiny);
    EXPECT_NE(pick(8192, 8, 8192, c, r, 1), tiny);
    EXPECT_EQ(pick(5120, 16, 512, c, r), tiny);
    EXPECT_NE(pick(5120, 16, 1024, c, r), tiny);
    EXPECT_EQ(pick(5120, 16, 1024, c, r, 1), tiny);
    EXPECT_NE(pick(5120, 24, 256, c, r), tiny);
    EXPECT_EQ(pick(4, 5120, 256, c, r), tiny);
    // the narrow operand K-major: at 16-byte pitches rung 18's short boxes read it; at others
    // rung 28 up to 8 columns only
    EXPECT_NE(pick(4, 5120, 256, r, r), tiny);
    EXPECT_EQ(pick(4, 5120, 256, r, r, 1), tiny);
    EXPECT_NE(pick(5120, 12, 256, c, c, 1), tiny);
    EXPECT_NE(pick(8192, 8, 1024, r, c), tiny);
    EXPECT_NE(pick(8, 8192, 1024, r, c), tiny);
    EXPECT_NE(pick(8192, 8, 1024, c, r), "wgmma_64x64x64_s13");
  }
}

// Rung 24 in every type: at most one 32x32 tile per SM, K <= 4096 and under 2^24 multiply-adds
// (in fp32 2^25) over whole 32x32 tiles, ahead of every rule but the matrix-vector products
// (and, in fp32, the tiny products of TinyF32ProductsTakeRung2; in bf16 and f16 those of
// TinyProductsTakeRung28In16BitTypes, which on sm_90 take K past 512 too); any pitch.
TEST(AutoRule, SmallProductsTakeRung24) {
  const std::string kSmall = "small_32x32x32";
  for (GemmTypes t : kFourTypes) {
    SCOPED_TRACE(gemm_types_name(t));
    // (in bf16 and f16 K <= 80 over at most 8 16x8 tiles per SM: rung 28's 16x8 tile first)
    const bool sixteen = t.ab == DType::kBF16 || t.ab == DType::kF16;
    for (const auto& s : std::vector<std::array<std::int64_t, 3>>{{1025, 125, 46}, {137, 252, 9}}) {
      EXPECT_EQ(chosen_for(t, s[0], s[1], s[2]), sixteen ? "tiny_mma_16x8" : kSmall)
          << s[0] << "x" << s[1] << "x" << s[2];
    }
    // rung 28's class in bf16 and f16
    for (const auto& s : std::vector<std::array<std::int64_t, 3>>{
             {5, 9, 187}, {89, 20, 170}, {24, 28, 2637}, {16, 103, 1440}, {64, 64, 2048}}) {
      EXPECT_EQ(chosen_for(t, s[0], s[1], s[2]), sixteen ? "tiny_mma_32x32" : kSmall)
          << s[0] << "x" << s[1] << "x" << s[2];
    }
    // not: a K past 4096, more 32x32 tiles than SMs (1056 x 160: 165), 2^25 multiply-adds or
    // more (256 x 512 x 256 exactly), a matrix-vector product
    for (const auto& s : std::vector<std::array<std::int64_t, 3>>{
             {31, 32, 7791}, {1056, 160, 8}, {55, 3769, 33}, {256, 512, 256}, {1, 200, 300},
             {300, 1, 200}}) {
      EXPECT_NE(chosen_for(t, s[0], s[1], s[2]), kSmall) << s[0] << "x" << s[1] << "x" << s[2];
    }
    // 2^24 multiply-adds up to 2^25: fp32 only, outside rung 28's fp32 class (fewer than 48
    // tiles at K of 257..512, at most 8 tiles at K past 512; 256^3 and 1733 x 31 x 375 are in it:
    // Fp32TinyProductsTakeRung28)
    EXPECT_EQ(chosen_for(t, 160, 256, 500) == kSmall, t.ab == DType::kF32);
    EXPECT_EQ(chosen_for(t, 64, 128, 3000) == kSmall, t.ab == DType::kF32);
  }
}

// A small product (rung 24's class, at most one 32x32 tile per SM) with K of 49..80 in bf16 and
// f16, once rung 27's 64x64 tile, takes rung 28's 16x8 tile (at most 8 16x8 tiles per SM hold
// every such product) at any pitch, with K of 81..128 rung 28's 32x32 tile (kTinyMma16); fp32 and
// tf32 stay with rung 24 (no rung-28 instance computes tf32; fp32 takes rung 28 from K = 97 over
// at least 32 tiles: 500 x 200 x 129).
TEST(AutoRule, SmallProductsOfMidKTakeRung28In16BitTypes) {
  for (GemmTypes t : kFourTypes) {
    const bool wide = t.ab == DType::kF32 || t.ab == DType::kTF32;
    SCOPED_TRACE(gemm_types_name(t));
    for (std::int64_t pad : {0, 1}) {
      for (const auto& s : std::vector<std::array<std::int64_t, 3>>{
               {1025, 125, 50}, {512, 256, 64}, {300, 300, 49}, {1025, 125, 80}}) {
        EXPECT_EQ(chosen_for(t, s[0], s[1], s[2], pad), wide ? "small_32x32x32" : "tiny_mma_16x8")
            << s[0] << "x" << s[1] << "x" << s[2] << " pad " << pad;
      }
      EXPECT_EQ(chosen_for(t, 1025, 125, 81, pad), wide ? "small_32x32x32" : "tiny_mma_32x32");
      EXPECT_NE(chosen_for(t, 1025, 125, 81, pad), "small_mma_64x64");
    }
    EXPECT_EQ(chosen_for(t, 500, 200, 129, 0),
              t.ab == DType::kTF32 ? "small_32x32x32" : "tiny_mma_32x32");
  }
}

// Rung 28 in bf16 and f16: M and N over 1, at most one 32x32 tile per SM, 8 <= K <= 512, and
// K > 64 where the tiles fill more than half the SMs (H100: 132 SMs); on sm_90 also
// 512 < K <= 8192 over at most half the SMs' tiles, with K at most 1024 x min(8, SMs / tiles)
// (its split over a cluster, at most four rounds of loads a warp), more than 8 tiles where
// K <= 1024 and M or N under 128; at any
// pitch, ahead of rungs 24, 27, 21 and 23 (fp32 takes some of these by its own rules:
// Fp32TinyProductsTakeRung28). Not tf32 (no rung-28 instance computes it),
// not K < 8 or K > 8192, not K > 512 past those bounds or on sm_80 (no clusters), not more tiles
// than SMs, not a matrix-vector product, not K <= 12 over at most 2^15 outputs (rung 1:
// TinyShortK16BitProductsTakeRung1).
TEST(AutoRule, TinyProductsTakeRung28In16BitTypes) {
  for (GemmTypes t : kFourTypes) {
    const bool wide = t.ab == DType::kF32 || t.ab == DType::kTF32;
    SCOPED_TRACE(gemm_types_name(t));
    for (std::int64_t pad : {0, 1}) {
      // (K <= 80 over at most 8 16x8 tiles per SM takes rung 28's 16x8 tile:
      // TinyProductsOfKUpTo80TakeRung28s16x8Tile)
      expect_16bit_takes(t, "tiny_mma_32x32",
                         Shapes{{12, 47, 81},
                                {58, 9, 87},
                                {9, 1721, 83},
                                {1025, 125, 96},
                                {2, 2, 300},
                                {16, 103, 1025},
                                {129, 65, 1537},
                                {8, 8, 8192}},
                         pad);
      // (fp32 too, by its own rules: Fp32TinyProductsTakeRung28)
      expect_taken_but_tf32(t, "tiny_mma_32x32",
                            Shapes{{2369, 7, 144},
                                   {2768, 18, 264},
                                   {200, 300, 512},
                                   {100, 100, 600},
                                   {127, 150, 800},
                                   {2, 2048, 1000}},
                            pad);
      // K past 8192 or under 8, more tiles than SMs, K <= 64 over more tiles than half the SMs,
      // K past 1024 x min(8, SMs / tiles) (64 tiles: 2048; 25 tiles: 5120), K of 513..1024
      // over at most 8 tiles, M and N both 128 or more past K = 512, past K = 512 more tiles than
      // half the SMs unless M or N is 2..8 with K <= 4096 or 9..32 with K <= 2048 (then past
      // those: 2 x 2187 x 4097, 2502 x 24 x 2049), a matrix-vector product
      expect_not_taken(t, "tiny_mma_32x32",
                       Shapes{{8, 8, 8193},
                              {2, 2048, 2049},
                              {2502, 24, 2049},
                              {128, 256, 2048},
                              {16, 103, 513},
                              {75, 20, 1024},
                              {2, 2187, 4097},
                              {160, 160, 5121},
                              {16, 103, 7},
                              {1056, 160, 100},
                              {1025, 125, 64},
                              {1, 200, 300},
                              {300, 1, 200}},
                       pad);
      // 35 tiles of M and N of 128 or more at K = 800: not in 16-bit types, but in fp32's class
      // (Fp32TinyProductsTakeRung28)
      EXPECT_EQ(chosen_for(t, 200, 150, 800, pad) == "tiny_mma_32x32", t.ab == DType::kF32);
      // Past half the SMs with 9..32 columns and K <= 2048, rung 28 only where no tensor map
      // reads the operands (the wgmma tile's rules come first: 2502 x 24 x 640 at a 16-byte pitch);
      // in fp32 at either pitch
      EXPECT_EQ(chosen_for(t, 2502, 24, 640, pad) == "tiny_mma_32x32",
                t.ab == DType::kF32 || (!wide && pad == 1));
      // sm_80: K past 512 stays off rung 28, K up to 512 does not
      EXPECT_NE(chosen_for(t, 16, 103, 1440, pad, 80), "tiny_mma_32x32");
      EXPECT_EQ(chosen_for(t, 89, 20, 170, pad, 80) == "tiny_mma_32x32", !wide);
    }
  }
}

// Rung 28's 16x8 tile in bf16 and f16: K <= 80 over at most 8 16x8 tiles of C per SM (132 SMs:
// 1056; counted on C as a row-major C, so a column-major C counts 16 rows of C^T), at any pitch,
// ahead of every rule but rung 1's tiny K and the matrix-vector products. Not K of 81, more
// 16x8 tiles, M or N past 8192, fp32 or tf32, a vector, nor K <= 12 over at most 2^15 outputs
// (rung 1).
TEST(AutoRule, TinyProductsOfKUpTo80TakeRung28s16x8Tile) {
  for (GemmTypes t : kFourTypes) {
    const bool wide = t.ab == DType::kF32 || t.ab == DType::kTF32;
    SCOPED_TRACE(gemm_types_name(t));
    for (std::int64_t pad : {0, 1}) {
      expect_16bit_takes(t, "tiny_mma_16x8",
                         Shapes{{12, 47, 77},
                                {58, 9, 67},
                                {16, 16, 13},
                                {2, 2187, 64},
                                {1025, 125, 65},
                                {4337, 2, 18},
                                {16, 8192, 80},
                                {7135, 8, 56}},
                         pad);
      expect_not_taken(t, "tiny_mma_16x8",
                       Shapes{{12, 47, 81},
                              {17, 8448, 80},
                              {35, 6945, 26},
                              {1, 623, 40},
                              {60, 60, 12},
                              {11300, 8, 63}},
                       pad);
    }
    // Past K = 80 only where no rule above took the product (kTinyFrag16Rest): 5 x 6663 x 116,
    // every operand column-major (A at a pitch of 5, B of 116: no tensor map), not the mma.sync
    // 128x128 tile; at 16-byte pitches (row-major A of 120, column-major B of 120) a wgmma tile.
    {
      alignas(16) static std::uint16_t b16[64];
      void* b = wide ? static_cast<void*>(g_buf) : static_cast<void*>(b16);
      const Layout col = Layout::kColMajor;
      const Problem rest = Problem::make_typed(5, 6663, 116, t, b, b, b, 1.0f, 0.0f, col, col, col);
      const KernelInfo* k = select_kernel(rest, 90);
      ASSERT_NE(k, nullptr);
      EXPECT_EQ(k->name == "tiny_mma_16x8", !wide) << k->name;
      const Problem mapped = Problem::make_typed(5, 6663, 120, t, b, b, b, 1.0f, 0.0f,
                                                 Layout::kRowMajor, col, col);
      const KernelInfo* w = select_kernel(mapped, 90);
      ASSERT_NE(w, nullptr);
      EXPECT_TRUE(wide || starts_with(w->name, "wgmma_")) << w->name;
    }
    // A column-major C counts the tiles of C^T: 40 x 3000 is 3 x 375 = 1125 16x8 tiles as a
    // row-major C, 188 x 5 = 940 as a column-major one.
    alignas(16) static std::uint16_t buf16[64];
    void* buf = wide ? static_cast<void*>(g_buf) : static_cast<void*>(buf16);
    for (Layout lc : {Layout::kRowMajor, Layout::kColMajor}) {
      const Problem p = Problem::make_typed(40, 3000, 70, t, buf, buf, buf, 1.0f, 0.0f,
                                            Layout::kRowMajor, Layout::kRowMajor, lc);
      const KernelInfo* k = select_kernel(p, 90);
      ASSERT_NE(k, nullptr);
      EXPECT_EQ(k->name == "tiny_mma_16x8", !wide && lc == Layout::kColMajor);
    }
  }
}

// A 16-bit product of K <= 32 over 2^13..2^19 elements of C that the rules ahead leave (more
// 32x32 tiles than SMs, past rung 1's 2^15 outputs, more 16x8 tiles than 8 per SM) takes rung
// 28's one warp a tile, at any pitch; K of 33, more than 2^19 or fewer than 2^13 elements of C, or
// fp32 and tf32 do not.
TEST(AutoRule, ShortKOverAMidSizedCTakesRung28sOneWarpTile) {
  for (GemmTypes t : kFourTypes) {
    SCOPED_TRACE(gemm_types_name(t));
    for (std::int64_t pad : {0, 1}) {
      expect_16bit_takes(t, "tiny_mma_32x32",
                         Shapes{{860, 438, 5},
                                {6174, 24, 12},
                                {544, 251, 8},
                                {123, 3900, 2},
                                {4337, 32, 18},
                                {1024, 512, 32}},
                         pad);
      expect_not_taken(t, "tiny_mma_32x32",
                       Shapes{{860, 438, 33}, {1024, 513, 16}, {873, 865, 6}, {4000, 2, 20}}, pad);
    }
  }
}

// A tiny fp32 product (M and N over 1, K <= 128, M x N <= 32768) takes rung 2's 16x16 tile, at
// any pitch; a K of 129, M x N past 32768 or a vector does not, and no other type does.
TEST(AutoRule, TinyF32ProductsTakeRung2) {
  const GemmTypes f32{DType::kF32, DType::kF32};
  for (const auto& s : std::vector<std::array<std::int64_t, 3>>{
           {9, 11, 66}, {3, 109, 65}, {58, 9, 67}, {81, 350, 110}, {2, 3, 4}, {128, 256, 128},
           {2, 16384, 1}, {13, 294, 64}}) {
    for (std::int64_t pad : {0, 1}) {
      EXPECT_EQ(chosen_for(f32, s[0], s[1], s[2], pad), "smem_tiled_t16")
          << s[0] << "x" << s[1] << "x" << s[2] << " pad " << pad;
    }
  }
  for (const auto& s : std::vector<std::array<std::int64_t, 3>>{
           {81, 350, 129}, {128, 257, 64}, {1, 300, 100}, {300, 1, 100}, {2, 16385, 1}}) {
    EXPECT_NE(chosen_for(f32, s[0], s[1], s[2]), "smem_tiled_t16") << s[0] << "x" << s[1] << "x" << s[2];
  }
  for (GemmTypes t : {GemmTypes{DType::kTF32, DType::kF32}, GemmTypes{DType::kBF16, DType::kBF16},
                      GemmTypes{DType::kF16, DType::kF32}}) {
    EXPECT_NE(chosen_for(t, 9, 11, 66), "smem_tiled_t16") << gemm_types_name(t);
  }
}

// fp32 under three tf32 products (the default) takes rung 28's 32x32 tile (one block a tile, its
// warps over K) with K of 97..512 over 32 (past K = 256: 48) to a wave of 32x32 tiles, and on
// sm_90 its cluster split past K = 512 over 9 to a wave of tiles: K up to 2048 where M or N is
// 9..24 (2..8: up to 1024, or 2048 over at most 48 tiles), else up to 1024 over at most 64 tiles;
// past K = 2048 over 9 to 44 tiles (2..4 lines: 22) with M or N at most 48, K up to 1024 min(8,
// SMs / tiles) (8192 where the wide operand is not K-major), A and B not both K-major; ahead of
// rungs 24, 22, 21 and 29, at any pitch and layout; and K of 10..32 under a column-major C of at
// most 1024 tiles, past rung 24's small products (its one warp a tile). Not a tiny product (rung
// 2), K of 96, fewer tiles, more tiles than SMs, a longer K or more tiles past K = 512, sm_80 past
// K = 512, kSimt, or tf32.
TEST(AutoRule, Fp32TinyProductsTakeRung28) {
  const std::string tiny = "tiny_mma_32x32";
  const GemmTypes f32{DType::kF32, DType::kF32};
  const GemmTypes tf32{DType::kTF32, DType::kF32};
  const Shapes in_class = {
      // K of 97..512: the random seeds' rows, 256^3 (64 tiles) and 500 x 200 x 129 (112)
      {2560, 11, 231},
      {7, 2465, 216},
      {1981, 8, 479},
      {19, 2972, 450},
      {515, 82, 138},
      {256, 256, 256},
      {500, 200, 129},
      // past K = 512: narrow ones up to K = 2048, wider ones up to 1024 over at most 64 tiles
      {2037, 4, 661},
      {930, 2, 2032},
      {1569, 23, 692},
      {3166, 13, 1294},
      {2502, 24, 640},
      {12, 2048, 2048},
      {200, 200, 1000}};
  const Shapes out_of_class = {{81, 350, 110},     // a tiny product: rung 2
                               {1000, 64, 96},     // K of 96
                               {120, 120, 200},    // 16 tiles
                               {200, 160, 350},    // 35 tiles past K = 256
                               {400, 400, 200},    // 169 tiles
                               {16, 3000, 2100},   // narrow past K = 2048
                               {2530, 5, 1886},    // 2..8 lines over 80 tiles past K = 1024
                               {200, 200, 1100},   // wider past K = 1024
                               {64, 1500, 1000},   // wider over 94 tiles
                               {64, 128, 1000},    // 8 tiles
                               {24, 4300, 1000}};  // 135 tiles
  for (std::int64_t pad : {0, 1}) {
    for (const auto& s : in_class) {
      EXPECT_EQ(chosen_for(f32, s[0], s[1], s[2], pad), tiny)
          << s[0] << "x" << s[1] << "x" << s[2] << " pad " << pad;
    }
    expect_not_taken(f32, tiny, out_of_class, pad);
    expect_not_taken(tf32, tiny, in_class, pad);
  }
  // every layout mix, and odd pitches of every operand
  for (Layout la : {Layout::kRowMajor, Layout::kColMajor}) {
    for (Layout lb : {Layout::kRowMajor, Layout::kColMajor}) {
      for (Layout lc : {Layout::kRowMajor, Layout::kColMajor}) {
        EXPECT_EQ(chosen_in(2560, 11, 231, la, lb, lc, Fp32Math::kThreeTf32, 0, 1), tiny);
        EXPECT_EQ(chosen_in(1569, 23, 692, la, lb, lc, Fp32Math::kThreeTf32, 0, 1), tiny);
        EXPECT_NE(chosen_in(2560, 11, 231, la, lb, lc, Fp32Math::kSimt), tiny);
      }
    }
  }
  // Past K = 2048 (kTinyMmaLongKF32): A M-major (the random seeds' 31 x 1026 x 3739 and 968 x 21
  // x 3947) in, A and B both K-major out; 33 tiles reach K = 4096 (4 splits), not 4097, where the
  // wide operand is K-major, and K = 8192, not 8193, where it is not; 2..4 lines over 23 tiles
  // out (1392 x 4: 44)
  constexpr Fp32Math kX3 = Fp32Math::kThreeTf32;
  constexpr Layout kRow = Layout::kRowMajor;
  constexpr Layout kCol = Layout::kColMajor;
  EXPECT_EQ(chosen_in(31, 1026, 3739, kCol, kRow, kCol, kX3), tiny);
  EXPECT_EQ(chosen_in(968, 21, 3947, kCol, kCol, kRow, kX3), tiny);
  EXPECT_EQ(chosen_in(31, 1026, 4096, kCol, kCol, kRow, kX3, 0, 1), tiny);
  EXPECT_NE(chosen_in(31, 1026, 4097, kCol, kCol, kRow, kX3), tiny);
  EXPECT_EQ(chosen_in(31, 1026, 8192, kCol, kRow, kRow, kX3, 0, 1), tiny);
  EXPECT_EQ(chosen_in(455, 47, 5567, kCol, kRow, kCol, kX3), tiny);  // seed 5's row
  EXPECT_NE(chosen_in(31, 1026, 8193, kCol, kRow, kRow, kX3), tiny);
  EXPECT_NE(chosen_in(700, 47, 4097, kRow, kRow, kRow, kX3), tiny);  // A (wide) K-major
  EXPECT_NE(chosen_in(31, 1026, 3739, kRow, kCol, kRow, kX3), tiny);
  EXPECT_EQ(chosen_in(391, 2, 6072, kCol, kCol, kRow, kX3), tiny);
  EXPECT_NE(chosen_in(1392, 4, 2204, kCol, kCol, kCol, kX3), tiny);
  EXPECT_NE(chosen_in(50, 1026, 3000, kCol, kRow, kCol, kX3), tiny);  // 50 lines
  // K of 10..32 under a column-major C of at most 1024 32x32 tiles, past rung 24's small
  // products and the strip rule (kTinySoloColCF32): the random seeds' 161 x 2632 x 10 and held-out
  // rows in; a row-major C, K of 9 or 33, 1025 tiles, or a small product (rung 24) out
  EXPECT_EQ(chosen_in(161, 2632, 10, kRow, kCol, kCol, kX3), tiny);
  EXPECT_EQ(chosen_in(1797, 287, 14, kRow, kCol, kCol, kX3, 0, 1), tiny);
  EXPECT_EQ(chosen_in(115, 4475, 31, kCol, kRow, kCol, kX3), tiny);
  EXPECT_NE(chosen_in(1797, 287, 14, kRow, kCol, kRow, kX3), tiny);
  EXPECT_NE(chosen_in(1797, 287, 9, kRow, kCol, kCol, kX3), tiny);
  EXPECT_NE(chosen_in(1797, 287, 33, kRow, kCol, kCol, kX3), tiny);
  EXPECT_NE(chosen_in(1024, 1056, 16, kRow, kCol, kCol, kX3), tiny);  // 1056 tiles
  EXPECT_EQ(chosen_in(29, 3876, 14, kCol, kCol, kCol, kX3), "small_32x32x32");
  EXPECT_NE(chosen_in(161, 2632, 10, kRow, kCol, kCol, Fp32Math::kSimt), tiny);
  // sm_80: K up to 512 only (no clusters)
  EXPECT_EQ(chosen_for(f32, 2560, 11, 231, 0, 80), tiny);
  EXPECT_NE(chosen_for(f32, 1569, 23, 692, 0, 80), tiny);
}

// fp32 K <= 8 over 32768 < M x N <= 2^19 takes rung 10's cute_simple (when CuTe is built), ahead
// of rung 24's small products; K of 9, M x N past either bound or another type does not.
TEST(AutoRule, ThinKOverMidSizedCInF32TakesCuteSimple) {
  if (find_kernel("cute_simple") == nullptr) GTEST_SKIP() << "built without CuTe";
  for (const auto& s : std::vector<std::array<std::int64_t, 3>>{
           {860, 438, 5}, {2646, 35, 3}, {21, 5572, 4}, {104, 456, 3}, {128, 2288, 4},
           {512, 1024, 8}}) {
    EXPECT_EQ(chosen(s[0], s[1], s[2]), "cute_simple") << s[0] << "x" << s[1] << "x" << s[2];
  }
  for (const auto& s : std::vector<std::array<std::int64_t, 3>>{
           {860, 438, 9}, {128, 256, 8}, {1024, 1024, 4}}) {
    EXPECT_NE(chosen(s[0], s[1], s[2]), "cute_simple") << s[0] << "x" << s[1] << "x" << s[2];
  }
  EXPECT_NE(chosen_bf16(860, 438, 5), "cute_simple");
}

// An fp32 matrix-vector product with K <= 12 takes cute_simple too (when CuTe is built), at any
// length and in both B layouts; K = 13 and the other types keep gemv.
TEST(AutoRule, Fp32MatrixVectorProductsOfAShortKTakeCuteSimple) {
  if (find_kernel("cute_simple") == nullptr) GTEST_SKIP() << "built without CuTe";
  for (Layout lb : {Layout::kRowMajor, Layout::kColMajor}) {
    for (const auto& s : std::vector<std::array<std::int64_t, 3>>{
             {1, 1, 1}, {1287, 1, 3}, {1, 7574, 1}, {1, 40000, 4}, {500, 1, 6}, {1, 92, 12}}) {
      EXPECT_EQ(chosen(s[0], s[1], s[2], lb), "cute_simple") << s[0] << "x" << s[1] << "x" << s[2];
    }
    EXPECT_EQ(chosen(1287, 1, 13, lb), "gemv");
    EXPECT_EQ(chosen(1, 7574, 13, lb), "gemv");
  }
  EXPECT_EQ(chosen_bf16(1287, 1, 13), "gemv");
}

// fp32 that rung 22's 128-row tiles would take with 8 < K <= 48 over 2^18..2^20 elements of C and
// M and N of at least 128 takes rung 24's 64x64 tile; K of 8 or 49, C past either bound, a
// product rung 22 would not take (161 x 2632 x 10: thin_k's or the tuned tile's), the CUDA
// cores' rules (set_fp32_math(kSimt)) or another type does not.
TEST(AutoRule, ShortKOverMidSizedCInF32TakesTheSmall64x64Tile) {
  const auto tf32x3 = [](std::int64_t m, std::int64_t n, std::int64_t k) {
    return chosen(m, n, k, Layout::kRowMajor, 0, Fp32Math::kThreeTf32);
  };
  for (const auto& s : std::vector<std::array<std::int64_t, 3>>{{504, 700, 21},
                                                                {600, 900, 33},
                                                                {1157, 701, 41},
                                                                {347, 2246, 40},
                                                                {500, 947, 10},
                                                                {1024, 1024, 48}}) {
    EXPECT_EQ(tf32x3(s[0], s[1], s[2]), "small_64x64x32") << s[0] << "x" << s[1] << "x" << s[2];
    EXPECT_NE(chosen(s[0], s[1], s[2]), "small_64x64x32") << s[0] << "x" << s[1] << "x" << s[2];
  }
  for (const auto& s : std::vector<std::array<std::int64_t, 3>>{
           {504, 700, 8}, {504, 700, 49}, {1025, 1024, 21}, {161, 2632, 10}, {148, 3838, 17},
           {259, 1267, 44}}) {
    EXPECT_NE(tf32x3(s[0], s[1], s[2]), "small_64x64x32") << s[0] << "x" << s[1] << "x" << s[2];
  }
  EXPECT_NE(chosen_bf16(504, 700, 21), "small_64x64x32");
}

// fp32 with tf32 products allowed, M or N of 300..1023 and 12 <= K <= 32 under a C of
// 2^19..2^22 elements: rung 25's strip walk up to 2^20 elements (K <= 24 where C's rows run along
// its short side), and past it at K = 16, or 16..24 with M or N at most 470. A K of 13, 17 or 25
// past those bounds, short rows past K = 24, 299 or 1024 lines, a C under 2^19 elements, and the
// CUDA cores' rules do not.
TEST(AutoRule, ShortKUnderAThinCInF32TakesRung25sStripWalk) {
  const Layout r = Layout::kRowMajor, c = Layout::kColMajor;
  const Fp32Math x3 = Fp32Math::kThreeTf32;
  const std::string strip = "thin_k_mma_16x512";
  EXPECT_EQ(chosen_in(501, 1842, 23, r, c, c, x3), strip);  // 0.92 M elements, rows short
  EXPECT_EQ(chosen_in(718, 857, 18, c, c, c, x3), strip);
  EXPECT_EQ(chosen_in(380, 2300, 31, r, r, r, x3), strip);  // rows long past K = 24
  EXPECT_EQ(chosen_in(7269, 330, 22, r, r, r, x3), strip);  // 2.4 M elements, 330 lines
  EXPECT_EQ(chosen_in(4200, 969, 16, c, r, r, x3), strip);  // 4.07 M elements, K = 16
  EXPECT_NE(chosen_in(2300, 380, 31, r, r, r, x3), strip);  // rows short past K = 24
  EXPECT_NE(chosen_in(4200, 969, 17, c, r, r, x3), strip);
  EXPECT_NE(chosen_in(7269, 330, 25, r, r, r, x3), strip);
  EXPECT_NE(chosen_in(7269, 330, 13, r, r, r, x3), strip);
  EXPECT_NE(chosen_in(2000, 299, 20, r, r, r, x3), strip);
  EXPECT_NE(chosen_in(1024, 1200, 16, r, r, r, x3), strip);
  EXPECT_NE(chosen_in(500, 1000, 20, r, r, r, x3), strip);  // under 2^19 elements
  EXPECT_NE(chosen_in(501, 1842, 23, r, c, c, Fp32Math::kSimt), strip);
}

// fp32 with tf32 products allowed, M or N of 200..499 against 4000..8192 and 64 <= K < 256: rung
// 22's 128x128 tile (from 500 lines, or K = 256, kF32Tensor takes it already); 199 lines, a long
// side of 3999, K of 63 and the CUDA cores' rules do not.
TEST(AutoRule, MidKUnderAThinCInF32TakesRung22s128x128Tile) {
  const Layout r = Layout::kRowMajor, c = Layout::kColMajor;
  const Fp32Math x3 = Fp32Math::kThreeTf32;
  const std::string x128 = "wgmma_3xtf32_128x128x32_s6_ts_p4";
  EXPECT_EQ(chosen_in(6395, 216, 233, r, r, c, x3), x128);
  EXPECT_EQ(chosen_in(300, 5500, 90, c, r, c, x3), x128);
  EXPECT_EQ(chosen_in(8000, 200, 64, r, c, c, x3), x128);
  EXPECT_NE(chosen_in(8000, 199, 100, r, r, r, x3), x128);
  EXPECT_NE(chosen_in(3999, 300, 100, r, r, r, x3), x128);
  EXPECT_NE(chosen_in(5500, 300, 63, r, r, r, x3), x128);
  EXPECT_NE(chosen_in(6395, 216, 233, r, r, c, Fp32Math::kSimt), x128);
}

// fp32 with tf32 products allowed, in the class where the rules take rung 22's 128x64 tile: its
// 64x64 tile where 64x64 tiles are at most the SMs, with K <= 512 or those tiles at least two
// thirds of the SMs; 50 tiles at K = 1000 and 144 tiles keep the 128x64 tile.
TEST(AutoRule, FewTilesInF32TakeRung22s64x64Tile) {
  const Layout r = Layout::kRowMajor, c = Layout::kColMajor;
  const Fp32Math x3 = Fp32Math::kThreeTf32;
  const std::string x64 = "wgmma_3xtf32_64x64x32_s13_p4",
                    x128x64 = "wgmma_3xtf32_128x64x32_s8_ts_p4";
  EXPECT_EQ(chosen_in(284, 809, 509, r, r, r, x3), x64);  // 65 tiles
  EXPECT_EQ(chosen_in(581, 431, 293, r, r, c, x3), x64);
  EXPECT_EQ(chosen_in(700, 700, 1300, r, r, r, x3), x64);  // 121 tiles
  EXPECT_EQ(chosen_in(280, 600, 1000, r, r, r, x3), x128x64);
  EXPECT_EQ(chosen_in(450, 1100, 300, r, r, r, x3), x128x64);
  EXPECT_NE(chosen_in(284, 809, 509, r, r, r, Fp32Math::kSimt), x64);
}

// fp32 M or N of 5..8 against K >= 512, past rung 24's small products, takes rung 21's 8-column
// narrow kernel; a K of 511, 9 columns or a small product does not.
TEST(AutoRule, FiveToEightColumnsAgainstALongKInF32TakeNarrowN8) {
  for (const auto& s : std::vector<std::array<std::int64_t, 3>>{
           {4338, 7, 7846}, {6, 2834, 1188}, {2537, 8, 5058}, {2609, 6, 562}, {5, 30, 7193}}) {
    EXPECT_EQ(chosen(s[0], s[1], s[2]), "narrow_n8") << s[0] << "x" << s[1] << "x" << s[2];
  }
  EXPECT_NE(chosen(4338, 7, 511), "narrow_n8");
  EXPECT_NE(chosen(4338, 9, 7846), "narrow_n8");
  EXPECT_EQ(chosen(8, 5, 1283), "small_32x32x32");  // a small product stays with rung 24
  EXPECT_EQ(chosen(4338, 4, 7846), "narrow_n4");
}

// fp32 M or N of 9..16 against K >= 1024 where rung 21 reads the wide operand down its columns at
// a pitch no 16-byte load reads (A column-major for N narrow, B row-major for M narrow, the wide
// side's leading dimension not a multiple of 4) takes its 16-column kernel; a 16-byte pitch, the
// wide operand K-contiguous, 8 or 17 columns, or K = 1023 do not.
TEST(AutoRule, NineToSixteenColumnsReadDownColumnsInF32TakeNarrowN16) {
  // Under three tf32 products (the default on sm_90), C row-major, each leading dimension `pad`
  // elements past its least.
  auto pick = [](std::int64_t m, std::int64_t n, std::int64_t k, Layout la, Layout lb,
                 std::int64_t pad) {
    return chosen_in(m, n, k, la, lb, Layout::kRowMajor, Fp32Math::kThreeTf32, 0, pad);
  };
  const Layout col = Layout::kColMajor;
  const Layout row = Layout::kRowMajor;
  // The random seeds' rows (their natural pitches are odd) and a padded one
  EXPECT_EQ(pick(5169, 16, 1413, col, row, 0), "narrow_n16");
  EXPECT_EQ(pick(1807, 9, 5441, col, row, 0), "narrow_n16");
  EXPECT_EQ(pick(10, 5235, 6931, row, row, 0), "narrow_n16");
  EXPECT_EQ(pick(16, 6000, 1200, col, row, 1), "narrow_n16");
  EXPECT_EQ(pick(12, 4500, 1024, col, row, 1), "narrow_n16");
  // A 16-byte pitch of the wide operand (6000 floats), the wide operand K-contiguous (the row
  // kernel), 8 or 17 columns, K = 1023
  EXPECT_NE(pick(16, 6000, 1200, col, row, 0), "narrow_n16");
  EXPECT_NE(pick(14, 5273, 1186, col, col, 0), "narrow_n16");
  EXPECT_NE(pick(5169, 16, 1413, row, row, 0), "narrow_n16");
  EXPECT_EQ(pick(5169, 8, 1413, col, row, 0), "narrow_n8");
  EXPECT_NE(pick(5169, 17, 1413, col, row, 0), "narrow_n16");
  EXPECT_NE(pick(12, 4500, 1023, col, row, 1), "narrow_n16");
}

// bf16 and f16: K <= 64 under a C of 2..32 by 4096..8192 takes rung 27's 64x64 tile (after the
// small products and rung 28's 16x8 tile, which takes such a C of up to 8 16x8 tiles per SM:
// 7135 x 8, 32 x 4096); a K of 65, a C of 33 lines, 4095 long (a small product: rung 24 at K 48)
// or 8193 long, and fp32 or tf32 do not.
TEST(AutoRule, ShortKUnderALongThinCTakesRung27In16BitTypes) {
  for (GemmTypes t : {GemmTypes{DType::kBF16, DType::kBF16}, GemmTypes{DType::kF16, DType::kF32},
                      GemmTypes{DType::kF32, DType::kF32}, GemmTypes{DType::kTF32, DType::kF32}}) {
    SCOPED_TRACE(gemm_types_name(t));
    expect_16bit_takes(t, "small_mma_64x64",
                       Shapes{{5445, 27, 51}, {19, 6804, 54}, {8064, 32, 40}});
    expect_16bit_takes(t, "tiny_mma_16x8", Shapes{{7135, 8, 56}, {32, 4096, 64}});
    // K <= 32 over at most 2^19 elements of C: rung 28's one warp a tile (kTinySolo16) first
    expect_16bit_takes(t, "tiny_mma_32x32", Shapes{{24, 8054, 17}, {4337, 30, 18}, {6174, 24, 12}});
    expect_not_taken(t, "small_mma_64x64",
                     Shapes{{7135, 8, 65}, {33, 4096, 64}, {32, 4095, 48}, {8, 8193, 32}});
  }
}

// bf16 and f16: K of 65..128 under a C of 20..64 by 4096..8192 with an operand off 16 bytes
// takes rung 27's 64x64 tile too (where 32x32 tiles outnumber the SMs); A and B at 16-byte
// pitches, K of 129, 65 lines, a C 4095 long, and fp32 or tf32 do not.
TEST(AutoRule, MidKUnderALongThinCWithAnOddPitchTakesRung27In16BitTypes) {
  for (GemmTypes t : {GemmTypes{DType::kBF16, DType::kBF16}, GemmTypes{DType::kF16, DType::kF32},
                      GemmTypes{DType::kF32, DType::kF32}, GemmTypes{DType::kTF32, DType::kF32}}) {
    SCOPED_TRACE(gemm_types_name(t));
    // A at its least pitch, then one past it
    expect_16bit_takes(t, "small_mma_64x64", Shapes{{7796, 35, 66}, {8192, 20, 100}});
    expect_16bit_takes(t, "small_mma_64x64", Shapes{{35, 7800, 96}, {4096, 64, 128}}, 1);
    expect_not_taken(t, "small_mma_64x64", Shapes{{4096, 48, 96}});
    expect_not_taken(t, "small_mma_64x64",
                     Shapes{{7796, 35, 129}, {7796, 65, 100}, {4095, 35, 100}}, 1);
  }
}

// bf16 and f16 narrow products past the narrow rules' K, at pitches off 16 bytes: 8..24 columns
// (or rows) along their narrow side over at most a wave of 32x32 tiles, K of 1025..8192, take
// rung 28 where the wide operand runs along the long side, or where it is K-major at a 4-byte
// pitch with at most 8 columns and K past 4096; a K-major narrow operand, more tiles than the
// SMs, a 2-byte K-major wide operand or both operands at 16-byte pitches do not. 25..48 lines
// take it with K of 1025..1536 where the wide operand is off 16 bytes (46 lines at K = 3001 not).
TEST(AutoRule, NarrowProductsPastTheNarrowRulesKTakeRung28AtOddPitches) {
  alignas(16) static std::uint16_t buf[64];
  const Layout r = Layout::kRowMajor, c = Layout::kColMajor;
  for (GemmTypes t : {GemmTypes{DType::kBF16, DType::kBF16}, GemmTypes{DType::kF16, DType::kF32}}) {
    SCOPED_TRACE(gemm_types_name(t));
    auto pick = [&](std::int64_t m, std::int64_t n, std::int64_t k, Layout la, Layout lb,
                    Layout lc) {
      const KernelInfo* chosen =
          select_kernel(Problem::make_typed(m, n, k, t, buf, buf, buf, 1.0f, 0.0f, la, lb, lc), 90);
      return chosen == nullptr ? std::string("(none)") : chosen->name;
    };
    const std::string tiny = "tiny_mma_32x32";
    EXPECT_EQ(pick(2537, 8, 5058, r, r, r), tiny);   // A K-major at a 4-byte pitch
    EXPECT_EQ(pick(22, 2501, 5639, c, r, c), tiny);  // both along M and N
    EXPECT_EQ(pick(24, 2500, 3001, c, r, r), tiny);
    EXPECT_EQ(pick(4001, 22, 8000, c, r, r), tiny);
    EXPECT_NE(pick(2537, 8, 5059, r, r, r), tiny);   // A at a 2-byte pitch
    EXPECT_NE(pick(2537, 12, 5058, r, r, r), tiny);  // K-major wide operand, 12 columns
    EXPECT_NE(pick(24, 2500, 3001, r, c, r), tiny);  // the narrow A K-major
    EXPECT_NE(pick(46, 2500, 3001, c, r, r), tiny);
    EXPECT_NE(pick(24, 4400, 3001, c, r, r), tiny);  // 138 tiles
    EXPECT_NE(pick(24, 2501, 8193, c, r, r), tiny);
    EXPECT_NE(pick(24, 2560, 3008, c, r, r), tiny);  // 16-byte pitches
    // 25..48 lines, K of 1025..1536, the wide operand off 16 bytes, any layouts
    EXPECT_EQ(pick(47, 1289, 1356, c, c, r), tiny);
    EXPECT_EQ(pick(1700, 42, 1450, r, c, r), tiny);
    EXPECT_NE(pick(45, 1298, 1889, c, r, c), tiny);  // K past 1536
    EXPECT_NE(pick(44, 2000, 1500, c, r, r), tiny);  // the wide B at 16 bytes: the copies
    EXPECT_NE(pick(49, 1289, 1356, c, c, r), tiny);
  }
}

TEST(AutoRule, UnalignedLeadingDimensionsTakeTheAnyAlignTwin) {
  // 4095 x 4095 row-major B: rows of 4095 floats, not 16-byte multiples
  EXPECT_TRUE(starts_with(chosen(4095, 4095, 4095), "tuned_large_128x256x8_"));
  EXPECT_TRUE(ends_with(chosen(4095, 4095, 4095), "_anyalign")) << chosen(4095, 4095, 4095);
  // col-major B is k-contiguous: copied 4 bytes at a time anyway, the aligned instance fits
  EXPECT_FALSE(ends_with(chosen(4095, 4095, 4095, Layout::kColMajor), "_anyalign"));
  // a misaligned base pointer
  EXPECT_TRUE(ends_with(chosen(4096, 4096, 4096, Layout::kRowMajor, 1), "_anyalign"));
  EXPECT_TRUE(ends_with(chosen(1536, 1536, 512, Layout::kRowMajor, 1), "_anyalign"));
}

TEST(AutoRule, SmallAndSkinnyShapes) {
  for (Layout lb : {Layout::kRowMajor, Layout::kColMajor}) {
    EXPECT_TRUE(starts_with(chosen(16, 4096, 4096, lb), "tuned_skinny_"));
    EXPECT_TRUE(starts_with(chosen(4096, 16, 4096, lb), "tuned_skinny_"));  // as C^T = B^T A^T
    for (std::int64_t s : {1000, 1024}) {
      const std::string name = chosen(s, s, 1023, lb);  // K >= 1024 splits the 128x128 tile
      EXPECT_TRUE(starts_with(name, "tuned_small_") && ends_with(name, "_splitk"))
          << s << ": " << name;
    }
  }
  // 256^3 is a small product in fp32 (rung 24, which the tune table measured ahead of the skinny
  // tile on the H100)
  EXPECT_EQ(chosen(256, 256, 256), "small_32x32x32");
  EXPECT_EQ(chosen(256, 256, 256, Layout::kColMajor), "small_32x32x32");
  for (std::int64_t s : {512}) {
    // row-major B: the skinny tile (16-byte copies of B) measured best
    const std::string row_b = chosen(s, s, s);
    EXPECT_TRUE(starts_with(row_b, "tuned_skinny_")) << s << ": " << row_b;
    // col-major B: small split-K
    const std::string col_b = chosen(s, s, s, Layout::kColMajor);
    EXPECT_TRUE(starts_with(col_b, "tuned_small_") && ends_with(col_b, "_splitk"))
        << s << ": " << col_b;
  }
  // M > N: the skinny view would transpose; small split-K keeps the layouts as given
  const std::string tall = chosen(512, 256, 512);
  EXPECT_TRUE(starts_with(tall, "tuned_small_") && ends_with(tall, "_splitk")) << tall;
  EXPECT_TRUE(starts_with(chosen(512, 512, 65536), "tuned_longk_"));
  // a tiny long-K product (under 2^27 multiply-adds) is not split to fill the waves (a K past
  // rung 24's 4096)
  EXPECT_EQ(chosen(35, 101, 5236).find("tuned_longk_"), std::string::npos) << chosen(35, 101, 5236);
}

// Thin K against a large C: the thin_k family (fp32; 16-bit types at K = 1, where no tensor map
// reads them: from K = 2 rung 25, TensorTypesTakeWgmmaOnHopper); a small C or a K past 64 stays
// with the tile kernels.
TEST(AutoRule, ThinKShapesTakeThinK) {
  EXPECT_EQ(chosen(3404, 5730, 1), "thin_k");
  EXPECT_EQ(chosen(7155, 5417, 26, Layout::kColMajor, 1), "thin_k");
  EXPECT_EQ(chosen(1024, 512, 64), "thin_k");
  EXPECT_NE(chosen(1024, 512, 65), "thin_k");
  EXPECT_NE(chosen(512, 512, 8), "thin_k");  // 2^18 elements of C
  alignas(16) static std::uint16_t buf[64];
  const GemmTypes bf16{DType::kBF16, DType::kBF16};
  const KernelInfo* k = select_kernel(Problem::make_typed(7920, 6669, 1, bf16, buf, buf, buf), 90);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->name, "thin_k");
  // Rung 25 is registered in every build and runs from sm_80: always a candidate at cc 90 (its
  // strip walk on a C of 6 * 2^20 elements or more, its 64 x 128 tile below).
  k = select_kernel(Problem::make_typed(7920, 6669, 3, bf16, buf, buf, buf), 90);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->name, "thin_k_mma_16x512");
  k = select_kernel(Problem::make_typed(1920, 1669, 3, bf16, buf, buf, buf), 90);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->name, "thin_k_mma_64x128");
}

// bf16 and f16 products and matrix-vector products of K <= 12 over at most 2^15 outputs take
// rung 1 (a thread per output); K = 13, more outputs, fp32 and tf32 do not.
TEST(AutoRule, TinyShortK16BitProductsTakeRung1) {
  for (GemmTypes t : {GemmTypes{DType::kBF16, DType::kBF16}, GemmTypes{DType::kF16, DType::kF32}}) {
    auto pick = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
      return chosen_for(t, m, n, k);
    };
    for (const auto& s : std::vector<std::array<std::int64_t, 3>>{
             {1287, 1, 3}, {1, 7574, 1}, {4, 144, 2}, {64, 35, 6}, {8, 44, 7}, {128, 256, 12}}) {
      EXPECT_EQ(pick(s[0], s[1], s[2]), "naive") << s[0] << "x" << s[1] << "x" << s[2];
    }
    EXPECT_NE(pick(64, 35, 13), "naive");
    EXPECT_NE(pick(1287, 1, 13), "naive");
    EXPECT_NE(pick(129, 256, 4), "naive");
  }
  EXPECT_NE(chosen_for(GemmTypes{DType::kTF32, DType::kF32}, 64, 35, 6), "naive");
  EXPECT_NE(chosen(64, 35, 6), "naive");
}

// A matrix-vector product (M or N of 1) goes to the gemv family in every type and layout (in
// fp32 from K = 13, in 16-bit types from K = 13 or past 2^15 outputs), a skinny shape just past
// it (M = 2) does not.
TEST(AutoRule, MatrixVectorShapesTakeGemv) {
  for (Layout lb : {Layout::kRowMajor, Layout::kColMajor}) {
    EXPECT_EQ(chosen(1, 8192, 8192, lb), "gemv");
    EXPECT_EQ(chosen(8192, 1, 8192, lb), "gemv");
    EXPECT_EQ(chosen(1, 1, 13, lb), "gemv");  // K <= 12: cute_simple (below)
    EXPECT_NE(chosen(2, 8192, 8192, lb), "gemv");
  }
  alignas(16) static std::uint16_t half_buf[64];
  for (GemmTypes t : {GemmTypes{DType::kBF16, DType::kBF16}, GemmTypes{DType::kF16, DType::kF32},
                      GemmTypes{DType::kTF32, DType::kF32}}) {
    const Problem row = Problem::make_typed(1, 8192, 8192, t, half_buf, half_buf, half_buf);
    const Problem col = Problem::make_typed(8192, 1, 8192, t, half_buf, half_buf, half_buf);
    for (int cc : {80, 90}) {
      if (!find_kernel("gemv")->desc.runs_on(cc)) continue;  // sm_80 not built
      const KernelInfo* r = select_kernel(row, cc);
      const KernelInfo* c = select_kernel(col, cc);
      ASSERT_NE(r, nullptr);
      ASSERT_NE(c, nullptr);
      EXPECT_EQ(r->name, "gemv") << gemm_types_name(t) << " cc " << cc;
      EXPECT_EQ(c->name, "gemv") << gemm_types_name(t) << " cc " << cc;
    }
  }
}

TEST(AutoRule, EveryChoiceCanImplementItsProblem) {
  for (std::int64_t m : {1, 3, 16, 33, 100, 257, 1000, 1536, 4095}) {
    for (std::int64_t n : {1, 5, 32, 64, 129, 1024, 2048}) {
      for (std::int64_t k : {1, 7, 64, 1000}) {
        for (int offset : {0, 1, 2}) {
          for (Layout la : {Layout::kRowMajor, Layout::kColMajor}) {
            for (Layout lb : {Layout::kRowMajor, Layout::kColMajor}) {
              const Problem p =
                  Problem::make(m, n, k, g_buf + offset, g_buf + offset, g_buf + offset, 1.0f, 0.0f,
                                la, lb, Layout::kRowMajor);
              const KernelInfo* kernel = select_kernel(p);
              ASSERT_NE(kernel, nullptr);
              EXPECT_TRUE(kernel->can_implement(p)) << kernel->name;
            }
          }
        }
      }
    }
  }
}

std::string chosen_typed(std::int64_t s, GemmTypes t, int offset = 0, int cc = 90) {
  alignas(16) static std::uint16_t buf[64];
  const Problem p = Problem::make_typed(s, s, s, t, buf + offset, buf + offset, buf + offset);
  const KernelInfo* kernel = select_kernel(p, cc);
  return kernel == nullptr ? "(none)" : kernel->name;
}

// sm_90 with the sm_90a families built: rung 15 (TMA-store epilogue, no cluster) for 16-bit
// types and for tf32 in every layout mix; mma.sync where wgmma cannot run (an ld no tensor map
// describes with K < 256, cc 8.0).
TEST(AutoRule, TensorTypesTakeWgmmaOnHopper) {
  if (find_kernel("wgmma_128x256x64_s4") == nullptr) GTEST_SKIP() << "built without sm_90a";
  for (GemmTypes t : {GemmTypes{DType::kBF16, DType::kBF16}, GemmTypes{DType::kF16, DType::kF32}}) {
    EXPECT_EQ(chosen_typed(8192, t), "wgmma_128x256x64_s4_ts");
    EXPECT_EQ(chosen_typed(4096, t), "wgmma_128x256x64_s4_ts");
    {
      // Thin K on a C of 2^24 elements or more, 16-byte pitches: rung 25's strip walk up to
      // K = 16, the wgmma tiles from K = 17 or on a smaller C.
      alignas(16) static std::uint16_t buf[64];
      auto aligned = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
        const KernelInfo* c = select_kernel(Problem::make_typed(m, n, k, t, buf, buf, buf), 90);
        return c == nullptr ? std::string("(none)") : c->name;
      };
      EXPECT_EQ(aligned(4096, 4096, 8), "thin_k_mma_16x512");
      if (t.ab == DType::kBF16) {
        // tf32 too (three tf32 products, faster there than thin_k and the tf32 wgmma tiles),
        // up to K = 32 where the strip implements it
        alignas(16) static float fbuf[64];
        const GemmTypes tf32{DType::kTF32, DType::kF32};
        auto tf32_pick = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
          const KernelInfo* c =
              select_kernel(Problem::make_typed(m, n, k, tf32, fbuf, fbuf, fbuf), 90);
          return c == nullptr ? std::string("(none)") : c->name;
        };
        EXPECT_EQ(tf32_pick(4096, 4096, 8), "thin_k_mma_16x512");
        EXPECT_EQ(tf32_pick(2982, 6722, 29), "thin_k_mma_16x512");  // ld 29: off 16 bytes
        EXPECT_NE(tf32_pick(2982, 6722, 33), "thin_k_mma_16x512");
      }
      EXPECT_EQ(aligned(8192, 2048, 16), "thin_k_mma_16x512");
      EXPECT_NE(aligned(4096, 4096, 24).find("wgmma_"), std::string::npos);
      EXPECT_NE(aligned(4096, 4088, 8).find("wgmma_"), std::string::npos);
    }
    EXPECT_EQ(chosen_typed(1536, t), "wgmma_128x128x64_s6_ts");  // 144 tiles of 128x128
    EXPECT_EQ(chosen_typed(1024, t), "wgmma_128x64x64_s8_ts");   // 128 tiles of 128x64 <= 132 SMs
    // The instance auto takes on sm_90 for M x N x K on a 16-byte aligned buffer with packed
    // leading dimensions (no tensor map describes those that are no multiple of 8 elements).
    alignas(16) static std::uint16_t small[64];
    auto pick = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
      const KernelInfo* chosen =
          select_kernel(Problem::make_typed(m, n, k, t, small, small, small), 90);
      return chosen == nullptr ? std::string("(none)") : chosen->name;
    };
    // At most a third of the SMs in 128x128 tiles against K >= 4 max(M, N): that tile, split
    // (36 and 16 tiles); 64 tiles or a shorter K keep the 128x64 tile.
    EXPECT_EQ(pick(768, 768, 16384), "wgmma_128x128x64_s6_ts");
    EXPECT_EQ(pick(512, 512, 16384), "wgmma_128x128x64_s6_ts");
    EXPECT_EQ(pick(1024, 1024, 8192), "wgmma_128x64x64_s8_ts");
    EXPECT_EQ(pick(768, 768, 2048), "wgmma_128x64x64_s8_ts");
    EXPECT_EQ(pick(512, 1024, 4096), "wgmma_128x128x64_s6_ts");
    EXPECT_EQ(pick(767, 767, 16383), "wgmma_128x128x64_s6_ts_pad");  // odd pitches
    // M or N up to 64 against more 64x128 tiles than SMs: rung 15's 128x64 tile for N, rung 18's
    // 64x64 tile for M (the 128x256 tile computed 3/4 zeros at N = 64); 72 keeps the old rules.
    // With odd pitches the long operand is read in place by rung 23.
    EXPECT_EQ(pick(17024, 64, 4096), "wgmma_128x64x64_s8_ts");
    EXPECT_EQ(pick(16384, 16, 4096), "wgmma_128x64x64_s8_ts");
    EXPECT_EQ(pick(64, 17024, 4096), "wgmma_64x64x64_s13");
    EXPECT_EQ(pick(17023, 63, 4095), "wgmma_64x64x64_s11_rm");
    EXPECT_EQ(pick(17024, 72, 4096), "wgmma_128x256x64_s4_ts");
    // Pitches that are odd multiples of 16 bytes (3000 and 5000 bf16 elements) on large
    // problems: rung 16's copies to a 128-byte pitch (the 128x256 tile only on its 80% waves);
    // 2000 elements (a multiple of 32 bytes) and a small problem stay on the aligned path.
    EXPECT_EQ(pick(3000, 3000, 3000), "wgmma_128x128x64_s6_ts_pad");
    EXPECT_EQ(pick(5000, 5000, 5000), "wgmma_128x256x64_s4_ts_pad");
    EXPECT_EQ(pick(2000, 2000, 2000), "wgmma_128x256x64_s4_ts");
    EXPECT_EQ(pick(1000, 1000, 1000), "wgmma_128x64x64_s8_ts");
    EXPECT_EQ(pick(586, 1632, 72), "wgmma_128x64x64_s8_ts");  // launch-bound: no copy
    // ld 1001 (no 16-byte pitch) and a base one element off: rung 16 copies the operands first
    EXPECT_EQ(chosen_typed(1001, t), "wgmma_128x64x64_s8_ts_pad");
    EXPECT_EQ(chosen_typed(4096, t, 1), "wgmma_128x256x64_s4_ts_pad");
    {
      // K < 128: the copies pay from K = 16 and 2^23 multiply-adds, except that rung 25 takes
      // 2 <= K <= 32 at any size of C and 32 < K <= 64 under 2^23 elements of C (its strip walk
      // for 2 <= K <= 64 from 6 * 2^20 elements of C); K = 1 takes thin_k.
      EXPECT_EQ(pick(1001, 1001, 255), "wgmma_128x64x64_s8_ts_pad");
      EXPECT_EQ(pick(2982, 6722, 33), "thin_k_mma_16x512");
      EXPECT_EQ(pick(2982, 6722, 64), "thin_k_mma_16x512");
      EXPECT_EQ(pick(2982, 6722, 65), "wgmma_128x256x64_s4_ts_pad");
      EXPECT_EQ(pick(2982, 6722, 32), "thin_k_mma_16x512");
      EXPECT_EQ(pick(2982, 6722, 2), "thin_k_mma_16x512");
      EXPECT_EQ(pick(2982, 6722, 1), "thin_k");
      EXPECT_EQ(pick(2048, 3072, 29), "thin_k_mma_16x512");  // 6 * 2^20 elements of C
      EXPECT_EQ(pick(2047, 3072, 29), "thin_k_mma_64x128");
      EXPECT_EQ(pick(1500, 4096, 49), "thin_k_mma_64x128");  // under 6 * 2^20 elements of C
      EXPECT_EQ(pick(863, 5519, 27), "thin_k_mma_64x128");
      EXPECT_EQ(pick(863, 5519, 65), "wgmma_128x128x64_s6_ts_pad");
      EXPECT_EQ(pick(1370, 2520, 6), "thin_k_mma_64x128");
      EXPECT_EQ(pick(1370, 2520, 1), "thin_k");
      // 6.3e6 multiply-adds, once mma.sync's: K <= 32 over at most 2^19 elements of C takes rung
      // 28's one warp a tile (kTinySolo16), past 2^19 rung 25
      EXPECT_EQ(pick(35, 6945, 26), "tiny_mma_32x32");
      EXPECT_EQ(pick(76, 6945, 26), "thin_k_mma_64x128");
      // Small M or N with a long K: rung 18's tile on the copies (rung 20's realigning producer,
      // once chosen from K = 5000, lost that class to the one-launch copies), unless a few tiles
      // hold it: rung 28's split over a cluster (K up to 1024 x min(8, SMs / tiles)).
      EXPECT_EQ(pick(29, 9, 7054), "tiny_mma_32x32");
      EXPECT_EQ(pick(29, 9, 4999), "tiny_mma_32x32");
      EXPECT_EQ(pick(290, 90, 7054), "wgmma_64x64x64_s13_pad");
      // From K = 128 the copies pay on a small problem too (one past rung 24's: more 32x32 tiles
      // than SMs); 2 <= K <= 64 goes to rung 25 (K <= 32 over at most 2^19 elements of C to rung
      // 28's one warp a tile), past it the copies where they pay.
      EXPECT_EQ(pick(890, 200, 170), "wgmma_64x64x64_s13_pad");
      EXPECT_EQ(pick(504, 700, 21), "tiny_mma_32x32");
      EXPECT_EQ(pick(504, 700, 2), "tiny_mma_32x32");
      EXPECT_EQ(pick(504, 700, 33), "thin_k_mma_64x128");
      EXPECT_EQ(pick(1024, 1024, 21), "thin_k_mma_64x128");
      EXPECT_EQ(pick(504, 700, 65), "wgmma_128x64x64_s8_ts_pad");
      // Rung 21 for odd leading dimensions: M or N of at most 4 at any K, of at most 8 from
      // K = 256; a shorter K takes rung 25 up to K = 64 (mma.sync before it), 9 columns or
      // more the copies.
      EXPECT_EQ(pick(2394, 3, 4182), "narrow_n4");
      EXPECT_EQ(pick(4, 14400, 2), "narrow_n4");
      EXPECT_EQ(pick(4300, 5, 1091), "narrow_n8");  // 135 tiles: more than the SMs
      // ... but past half a wave of 32x32 tiles with K of 513..4096, rung 28 (one block a tile
      // over the whole K) ahead of them; within half a wave its cluster split (above)
      EXPECT_EQ(pick(2609, 6, 562), "tiny_mma_32x32");  // 82 tiles
      EXPECT_EQ(pick(3000, 5, 700), "tiny_mma_32x32");  // 94 tiles
      EXPECT_EQ(pick(2222, 5, 1091), "tiny_mma_32x32");
      EXPECT_EQ(pick(3000, 5, 1025), "tiny_mma_32x32");
      EXPECT_EQ(pick(4100, 2, 4000), "tiny_mma_32x32");  // 129 tiles
      EXPECT_EQ(pick(6, 2834, 1188), "tiny_mma_32x32");
      EXPECT_NE(pick(3000, 5, 4097), "tiny_mma_32x32");
      EXPECT_EQ(pick(4300, 5, 700), "narrow_n8");
      // Rung 28's cluster split ahead of them where a few tiles hold the product (K at most
      // 1024 x min(8, SMs / tiles)); from K = 4096 with a long operand of 4 MiB or more over
      // more tiles, rung 23 (below) reads it faster
      EXPECT_EQ(pick(35, 5, 5919), "tiny_mma_32x32");
      EXPECT_EQ(pick(226, 6, 6750), "tiny_mma_32x32");  // 3 MB
      EXPECT_EQ(pick(569, 7, 5669), "tiny_mma_32x32");  // 6.4 MB over 18 tiles
      // (B along its narrow side, A K-major at a 4-byte pitch: rung 28 again, above)
      EXPECT_EQ(pick(2537, 8, 5058), "tiny_mma_32x32");
      EXPECT_EQ(pick(2537, 8, 5059), "wgmma_64x64x64_s11_rm");
      EXPECT_EQ(pick(11300, 8, 63), "thin_k_mma_64x128");
      // Rung 23 (residue-class tensor maps): M or N up to 64 whose long operand has no tensor
      // map, with the short one described (one launch) or the long one 1 MiB or more; both
      // without maps on a smaller long operand keep the copies (290 x 90 x 7054 above); a short
      // operand without a map against a long one under 4 MiB: rung 23 again (one launch where
      // the copies take two; 4300 x 31 has a 16-byte pitch in A and more 32x32 tiles than SMs,
      // past rung 24's small products, which took 2369 x 7 x 144 from it); from 4 MiB the
      // copies (3000 x 60 x 2048: 12 MB).
      EXPECT_EQ(pick(5169, 16, 1413), "wgmma_64x64x64_s11_rm");
      EXPECT_EQ(pick(16, 8191, 8191), "wgmma_64x64x64_s11_rm");
      EXPECT_EQ(pick(4300, 31, 256), "wgmma_64x64x64_s11_rm");
      EXPECT_EQ(pick(4300, 31, 96), "small_mma_64x64");          // K of 65..128: rung 27 (above)
      EXPECT_EQ(pick(2768, 18, 2049), "wgmma_64x64x64_s11_rm");  // 87 tiles: rung 28 to K 2048
      EXPECT_EQ(pick(2768, 18, 1100), "tiny_mma_32x32");
      EXPECT_EQ(pick(2000, 9, 2100), "wgmma_64x64x64_s11_rm");   // 8.4 MB (to K 2048: rung 28)
      EXPECT_EQ(pick(3000, 60, 2048), "wgmma_64x64x64_s13_pad");
      // up to 128 on a long operand of 16 MiB or more: its 64x128 tile
      EXPECT_EQ(pick(128, 8191, 4095), "wgmma_64x128x64_s8_rm");
      EXPECT_EQ(pick(5312, 122, 3719), "wgmma_64x128x64_s8_rm");
      // more 64x64 tiles than SMs, M and N past 128: the 128-row padded tiles
      EXPECT_EQ(pick(139, 5420, 288), "wgmma_128x128x64_s6_ts_pad");
      const GemmTypes tf32{DType::kTF32, DType::kF32};
      alignas(16) static float small32[64];
      const KernelInfo* long_k_tf32 =
          select_kernel(Problem::make_typed(29, 9, 7054, tf32, small32, small32, small32), 90);
      ASSERT_NE(long_k_tf32, nullptr);
      EXPECT_NE(long_k_tf32->family, "wgmma_realign");
    }
    // Small M or N (rung 18): the 64x64 tile where a wave of it holds the problem, else the
    // 64x128 tile; 256 rows already fill a wave of 128x128 tiles.
    EXPECT_EQ(pick(16, 8192, 8192), "wgmma_64x64x64_s13");
    EXPECT_EQ(pick(8192, 64, 8192), "wgmma_64x64x64_s13");
    EXPECT_EQ(pick(128, 8192, 8192), "wgmma_64x128x64_s9");
    EXPECT_EQ(pick(16, 16384, 4096), "wgmma_64x128x64_s9");
    EXPECT_EQ(pick(256, 8192, 8192), "wgmma_128x128x64_s6_ts");
    const Problem p = Problem::make_typed(4096, 4096, 4096, t, small, small, small);
    if (find_kernel("mma_sync_128x128x32_w64x64_s4")->desc.runs_on(80)) {  // sm_80 built
      const KernelInfo* on_a100 = select_kernel(p, 80);
      ASSERT_NE(on_a100, nullptr);
      EXPECT_EQ(on_a100->name, "mma_sync_128x128x32_w64x64_s4");
    }
  }
  const GemmTypes tf32{DType::kTF32, DType::kF32};
  alignas(16) static float fbuf[64];
  Problem kk = Problem::make_typed(4096, 4096, 4096, tf32, fbuf, fbuf, fbuf);
  // A row-major: K-major A and B from shared memory; A column-major: A through registers;
  // B row-major: the mirrored product; A column-major and B row-major: B copied transposed first
  // (rung 16).
  for (Layout la : {Layout::kRowMajor, Layout::kColMajor}) {
    for (Layout lb : {Layout::kRowMajor, Layout::kColMajor}) {
      for (Layout lc : {Layout::kRowMajor, Layout::kColMajor}) {
        kk.a.layout = la;
        kk.b.layout = lb;
        kk.c.layout = lc;
        const KernelInfo* k = select_kernel(kk, 90);
        ASSERT_NE(k, nullptr);
        const bool both_mn = la == Layout::kColMajor && lb == Layout::kRowMajor;
        EXPECT_EQ(k->name,
                  both_mn ? "wgmma_tf32_128x256x32_s4_ts_pad" : "wgmma_tf32_128x256x32_s4_ts")
            << layout_name(la) << "," << layout_name(lb) << "," << layout_name(lc);
      }
    }
  }
  // Odd extents at ld = extent (no tensor map reads A or B): rung 16's copies of both under the
  // 128x256 tile in every layout mix (rung 23's reading of one operand in place lost there:
  // perf-notes.md, "Rung 23's residue maps under a tf32 128x256 tile"), and under the 128x128
  // tile a product one 128x256 tile short of the wave rule.
  Problem odd = Problem::make_typed(4095, 4095, 4095, tf32, fbuf, fbuf, fbuf);
  for (Layout la : {Layout::kRowMajor, Layout::kColMajor}) {
    for (Layout lb : {Layout::kRowMajor, Layout::kColMajor}) {
      for (Layout lc : {Layout::kRowMajor, Layout::kColMajor}) {
        odd.a.layout = la;
        odd.b.layout = lb;
        odd.c.layout = lc;
        const KernelInfo* k = select_kernel(odd, 90);
        ASSERT_NE(k, nullptr);
        EXPECT_EQ(k->name, "wgmma_tf32_128x256x32_s4_ts_pad")
            << layout_name(la) << "," << layout_name(lb) << "," << layout_name(lc);
      }
    }
  }
  // 8 x 13 = 104 tiles of 128x256 against 132 SMs: under 7/8 of a wave.
  const KernelInfo* under_wave =
      select_kernel(Problem::make_typed(8 * 128 - 1, 13 * 256 - 1, 4095, tf32, fbuf, fbuf, fbuf,
                                        1.0f, 0.0f, Layout::kRowMajor, Layout::kColMajor),
                    90);
  ASSERT_NE(under_wave, nullptr);
  EXPECT_EQ(under_wave->name, "wgmma_tf32_128x128x32_s6_ts_pad");
}

// Where wgmma is no candidate: an A100 (cc 8.0) when sm_80 is built, else sm_90 without the
// sm_90a family.
TEST(AutoRule, TensorTypesTakeMmaSyncByShape) {
  const KernelInfo* mma = find_kernel("mma_sync_128x128x32_w64x64_s4");
  ASSERT_NE(mma, nullptr);
  const int cc = mma->desc.runs_on(80) ? 80 : 90;
  if (cc == 90 && find_kernel("wgmma_128x256x64_s4") != nullptr) {
    GTEST_SKIP() << "sm_80 not built and sm_90 takes wgmma";
  }
  for (GemmTypes t : {GemmTypes{DType::kBF16, DType::kBF16}, GemmTypes{DType::kF16, DType::kF32}}) {
    EXPECT_EQ(chosen_typed(8192, t, 0, cc), "mma_sync_128x256x32_w64x64_s3");
    EXPECT_EQ(chosen_typed(4096, t, 0, cc), "mma_sync_128x128x32_w64x64_s4");
    EXPECT_EQ(chosen_typed(1000, t, 0, cc), "mma_sync_128x128x32_w64x64_s4");
    // ld 1001 is no multiple of 8 elements; a base one element off is not 16-byte aligned
    EXPECT_EQ(chosen_typed(1001, t, 0, cc), "mma_sync_128x128x32_w64x64_s4_anyalign");
    EXPECT_EQ(chosen_typed(1024, t, 1, cc), "mma_sync_128x128x32_w64x64_s4_anyalign");
  }
  const GemmTypes tf32{DType::kTF32, DType::kF32};
  EXPECT_EQ(chosen_typed(8192, tf32, 0, cc), "mma_sync_tf32_128x256x16_w64x64_s3");
  EXPECT_EQ(chosen_typed(4095, tf32, 0, cc), "mma_sync_tf32_128x128x16_w64x64_s4_anyalign");
}

}  // namespace
}  // namespace tilegemm
