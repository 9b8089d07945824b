// tilegemm._tilegemm, the extension behind the Python package:
//   gemm      the library's gemm() on DLPack device arrays. Each 2-D view becomes a MatrixView
//             (its strides, in elements, give the layout and leading dimension: a transposed view
//             is a layout, never a copy), the library validates, and the launch runs with the GIL
//             released.
//   the lab   registry, tolerances, testbed, verification, benchmark and analysis, answered by the
//             library itself and handed to Python as the JSON records the CLI writes, so that the
//             package holds no second model of anything.
// Argument errors raise ValueError("tilegemm.<function>: argument '<name>': ..."); errors of the
// CUDA runtime raise RuntimeError.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "tilegemm/analysis.hpp"
#include "tilegemm/bench.hpp"
#include "tilegemm/device_info.hpp"
#include "tilegemm/gemm.hpp"
#include "tilegemm/testbed.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

namespace tb = tilegemm::bench;
namespace ta = tilegemm::analysis;
using tilegemm::DType;
using tilegemm::GemmTypes;
using tilegemm::Layout;
using tilegemm::Status;
using tilegemm::StatusCode;

[[noreturn]] void arg_error(std::string_view function, std::string_view arg,
                            const std::string& message) {
  std::string text = "tilegemm.";
  text += function;
  text += ": argument '";
  text += arg;
  text += "': ";
  text += message;
  throw nb::value_error(text.c_str());
}

// The library's parsers name the "flag" they were given; the Python layer passes its argument
// names as flags, so an InputError turns into the package's ValueError form.
template <typename F>
auto with_input_errors(std::string_view function, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const tb::InputError& e) {
    std::string what = e.what();
    const std::string prefix = e.flag() + ": ";
    if (what.compare(0, prefix.size(), prefix) == 0) what.erase(0, prefix.size());
    // Parts of the library name CLI flags ("--dtype-c"); the Python argument is "dtype_c".
    std::string arg = e.flag();
    if (arg.rfind("--", 0) == 0) arg.erase(0, 2);
    for (char& ch : arg) ch = ch == '-' ? '_' : ch;
    if (arg == "dtype_c") arg = "out_dtype";
    arg_error(function, arg, what);
  }
}

// ---------------------------------------------------------------------------------------------
// gemm on DLPack arrays
// ---------------------------------------------------------------------------------------------

std::string dlpack_dtype_text(nb::dlpack::dtype t) {
  std::string base;
  switch (static_cast<nb::dlpack::dtype_code>(t.code)) {
    case nb::dlpack::dtype_code::Int:
      base = "int";
      break;
    case nb::dlpack::dtype_code::UInt:
      base = "uint";
      break;
    case nb::dlpack::dtype_code::Float:
      base = "float";
      break;
    case nb::dlpack::dtype_code::Bfloat:
      base = "bfloat";
      break;
    case nb::dlpack::dtype_code::Complex:
      base = "complex";
      break;
    case nb::dlpack::dtype_code::Bool:
      return "bool";
    default:
      base = "dtype code " + std::to_string(t.code) + " of ";
  }
  std::string text = base + std::to_string(t.bits);
  if (t.lanes != 1) text += "x" + std::to_string(t.lanes);
  return text;
}

std::optional<DType> dtype_of(nb::dlpack::dtype t) {
  if (t.lanes != 1) return std::nullopt;
  const auto code = static_cast<nb::dlpack::dtype_code>(t.code);
  if (code == nb::dlpack::dtype_code::Float && t.bits == 32) return DType::kF32;
  if (code == nb::dlpack::dtype_code::Float && t.bits == 16) return DType::kF16;
  if (code == nb::dlpack::dtype_code::Bfloat && t.bits == 16) return DType::kBF16;
  return std::nullopt;
}

const char* dtype_text(DType d) {
  switch (d) {
    case DType::kF32:
    case DType::kTF32:
      return "float32";
    case DType::kBF16:
      return "bfloat16";
    case DType::kF16:
      return "float16";
  }
  return "?";
}

struct Operand {
  const char* name = "";
  void* data = nullptr;
  std::int64_t rows = 0, cols = 0;
  std::int64_t row_stride = 0, col_stride = 0;  // elements
  Layout layout = Layout::kRowMajor;
  std::int64_t ld = 0;
  DType dtype = DType::kF32;
  int device = 0;
};

std::string shape_text(std::int64_t rows, std::int64_t cols) {
  return "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
}

