// The element-type flags (--dtype, --dtype-c) and what they select: parsing and its errors, every
// supported and unsupported combination, the kernel globs filtered by types and by the GPU's
// compute capability, and the dtype flags a replay command carries.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "input_error.hpp"
#include "tilegemm/bench.hpp"
#include "tilegemm/gemm.hpp"

namespace tb = tilegemm::bench;
using tilegemm::DType;
using tilegemm::GemmTypes;

namespace {

using tilegemm::test_util::error_of;

GemmTypes types(const char* ab, const char* c) {
  return tb::parse_types("--dtype", ab, "--dtype-c", c);
}

const DType kAll[] = {DType::kF32, DType::kTF32, DType::kBF16, DType::kF16};

}  // namespace

TEST(DtypeFlags, EveryNameParses) {
  EXPECT_EQ(tb::parse_dtype("--dtype", "f32"), DType::kF32);
  EXPECT_EQ(tb::parse_dtype("--dtype", "tf32"), DType::kTF32);
  EXPECT_EQ(tb::parse_dtype("--dtype", "bf16"), DType::kBF16);
  EXPECT_EQ(tb::parse_dtype("--dtype", "f16"), DType::kF16);
  // The names are dtype_name's, so what the library prints reads back.
  for (DType d : kAll) EXPECT_EQ(tb::parse_dtype("--dtype", tilegemm::dtype_name(d)), d);
  EXPECT_EQ(tb::parse_dtype_c("--dtype-c", "f32"), DType::kF32);
  EXPECT_EQ(tb::parse_dtype_c("--dtype-c", "bf16"), DType::kBF16);
  EXPECT_EQ(tb::parse_dtype_c("--dtype-c", "f16"), DType::kF16);
}

TEST(DtypeFlags, UnknownNamesNameTheFlag) {
  EXPECT_EQ(error_of([] { tb::parse_dtype("--dtype", "fp8"); }),
            "--dtype: unknown dtype 'fp8'; expected f32, tf32, bf16 or f16");
  for (const char* bad : {"", "F32", "fp32", "float", "half", "bf16 ", "e4m3", "f64"}) {
    EXPECT_EQ(error_of([&] { tb::parse_dtype("--dtype", bad); }),
              "--dtype: unknown dtype '" + std::string(bad) + "'; expected f32, tf32, bf16 or f16")
        << bad;
  }
  EXPECT_EQ(error_of([] { tb::parse_dtype_c("--dtype-c", "fp8"); }),
            "--dtype-c: unknown dtype 'fp8'; expected f32, bf16 or f16");
  // tf32 is a way to read fp32 operands, never C's storage.
  const std::string tf32 = error_of([] { tb::parse_dtype_c("--dtype-c", "tf32"); });
  EXPECT_EQ(tf32.rfind("--dtype-c: 'tf32' is not a C dtype", 0), 0u) << tf32;
}

TEST(DtypeFlags, DefaultsFollowTheLibrary) {
  // Nothing given: f32 -> f32, today's behaviour.
  EXPECT_TRUE(types("", "") == (GemmTypes{DType::kF32, DType::kF32}));
  // --dtype alone: C gets default_c_dtype.
  for (DType d : kAll) {
    const GemmTypes t = types(tilegemm::dtype_name(d), "");
    EXPECT_EQ(t.ab, d);
    EXPECT_EQ(t.c, tilegemm::default_c_dtype(d));
  }
  EXPECT_TRUE(types("tf32", "") == (GemmTypes{DType::kTF32, DType::kF32}));
  EXPECT_TRUE(types("bf16", "") == (GemmTypes{DType::kBF16, DType::kBF16}));
  // --dtype-c alone: A/B are f32.
  EXPECT_TRUE(types("", "f32") == (GemmTypes{DType::kF32, DType::kF32}));
}

