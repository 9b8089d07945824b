// Registry constraints: what every entry must declare, name lookup, the `auto` rule's coverage.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
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
    EXPECT_TRUE(static_cast<bool>(k.device_function));
    EXPECT_FALSE(k.desc.types.empty());
    for (GemmTypes t : k.desc.types) EXPECT_TRUE(types_supported(t)) << gemm_types_name(t);
    EXPECT_GE(k.desc.min_cc, 50);
    EXPECT_TRUE(k.desc.max_cc == 0 || k.desc.max_cc >= k.desc.min_cc);
    EXPECT_GE(k.desc.align_a, 1);
    EXPECT_GE(k.desc.align_b, 1);
    EXPECT_GE(k.desc.align_c, 1);
    // SIMT kernels compute fp32 (the matrix-vector, thin-K and narrow families every type as
    // well, in fp32 math: their speed is a memory stream; the small products and rung 1 too:
    // theirs is the launch and its round trips); tensor-core kernels claim plain fp32
    // only as three tf32 products (rungs 22 and 29, verified at the fp32 tolerance, and rung 25's
    // strip walk and rung 28 beside their 16-bit types), never as one (no silent tf32), and then
    // fp32 alone
    if (k.name == "thin_k_mma_16x512" || k.family == "tiny_mma") {
      EXPECT_TRUE(k.desc.computes({DType::kF32, DType::kF32}));
      EXPECT_TRUE(k.desc.computes({DType::kBF16, DType::kBF16}));
    } else if (k.desc.op_class == OpClass::kSimt) {
      if (k.family != "gemv" && k.family != "thin_k" && k.family != "narrow" &&
          k.family != "small" && k.family != "naive") {
        EXPECT_EQ(k.desc.types.size(), 1u);
      }
      EXPECT_TRUE(k.desc.computes({DType::kF32, DType::kF32}));
    } else if (k.family == "wgmma_3xtf32" || k.family == "mma_3xtf32") {
      EXPECT_EQ(k.desc.types.size(), 1u);
      EXPECT_TRUE(k.desc.computes({DType::kF32, DType::kF32}));
    } else {
      EXPECT_FALSE(k.desc.computes({DType::kF32, DType::kF32}));
    }
    EXPECT_GE(k.rung, last_rung) << "registry is in ladder order";
    last_rung = k.rung;
    EXPECT_GT(k.tile.threads, 0);
    EXPECT_LE(k.tile.threads, 1024);
    EXPECT_LE(k.tile.smem_bytes, 227 * 1024);
  }
}

// Each A/B -> C storage combination a kernel claims runs an instantiation of its own (tf32 reads
// fp32 storage, so an fp32 and a tf32 claim may share one): a launcher that mapped two storage
// types to one kernel would read one of them as the other.
TEST(Registry, EachStorageTypeCombinationRunsItsOwnKernel) {
  alignas(16) static float buf[64 * 64];
  const auto storage = [](DType d) { return d == DType::kTF32 ? DType::kF32 : d; };
  int compared = 0;
  for (const KernelInfo& k : all_kernels()) {
    SCOPED_TRACE(k.name);
    std::map<std::pair<DType, DType>, const void*> seen;
    for (GemmTypes t : k.desc.types) {
      const Problem p = Problem::make_typed(64, 64, 64, t, buf, buf, buf);
      if (!k.can_implement(p)) continue;
      const void* const fn = k.device_function(p);
      ASSERT_NE(fn, nullptr) << gemm_types_name(t);
      const std::pair<DType, DType> key{storage(t.ab), storage(t.c)};
      for (const auto& [other, other_fn] : seen) {
        if (other == key) continue;
        EXPECT_NE(fn, other_fn) << gemm_types_name(t);
        ++compared;
      }
      seen.emplace(key, fn);
    }
  }
  EXPECT_GT(compared, 0);
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
  EXPECT_FALSE(find_kernel("smem_tiled_t16")->can_implement(p));
  EXPECT_FALSE(find_kernel("smem_tiled_t32")->can_implement(p));
}

