// The `auto` rule: which registered kernel runs a problem when the caller names none.
#include "tilegemm/gemm.hpp"

namespace tilegemm {

const KernelInfo* select_kernel(const Problem& problem) {
  // Highest rung first: each rung is meant to be faster than the one below it, and every
  // family refuses through can_implement what it cannot do, so the walk always ends at a kernel
  // (the naive kernel takes every problem whose grid fits).
  const std::vector<KernelInfo>& all = all_kernels();
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    if (it->can_implement(problem)) return &*it;
  }
  return nullptr;
}

}  // namespace tilegemm
