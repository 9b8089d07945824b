#include "tma.hpp"

#include <cudaTypedefs.h>

#include <cstddef>
#include <cstdint>
#include <mutex>

namespace tilegemm::kernels::hopper {

namespace {

PFN_cuTensorMapEncodeTiled_v12000 encode_fn() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault,
                                         &q) == cudaSuccess &&
        q == cudaDriverEntryPointSuccess) {
      fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
    }
    (void)cudaGetLastError();  // a failed lookup leaves no sticky error for the caller
  });
  return fn;
}

// The last maps encoded on this thread, by everything the encoding reads: a call with the same
// operand (the same base, extents, pitch, type and box) reuses the bytes instead of asking the
// driver again (rung 23 encodes nine maps per call; the host time saved: docs/perf-notes.md,
// "Tensor maps cached per thread"). A map holds
// addresses and geometry only, no handle, so an entry never goes stale; a freed and reallocated
// buffer at the same address is described by the same bytes. Direct-mapped, per thread: no lock.
struct MapKey {
  const void* base = nullptr;
  std::int64_t rows = 0, cols = 0, pitch = 0;
  int box_rows = 0, box_cols = 0;
  DType dtype = DType::kF32;
  bool valid = false;
  bool operator==(const MapKey& o) const {
    return valid && o.valid && base == o.base && rows == o.rows && cols == o.cols &&
           pitch == o.pitch && box_rows == o.box_rows && box_cols == o.box_cols &&
           dtype == o.dtype;
  }
};
std::size_t slot_of(const MapKey& k, std::size_t slots) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  mix(reinterpret_cast<std::uintptr_t>(k.base));
  mix(static_cast<std::uint64_t>(k.rows));
  mix(static_cast<std::uint64_t>(k.cols));
  mix(static_cast<std::uint64_t>(k.pitch));
  mix((static_cast<std::uint64_t>(k.box_rows) << 32) ^ static_cast<std::uint64_t>(k.box_cols));
  mix(static_cast<std::uint64_t>(k.dtype));
  return static_cast<std::size_t>(h % slots);
}
template <class Value, std::size_t kSlots>
struct MapCache {
  MapKey keys[kSlots];
  Value values[kSlots];
  // The entry for key: its value and true where cached, else the slot to fill and false.
  Value* find(const MapKey& key, bool* hit) {
    const std::size_t i = slot_of(key, kSlots);
    *hit = keys[i] == key;
    return &values[i];
  }
  void fill(const MapKey& key) { keys[slot_of(key, kSlots)] = key; }
};
struct ResidueMaps {
  CUtensorMap maps[8];
  int shift[8];
};

CUtensorMapDataType map_type(DType t) {
  switch (t) {
    case DType::kBF16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case DType::kF16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case DType::kTF32: return CU_TENSOR_MAP_DATA_TYPE_TFLOAT32;
    case DType::kF32: break;
  }
  return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

}  // namespace

bool tensor_map_describable(DType dtype, const void* base, std::int64_t rows, std::int64_t cols,
                            std::int64_t pitch) {
  const auto es = static_cast<std::int64_t>(dtype_bytes(dtype));
  constexpr std::int64_t k2to32 = std::int64_t{1} << 32;
  constexpr std::int64_t k2to40 = std::int64_t{1} << 40;
  return reinterpret_cast<std::uintptr_t>(base) % 16 == 0 && (pitch * es) % 16 == 0 &&
         pitch * es < k2to40 && rows >= 1 && cols >= 1 && rows < k2to32 && cols < k2to32 &&
         pitch >= cols;
}

cudaError_t make_tensor_map(CUtensorMap* map, DType dtype, const void* base, std::int64_t rows,
                            std::int64_t cols, std::int64_t pitch, int box_rows, int box_cols) {
  const PFN_cuTensorMapEncodeTiled_v12000 encode = encode_fn();
  if (encode == nullptr) return cudaErrorNotSupported;
  if (!tensor_map_describable(dtype, base, rows, cols, pitch)) return cudaErrorInvalidValue;
  thread_local MapCache<CUtensorMap, 32> cache;
  const MapKey key{base, rows, cols, pitch, box_rows, box_cols, dtype, true};
  bool hit = false;
  CUtensorMap* const cached = cache.find(key, &hit);
  if (hit) {
    *map = *cached;
    return cudaSuccess;
  }
  const auto es = static_cast<cuuint64_t>(dtype_bytes(dtype));
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(pitch) * es};  // bytes, dims 1..rank-1
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t elem_strides[2] = {1, 1};
  const CUresult r = encode(map, map_type(dtype), 2, const_cast<void*>(base), dims, strides, box,
                            elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                            CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) return cudaErrorInvalidValue;
  *cached = *map;
  cache.fill(key);
  return cudaSuccess;
}

bool residue_maps_describable(DType dtype, const void* base, std::int64_t rows, std::int64_t cols,
                              std::int64_t pitch) {
  const auto es = static_cast<std::int64_t>(dtype_bytes(dtype));
  constexpr std::int64_t k2to32 = std::int64_t{1} << 32;
  constexpr std::int64_t k2to40 = std::int64_t{1} << 40;
  return reinterpret_cast<std::uintptr_t>(base) % static_cast<std::uintptr_t>(es) == 0 &&
         rows >= 1 && cols >= 1 && pitch >= cols && 8 * pitch * es < k2to40 &&
         cols + 16 / es < k2to32 && rows < k2to32;
}

cudaError_t make_residue_maps(CUtensorMap (&maps)[8], int (&shift)[8], DType dtype,
                              const void* base, std::int64_t rows, std::int64_t cols,
                              std::int64_t pitch, int box_rows, int box_cols) {
  const PFN_cuTensorMapEncodeTiled_v12000 encode = encode_fn();
  if (encode == nullptr) return cudaErrorNotSupported;
  if (!residue_maps_describable(dtype, base, rows, cols, pitch)) return cudaErrorInvalidValue;
  thread_local MapCache<ResidueMaps, 16> cache;
  const MapKey key{base, rows, cols, pitch, box_rows, box_cols, dtype, true};
  bool hit = false;
  ResidueMaps* const cached = cache.find(key, &hit);
  if (hit) {
    for (int j = 0; j < 8; ++j) {
      maps[j] = cached->maps[j];
      shift[j] = cached->shift[j];
    }
    return cudaSuccess;
  }
  const auto es = static_cast<std::int64_t>(dtype_bytes(dtype));
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(8 * pitch * es)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t elem_strides[2] = {1, 1};
  for (int j = 0; j < 8; ++j) {
    const std::int64_t lines = j < rows ? (rows - j + 7) / 8 : 0;
    if (lines == 0) {
      maps[j] = maps[0];
      shift[j] = shift[0];
      continue;
    }
    const std::uintptr_t start =
        reinterpret_cast<std::uintptr_t>(base) + static_cast<std::uintptr_t>(j * pitch * es);
    shift[j] = static_cast<int>(start % 16);
    const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols + shift[j] / es),
                                static_cast<cuuint64_t>(lines)};
    void* const from = reinterpret_cast<void*>(start - static_cast<std::uintptr_t>(shift[j]));
    const CUresult r = encode(&maps[j], map_type(dtype), 2, from, dims, strides, box,
                              elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                              CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) return cudaErrorInvalidValue;
  }
  for (int j = 0; j < 8; ++j) {
    cached->maps[j] = maps[j];
    cached->shift[j] = shift[j];
  }
  cache.fill(key);
  return cudaSuccess;
}

}  // namespace tilegemm::kernels::hopper
