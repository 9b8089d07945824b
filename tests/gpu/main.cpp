// GPU suite entry: says up front whether a device is present, so a skipped run is visible.
#include <gtest/gtest.h>

#include <cstdio>

#include "gpu_env.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (!tilegemm::testing::has_cuda_device()) {
    std::fprintf(stderr, "tilegemm GPU tests: no CUDA device found; every GPU test is SKIPPED.\n");
  }
  return RUN_ALL_TESTS();
}
