// Rung 25: thin K (K up to 64) for 16-bit operands on the tensor cores, at any pitch and
// alignment, in one launch.
//
// Rung 19 (thin_k) computes thin K on the CUDA cores, whose FMA rate bounds it from K of about
// 16; the wgmma tiles need tensor maps (16-byte pitches), so an odd pitch took rung 16's copies:
// a second launch, and an epilogue whose staged stores go only as wide as C's pitch allows (an
// odd ldc: one element at a time). docs/perf-notes.md, "Rung 25", has the floor and the runs.
// Idea: C is the cost, so a block spends its time on one write of a 128-column strip of C:
//  - A's BM x K and B's K x 128 slices are read element by element through the operands'
//    strides (any layout, pitch and base; consecutive threads along the contiguous dimension)
//    into shared memory, K-contiguous, zero past K up to a whole number of 16-k steps.
//  - mma.sync m16n8k16 (fp32 accumulation) from ldmatrix fragments: at most 4 k-steps.
//  - The epilogue stages alpha * acc (fp32) in shared memory with each row shifted by its own
//    offset from a 16-byte boundary of C, so that every row of the tile leaves as 16-byte stores
//    whatever ldc is: only the first and last piece of a row are written element by element.
//    beta != 0 reads C the same way; beta = 0 never reads it.
//  - C is made row-major first (a column-major C is computed as its mirror, C^T = B^T A^T).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "../common.cuh"
#include "../families.hpp"
#include "../tensor_common.cuh"
#include "mma_sync.cuh"

namespace tilegemm::kernels {
namespace {

using mma_sync::Bf16Op;
using mma_sync::F16Op;
using mma_sync::ldsm_x4;

constexpr int kThreads = 256;
constexpr int kWarpsM = 2;  // warps along M; 4 along N, each 32 columns
constexpr int kWarpsN = 4;
constexpr int BN = 128;
constexpr int kMaxK = 64;             // the family's bound (4 mma k-steps)
constexpr int kLine = kMaxK + 8;      // a slice line: 144 bytes, 9 chunks (ldmatrix: 8 groups)
constexpr int kStageLine = BN + 12;   // a staged row of fp32: room for the 0..7 shift, 16B rows

template <int BM>
struct Shape {
  static constexpr int kWarpM = BM / kWarpsM;  // rows per warp
  static constexpr int kMf = kWarpM / 16;      // m16 fragments per warp
  static constexpr int kNf = BN / kWarpsN / 8; // n8 fragments per warp (4)
  static constexpr int kSliceBytes = (BM + BN) * kLine * 2;
  static constexpr int kStageBytes = BM * kStageLine * 4;
  static constexpr int kSmemBytes = kSliceBytes > kStageBytes ? kSliceBytes : kStageBytes;
  static constexpr int kMinBlocks = BM == 128 ? 2 : 3;
};

// One operand's X x K slice (X = BM rows of A, or BN columns of B), into s[x * kLine + k] as
// 16-bit bits, zero past K up to kp and past `rows` (the rows left in the problem): element
// (x, k) of the operand is at base[x * sx + k * sk]. Consecutive lanes walk the operand's
// contiguous dimension; every load of a thread is issued before its stores (fixed trip counts).
template <int X>
__device__ __forceinline__ void stage_slice(std::uint16_t* s, const std::uint16_t* base,
                                            std::int64_t sx, std::int64_t sk, int rows, int k,
                                            int kp, int warp, int lane) {
  constexpr int kWarps = kThreads / 32;
  if (sk == 1) {
    // K-contiguous: a warp per line, lanes along k (two passes of 32 cover 64).
    constexpr int kLinesPerWarp = X / kWarps;
    std::uint16_t v[kLinesPerWarp][2];
#pragma unroll
    for (int i = 0; i < kLinesPerWarp; ++i) {
      const int x = warp + kWarps * i;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int kk = lane + 32 * h;
        v[i][h] = x < rows && kk < k ? __ldg(base + x * sx + kk) : std::uint16_t{0};
      }
    }
#pragma unroll
    for (int i = 0; i < kLinesPerWarp; ++i) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int kk = lane + 32 * h;
        if (kk < kp) s[(warp + kWarps * i) * kLine + kk] = v[i][h];
      }
    }
  } else {
    // X-contiguous: a warp per k, lanes along x.
    constexpr int kPerLane = X / 32;
    constexpr int kKPerWarp = kMaxK / kWarps;
    std::uint16_t v[kKPerWarp][kPerLane];
#pragma unroll
    for (int j = 0; j < kKPerWarp; ++j) {
      const int kk = warp + kWarps * j;
#pragma unroll
      for (int i = 0; i < kPerLane; ++i) {
        const int x = lane + 32 * i;
        v[j][i] = x < rows && kk < k ? __ldg(base + x * sx + kk * sk) : std::uint16_t{0};
      }
    }
#pragma unroll
    for (int j = 0; j < kKPerWarp; ++j) {
      const int kk = warp + kWarps * j;
      if (kk >= kp) continue;
#pragma unroll
      for (int i = 0; i < kPerLane; ++i) s[(lane + 32 * i) * kLine + kk] = v[j][i];
    }
  }
}

