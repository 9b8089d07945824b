// Registry constraints: what every entry must declare, name lookup, the `auto` rule's coverage.
#include <gtest/gtest.h>

#include <array>
#include <set>
#include <string>
#include <vector>

#include "tilegemm/gemm.hpp"

namespace tilegemm {
namespace {

TEST(Registry, HoldsTheSeedsKernels) {
  for (const char* name :
       {"naive", "smem_tiled_t8", "smem_tiled_t16", "smem_tiled_t32", "smem_tiled_rect_32x16x16"}) {
    EXPECT_NE(find_kernel(name), nullptr) << name;
  }
  EXPECT_GE(match_kernels("smem_tiled_rect_*").size(), 2u);
  EXPECT_EQ(find_kernel("smem_tiled_t32")->tile.bm, 32);
  EXPECT_EQ(find_kernel("smem_tiled_rect_32x16x16")->tile.bn, 16);
  EXPECT_EQ(find_kernel("smem_tiled_rect_32x16x16")->tile.bk, 16);
}

TEST(Registry, EveryEntryIsComplete) {
  std::set<std::string> names;
  int last_rung = 0;
  for (const KernelInfo& k : all_kernels()) {
    SCOPED_TRACE(k.name);
    EXPECT_TRUE(names.insert(k.name).second) << "duplicate name";
    EXPECT_FALSE(k.name.empty());
    EXPECT_NE(k.name, "auto");
    EXPECT_EQ(k.name.find_first_of(" \t,*?"), std::string::npos) << "name must be glob-safe";
    EXPECT_FALSE(k.family.empty());
    EXPECT_FALSE(k.summary.empty());
    EXPECT_TRUE(static_cast<bool>(k.can_implement));
    EXPECT_TRUE(static_cast<bool>(k.launch));
    EXPECT_NE(k.device_function, nullptr);
    EXPECT_GE(k.rung, last_rung) << "registry is in ladder order";
    last_rung = k.rung;
    EXPECT_GT(k.tile.threads, 0);
    EXPECT_LE(k.tile.threads, 1024);
    EXPECT_LE(k.tile.smem_bytes, 227 * 1024);
  }
}

TEST(Registry, GlobMatching) {
  EXPECT_EQ(match_kernels("naive").size(), 1u);
  EXPECT_EQ(match_kernels("*").size(), all_kernels().size());
  EXPECT_TRUE(match_kernels("nothing_*").empty());
  const auto t = match_kernels("smem_tiled_t??");
  ASSERT_EQ(t.size(), 2u);  // t16, t32
  EXPECT_EQ(t[0]->name, "smem_tiled_t16");
  EXPECT_EQ(match_kernels("smem_tiled_t?").size(), 1u);
  EXPECT_EQ(find_kernel("smem"), nullptr);
}

TEST(Registry, AutoCoversEveryShapeClassAndLayout) {
  // can_implement is host logic: the dispatcher's choice needs no device. Fake, aligned and
  // misaligned pointers; nothing is dereferenced.
  alignas(16) static float buf[4];
  const std::vector<std::array<std::int64_t, 3>> shapes = {
      {1, 1, 1},          {7, 13, 5},         {16, 4096, 4096},    {4095, 4095, 4095},
      {1000, 1000, 1000}, {8192, 1024, 8192}, {4096, 4096, 16384}, {256, 256, 256},
      {1, 4096, 1},       {4097, 3, 65}};
  for (const auto& s : shapes) {
    for (int mix = 0; mix < 8; ++mix) {
      const Layout la = (mix & 4) ? Layout::kColMajor : Layout::kRowMajor;
      const Layout lb = (mix & 2) ? Layout::kColMajor : Layout::kRowMajor;
      const Layout lc = (mix & 1) ? Layout::kColMajor : Layout::kRowMajor;
      for (int offset : {0, 1}) {  // 16-byte aligned and misaligned base pointers
        Problem p = Problem::make(s[0], s[1], s[2], buf + offset, buf + offset, buf + offset, 1.0f,
                                  0.0f, la, lb, lc);
        const KernelInfo* k = select_kernel(p);
        ASSERT_NE(k, nullptr) << s[0] << "x" << s[1] << "x" << s[2] << " mix " << mix;
        EXPECT_TRUE(k->can_implement(p)) << k->name;
      }
    }
  }
}

TEST(Registry, NaiveAndTiledRefuseGridsTheHardwareCannotLaunch) {
  static float buf[1];
  Problem p = Problem::make(std::int64_t{1} << 40, 1, 1, buf, buf, buf);
  EXPECT_FALSE(find_kernel("naive")->can_implement(p));
  EXPECT_FALSE(find_kernel("smem_tiled_t32")->can_implement(p));
}

}  // namespace
}  // namespace tilegemm