TEST(Registry, TinyMma16x8TakesKUpTo128) {
  // Rung 28's 16 x 8 tile loads its whole K in one round: K of 128 and not 129, any layout and
  // pitch (odd base pointers included), 16-bit types and fp32 (three tf32 products), not tf32.
  alignas(16) static std::uint16_t buf[64];
  const KernelInfo* frag = find_kernel("tiny_mma_16x8");
  ASSERT_NE(frag, nullptr);
  for (int offset : {0, 1}) {
    for (std::int64_t k : {1, 128, 129}) {
      const Problem p = Problem::make_typed(12, 47, k, {DType::kBF16, DType::kBF16}, buf + offset,
                                            buf + offset, buf + offset);
      EXPECT_EQ(frag->can_implement(p), k <= 128) << "K " << k << " offset " << offset;
    }
  }
  alignas(16) static float f32[64];
  EXPECT_TRUE(frag->can_implement(Problem::make(12, 47, 128, f32, f32, f32)));
  EXPECT_FALSE(frag->can_implement(Problem::make(12, 47, 129, f32, f32, f32)));
  EXPECT_FALSE(frag->can_implement(
      Problem::make_typed(12, 47, 77, {DType::kTF32, DType::kF32}, f32, f32, f32)));
}

// gemv's kernel for a matrix-vector product is host logic (no device needed; nothing is
// dereferenced): the in-place kernels where A's base and pitch (and, A row-major, x's base) are
// 16-byte aligned; elsewhere, in 16-bit types, the staged row kernel past K = 256 at a contiguous
// x, and the shifted column kernel past K = 128 over at least 16 rows; fp32 and the short products
// keep the in-place kernels (their element or narrower loads). Each pitch and base offset must
// land in its class, and the classes must be distinct kernels.
TEST(Registry, GemvTakesItsKernelByPitchClass) {
  alignas(16) static std::uint16_t buf[64];
  const KernelInfo* gemv = find_kernel("gemv");
  ASSERT_NE(gemv, nullptr);
  const GemmTypes bf16{DType::kBF16, DType::kBF16};
  // A row-major (N = 1): the row kernels. `x_ld` 2: x at a stride of 2.
  const auto rows_fn = [&](std::int64_t k, std::int64_t pad, int offset, std::int64_t x_ld = 1) {
    Problem p = Problem::make_typed(300, 1, k, bf16, buf + offset, buf, buf);
    p.a.ld += pad;
    p.b.ld = x_ld;
    return gemv->device_function(p);
  };
  const void* const rows_aligned = rows_fn(1104, 0, 0);  // ld 1104: a 16-byte pitch
  const void* const rows_staged = rows_fn(1101, 0, 0);   // ld 1101: odd
  EXPECT_NE(rows_aligned, rows_staged);
  for (std::int64_t pad = 0; pad < 8; ++pad) {
    for (int offset = 0; offset < 8; ++offset) {
      const bool aligned = (1104 + pad) % 8 == 0 && offset == 0;
      EXPECT_EQ(rows_fn(1104, pad, offset), aligned ? rows_aligned : rows_staged)
          << "row-major, pad " << pad << ", offset " << offset;
      // K = 200: one round of element loads, in the in-place kernel at every pitch
      EXPECT_EQ(rows_fn(200, pad, offset), rows_aligned) << "K 200, pad " << pad;
    }
  }
  EXPECT_EQ(rows_fn(1104, 1, 0, 2), rows_aligned) << "a strided x: element loads in place";
  // A column-major (N = 1): the column kernels.
  const auto cols_fn = [&](std::int64_t m, std::int64_t k, std::int64_t pad, int offset) {
    Problem p =
        Problem::make_typed(m, 1, k, bf16, buf + offset, buf, buf, 1.0f, 0.0f, Layout::kColMajor);
    p.a.ld += pad;
    return gemv->device_function(p);
  };
  const void* const cols_aligned = cols_fn(1104, 777, 0, 0);
  const void* const cols_shifted = cols_fn(1105, 777, 0, 0);
  const void* const cols_pitch8 = cols_fn(1100, 100, 0, 0);  // 2200 bytes: 8-byte loads
  const void* const cols_pitch4 = cols_fn(1102, 100, 0, 0);  // 2204 bytes: 4-byte loads
  const std::set<const void*> distinct{rows_aligned, rows_staged, cols_aligned,
                                       cols_shifted, cols_pitch8, cols_pitch4};
  EXPECT_EQ(distinct.size(), 6u);
  for (std::int64_t pad = 0; pad < 8; ++pad) {
    for (int offset = 0; offset < 8; ++offset) {
      const bool aligned = (1104 + pad) % 8 == 0 && offset == 0;
      EXPECT_EQ(cols_fn(1104, 777, pad, offset), aligned ? cols_aligned : cols_shifted)
          << "column-major, pad " << pad << ", offset " << offset;
      // A short column (M under 16) or a short K keeps the in-place kernels.
      EXPECT_NE(cols_fn(8, 777, pad, offset), cols_shifted) << "M 8, pad " << pad;
      EXPECT_NE(cols_fn(1104, 100, pad, offset), cols_shifted) << "K 100, pad " << pad;
    }
  }
  // fp32 keeps the in-place kernels at every pitch.
  alignas(16) static float f32[64];
  for (std::int64_t pad = 0; pad < 4; ++pad) {
    Problem rows = Problem::make(300, 1, 1100, f32, f32, f32);
    rows.a.ld += pad;
    EXPECT_EQ(gemv->device_function(rows),
              gemv->device_function(Problem::make(300, 1, 1100, f32, f32, f32)))
        << "fp32 row-major, pad " << pad;
  }
}

