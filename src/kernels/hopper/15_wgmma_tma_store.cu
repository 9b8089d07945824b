// Rung 15: rung 14's wgmma + TMA kernel with an epilogue that leaves through shared memory and
// TMA stores, alone or in pairs of CTAs sharing B through TMA multicast (sm_90a).
//
// What it adds over rung 14, each a template switch of the same kernel (wgmma_tma.cuh):
//  - Thread-block clusters of 2 along M. The pair computes two vertically adjacent tiles, which
//    need the same B tile: each CTA loads its own A tile and half of B, multicast into both
//    CTAs' shared memory (one TMA box lands in two SMs and completes on both CTAs' "full"
//    barriers). A stage is free again only when the consumers of both CTAs are done with it, so
//    each consumer arrives on its own and its peer's "empty" barrier. Idea: a third less
//    L2 -> SM traffic per tile (A + B/2 instead of A + B, with B twice A for 128x256).
//  - With beta = 0 the epilogue writes each consumer's 64 rows, 128 bytes of C at a time, into
//    a 128-byte-swizzled staging buffer (bank-conflict free) and one thread stores it with a TMA
//    box while the next chunk is written into the second buffer; the consumers then go on to
//    the next tile while the copy engine drains the stores. Idea: rung 14's register epilogue
//    wrote 16-byte pieces of 32-byte sectors (half of each sector wasted) and kept the consumer
//    warps busy for the whole store. Only where exact: a TMA store clips columns past N to
//    16-byte granules, so N * element size must be a multiple of 16 (C may be a view inside a
//    wider matrix); otherwise, and with beta != 0, the register epilogue of rung 14 runs.
//  - The cluster's tiles are rasterised in cluster-tile rows (two tile-rows tall).
// Registered: the TMA-store epilogue alone (_ts), which `auto` takes, in 128x256, 128x128 and
// 128x64 tiles, and with the cluster (_c2_ts). The cluster alone (register epilogue) was measured and dropped: docs/perf-notes.md,
// "Rung 15", has what each step bought.
#include <string>

#include "../families.hpp"
#include "wgmma_tma.cuh"

namespace tilegemm::kernels {

namespace {

// A cluster instance carries the variant "c2", so that `auto`'s rules, which ask for the plain
// form, take the instance without a cluster (docs/perf-notes.md, rung 15: the cluster did not pay).
template <class Cfg>
KernelInfo describe_rung15(const char* summary) {
  KernelInfo k = hopper::describe<Cfg>("wgmma_tma_store", 15, summary);
  if (Cfg::kCluster > 1) k.desc.variant = "c" + std::to_string(Cfg::kCluster);
  return k;
}

}  // namespace

void register_wgmma_tma_store(Registry& r) {
  using hopper::Config;
  constexpr bool kTf32 = true, k16Bit = false, kTmaStore = true;
  constexpr const char* kStore16 = "TMA-store epilogue, every A/B layout mix";
  constexpr const char* kStoreTf32 =
      "TMA-store epilogue, A/B row/col, col/col, row/row (M/N-major tf32 through registers)";
  r.push_back(describe_rung15<Config<256, 4, k16Bit, 1, kTmaStore>>(kStore16));
  r.push_back(describe_rung15<Config<128, 6, k16Bit, 1, kTmaStore>>(kStore16));
  r.push_back(describe_rung15<Config<256, 4, kTf32, 1, kTmaStore>>(kStoreTf32));
  r.push_back(describe_rung15<Config<128, 6, kTf32, 1, kTmaStore>>(kStoreTf32));
  // Half-width tiles: twice the tiles of 128x128 where those leave SMs idle.
  r.push_back(describe_rung15<Config<64, 8, k16Bit, 1, kTmaStore>>(kStore16));
  r.push_back(describe_rung15<Config<64, 8, kTf32, 1, kTmaStore>>(kStoreTf32));
  r.push_back(describe_rung15<Config<256, 4, k16Bit, 2, kTmaStore>>(
      "2-CTA clusters with B multicast, TMA-store epilogue, every A/B layout mix"));
  r.push_back(describe_rung15<Config<256, 4, kTf32, 2, kTmaStore>>(
      "2-CTA clusters with B multicast, TMA-store epilogue, A/B row/col, col/col, row/row"));
}

}  // namespace tilegemm::kernels
