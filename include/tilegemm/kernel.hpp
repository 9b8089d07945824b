// The kernel contract: a registry entry is one instance of a kernel family, with a stable name
// that encodes its configuration, a typed description (op class, element types, alignment, the
// GPUs it runs on, tile numbers: read by the registry's filters, `auto`, the analysis and `list`),
// what it can implement, and how to launch it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tilegemm/problem.hpp"

namespace tilegemm {

// Which instructions do the multiply-adds.
enum class OpClass : std::uint8_t {
  kSimt,     // FFMA on the CUDA cores
  kMmaSync,  // warp-level tensor-core mma.sync (sm_80 and later)
  kWgmma,    // warpgroup-level tensor-core wgmma.mma_async (sm_90a only)
};
const char* op_class_name(OpClass op);  // "simt", "mma.sync", "wgmma"

// Tile numbers of an instance. Zero means "not applicable" (the naive kernel has no BK, a
// kernel without warp tiling has no WM/WN).
struct TileConfig {
  int bm = 0, bn = 0, bk = 0;  // block tile
  int wm = 0, wn = 0;          // warp tile
  int tm = 0, tn = 0;          // thread tile (SIMT) or instruction tile M x N (tensor cores)
  int threads = 0;             // threads per block
  int stages = 1;              // shared-memory pipeline stages
  int smem_bytes = 0;          // shared memory per block (static + dynamic)
  int cluster_m = 1, cluster_n = 1;  // thread-block cluster shape (1 x 1: no cluster)
};

// What an instance computes and where it runs, as data.
struct KernelDesc {
  OpClass op_class = OpClass::kSimt;
  // The (A/B, C) element-type combinations it computes; accumulation is always fp32.
  std::vector<GemmTypes> types = {GemmTypes{DType::kF32, DType::kF32}};
  DType accumulator = DType::kF32;
  // Alignment its fastest path needs, in elements, of each operand's base pointer and leading
  // dimension (1: any). can_implement() is the authority; this is what `list` reports and what
  // `auto`'s rules read.
  int align_a = 1, align_b = 1, align_c = 1;
  // Compute capabilities (10 * major + minor) it runs on: min_cc <= cc, and cc <= max_cc when
  // max_cc > 0. An sm_90a-only kernel says 90 and 90.
  int min_cc = 0;
  int max_cc = 0;
  // Whether it may split K over several blocks (a workspace and a reduction pass).
  bool split_k = false;
  // The family's main-loop variant, "" for its plain form (e.g. "lean_mid": interior tiles
  // copied without predicates, next tile's copies issued mid-step). `auto`'s rules select by it.
  std::string variant;

  bool computes(GemmTypes t) const;
  bool runs_on(int cc) const { return cc >= min_cc && (max_cc == 0 || cc <= max_cc); }
};

struct KernelInfo {
  std::string name;    // stable, encodes the config: "smem_tiled_t32", "blocktile_128x128x8_8x8"
  std::string family;  // "naive", "smem_tiled", ...
  int rung = 0;        // position on the ladder (the number of the family's source file)
  TileConfig tile;
  KernelDesc desc;
  std::string summary;  // one line: what this instance does
  // True when launch() computes this (already validated, non-trivial) problem correctly. The
  // registry wraps every family's test with desc.computes(problem.types()), so a family only
  // tests shapes, layouts and alignment. It does not look at the GPU: see runs_on_current_device.
  std::function<bool(const Problem&)> can_implement;
  // Enqueues the kernel on the stream; returns the launch error (cudaGetLastError()).
  std::function<cudaError_t(const Problem&, cudaStream_t)> launch;
  // The __global__ function that launch() would run for this problem (its layout and dtype
  // instance), for cudaFuncGetAttributes (registers, occupancy). Null when none applies.
  std::function<const void*(const Problem&)> device_function;
  // How launch() would run this problem on the current GPU, in words (its grid, and where K is
  // split, the splits and what adds them). Null where the family does not say.
  std::function<std::string(const Problem&)> plan;
};

}  // namespace tilegemm
