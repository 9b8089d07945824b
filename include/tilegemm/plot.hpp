// `tilegemm plot`: SVG pictures of bench results, written by the lab itself with no plotting
// stack (plain strings), so a result file becomes a figure on any machine the CLI builds on.
//   roofline: every timed row placed by arithmetic intensity (analysis::arithmetic_intensity, in
//             the row's own element sizes) and TFLOP/s, under the device's DRAM ceiling and the
//             compute ceiling of each A/B type in the file (analysis::peak_for), log-log;
//   ladder:   TFLOP/s per kernel, kernels in the file's order under their rung/family headings,
//             one bar per size, each with a tick at cuBLAS's TFLOP/s for that size.
// Every row with status ok becomes exactly one element whose class list holds "mark" and whose
// <title> names the row (kernel, shape, layouts, types); nothing else carries "mark", so the
// tests (and a reader's tooling) can count them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "tilegemm/bench.hpp"

namespace tilegemm::bench {

// The analysis device key of a GPU as bench records its name: "NVIDIA H200" -> "h200",
// "NVIDIA H100 80GB HBM3" -> "h100", "NVIDIA A100-SXM4-40GB" -> "a100-40gb"; "" for any other.
std::string device_key_for_name(std::string_view gpu_name);

// &, <, >, " and ' as entities: safe in text and in attribute values.
std::string xml_escape(std::string_view text);

struct PlotResult {
  std::string svg;
  std::size_t marks = 0;     // rows drawn (status ok)
  std::size_t left_out = 0;  // rows not drawn (N/A, FAILED)
  std::string device_key;    // roofline: the device whose ceilings were drawn
};

// `device_key` empty: the one device_key_for_name gives for the file's device; an unknown key,
// or none given and none recognised, is an InputError naming `device_flag`. A file with no row
// to draw is an InputError naming `input_flag`. `source` names the input in the figure.
PlotResult roofline_svg(const BenchReport& report, std::string_view input_flag,
                        std::string_view device_flag, const std::string& device_key,
                        const std::string& source);

// With `shape`, only that shape's rows (none is an InputError naming `shape_flag`).
PlotResult ladder_svg(const BenchReport& report, std::string_view input_flag,
                      std::string_view shape_flag, const std::optional<Shape>& shape,
                      const std::string& source);

}  // namespace tilegemm::bench