// The layout of a rows x cols view with these element strides. A dimension of extent 1 is never
// stepped over, so its stride says nothing and does not decide the layout. nullopt: strided in
// both dimensions, which no leading dimension describes.
std::optional<std::pair<Layout, std::int64_t>> layout_of(std::int64_t rows, std::int64_t cols,
                                                         std::int64_t rs, std::int64_t cs) {
  if (rows == 0 || cols == 0) {
    return std::make_pair(Layout::kRowMajor, std::max<std::int64_t>(cols, 1));  // no elements
  }
  if (rows <= 1 && cols <= 1) return std::make_pair(Layout::kRowMajor, std::int64_t{1});
  if (rows <= 1) {
    // One row: contiguous, or a row of a column-major matrix (its columns ld apart).
    if (cs == 1) return std::make_pair(Layout::kRowMajor, cols);
    return std::make_pair(Layout::kColMajor, cs);
  }
  if (cols <= 1) {
    if (rs == 1) return std::make_pair(Layout::kColMajor, rows);
    return std::make_pair(Layout::kRowMajor, rs);
  }
  if (cs == 1) return std::make_pair(Layout::kRowMajor, rs);
  if (rs == 1) return std::make_pair(Layout::kColMajor, cs);
  return std::nullopt;
}

template <typename Array>
Operand operand(const Array& x, const char* name) {
  Operand o;
  o.name = name;
  if (x.device_type() != nb::device::cuda::value) {
    arg_error("gemm", name,
              x.device_type() == nb::device::cpu::value
                  ? "is a CPU array; tilegemm computes on CUDA devices (move it with .cuda() "
                    "or cupy.asarray)"
                  : "is not on a CUDA device (DLPack device type " +
                        std::to_string(x.device_type()) + ")");
  }
  if (x.ndim() != 2) {
    arg_error("gemm", name,
              "must be a 2-D matrix; it has " + std::to_string(x.ndim()) + " dimensions");
  }
  const std::optional<DType> dtype = dtype_of(x.dtype());
  if (!dtype) {
    arg_error("gemm", name,
              "dtype " + dlpack_dtype_text(x.dtype()) +
                  " is not supported; tilegemm computes float32, bfloat16 and float16");
  }
  o.dtype = *dtype;
  o.rows = static_cast<std::int64_t>(x.shape(0));
  o.cols = static_cast<std::int64_t>(x.shape(1));
  o.row_stride = x.stride(0);
  o.col_stride = x.stride(1);
  o.device = x.device_id();
  o.data = const_cast<void*>(static_cast<const void*>(x.data()));
  if ((o.rows > 1 && o.row_stride < 0) || (o.cols > 1 && o.col_stride < 0)) {
    arg_error("gemm", name,
              "has negative strides (" + std::to_string(o.row_stride) + ", " +
                  std::to_string(o.col_stride) + "), a reversed view; pass a copy");
  }
  const auto layout = layout_of(o.rows, o.cols, o.row_stride, o.col_stride);
  if (!layout) {
    arg_error("gemm", name,
              "a view strided in both dimensions (shape " + shape_text(o.rows, o.cols) +
                  ", strides (" + std::to_string(o.row_stride) + ", " +
                  std::to_string(o.col_stride) +
                  ") in elements) has no leading dimension: one of its strides must be 1 "
                  "(row- or column-major); pass a contiguous copy");
  }
  o.layout = layout->first;
  o.ld = layout->second;
  return o;
}

// The operand an argument error of the library's validate() is about.
const char* status_argument(StatusCode code) {
  switch (code) {
    case StatusCode::kNullA:
    case StatusCode::kInvalidLda:
    case StatusCode::kInvalidDtypeA:
    case StatusCode::kMisalignedA:
    case StatusCode::kInvalidM:
    case StatusCode::kInvalidK:
      return "a";
    case StatusCode::kNullB:
    case StatusCode::kInvalidLdb:
    case StatusCode::kInvalidDtypeB:
    case StatusCode::kMisalignedB:
    case StatusCode::kInvalidN:
      return "b";
    case StatusCode::kNullC:
    case StatusCode::kInvalidLdc:
    case StatusCode::kInvalidDtypeC:
    case StatusCode::kMisalignedC:
      return "c";
    default:
      return "kernel";
  }
}

std::string view_text(const Operand& o) {
  std::ostringstream s;
  s << "shape " << shape_text(o.rows, o.cols) << ", strides (" << o.row_stride << ", "
    << o.col_stride << ") read as " << (o.layout == Layout::kRowMajor ? "row" : "column")
    << "-major with leading dimension " << o.ld;
  return s.str();
}

