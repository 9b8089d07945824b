// The kernel contract: a registry entry is one instance of a kernel family, with a stable name
// that encodes its configuration, its tile numbers (read by the analysis), what it can implement,
// and how to launch it.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <string>

#include "tilegemm/problem.hpp"

namespace tilegemm {

// Tile numbers of an instance. Zero means "not applicable" (the naive kernel has no BK, a
// kernel without warp tiling has no WM/WN).
struct TileConfig {
  int bm = 0, bn = 0, bk = 0;  // block tile
  int wm = 0, wn = 0;          // warp tile
  int tm = 0, tn = 0;          // thread tile
  int threads = 0;             // threads per block
  int stages = 1;              // shared-memory pipeline stages
  int smem_bytes = 0;          // shared memory per block (static + dynamic)
};

struct KernelInfo {
  std::string name;    // stable, encodes the config: "smem_tiled_t32", "blocktile_128x128x8_8x8"
  std::string family;  // "naive", "smem_tiled", ...
  int rung = 0;        // position on the ladder (the number of the family's source file)
  TileConfig tile;
  std::string summary;  // one line: what this instance does
  // True when launch() computes this (already validated, non-trivial) problem correctly.
  std::function<bool(const Problem&)> can_implement;
  // Enqueues the kernel on the stream; returns the launch error (cudaGetLastError()).
  std::function<cudaError_t(const Problem&, cudaStream_t)> launch;
  // The __global__ function, for cudaFuncGetAttributes (registers, occupancy). May be null.
  const void* device_function = nullptr;
};

}  // namespace tilegemm
