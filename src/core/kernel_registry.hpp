// The seam between the core and the kernels: the core owns the registry (lookup, filters, the
// type check every entry gets), the kernels side owns the list of families that fill it
// (src/kernels/families.cpp). Kernel files include this; nothing in src/core includes a kernel
// header.
#pragma once

#include <vector>

#include "tilegemm/kernel.hpp"

namespace tilegemm::kernels {

using Registry = std::vector<KernelInfo>;

// Appends every family's instances, in any order (the registry sorts them by rung).
void register_all_families(Registry& r);

}  // namespace tilegemm::kernels