TEST(DtypeFlags, EveryCombination) {
  // Exactly types_supported's combinations parse; every other one names --dtype-c.
  for (DType ab : kAll) {
    for (DType c : {DType::kF32, DType::kBF16, DType::kF16}) {
      const GemmTypes want{ab, c};
      const char* ab_name = tilegemm::dtype_name(ab);
      const char* c_name = tilegemm::dtype_name(c);
      if (tilegemm::types_supported(want)) {
        EXPECT_TRUE(types(ab_name, c_name) == want) << ab_name << " " << c_name;
      } else {
        const std::string e = error_of([&] { types(ab_name, c_name); });
        EXPECT_EQ(e.rfind("--dtype-c: '" + std::string(c_name) + "' is not a C dtype for --dtype " +
                              ab_name,
                          0),
                  0u)
            << e;
      }
    }
  }
  EXPECT_EQ(error_of([] { types("f32", "bf16"); }),
            "--dtype-c: 'bf16' is not a C dtype for --dtype f32 (want f32)");
  EXPECT_EQ(error_of([] { types("tf32", "f16"); }),
            "--dtype-c: 'f16' is not a C dtype for --dtype tf32 (want f32)");
  EXPECT_EQ(error_of([] { types("bf16", "f16"); }),
            "--dtype-c: 'f16' is not a C dtype for --dtype bf16 (want bf16 or f32)");
  EXPECT_EQ(error_of([] { types("f16", "bf16"); }),
            "--dtype-c: 'bf16' is not a C dtype for --dtype f16 (want f16 or f32)");
  // A bad A/B name is reported before the combination.
  EXPECT_EQ(error_of([] { types("fp8", "bf16"); }).rfind("--dtype: ", 0), 0u);
}

TEST(DtypeFlags, DtypeFlagsReadBack) {
  EXPECT_EQ(tb::dtype_flags({}), "");
  EXPECT_EQ(tb::dtype_flags({DType::kBF16, DType::kBF16}), "--dtype bf16");
  EXPECT_EQ(tb::dtype_flags({DType::kBF16, DType::kF32}), "--dtype bf16 --dtype-c f32");
  EXPECT_EQ(tb::dtype_flags({DType::kTF32, DType::kF32}), "--dtype tf32");
  for (DType ab : kAll) {
    for (DType c : {DType::kF32, DType::kBF16, DType::kF16}) {
      const GemmTypes t{ab, c};
      if (!tilegemm::types_supported(t)) continue;
      // Split "--dtype X --dtype-c Y" back into the texts parse_types takes.
      const std::string flags = tb::dtype_flags(t);
      std::string ab_text, c_text;
      if (!flags.empty()) {
        const std::size_t c_at = flags.find(" --dtype-c ");
        ab_text = flags.substr(8, c_at == std::string::npos ? std::string::npos : c_at - 8);
        if (c_at != std::string::npos) c_text = flags.substr(c_at + 11);
      }
      EXPECT_TRUE(types(ab_text.c_str(), c_text.c_str()) == t) << flags;
    }
  }
}

TEST(DtypeFlags, ReplayCommandCarriesTheTypes) {
  tilegemm::CaseSpec c;
  c.m = c.n = c.k = 9;
  EXPECT_EQ(tb::replay_command("naive", c).find("--dtype"), std::string::npos);
  c.types = {DType::kBF16, DType::kF32};
  const std::string replay = tb::replay_command("mma_x", c);
  EXPECT_NE(replay.find("--dtype bf16"), std::string::npos) << replay;
  // The dtype flags appear once, whether or not replay_flags() carries them itself.
  const std::size_t first = replay.find("--dtype ");
  EXPECT_EQ(replay.find("--dtype ", first + 1), std::string::npos) << replay;
}

TEST(CcRequirement, NamesTheGpus) {
  tilegemm::KernelDesc d;
  EXPECT_EQ(tb::cc_requirement(d), "any");
  d.min_cc = 80;
  EXPECT_EQ(tb::cc_requirement(d), "sm_80 or newer");
  d.min_cc = 90;
  d.max_cc = 90;
  EXPECT_EQ(tb::cc_requirement(d), "sm_90a");
  d.min_cc = 80;
  d.max_cc = 89;
  EXPECT_EQ(tb::cc_requirement(d), "sm_80..sm_89");
  EXPECT_EQ(tb::sm_name(86), "sm_86");
  d.min_cc = 90;
  d.max_cc = 90;
  EXPECT_EQ(tb::runs_here(d, 0), "no GPU");
  EXPECT_EQ(tb::runs_here(d, 90), "yes");
  EXPECT_EQ(tb::runs_here(d, 80), "no (needs sm_90a)");
  EXPECT_EQ(tb::runs_here(d, 100), "no (needs sm_90a)");
}

