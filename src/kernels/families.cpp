// The list of kernel families: the one place a new family is added (beside its declaration in
// families.hpp). The core's registry calls this once.
#include "families.hpp"

namespace tilegemm::kernels {

void register_all_families(Registry& r) {
  register_naive(r);
  register_smem_tiled(r);
  register_smem_tiled_rect(r);
  register_blocktile_2d(r);
  register_vectorized(r);
  register_bankfree(r);
  register_warptile(r);
  register_cp_async(r);
  register_tuned(r);
  register_mma_sync(r);
#if TILEGEMM_HAS_SM90A
  register_wgmma(r);
  register_wgmma_tma_store(r);
  register_wgmma_padded(r);
  register_wgmma_skinny(r);
  register_wgmma_realign(r);
  register_wgmma_3xtf32(r);
  register_wgmma_residue(r);
#endif
  register_gemv(r);
  register_thin_k(r);
  register_narrow(r);
  register_small(r);
  register_thin_k_mma(r);
  register_small_mma(r);
  register_tiny_mma(r);
  register_mma_3xtf32(r);
#if defined(TILEGEMM_WITH_CUTE)
  register_cute_simple(r);
  register_cute_tiled(r);
  register_cute_pipelined(r);
  register_cute_pipelined_variants(r);
#endif  // TILEGEMM_WITH_CUTE
}

}  // namespace tilegemm::kernels