// The chunk of C one 16-byte store writes, read from a staged row: kEpc fp32 values at a
// 16-byte aligned place in shared memory, alpha already applied; beta * C added when beta != 0.
template <class CT>
struct Chunk {
  static constexpr int kEpc = 16 / static_cast<int>(sizeof(CT));
  __device__ __forceinline__ static void store(CT* p, const float* staged, float beta) {
    float v[kEpc];
#pragma unroll
    for (int i = 0; i < kEpc; i += 4) {
      const float4 f = *reinterpret_cast<const float4*>(staged + i);
      v[i] = f.x;
      v[i + 1] = f.y;
      v[i + 2] = f.z;
      v[i + 3] = f.w;
    }
    if (beta != 0.0f) {
      const uint4 old_bits = *reinterpret_cast<const uint4*>(p);
      const CT* old = reinterpret_cast<const CT*>(&old_bits);
#pragma unroll
      for (int i = 0; i < kEpc; ++i) v[i] = fmaf(beta, OutC<CT>::load1(old + i), v[i]);
    }
    CT packed[kEpc];
#pragma unroll
    for (int i = 0; i < kEpc; i += 2) OutC<CT>::store2(packed + i, v[i], v[i + 1]);
    *reinterpret_cast<uint4*>(p) = *reinterpret_cast<const uint4*>(packed);
  }
};

