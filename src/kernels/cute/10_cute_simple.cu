// Rung 10: cute_simple -- the seed's `gemm_simple` in CuTe (one thread per element of C, no
// shared memory).
//
// What it adds: nothing in speed over rung 1 (naive); it is the same algorithm written with
// CuTe's vocabulary, the first step of the CuTe ladder. The matrices are Tensors (pointer +
// Layout); layouts with dynamic strides make one kernel serve row- and column-major operands;
// local_tile cuts the block's tile of C, local_partition hands each thread its element, and an
// identity tensor (make_identity_tensor) gives each element its (m, n) for the edge predicate.
// The seed expects ~10-20% of cuBLAS.
//
// Measurements: docs/cute.md (rung 10), docs/ladder.md (the table).
#include "../families.hpp"
#include "cute_common.cuh"

namespace tilegemm::kernels {
namespace {

using namespace cute;  // NOLINT
using cute::Layout;    // tilegemm::Layout (row/col) is written out in full below

/// @tparam BLOCK_M  rows of C per block (threads along M)
/// @tparam BLOCK_N  columns of C per block (threads along N; a warp spans 32 consecutive n)
template <int BLOCK_M, int BLOCK_N>
__global__ void __launch_bounds__(BLOCK_M* BLOCK_N) cute_simple_kernel(cute_gemm::MnkArgs g) {
  // Preconditions
  static_assert(BLOCK_M * BLOCK_N <= 1024, "one thread per C element: at most 1024 a block");
  static_assert(BLOCK_N % 32 == 0, "a warp spans consecutive n, so C and B accesses coalesce");

  // Full tensors: shapes and strides dynamic (runtime M, N, K and leading dimensions).
  Tensor mA =
      make_tensor(make_gmem_ptr(g.a), make_shape(g.m, g.k), make_stride(g.a_dm, g.a_dk));  // (M,K)
  Tensor mB =
      make_tensor(make_gmem_ptr(g.b), make_shape(g.n, g.k), make_stride(g.b_dn, g.b_dk));  // (N,K)
  Tensor mC =
      make_tensor(make_gmem_ptr(g.c), make_shape(g.m, g.n), make_stride(g.c_dm, g.c_dn));  // (M,N)
  // (m, n) of every element of C: the identity tensor maps a coordinate to itself.
  Tensor idC = make_identity_tensor(shape(mC));  // (M,N) -> (m,n)

  // This block's tile; the tile shape is static, its position dynamic.
  auto block_tile = Shape<Int<BLOCK_M>, Int<BLOCK_N>>{};
  auto block_coord = make_coord(static_cast<int>(blockIdx.y), static_cast<int>(blockIdx.x));
  Tensor gC = local_tile(mC, block_tile, block_coord);   // (BLOCK_M,BLOCK_N)
  Tensor cC = local_tile(idC, block_tile, block_coord);  // (BLOCK_M,BLOCK_N) -> (m,n)

  // One thread per element, n fastest (static layout): consecutive threads take consecutive n.
  auto thread_layout = Layout<Shape<Int<BLOCK_M>, Int<BLOCK_N>>, Stride<Int<BLOCK_N>, _1>>{};
  Tensor tCgC = local_partition(gC, thread_layout, threadIdx.x);  // (1,1)
  Tensor tCcC = local_partition(cC, thread_layout, threadIdx.x);  // (1,1) -> (m,n)

  // Edge tiles: threads whose element lies outside C have nothing to do.
  if (!elem_less(tCcC(0), shape(mC))) return;
  const int m = get<0>(tCcC(0));
  const int n = get<1>(tCcC(0));

  Tensor rowA = mA(m, _);  // (K): row m of A
  Tensor rowB = mB(n, _);  // (K): column n of the library's B
  float acc = 0.0f;
  for (int kk = 0; kk < size(rowA); ++kk) {
    acc = fmaf(rowA(kk), rowB(kk), acc);
  }
  epilogue_store(&tCgC(0), acc, g.alpha, g.beta);
}

constexpr int kBlockM = 8;
constexpr int kBlockN = 32;

// A column-major C is computed as the row-major C^T = B^T * A^T, so a warp always writes 32
// consecutive floats of C.
Problem plan(const Problem& p) {
  return p.c.layout == tilegemm::Layout::kColMajor ? views::mirrored(p) : p;
}

bool can_implement_simple(const Problem& p) {
  return views::fits_int32(plan(p), kBlockM, kBlockN, 1);
}

cudaError_t launch_simple(const Problem& p, cudaStream_t stream) {
  const Problem view = plan(p);
  cute_simple_kernel<kBlockM, kBlockN>
      <<<tile_grid(view, kBlockM, kBlockN), kBlockM * kBlockN, 0, stream>>>(
          cute_gemm::to_args(cute_gemm::to_mnk(view)));
  return cudaGetLastError();
}

// One instance serves every layout (plan mirrors the problem, not the kernel).
const void* simple_function(const Problem&) {
  return kernel_address(&cute_simple_kernel<kBlockM, kBlockN>);
}

}  // namespace

void register_cute_simple(Registry& r) {
  KernelInfo k;
  k.name = "cute_simple";
  k.family = "cute_simple";
  k.rung = 10;
  k.tile.bm = kBlockM;
  k.tile.bn = kBlockN;
  k.tile.tm = 1;
  k.tile.tn = 1;
  k.tile.threads = kBlockM * kBlockN;
  k.desc = simt_f32_desc(1, 1, 1, kMinBuiltCc);  // scalar loads and stores: any alignment
  k.summary = "CuTe tensors, one thread per C element, no shared memory (the seed's gemm_simple)";
  k.can_implement = can_implement_simple;
  k.launch = launch_simple;
  k.device_function = device_function_for(can_implement_simple, simple_function);
  r.push_back(std::move(k));
}

}  // namespace tilegemm::kernels