TEST(KernelDesc, ArchitectureRange) {
  KernelDesc hopper_only;
  hopper_only.min_cc = 90;
  hopper_only.max_cc = 90;
  EXPECT_FALSE(hopper_only.runs_on(80));
  EXPECT_TRUE(hopper_only.runs_on(90));
  EXPECT_FALSE(hopper_only.runs_on(100));
  KernelDesc ampere_up;
  ampere_up.min_cc = 80;
  EXPECT_FALSE(ampere_up.runs_on(75));
  EXPECT_TRUE(ampere_up.runs_on(86));
  EXPECT_TRUE(ampere_up.runs_on(120));
  EXPECT_TRUE(KernelDesc{}.computes({DType::kF32, DType::kF32}));
  EXPECT_FALSE(KernelDesc{}.computes({DType::kTF32, DType::kF32}));
}

TEST(Registry, TypesAreCheckedBeforeAnyFamilyTest) {
  // An fp32-only kernel refuses a bf16 problem through can_implement, whatever its shape.
  alignas(16) static std::uint16_t buf[64];
  const Problem p = Problem::make_typed(8, 8, 8, {DType::kBF16, DType::kBF16}, buf, buf, buf);
  EXPECT_FALSE(find_kernel("smem_tiled_t16")->can_implement(p));
  Problem mixed = p;
  mixed.b.dtype = DType::kF16;  // A and B must agree
  for (const KernelInfo& k : all_kernels()) EXPECT_FALSE(k.can_implement(mixed)) << k.name;
}

TEST(Registry, FiltersByTypesAndArchitecture) {
  const DType all[] = {DType::kF32, DType::kTF32, DType::kBF16, DType::kF16};
  for (DType ab : all) {
    for (DType c : all) {
      const GemmTypes t{ab, c};
      for (int cc : {75, 80, 86, 89, 90, 100}) {
        for (const KernelInfo* k : kernels_for(t, cc)) {
          EXPECT_TRUE(types_supported(t));
          EXPECT_TRUE(k->desc.computes(t)) << k->name;
          EXPECT_TRUE(k->desc.runs_on(cc)) << k->name << " cc " << cc;
        }
      }
    }
  }
  EXPECT_FALSE(kernels_for({DType::kF32, DType::kF32}, 90).empty());
}

TEST(Registry, AutoChoosesOnlyKernelsOfTheProblemsTypesAndGpu) {
  alignas(16) static float buf[64];
  const GemmTypes combos[] = {{DType::kF32, DType::kF32},   {DType::kTF32, DType::kF32},
                              {DType::kBF16, DType::kBF16}, {DType::kBF16, DType::kF32},
                              {DType::kF16, DType::kF16},   {DType::kF16, DType::kF32}};
  for (GemmTypes t : combos) {
    for (int cc : {75, 80, 90}) {
      for (std::int64_t s : {1, 100, 1024, 4096}) {
        const Problem p = Problem::make_typed(s, s, s, t, buf, buf, buf);
        const KernelInfo* k = select_kernel(p, cc);
        // Every type combination has a kernel on sm_90 (mma.sync for the tensor types), and on
        // any GPU some kernel of the combination runs on (the build's lowest architecture and
        // up); where none runs, auto says so with null.
        if (cc >= 90 || !kernels_for(t, cc).empty()) {
          ASSERT_NE(k, nullptr) << gemm_types_name(t) << " cc " << cc << " size " << s;
        } else {
          EXPECT_EQ(k, nullptr);
        }
        if (k == nullptr) continue;
        EXPECT_TRUE(k->desc.computes(t)) << k->name << " for " << gemm_types_name(t);
        EXPECT_TRUE(k->desc.runs_on(cc)) << k->name << " on cc " << cc;
        EXPECT_TRUE(k->can_implement(p)) << k->name;
        // tf32 math only when asked: an fp32 problem goes to the CUDA cores or to three tf32
        // products (rung 22), never to one
        if (t.ab == DType::kF32 && k->desc.op_class != OpClass::kSimt) {
          EXPECT_EQ(k->family, "wgmma_3xtf32") << k->name;
        }
      }
    }
  }
}

}  // namespace
}  // namespace tilegemm