// Block (blockIdx.y, blockIdx.x) writes C rows BM blockIdx.y .. + BM - 1, columns 128
// blockIdx.x .. + 127. Warp (wm, wn) computes rows kWarpM wm .., columns 32 wn .. of the tile.
template <class Op, class E, class CT, int BM>
__global__ void __launch_bounds__(kThreads, Shape<BM>::kMinBlocks)
    thin_k_mma_kernel(const StridedProblem g) {
  using S = Shape<BM>;
  extern __shared__ __align__(16) unsigned char smem[];
  std::uint16_t* const a_s = reinterpret_cast<std::uint16_t*>(smem);
  std::uint16_t* const b_s = a_s + BM * kLine;
  float* const stage = reinterpret_cast<float*>(smem);  // after the mma: the C tile
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / 32;
  const int lane = tid % 32;
  const int m0 = static_cast<int>(blockIdx.y) * BM;
  const int n0 = static_cast<int>(blockIdx.x) * BN;
  const int ksteps = (g.k + 15) / 16;
  const int kp = 16 * ksteps;

  const std::uint16_t* const a = static_cast<const std::uint16_t*>(g.a);
  const std::uint16_t* const b = static_cast<const std::uint16_t*>(g.b);
  stage_slice<BM>(a_s, a + m0 * g.a_m, g.a_m, g.a_k, g.m - m0, g.k, kp, warp, lane);
  stage_slice<BN>(b_s, b + n0 * g.b_n, g.b_n, g.b_k, g.n - n0, g.k, kp, warp, lane);
  __syncthreads();

  const int wm = warp / kWarpsN;
  const int wn = warp % kWarpsN;
  float acc[S::kMf][S::kNf][4] = {};
  // ldmatrix addresses: A matrix j = lane / 8 is (rows 8 (j % 2) .., k 8 (j / 2) ..); B matrix j
  // is (columns 8 (j / 2) .., k 8 (j % 2) ..), two n8 fragments per x4.
  const std::uint32_t a_base =
      smem_addr(a_s + (S::kWarpM * wm + lane % 16) * kLine + 8 * (lane / 16));
  const std::uint32_t b_base =
      smem_addr(b_s + (32 * wn + 8 * (lane / 16) + lane % 8) * kLine + 8 * ((lane / 8) % 2));
#pragma unroll
  for (int ks = 0; ks < kMaxK / 16; ++ks) {
    if (ks >= ksteps) break;
    std::uint32_t af[S::kMf][4];
    std::uint32_t bf[S::kNf / 2][4];
#pragma unroll
    for (int f = 0; f < S::kMf; ++f) ldsm_x4(af[f], a_base + 2 * (16 * f * kLine + 16 * ks));
#pragma unroll
    for (int f = 0; f < S::kNf / 2; ++f) ldsm_x4(bf[f], b_base + 2 * (16 * f * kLine + 16 * ks));
#pragma unroll
    for (int i = 0; i < S::kMf; ++i) {
#pragma unroll
      for (int j = 0; j < S::kNf; ++j) {
        const std::uint32_t bj[2] = {bf[j / 2][2 * (j % 2)], bf[j / 2][2 * (j % 2) + 1]};
        Op::mma(acc[i][j], af[i], bj);
      }
    }
  }

  // Row r of the tile starts `shift(r)` elements past a 16-byte boundary of C; its staged row
  // holds column j at j + shift(r), so each 16 bytes of C is 16-byte aligned in shared memory.
  constexpr int kEpc = Chunk<CT>::kEpc;
  CT* const c = static_cast<CT*>(g.c);
  const auto shift = [&](int row) {
    const auto addr = reinterpret_cast<std::uintptr_t>(c + static_cast<std::int64_t>(m0 + row) *
                                                               g.ldc + n0);
    return static_cast<int>(addr % 16) / static_cast<int>(sizeof(CT));
  };
  __syncthreads();  // the slices are read
  const int g4 = lane / 4;
  const int t4 = lane % 4;
#pragma unroll
  for (int i = 0; i < S::kMf; ++i) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = S::kWarpM * wm + 16 * i + 8 * h + g4;
      float* const line = stage + row * kStageLine + shift(row);
#pragma unroll
      for (int j = 0; j < S::kNf; ++j) {
        const int col = 32 * wn + 8 * j + 2 * t4;
        line[col] = g.alpha * acc[i][j][2 * h];
        line[col + 1] = g.alpha * acc[i][j][2 * h + 1];
      }
    }
  }
  __syncthreads();

  // Each row as pieces of 16 bytes of C: piece q holds the columns q kEpc - shift .. + kEpc - 1;
  // consecutive threads take consecutive pieces of a row, then the next row.
  constexpr int kPieces = BN / kEpc + 1;
  const int cols = min(BN, g.n - n0);
  const int rows = min(BM, g.m - m0);
  for (int item = tid; item < rows * kPieces; item += kThreads) {
    const int row = item / kPieces;
    const int q = item % kPieces;
    const int s = shift(row);
    const int first = q * kEpc - s;  // the piece's first column (may be negative)
    if (first >= cols) continue;
    CT* const c_row = c + static_cast<std::int64_t>(m0 + row) * g.ldc + n0;
    const float* const staged = stage + row * kStageLine + q * kEpc;
    if (first >= 0 && first + kEpc <= cols) {
      Chunk<CT>::store(c_row + first, staged, g.beta);
      continue;
    }
    for (int e = 0; e < kEpc; ++e) {
      const int col = first + e;
      if (col < 0 || col >= cols) continue;
      float v = staged[e];
      if (g.beta != 0.0f) v = fmaf(g.beta, OutC<CT>::load1(c_row + col), v);
      OutC<CT>::store1(c_row + col, v);
    }
  }
}

