// Host side of the Tensor Memory Accelerator: a 2-D tensor map for one operand, encoded with the
// driver's cuTensorMapEncodeTiled, reached through the runtime's driver entry point so that the
// library links only the CUDA runtime. Rules the maps obey (HOPPER-NOTES in the design notes):
// base 16-byte aligned, row pitch a multiple of 16 bytes, inner box <= 128 bytes with the 128-byte
// swizzle, boxes past the extents zero-filled on loads.
#pragma once

#include <cuda.h>  // CUtensorMap and its enums only: no libcuda symbol is linked
#include <cuda_runtime_api.h>

#include <cstdint>

#include "tilegemm/problem.hpp"

namespace tilegemm::kernels::hopper {

// A tensor map over a matrix stored as `rows` lines of `cols` contiguous elements with `pitch`
// elements between lines, read in boxes of box_rows x box_cols elements (box_cols * element
// bytes == 128) into shared memory with the 128-byte swizzle. A tf32 map rounds fp32 to tf32 on
// the way in (round to nearest even). Returns cudaErrorInvalidValue when the driver refuses the
// map (misaligned base or pitch, extents past its limits), cudaErrorNotSupported when the driver
// has no cuTensorMapEncodeTiled.
cudaError_t make_tensor_map(CUtensorMap* map, DType dtype, const void* base, std::int64_t rows,
                            std::int64_t cols, std::int64_t pitch, int box_rows, int box_cols);

// Whether a matrix can be described by a tensor map at all: base 16-byte aligned, pitch * element
// bytes a multiple of 16 and below 2^40, extents below 2^32.
bool tensor_map_describable(DType dtype, const void* base, std::int64_t rows, std::int64_t cols,
                            std::int64_t pitch);

}  // namespace tilegemm::kernels::hopper
