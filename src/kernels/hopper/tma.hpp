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

// The residue maps of a matrix that no single map describes (rung 23): `rows` lines of `cols`
// elements at a pitch of `pitch` elements from any element-aligned base. Line r belongs to class
// r % 8; a class's lines lie 8 pitches apart, a multiple of 16 bytes, so all of them start the
// same number of bytes, shift[j], past a 16-byte boundary. Map j describes class j from that
// boundary: line i of the map is line 8 i + j, of cols + shift[j] / element bytes elements (the
// first shift[j] bytes belong to the line before it or lie before the base, in the same 16-byte
// granule, and are never used), read unswizzled in boxes of box_rows lines x box_cols elements.
// A class without lines (rows < 8) gets class 0's map and shift. Returns cudaErrorInvalidValue
// where the driver refuses a map, cudaErrorNotSupported without cuTensorMapEncodeTiled.
cudaError_t make_residue_maps(CUtensorMap (&maps)[8], int (&shift)[8], DType dtype,
                              const void* base, std::int64_t rows, std::int64_t cols,
                              std::int64_t pitch, int box_rows, int box_cols);

// Whether make_residue_maps can describe such a matrix: an element-aligned base, pitch >= cols,
// 8 pitches below 2^40 bytes, extents within the maps' limits.
bool residue_maps_describable(DType dtype, const void* base, std::int64_t rows, std::int64_t cols,
                              std::int64_t pitch);

}  // namespace tilegemm::kernels::hopper