template <class E>
struct OpOf;
template <>
struct OpOf<__nv_bfloat16> {
  using type = Bf16Op;
};
template <>
struct OpOf<__half> {
  using type = F16Op;
};

template <int BM>
bool can_implement_thin_k_mma(const Problem& p) {
  const Problem q = views::row_major_c(p);
  return q.k <= kMaxK && views::tile_grid_fits(q, BM, BN);
}

// An instance's kernel and its shared-memory opt-in word (runtime::opt_in_smem).
struct KernelRef {
  const void* fn;
  std::atomic<std::uint64_t>* opted_in;
};

template <class E, class CT, int BM>
KernelRef typed_kernel() {
  static std::atomic<std::uint64_t> opted_in{0};
  return {kernel_address(&thin_k_mma_kernel<typename OpOf<E>::type, E, CT, BM>), &opted_in};
}

// The instance for the problem's 16-bit A/B type and C type.
template <int BM>
KernelRef kernel_for(const Problem& p) {
  const GemmTypes t = p.types();
  if (t.ab == DType::kBF16) {
    return t.c == DType::kF32 ? typed_kernel<__nv_bfloat16, float, BM>()
                              : typed_kernel<__nv_bfloat16, __nv_bfloat16, BM>();
  }
  return t.c == DType::kF32 ? typed_kernel<__half, float, BM>() : typed_kernel<__half, __half, BM>();
}

template <int BM>
const void* device_function_thin_k_mma(const Problem& p) {
  return kernel_for<BM>(views::row_major_c(p)).fn;
}

template <int BM>
cudaError_t launch_thin_k_mma(const Problem& p, cudaStream_t stream) {
  const Problem q = views::row_major_c(p);
  const KernelRef k = kernel_for<BM>(q);
  constexpr int kSmem = Shape<BM>::kSmemBytes;
  if (const cudaError_t e = runtime::opt_in_smem(k.fn, kSmem, *k.opted_in); e != cudaSuccess) {
    return e;
  }
  StridedProblem g = strided_problem(q);
  void* args[] = {&g};
  const cudaError_t e =
      cudaLaunchKernel(k.fn, tile_grid(q, BM, BN), dim3(kThreads), args, kSmem, stream);
  return e != cudaSuccess ? e : cudaGetLastError();
}

template <int BM>
void register_instance(Registry& r) {
  KernelInfo k;
  k.name = "thin_k_mma_" + std::to_string(BM) + "x" + std::to_string(BN);
  k.family = "thin_k_mma";
  k.rung = 25;
  k.tile = TileConfig{};
  k.tile.bm = BM;
  k.tile.bn = BN;
  k.tile.bk = kMaxK;
  k.tile.wm = Shape<BM>::kWarpM;
  k.tile.wn = BN / kWarpsN;
  k.tile.threads = kThreads;
  k.desc.op_class = OpClass::kMmaSync;
  k.desc.types = {GemmTypes{DType::kBF16, DType::kBF16}, GemmTypes{DType::kBF16, DType::kF32},
                  GemmTypes{DType::kF16, DType::kF16}, GemmTypes{DType::kF16, DType::kF32}};
  k.desc.accumulator = DType::kF32;
  k.desc.align_a = 1;  // element reads of A and B, 16-byte stores of C at any pitch
  k.desc.align_b = 1;
  k.desc.align_c = 1;
  k.desc.min_cc = kCpAsyncMinCc;  // mma.sync m16n8k16 and ldmatrix: sm_80
  k.desc.max_cc = 0;
  k.summary = "K up to 64, 16-bit A/B: " + std::to_string(BM) +
              " x 128 tiles of C on mma.sync, A's and B's slices read element by element at any "
              "pitch, C leaving as 16-byte stores at any pitch (rows staged at their own shift)";
  k.can_implement = can_implement_thin_k_mma<BM>;
  k.launch = launch_thin_k_mma<BM>;
  k.device_function = device_function_for(k.can_implement, device_function_thin_k_mma<BM>);
  r.push_back(std::move(k));
}

}  // namespace

void register_thin_k_mma(Registry& r) {
  register_instance<64>(r);
  register_instance<128>(r);
}

}  // namespace tilegemm::kernels
