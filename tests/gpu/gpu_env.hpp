// Shared by the GPU tests: whether a device is present, and a skip that says so.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

namespace tilegemm::testing {

inline bool has_cuda_device() {
  static const bool present = [] {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  }();
  return present;
}

}  // namespace tilegemm::testing

#define TILEGEMM_REQUIRE_GPU()                                                         \
  do {                                                                                 \
    if (!::tilegemm::testing::has_cuda_device()) {                                     \
      GTEST_SKIP() << "no CUDA device: GPU test skipped (runs on a machine with one)"; \
    }                                                                                  \
  } while (0)
