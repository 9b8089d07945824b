// The table of kernel instances, in ladder order; name lookup; the filters by element type and
// by the running GPU. Every entry's can_implement is wrapped here with its description's type
// check, so no family can be handed a dtype it does not compute.
#include <algorithm>
#include <utility>

#include "kernel_registry.hpp"
#include "tilegemm/device_info.hpp"
#include "tilegemm/gemm.hpp"

namespace tilegemm {

const char* op_class_name(OpClass op) {
  switch (op) {
    case OpClass::kSimt:
      return "simt";
    case OpClass::kMmaSync:
      return "mma.sync";
    case OpClass::kWgmma:
      return "wgmma";
  }
  return "unknown";
}

bool KernelDesc::computes(GemmTypes t) const {
  return std::find(types.begin(), types.end(), t) != types.end();
}

namespace {

kernels::Registry build_registry() {
  kernels::Registry r;
  kernels::register_all_families(r);
  for (KernelInfo& k : r) {
    auto family_test = std::move(k.can_implement);
    k.can_implement = [desc = k.desc, family_test = std::move(family_test)](const Problem& p) {
      return desc.computes(p.types()) && p.b.dtype == p.a.dtype && family_test(p);
    };
    // No instance for types the kernel does not compute, as can_implement.
    auto family_function = std::move(k.device_function);
    k.device_function = [desc = k.desc, family_function = std::move(family_function)](
                            const Problem& p) -> const void* {
      return desc.computes(p.types()) && p.b.dtype == p.a.dtype ? family_function(p) : nullptr;
    };
  }
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

std::vector<const KernelInfo*> kernels_for(GemmTypes types, int cc) {
  std::vector<const KernelInfo*> out;
  for (const KernelInfo& k : all_kernels()) {
    if (k.desc.computes(types) && k.desc.runs_on(cc)) out.push_back(&k);
  }
  return out;
}

bool runs_on_current_device(const KernelInfo& kernel) {
  const int cc = current_compute_capability();
  return cc > 0 && kernel.desc.runs_on(cc);
}

}  // namespace tilegemm
