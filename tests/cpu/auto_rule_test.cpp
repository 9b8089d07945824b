// The `auto` rule's shape classes (src/core/dispatch.cpp), on the CPU: without a device the rule
// assumes 132 SMs (H100/H200 SXM), so these are the choices the GPU run will exercise there.
#include <gtest/gtest.h>

#include <string>

#include "tilegemm/gemm.hpp"

namespace tilegemm {
namespace {

alignas(16) float g_buf[8];

std::string chosen(std::int64_t m, std::int64_t n, std::int64_t k, Layout lb = Layout::kRowMajor,
                   int offset = 0) {
  const Problem p = Problem::make(m, n, k, g_buf + offset, g_buf + offset, g_buf + offset, 1.0f,
                                  0.0f, Layout::kRowMajor, lb, Layout::kRowMajor);
  const KernelInfo* kernel = select_kernel(p);
  return kernel == nullptr ? "(none)" : kernel->name;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

TEST(AutoRule, LargeShapesTakeTheLargeTile) {
  for (std::int64_t s : {2048, 4096, 8192}) {
    for (Layout lb : {Layout::kRowMajor, Layout::kColMajor}) {
      const std::string name = chosen(s, s, s, lb);
      EXPECT_TRUE(starts_with(name, "tuned_large_")) << s << ": " << name;
      EXPECT_FALSE(ends_with(name, "_anyalign")) << s << ": " << name;
    }
  }
  EXPECT_TRUE(starts_with(chosen(8192, 1024, 8192), "tuned_large_"));
  EXPECT_TRUE(starts_with(chosen(4096, 4096, 16384), "tuned_large_"));
}

TEST(AutoRule, UnalignedLeadingDimensionsTakeTheAnyAlignTwin) {
  // 4095 x 4095 row-major B: rows of 4095 floats, not 16-byte multiples
  EXPECT_TRUE(ends_with(chosen(4095, 4095, 4095), "_anyalign")) << chosen(4095, 4095, 4095);
  // col-major B is k-contiguous: copied 4 bytes at a time anyway, the aligned instance fits
  EXPECT_FALSE(ends_with(chosen(4095, 4095, 4095, Layout::kColMajor), "_anyalign"));
  // a misaligned base pointer
  EXPECT_TRUE(ends_with(chosen(4096, 4096, 4096, Layout::kRowMajor, 1), "_anyalign"));
}

TEST(AutoRule, SmallAndSkinnyShapes) {
  EXPECT_TRUE(starts_with(chosen(16, 4096, 4096), "tuned_skinny_"));
  EXPECT_TRUE(starts_with(chosen(4096, 16, 4096), "tuned_skinny_"));  // runs as C^T = B^T A^T
  EXPECT_TRUE(starts_with(chosen(1024, 1024, 1024), "tuned_medium_")) << chosen(1024, 1024, 1024);
  EXPECT_TRUE(starts_with(chosen(1000, 1000, 1000), "tuned_medium_"));
  for (std::int64_t s : {256, 512}) {
    const std::string name = chosen(s, s, s);
    EXPECT_TRUE(starts_with(name, "tuned_small_") && ends_with(name, "_splitk"))
        << s << ": " << name;
  }
  EXPECT_TRUE(starts_with(chosen(512, 512, 65536), "tuned_longk_"));
}

TEST(AutoRule, EveryChoiceCanImplementItsProblem) {
  for (std::int64_t m : {1, 3, 16, 33, 100, 257, 1000, 4095}) {
    for (std::int64_t n : {1, 5, 32, 64, 129, 1024}) {
      for (std::int64_t k : {1, 7, 64, 1000}) {
        for (int offset : {0, 1, 2}) {
          const Problem p = Problem::make(m, n, k, g_buf + offset, g_buf + offset, g_buf + offset);
          const KernelInfo* kernel = select_kernel(p);
          ASSERT_NE(kernel, nullptr);
          EXPECT_TRUE(kernel->can_implement(p)) << kernel->name;
        }
      }
    }
  }
}

}  // namespace
}  // namespace tilegemm
