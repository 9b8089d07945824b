// Placeholder entry point; the lab CLI is built on top of libtilegemm.
#include <cstdio>

#include "tilegemm/gemm.hpp"

int main() {
  for (const auto& k : tilegemm::all_kernels()) std::printf("%s\n", k.name.c_str());
  return 0;
}
