// One registration function per kernel family (one numbered file each). Adding a family means
// adding its file, one declaration here and one line in families.cpp.
#pragma once

#include "../core/kernel_registry.hpp"

namespace tilegemm::kernels {

void register_naive(Registry& r);             // 01_naive.cu
void register_smem_tiled(Registry& r);        // 02_smem_tiled.cu
void register_smem_tiled_rect(Registry& r);   // 03_smem_tiled_rect.cu
void register_blocktile_2d(Registry& r);      // 04_blocktile_2d.cu
void register_vectorized(Registry& r);        // 05_vectorized.cu
void register_bankfree(Registry& r);          // 06_bankfree.cu
void register_warptile(Registry& r);          // 07_warptile.cu
void register_cp_async(Registry& r);          // 08_cp_async.cu
void register_tuned(Registry& r);             // 09_tuned.cu
void register_gemv(Registry& r);              // 17_gemv.cu
void register_thin_k(Registry& r);            // 19_thin_k.cu
void register_narrow(Registry& r);            // 21_narrow.cu
void register_small(Registry& r);             // 24_small.cu
void register_thin_k_mma(Registry& r);        // tensorop/25_thin_k_mma.cu
void register_small_mma(Registry& r);         // tensorop/27_small_mma.cu
void register_tiny_mma(Registry& r);          // tensorop/28_tiny_mma.cu
void register_mma_3xtf32(Registry& r);        // tensorop/29_mma_3xtf32.cu
void register_mma_sync(Registry& r);          // tensorop/13_mma_sync.cu
#if TILEGEMM_HAS_SM90A
void register_wgmma(Registry& r);             // hopper/14_wgmma_tma.cu (built for sm_90a only)
void register_wgmma_tma_store(Registry& r);   // hopper/15_wgmma_tma_store.cu (sm_90a only)
void register_wgmma_padded(Registry& r);      // hopper/16_wgmma_padded.cu (sm_90a only)
void register_wgmma_skinny(Registry& r);      // hopper/18_wgmma_skinny.cu (sm_90a only)
void register_wgmma_realign(Registry& r);     // hopper/20_wgmma_realign.cu (sm_90a only)
void register_wgmma_3xtf32(Registry& r);      // hopper/22_wgmma_3xtf32.cu (sm_90a only)
void register_wgmma_residue(Registry& r);     // hopper/23_wgmma_residue.cu (sm_90a only)
#endif

#if defined(TILEGEMM_WITH_CUTE)
void register_cute_simple(Registry& r);       // cute/10_cute_simple.cu
void register_cute_tiled(Registry& r);        // cute/11_cute_tiled.cu
void register_cute_pipelined(Registry& r);    // cute/12_cute_pipelined.cu
void register_cute_pipelined_variants(Registry& r);  // cute/12_cute_pipelined_variants.cu
#endif  // TILEGEMM_WITH_CUTE

}  // namespace tilegemm::kernels