// Whether a float32 product runs with tf32 math: asked for, or implied by a named kernel that
// computes tf32 and not plain fp32.
bool wants_tf32(const std::string& kernel, bool tf32) {
  if (tf32) return true;
  if (kernel == "auto") return false;
  const tilegemm::KernelInfo* k = tilegemm::find_kernel(kernel);
  return k != nullptr && k->desc.computes({DType::kTF32, DType::kF32}) &&
         !k->desc.computes({DType::kF32, DType::kF32});
}

class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    int current = 0;
    if (cudaGetDevice(&current) == cudaSuccess && current != device) {
      if (cudaError_t err = cudaSetDevice(device); err != cudaSuccess) {
        // The failed call left its error as the runtime's last error, which the next launch
        // check (cudaGetLastError) would report as its own.
        static_cast<void>(cudaGetLastError());
        throw std::runtime_error(std::string("tilegemm.gemm: cannot make CUDA device ") +
                                 std::to_string(device) + " current: " + cudaGetErrorName(err));
      }
      previous_ = current;
    }
  }
  ~DeviceGuard() {
    if (previous_ >= 0) static_cast<void>(cudaSetDevice(previous_));
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

[[noreturn]] void unknown_kernel(const std::string& kernel) {
  arg_error("gemm", "kernel",
            "'" + kernel + "' is not a registered kernel (tilegemm.kernels() lists them)");
}

[[noreturn]] void cannot_implement(const std::string& kernel, const tilegemm::Problem& p,
                                   const Operand& a, const Operand& b, const Operand& c) {
  const std::string types = tilegemm::gemm_types_name(p.types());
  if (kernel == "auto") {
    arg_error("gemm", "kernel",
              "auto: no registered kernel computes " + types + " for these views on this GPU");
  }
  arg_error("gemm", "kernel",
            "'" + kernel + "' cannot implement this problem (" + types + ", layouts " +
                tilegemm::layout_name(a.layout) + "," + tilegemm::layout_name(b.layout) + "," +
                tilegemm::layout_name(c.layout) +
                "); tilegemm.kernels() says what each computes and the alignment it needs");
}

void gemm(nb::ndarray<nb::ro> a_array, nb::ndarray<nb::ro> b_array, nb::ndarray<> c_array,
          float alpha, float beta, const std::string& kernel, std::uintptr_t stream, bool tf32,
          const std::string& out_dtype) {
  const Operand a = operand(a_array, "a");
  const Operand b = operand(b_array, "b");
  const Operand c = operand(c_array, "c");
  if (!out_dtype.empty() && out_dtype != tilegemm::dtype_name(c.dtype)) {
    arg_error("gemm", "out_dtype",
              out_dtype + " differs from c's dtype " + dtype_text(c.dtype));
  }
  if (b.rows != a.cols) {
    arg_error("gemm", "b",
              "shape " + shape_text(b.rows, b.cols) + " does not chain with a's " +
                  shape_text(a.rows, a.cols) + ": b needs " + std::to_string(a.cols) + " rows");
  }
  if (c.rows != a.rows || c.cols != b.cols) {
    arg_error("gemm", "c",
              "shape " + shape_text(c.rows, c.cols) + " is not the product's " +
                  shape_text(a.rows, b.cols));
  }
  if (b.device != a.device) {
    arg_error("gemm", "b",
              "is on CUDA device " + std::to_string(b.device) + ", a on device " +
                  std::to_string(a.device));
  }
  if (c.device != a.device) {
    arg_error("gemm", "c",
              "is on CUDA device " + std::to_string(c.device) + ", a on device " +
                  std::to_string(a.device));
  }
  if (b.dtype != a.dtype) {
    arg_error("gemm", "b",
              std::string("dtype ") + dtype_text(b.dtype) + " differs from a's " +
                  dtype_text(a.dtype) + "; A and B share one element type");
  }
  DType ab = a.dtype;
  if (wants_tf32(kernel, tf32)) {
    if (ab != DType::kF32) {
      arg_error("gemm", tf32 ? "tf32" : "kernel",
                std::string("tf32 math reads float32 operands; a and b are ") + dtype_text(ab));
    }
    ab = DType::kTF32;
  }
  if (!tilegemm::types_supported({ab, c.dtype})) {
    arg_error("gemm", "c",
              std::string("dtype ") + dtype_text(c.dtype) + " cannot hold a " + dtype_text(a.dtype) +
                  " product (float32 gives float32; bfloat16 gives bfloat16 or float32; float16 "
                  "gives float16 or float32)");
  }

  tilegemm::Problem p;
  p.m = a.rows;
  p.n = b.cols;
  p.k = a.cols;
  p.alpha = alpha;
  p.beta = beta;
  p.a = {a.data, a.layout, a.ld, ab};
  p.b = {b.data, b.layout, b.ld, ab};
  p.c = {c.data, c.layout, c.ld, c.dtype};

  // Everything that needs no GPU is checked before the device is touched.
  if (Status s = tilegemm::validate(p); !s.ok()) {
    const char* arg = status_argument(s.code());
    const Operand& o = arg[0] == 'a' ? a : arg[0] == 'b' ? b : c;
    std::string why = s.message();
    if (why.rfind("argument ", 0) == 0) why.erase(0, 9);  // "argument lda: ..." -> "lda: ..."
    arg_error("gemm", arg, view_text(o) + ": " + why + " (" + s.name() + ")");
  }
  if (kernel != "auto") {
    const tilegemm::KernelInfo* named = tilegemm::find_kernel(kernel);
    if (named == nullptr) unknown_kernel(kernel);
    if (tilegemm::quick_return(p) == tilegemm::QuickReturn::kNone && !named->can_implement(p)) {
      cannot_implement(kernel, p, a, b, c);
    }
  }
  DeviceGuard guard(a.device);
  Status s;
  {
    nb::gil_scoped_release release;
    s = tilegemm::gemm(p, kernel, reinterpret_cast<cudaStream_t>(stream));
  }
  if (s.ok()) return;
  switch (s.code()) {
    case StatusCode::kUnknownKernel:
      unknown_kernel(kernel);
    case StatusCode::kNotSupported:
      cannot_implement(kernel, p, a, b, c);
    case StatusCode::kUnsupportedDevice:
      arg_error("gemm", "kernel",
                "'" + kernel + "' cannot run on this GPU (compute capability " +
                    std::to_string(tilegemm::current_compute_capability()) + ")");
    default:
      throw std::runtime_error("tilegemm.gemm: " + s.message());
  }
}

// ---------------------------------------------------------------------------------------------
// The lab
// ---------------------------------------------------------------------------------------------

using Shapes = std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>;
using Layouts = std::tuple<std::string, std::string, std::string>;
using Pads = std::tuple<std::int64_t, std::int64_t, std::int64_t>;

GemmTypes types_of(std::string_view function, const std::string& dtype,
                   const std::string& out_dtype) {
  return with_input_errors(function,
                           [&] { return tb::parse_types("dtype", dtype, "out_dtype", out_dtype); });
}

void parse_layouts(std::string_view function, const Layouts& layouts, Layout* la, Layout* lb,
                   Layout* lc) {
  with_input_errors(function, [&] {
    *la = tb::parse_layout("layouts", std::get<0>(layouts));
    *lb = tb::parse_layout("layouts", std::get<1>(layouts));
    *lc = tb::parse_layout("layouts", std::get<2>(layouts));
    return 0;
  });
}

tb::Pads parse_pads(std::string_view function, const Pads& pads) {
  tb::Pads out{std::get<0>(pads), std::get<1>(pads), std::get<2>(pads)};
  for (std::int64_t v : {out.a, out.b, out.c}) {
    if (v < 0 || v > tb::kMaxPad) {
      arg_error(function, "pads",
                "each pad must be 0.." + std::to_string(tb::kMaxPad) + ", got " +
                    std::to_string(v));
    }
  }
  return out;
}

tb::Shape parse_shape(std::string_view function, const std::tuple<std::int64_t, std::int64_t,
                                                                  std::int64_t>& s) {
  const tb::Shape shape{std::get<0>(s), std::get<1>(s), std::get<2>(s)};
  for (std::int64_t v : {shape.m, shape.n, shape.k}) {
    if (v < 1 || v > tb::kMaxDim) {
      arg_error(function, "shapes",
                "each of m, n, k must be 1.." + std::to_string(tb::kMaxDim) + "; got " +
                    shape.to_string());
    }
  }
  return shape;
}

void require_device(std::string_view function, std::string_view nothing_to) {
  if (tilegemm::cuda_device_count() == 0) {
    throw std::runtime_error("tilegemm." + std::string(function) +
                             ": no CUDA device found; nothing to " + std::string(nothing_to));
  }
}

// Progress lines go to a Python callable, called with the GIL held.
tb::ProgressFn progress_fn(const nb::object& progress) {
  if (progress.is_none()) return [](const std::string&) {};
  return [progress](const std::string& line) {
    nb::gil_scoped_acquire acquire;
    progress(line);
  };
}

std::string kernels_json() {
  return tb::kernels_json(tilegemm::all_kernels(), tilegemm::current_compute_capability()).dump();
}

std::string devices_json() {
  nlohmann::json out = nlohmann::json::array();
  for (const tilegemm::DeviceInfo& d : tilegemm::query_devices()) out.push_back(tb::to_json(d));
  return out.dump();
}

std::tuple<std::string, std::string> parse_types(const std::string& dtype,
                                                const std::string& out_dtype) {
  const GemmTypes t = types_of("kernels", dtype, out_dtype);
  return {tilegemm::dtype_name(t.ab), tilegemm::dtype_name(t.c)};
}

double tolerance(const std::string& dtype, const std::string& out_dtype, std::int64_t k) {
  if (k < 0) arg_error("tolerance", "k", "must be >= 0");
  return tilegemm::tolerance(types_of("tolerance", dtype, out_dtype), k);
}

double element_tolerance(const std::string& dtype, const std::string& out_dtype, std::int64_t k) {
  if (k < 0) arg_error("element_tolerance", "k", "must be >= 0");
  return tilegemm::element_tolerance(types_of("element_tolerance", dtype, out_dtype), k);
}

std::string verify_json(const std::string& kernels, const std::string& dtype,
                        const std::string& out_dtype, const std::optional<Shapes>& shapes,
                        std::int64_t fuzz, std::uint64_t seed, float alpha, float beta,
                        const Layouts& layouts, const Pads& pads, const nb::object& progress) {
  const GemmTypes types = types_of("verify", dtype, out_dtype);
  if (fuzz < 0 || fuzz > 1000000) arg_error("verify", "fuzz", "must be 0..1000000");
  tilegemm::CaseSpec base;
  base.types = types;
  base.alpha = alpha;
  base.beta = beta;
  base.seed = seed;
  parse_layouts("verify", layouts, &base.la, &base.lb, &base.lc);
  const tb::Pads p = parse_pads("verify", pads);
  base.pad_a = p.a;
  base.pad_b = p.b;
  base.pad_c = p.c;
  std::vector<tilegemm::CaseSpec> cases;
  if (shapes) {
    if (fuzz > 0) arg_error("verify", "fuzz", "not with shapes (shapes name the cases)");
    for (const auto& s : *shapes) {
      const tb::Shape shape = parse_shape("verify", s);
      tilegemm::CaseSpec spec = base;
      spec.m = shape.m;
      spec.n = shape.n;
      spec.k = shape.k;
      cases.push_back(spec);
    }
  } else {
    cases = tb::standard_sweep(seed, types);
    const std::vector<tilegemm::CaseSpec> extra = tb::fuzz_cases(fuzz, seed, types);
    cases.insert(cases.end(), extra.begin(), extra.end());
  }
  const tb::KernelSelection selection = with_input_errors("verify", [&] {
    return tb::select_kernels("kernels", kernels, types, tilegemm::current_compute_capability());
  });
  require_device("verify", "verify");
  const tb::ProgressFn on_progress = progress_fn(progress);
  tb::VerifyReport report;
  {
    nb::gil_scoped_release release;
    report = tb::run_verify(selection.names, cases, on_progress, [](const tb::VerifyFailure&) {});
  }
  report.types = types;
  report.skipped = selection.skipped;
  nlohmann::json out = tb::to_json(report);
  out["cases"] = cases.size();
  return out.dump();
}

std::string bench_json(const std::string& kernels, const Shapes& shapes, const std::string& dtype,
                       const std::string& out_dtype, float alpha, float beta,
                       const Layouts& layouts, const Pads& pads, int warmup, int reps, int rounds,
                       bool cold, bool block, std::uint64_t seed, const std::string& command,
                       const nb::object& progress) {
  tb::BenchRequest request;
  request.types = types_of("bench", dtype, out_dtype);
  request.alpha = alpha;
  request.beta = beta;
  parse_layouts("bench", layouts, &request.la, &request.lb, &request.lc);
  request.pads = parse_pads("bench", pads);
  request.seed = seed;
  if (shapes.empty()) arg_error("bench", "shapes", "give at least one (m, n, k)");
  for (const auto& s : shapes) request.shapes.push_back(parse_shape("bench", s));
  if (warmup < 0) arg_error("bench", "warmup", "must be >= 0");
  if (reps < 1) arg_error("bench", "reps", "must be >= 1");
  if (rounds < 1) arg_error("bench", "rounds", "must be >= 1");
  request.timing.warmup = warmup;
  request.timing.reps = reps;
  request.timing.rounds = rounds;
  request.timing.cold = cold;
  request.timing.block = block;
  const tb::KernelSelection selection = with_input_errors("bench", [&] {
    return tb::select_kernels("kernels", kernels, request.types,
                              tilegemm::current_compute_capability());
  });
  request.kernels = selection.names;
  require_device("bench", "time");
  const std::optional<tilegemm::DeviceInfo> device = tilegemm::current_device();
  for (const tb::Shape& s : request.shapes) {
    const double need = tb::testbed_bytes(tb::bench_case(request, s));
    if (device && need > static_cast<double>(device->global_mem_bytes)) {
      arg_error("bench", "shapes",
                s.to_string() + " needs " + tb::fixed(need / 1e9, 1) +
                    " GB of device memory for its testbed; " + device->name + " has " +
                    tb::fixed(static_cast<double>(device->global_mem_bytes) / 1e9, 1) + " GB");
    }
  }
  const tb::ProgressFn on_progress = progress_fn(progress);
  tb::BenchReport report;
  {
    nb::gil_scoped_release release;
    report = tb::run_bench(request, on_progress);
  }
  report.skipped = selection.skipped;
  report.command = command;
  report.timestamp = tb::utc_timestamp();
  nlohmann::json out = tb::to_json(report);
  out["passed"] = tb::bench_passed(report);
  return out.dump();
}

std::string analyze(std::int64_t m, std::int64_t n, std::int64_t k,
                    const std::tuple<std::int64_t, std::int64_t, std::int64_t>& tile,
                    const std::string& kernel, const std::string& dtype,
                    const std::string& out_dtype, const Layouts& layouts,
                    const std::string& device, int regs, const std::string& format) {
  ta::AnalyzeRequest request;
  request.types = types_of("analyze", dtype, out_dtype);
  parse_layouts("analyze", layouts, &request.la, &request.lb, &request.lc);
  for (auto [name, v] : {std::pair<const char*, std::int64_t>{"m", m}, {"n", n}, {"k", k}}) {
    if (v < 1 || v > tb::kMaxDim) {
      arg_error("analyze", name, "must be 1.." + std::to_string(tb::kMaxDim));
    }
  }
  request.size = ta::GemmSize{m, n, k};
  request.tile = ta::TileDims{std::get<0>(tile), std::get<1>(tile), std::get<2>(tile)};
  if (regs < 1 || regs > 255) arg_error("analyze", "regs", "must be 1..255");
  request.regs_per_thread = regs;
  request.device_key = device;
  const tb::Format fmt = with_input_errors("analyze", [&] { return tb::parse_format("format", format); });
  if (!kernel.empty()) {
    request.kernel = tilegemm::find_kernel(kernel);
    if (request.kernel == nullptr) {
      arg_error("analyze", "kernel",
                "'" + kernel + "' is not a registered kernel (tilegemm.kernels() lists them)");
    }
  }
  ta::AnalysisReport report = with_input_errors("analyze", [&] { return ta::analyze(request); });
  // With a GPU, the compiled register count and the runtime's occupancy of the instance
  // launch() would run, as `tilegemm analyze --kernel` reports them.
  if (request.kernel != nullptr && tilegemm::cuda_device_count() > 0) {
    const std::optional<tilegemm::DeviceInfo> dev = tilegemm::current_device();
    const std::string gpu = dev ? dev->name : std::string("the current GPU");
    const tilegemm::Problem problem = tilegemm::Problem::make_typed(
        m, n, k, request.types, nullptr, nullptr, nullptr, 1.0f, 0.0f, request.la, request.lb,
        request.lc);
    const void* function =
        request.kernel->device_function ? request.kernel->device_function(problem) : nullptr;
    if (const auto attr = tilegemm::function_attributes(function)) {
      request.kernel_regs = attr->regs_per_thread;
      request.kernel_regs_source = "cudaFuncGetAttributes on " + gpu;
      const std::int64_t dynamic_smem =
          std::max<std::int64_t>(0, request.kernel->tile.smem_bytes - attr->static_smem_bytes);
      request.runtime_blocks_per_sm =
          tilegemm::runtime_blocks_per_sm(function, request.kernel->tile.threads, dynamic_smem);
      request.runtime_device = gpu;
      report = ta::analyze(request);
    }
  }
  std::ostringstream os;
  ta::write_analysis(os, report, fmt);
  return os.str();
}

// The testbed of one case, for kernels written outside the library (the Numba lab's): its
// buffers, and run_and_check() with a Python callable that launches on the given stream.
class PyTestbed {
 public:
  PyTestbed(std::int64_t m, std::int64_t n, std::int64_t k, const std::string& dtype,
            const std::string& out_dtype, float alpha, float beta, const Layouts& layouts,
            const Pads& pads, std::uint64_t seed) {
    tilegemm::CaseSpec spec;
    for (auto [name, v] : {std::pair<const char*, std::int64_t>{"m", m}, {"n", n}, {"k", k}}) {
      if (v < 1 || v > tb::kMaxDim) {
        arg_error("Testbed", name, "must be 1.." + std::to_string(tb::kMaxDim));
      }
    }
    spec.m = m;
    spec.n = n;
    spec.k = k;
    spec.types = types_of("Testbed", dtype, out_dtype);
    spec.alpha = alpha;
    spec.beta = beta;
    parse_layouts("Testbed", layouts, &spec.la, &spec.lb, &spec.lc);
    const tb::Pads p = parse_pads("Testbed", pads);
    spec.pad_a = p.a;
    spec.pad_b = p.b;
    spec.pad_c = p.c;
    spec.seed = seed;
    require_device("Testbed", "test");
    testbed_ = std::make_unique<tilegemm::Testbed>(spec);
    if (!testbed_->init_status().ok()) {
      throw std::runtime_error("tilegemm.Testbed: " + testbed_->init_status().message());
    }
  }

  // {"ptr", "shape", "strides" (elements), "dtype"} of "a", "b" or "c".
  nb::dict view(const std::string& which) const {
    const tilegemm::Problem& p = testbed_->problem();
    std::int64_t rows = 0, cols = 0;
    Layout layout = Layout::kRowMajor;
    std::int64_t ld = 0;
    const void* data = nullptr;
    DType dtype = DType::kF32;
    if (which == "a") {
      rows = p.m, cols = p.k, layout = p.a.layout, ld = p.a.ld, data = p.a.data, dtype = p.a.dtype;
    } else if (which == "b") {
      rows = p.k, cols = p.n, layout = p.b.layout, ld = p.b.ld, data = p.b.data, dtype = p.b.dtype;
    } else if (which == "c") {
      rows = p.m, cols = p.n, layout = p.c.layout, ld = p.c.ld, data = p.c.data, dtype = p.c.dtype;
    } else {
      arg_error("Testbed.view", "which", "must be 'a', 'b' or 'c'");
    }
    const tilegemm::Strides s = tilegemm::strides_of(layout, ld);
    nb::dict d;
    d["ptr"] = reinterpret_cast<std::uintptr_t>(data);
    d["shape"] = nb::make_tuple(rows, cols);
    d["strides"] = nb::make_tuple(s.row, s.col);
    d["dtype"] = tilegemm::dtype_name(dtype);
    return d;
  }

  nb::dict run_and_check(const nb::callable& launch, std::uintptr_t stream) {
    const tilegemm::CheckResult r = testbed_->run_and_check(
        [&](const tilegemm::Problem&, cudaStream_t s) {
          launch(reinterpret_cast<std::uintptr_t>(s));
          return tilegemm::from_cuda_error(cudaGetLastError());
        },
        reinterpret_cast<cudaStream_t>(stream));
    nb::dict d;
    d["passed"] = r.passed;
    d["rel_error"] = r.rel_error;
    d["tolerance"] = r.tolerance;
    d["element_error"] = r.element_error;
    d["element_tolerance"] = r.element_tolerance;
    d["nonfinite"] = r.nonfinite;
    d["padding_written"] = r.padding_written;
    d["changed_bits"] = r.changed_bits;
    d["status"] = r.status.name();
    d["detail"] = r.detail;
    d["case"] = testbed_->spec().to_string();
    return d;
  }

 private:
  std::unique_ptr<tilegemm::Testbed> testbed_;
};

// A 2-D DLPack view of no memory on a CUDA device, so that the package's tests can exercise
// every argument check on a machine without a GPU. Only for problems that fail validation or are
// empty: nothing may ever read or write `address`.
nb::ndarray<nb::array_api, nb::device::cuda> testing_device_view(std::vector<std::size_t> shape,
                                                  std::vector<std::int64_t> strides,
                                                  const std::string& dtype, int device,
                                                  std::uintptr_t address) {
  nb::dlpack::dtype t{};
  t.lanes = 1;
  if (dtype == "float32" || dtype == "float16" || dtype == "float64") {
    t.code = static_cast<std::uint8_t>(nb::dlpack::dtype_code::Float);
    t.bits = static_cast<std::uint8_t>(dtype == "float16" ? 16 : dtype == "float32" ? 32 : 64);
  } else if (dtype == "bfloat16") {
    t.code = static_cast<std::uint8_t>(nb::dlpack::dtype_code::Bfloat);
    t.bits = 16;
  } else if (dtype == "int32") {
    t.code = static_cast<std::uint8_t>(nb::dlpack::dtype_code::Int);
    t.bits = 32;
  } else {
    arg_error("_testing_device_view", "dtype", "float32, float16, bfloat16, float64 or int32");
  }
  if (shape.size() != strides.size()) {
    arg_error("_testing_device_view", "strides", "one per dimension");
  }
  // The owner a returned view needs: nothing to free.
  nb::capsule owner(reinterpret_cast<void*>(address), [](void*) noexcept {});
  return nb::ndarray<nb::array_api, nb::device::cuda>(reinterpret_cast<void*>(address), shape.size(),
                                                        shape.data(), owner, strides.data(), t,
                                       nb::device::cuda::value, device);
}

}  // namespace