TEST(KernelSelection, GlobsMatchOnlyKernelsComputingTheTypes) {
  const std::vector<tilegemm::KernelInfo>& all = tilegemm::all_kernels();
  for (DType ab : kAll) {
    for (DType c : {DType::kF32, DType::kBF16, DType::kF16}) {
      const GemmTypes t{ab, c};
      if (!tilegemm::types_supported(t)) continue;
      // The registry's own answer.
      std::vector<std::string> want;
      for (const tilegemm::KernelInfo& k : all) {
        if (k.desc.computes(t)) want.push_back(k.name);
      }
      if (want.empty()) {
        const std::string e =
            error_of([&] { tb::select_kernels("--kernels", "*", t, 0); });
        const std::string flags = tb::dtype_flags(t);
        EXPECT_EQ(e, "--kernels: '*' matches no kernel computing " +
                         std::string(tilegemm::gemm_types_name(t)) + " (see `tilegemm list " +
                         (flags.empty() ? std::string("--dtype f32") : flags) + "`)")
            << e;
        // auto alone is always accepted: the dispatcher answers per problem.
        EXPECT_EQ(tb::select_kernels("--kernels", "auto", t, 0).names,
                  std::vector<std::string>{"auto"});
        continue;
      }
      const tb::KernelSelection s = tb::select_kernels("--kernels", "*,auto", t, 0);
      want.emplace_back("auto");
      EXPECT_EQ(s.names, want) << tilegemm::gemm_types_name(t);
      EXPECT_TRUE(s.skipped.empty());
    }
  }
  // f32 -> f32 keeps today's answer for the f32 kernels.
  const tb::KernelSelection f32 = tb::select_kernels("--kernels", "naive", GemmTypes{}, 0);
  EXPECT_EQ(f32.names, std::vector<std::string>{"naive"});
}

TEST(KernelSelection, AGlobWithNoKernelForTheTypesNamesKernelsAndTheTypes) {
  const tilegemm::KernelInfo* naive = tilegemm::find_kernel("naive");
  ASSERT_NE(naive, nullptr);
  for (DType ab : kAll) {
    const GemmTypes t{ab, tilegemm::default_c_dtype(ab)};
    if (naive->desc.computes(t)) continue;
    const std::string e = error_of([&] { tb::select_kernels("--kernels", "naive", t, 0); });
    EXPECT_EQ(e.rfind("--kernels: 'naive' matches no kernel computing ", 0), 0u) << e;
    EXPECT_NE(e.find(tilegemm::gemm_types_name(t)), std::string::npos) << e;
  }
  // A glob matching nothing at all keeps its own message.
  EXPECT_EQ(error_of([] { tb::select_kernels("--kernels", "nomatch*", GemmTypes{}, 90); }),
            "--kernels: 'nomatch*' matches no kernel (see `tilegemm list`)");
}

TEST(KernelSelection, KernelsThisGpuCannotRunAreSkippedWithANote) {
  const std::vector<tilegemm::KernelInfo>& all = tilegemm::all_kernels();
  // Every compute capability a kernel's range starts or ends at, and the ones around them.
  std::vector<int> ccs = {70, 75, 80, 86, 89, 90, 100, 120};
  for (const tilegemm::KernelInfo& k : all) {
    for (int cc : {k.desc.min_cc - 1, k.desc.min_cc, k.desc.max_cc, k.desc.max_cc + 1}) {
      if (cc > 0) ccs.push_back(cc);
    }
  }
  for (int cc : ccs) {
    const tb::KernelSelection s = tb::select_kernels("--kernels", "*", std::nullopt, cc);
    ASSERT_EQ(s.names.size() + s.skipped.size(), all.size()) << cc;
    std::size_t n = 0, skipped = 0;
    for (const tilegemm::KernelInfo& k : all) {
      if (k.desc.runs_on(cc)) {
        EXPECT_EQ(s.names[n++], k.name) << cc;
      } else {
        EXPECT_EQ(s.skipped[skipped++], "skipped " + k.name + ": needs " +
                                            tb::cc_requirement(k.desc) + " (this GPU is sm_" +
                                            std::to_string(cc) + ")");
      }
    }
  }
  // cc == 0 filters nothing (list, or no GPU: the command stops before running anything).
  EXPECT_EQ(tb::select_kernels("--kernels", "*", std::nullopt, 0).names.size(), all.size());
}
