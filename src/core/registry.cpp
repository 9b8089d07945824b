// The table of kernel instances, in ladder order, and name lookup.
#include <algorithm>

#include "../kernels/families.hpp"
#include "tilegemm/gemm.hpp"

namespace tilegemm {

namespace {

kernels::Registry build_registry() {
  kernels::Registry r;
  kernels::register_naive(r);
  kernels::register_smem_tiled(r);
  kernels::register_smem_tiled_rect(r);
  kernels::register_blocktile_2d(r);
  kernels::register_vectorized(r);
  kernels::register_bankfree(r);
  kernels::register_warptile(r);
  kernels::register_cp_async(r);
  kernels::register_tuned(r);
#if defined(TILEGEMM_WITH_CUTE)
  kernels::register_cute_simple(r);
  kernels::register_cute_tiled(r);
  kernels::register_cute_pipelined(r);
  kernels::register_cute_pipelined_variants(r);
#endif  // TILEGEMM_WITH_CUTE
  std::stable_sort(r.begin(), r.end(),
                   [](const KernelInfo& x, const KernelInfo& y) { return x.rung < y.rung; });
  return r;
}

// '*' matches any run of characters, '?' any one character.
bool glob_match(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace

const std::vector<KernelInfo>& all_kernels() {
  static const kernels::Registry registry = build_registry();
  return registry;
}

const KernelInfo* find_kernel(std::string_view name) {
  for (const KernelInfo& k : all_kernels()) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

std::vector<const KernelInfo*> match_kernels(std::string_view glob) {
  std::vector<const KernelInfo*> out;
  for (const KernelInfo& k : all_kernels()) {
    if (glob_match(glob, k.name)) out.push_back(&k);
  }
  return out;
}

}  // namespace tilegemm