NB_MODULE(_tilegemm, m) {
  m.doc() = "tilegemm's C++ library: gemm() on DLPack device arrays, and the lab as records";
  m.attr("version") = TILEGEMM_VERSION;

  m.def("gemm", &gemm, "a"_a.noconvert(), "b"_a.noconvert(), "c"_a.noconvert(), "alpha"_a,
        "beta"_a, "kernel"_a, "stream"_a, "tf32"_a, "out_dtype"_a,
        "C = alpha * A @ B + beta * C on DLPack CUDA arrays, the library validating first.");
  m.def("cuda_device_count", &tilegemm::cuda_device_count);
  m.def("current_compute_capability", &tilegemm::current_compute_capability);
  m.def("kernels_json", &kernels_json);
  m.def("devices_json", &devices_json);
  m.def("parse_types", &parse_types, "dtype"_a, "out_dtype"_a);
  m.def("tolerance", &tolerance, "dtype"_a, "out_dtype"_a, "k"_a);
  m.def("element_tolerance", &element_tolerance, "dtype"_a, "out_dtype"_a, "k"_a);
  m.def("verify_json", &verify_json, "kernels"_a, "dtype"_a, "out_dtype"_a, "shapes"_a.none(),
        "fuzz"_a, "seed"_a, "alpha"_a, "beta"_a, "layouts"_a, "pads"_a, "progress"_a.none());
  m.def("bench_json", &bench_json, "kernels"_a, "shapes"_a, "dtype"_a, "out_dtype"_a, "alpha"_a,
        "beta"_a, "layouts"_a, "pads"_a, "warmup"_a, "reps"_a, "rounds"_a, "cold"_a, "block"_a,
        "seed"_a, "command"_a, "progress"_a.none());
  m.def("analyze", &analyze, "m"_a, "n"_a, "k"_a, "tile"_a, "kernel"_a, "dtype"_a, "out_dtype"_a,
        "layouts"_a, "device"_a, "regs"_a, "format"_a);
  m.def("set_fp32_math_3xtf32", [](bool three_tf32) {
    tilegemm::set_fp32_math(three_tf32 ? tilegemm::Fp32Math::kThreeTf32
                                       : tilegemm::Fp32Math::kSimt);
  });
  m.def("fp32_math_is_3xtf32",
        [] { return tilegemm::fp32_math() == tilegemm::Fp32Math::kThreeTf32; });

  m.def("_testing_device_view", &testing_device_view, "shape"_a, "strides"_a, "dtype"_a,
        "device"_a = 0, "address"_a = std::uintptr_t{1} << 20);

  nb::class_<PyTestbed>(m, "Testbed")
      .def(nb::init<std::int64_t, std::int64_t, std::int64_t, const std::string&,
                    const std::string&, float, float, const Layouts&, const Pads&, std::uint64_t>(),
           "m"_a, "n"_a, "k"_a, "dtype"_a = "f32", "out_dtype"_a = "", "alpha"_a = 1.0f,
           "beta"_a = 0.0f, "layouts"_a = Layouts{"row", "row", "row"}, "pads"_a = Pads{0, 0, 0},
           "seed"_a = 1)
      .def("view", &PyTestbed::view, "which"_a)
      .def("run_and_check", &PyTestbed::run_and_check, "launch"_a, "stream"_a = 0);
}
