// Bench result files read back (`compare` and `plot` take them as input): the JSON that
// write_bench(..., Format::kJson) writes, back into a BenchReport. Strict about what a row must
// have (kernel, m, n, k, status), lenient about what older files lack, and every error names the
// argument, the file and the row, so a hand-edited result file says where it went wrong.
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "tilegemm/bench.hpp"

namespace tilegemm::bench {

namespace {

using nlohmann::json;

// Errors of one file: "<arg>: '<path>': <where>: <what>".
struct FileContext {
  std::string_view arg;
  const std::string& path;

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw InputError(std::string(arg),
                     "'" + path + "': " + (where.empty() ? "" : where + ": ") + what);
  }
};

std::string where_of(std::size_t index, const char* key) {
  return "results[" + std::to_string(index) + "]." + key;
}

std::string text_field(const FileContext& ctx, const json& row, std::size_t index, const char* key,
                       std::optional<std::string> fallback) {
  const auto it = row.find(key);
  if (it == row.end() || it->is_null()) {
    if (fallback) return *fallback;
    ctx.fail(where_of(index, key), "missing");
  }
  if (!it->is_string()) ctx.fail(where_of(index, key), "want a string");
  return it->get<std::string>();
}

std::int64_t int_field(const FileContext& ctx, const json& row, std::size_t index, const char* key,
                       std::int64_t min_value, std::optional<std::int64_t> fallback) {
  const auto it = row.find(key);
  if (it == row.end() || it->is_null()) {
    if (fallback) return *fallback;
    ctx.fail(where_of(index, key), "missing");
  }
  if (!it->is_number_integer() || it->get<std::int64_t>() < min_value) {
    ctx.fail(where_of(index, key), "want an integer >= " + std::to_string(min_value));
  }
  return it->get<std::int64_t>();
}

// Absent or null: NaN, as the writer writes an absent number as null.
double number_field(const FileContext& ctx, const json& row, std::size_t index, const char* key,
                    double fallback) {
  const auto it = row.find(key);
  if (it == row.end() || it->is_null()) return fallback;
  if (!it->is_number()) ctx.fail(where_of(index, key), "want a number or null");
  return it->get<double>();
}

DType dtype_field(const FileContext& ctx, const json& row, std::size_t index, const char* key,
                  std::optional<DType> fallback) {
  const std::string text =
      text_field(ctx, row, index, key,
                 fallback ? std::optional<std::string>(dtype_name(*fallback)) : std::nullopt);
  for (DType t : {DType::kF32, DType::kTF32, DType::kBF16, DType::kF16}) {
    if (text == dtype_name(t)) return t;
  }
  ctx.fail(where_of(index, key), "'" + text + "' is not a dtype (want f32, tf32, bf16 or f16)");
}

Layout layout_field(const FileContext& ctx, const json& row, std::size_t index, const char* key) {
  const std::string text = text_field(ctx, row, index, key, std::string("row"));
  if (text == "row") return Layout::kRowMajor;
  if (text == "col") return Layout::kColMajor;
  ctx.fail(where_of(index, key), "'" + text + "' is not a layout (want row or col)");
}

RowStatus status_field(const FileContext& ctx, const json& row, std::size_t index) {
  const std::string text = text_field(ctx, row, index, "status", std::nullopt);
  for (RowStatus s : {RowStatus::kOk, RowStatus::kFailed, RowStatus::kNotApplicable}) {
    if (text == row_status_name(s)) return s;
  }
  ctx.fail(where_of(index, "status"), "'" + text + "' is not a status (want ok, FAILED or N/A)");
}

float scalar_field(const FileContext& ctx, const json& row, std::size_t index, const char* key,
                   float fallback) {
  const double v = number_field(ctx, row, index, key, fallback);
  if (!std::isfinite(v) || std::fabs(v) > std::numeric_limits<float>::max()) {
    ctx.fail(where_of(index, key), "want a finite number");
  }
  return static_cast<float>(v);
}

BenchRow row_from_json(const FileContext& ctx, const json& row, std::size_t index) {
  if (!row.is_object()) ctx.fail("results[" + std::to_string(index) + "]", "want an object");
  BenchRow r;
  r.kernel = text_field(ctx, row, index, "kernel", std::nullopt);
  if (r.kernel.empty()) ctx.fail(where_of(index, "kernel"), "empty");
  r.shape.m = int_field(ctx, row, index, "m", 1, std::nullopt);
  r.shape.n = int_field(ctx, row, index, "n", 1, std::nullopt);
  r.shape.k = int_field(ctx, row, index, "k", 1, std::nullopt);
  r.types.ab = dtype_field(ctx, row, index, "dtype", DType::kF32);
  r.types.c = dtype_field(ctx, row, index, "dtype_c", default_c_dtype(r.types.ab));
  r.la = layout_field(ctx, row, index, "layout_a");
  r.lb = layout_field(ctx, row, index, "layout_b");
  r.lc = layout_field(ctx, row, index, "layout_c");
  r.alpha = scalar_field(ctx, row, index, "alpha", 1.0f);
  r.beta = scalar_field(ctx, row, index, "beta", 0.0f);
  r.pads.a = int_field(ctx, row, index, "pad_a", 0, 0);
  r.pads.b = int_field(ctx, row, index, "pad_b", 0, 0);
  r.pads.c = int_field(ctx, row, index, "pad_c", 0, 0);
  r.median_ms = number_field(ctx, row, index, "median_ms", kNoValue);
  r.samples = static_cast<int>(number_field(ctx, row, index, "samples", 0.0));
  r.host_us = number_field(ctx, row, index, "host_us", kNoValue);
  r.noise_pct = number_field(ctx, row, index, "noise_pct", kNoValue);
  r.min_ms = number_field(ctx, row, index, "min_ms", kNoValue);
  r.max_ms = number_field(ctx, row, index, "max_ms", kNoValue);
  r.tflops = number_field(ctx, row, index, "tflops", kNoValue);
  r.cublas_ms = number_field(ctx, row, index, "cublas_ms", kNoValue);
  r.cublas_ratio = number_field(ctx, row, index, "cublas_ratio", kNoValue);
  r.rel_error = number_field(ctx, row, index, "rel_error", kNoValue);
  r.tolerance = number_field(ctx, row, index, "tolerance", kNoValue);
  r.status = status_field(ctx, row, index);
  r.detail = text_field(ctx, row, index, "detail", std::string());
  // A timed row without a time cannot be compared or drawn: say so here, not as a NaN later.
  if (r.status == RowStatus::kOk && !(r.median_ms > 0.0)) {
    ctx.fail(where_of(index, "median_ms"), "status ok wants a median time > 0");
  }
  return r;
}

template <typename T>
T device_number(const json& device, const char* key) {
  const auto it = device.find(key);
  return it != device.end() && it->is_number_integer() ? it->get<T>() : T{};
}

// "13.0" back to 13000, as DeviceInfo keeps it.
int version_from_text(const json& device, const char* key) {
  const auto it = device.find(key);
  if (it == device.end() || !it->is_string()) return 0;
  int major = 0, minor = 0;
  if (std::sscanf(it->get<std::string>().c_str(), "%d.%d", &major, &minor) < 1) return 0;
  return 1000 * major + 10 * minor;
}

DeviceInfo device_from_json(const json& d) {
  DeviceInfo info;
  if (!d.is_object()) return info;
  if (d.contains("name") && d["name"].is_string()) info.name = d["name"].get<std::string>();
  if (d.contains("cuda_cc") && d["cuda_cc"].is_string()) {
    std::sscanf(d["cuda_cc"].get<std::string>().c_str(), "%d.%d", &info.cc_major, &info.cc_minor);
  }
  info.index = device_number<int>(d, "index");
  info.sm_count = device_number<int>(d, "sm_count");
  info.sm_clock_mhz = device_number<int>(d, "sm_clock_mhz");
  info.mem_clock_mhz = device_number<int>(d, "mem_clock_mhz");
  info.mem_bus_width_bits = device_number<int>(d, "mem_bus_width_bits");
  info.global_mem_bytes = device_number<std::int64_t>(d, "global_mem_bytes");
  info.l2_bytes = device_number<std::int64_t>(d, "l2_bytes");
  info.smem_per_sm_bytes = device_number<std::int64_t>(d, "smem_per_sm");
  info.smem_per_block_bytes = device_number<std::int64_t>(d, "smem_per_block");
  info.smem_per_block_optin_bytes = device_number<std::int64_t>(d, "smem_per_block_optin");
  info.regs_per_sm = device_number<int>(d, "regs_per_sm");
  info.regs_per_block = device_number<int>(d, "regs_per_block");
  info.max_threads_per_sm = device_number<int>(d, "max_threads_per_sm");
  info.max_threads_per_block = device_number<int>(d, "max_threads_per_block");
  info.max_blocks_per_sm = device_number<int>(d, "max_blocks_per_sm");
  info.warp_size = device_number<int>(d, "warp_size");
  info.driver_version = version_from_text(d, "driver_version");
  info.runtime_version = version_from_text(d, "runtime_version");
  return info;
}

}  // namespace

BenchReport bench_report_from_json(std::string_view arg, const std::string& path, const json& doc) {
  const FileContext ctx{arg, path};
  if (!doc.is_object()) ctx.fail("", "not a bench result (want a JSON object with \"results\")");
  const auto results = doc.find("results");
  if (results == doc.end() || !results->is_array()) {
    ctx.fail("",
             "not a bench result (no \"results\" array; write one with `tilegemm bench "
             "--format json --output FILE`)");
  }
  BenchReport report;
  if (const auto d = doc.find("device"); d != doc.end()) report.device = device_from_json(*d);
  if (const auto c = doc.find("command"); c != doc.end() && c->is_string()) {
    report.command = c->get<std::string>();
  }
  if (const auto t = doc.find("timestamp"); t != doc.end() && t->is_string()) {
    report.timestamp = t->get<std::string>();
  }
  if (const auto s = doc.find("settings"); s != doc.end() && s->is_object()) {
    report.timing.warmup = device_number<int>(*s, "warmup");
    report.timing.reps = device_number<int>(*s, "reps");
    // Files written before rounds existed timed one round.
    report.timing.rounds = s->contains("rounds") ? device_number<int>(*s, "rounds") : 1;
    // The stopping rule, absent from files written before it existed (then: off).
    auto seconds_or = [&](const char* key, double fallback) {
      const auto it = s->find(key);
      return it != s->end() && it->is_number() ? it->get<double>() : fallback;
    };
    report.timing.min_time_s = seconds_or("min_time_s", 0.0);
    report.timing.max_noise_pct = seconds_or("max_noise_pct", 0.0);
    report.timing.max_time_s = seconds_or("max_time_s", report.timing.max_time_s);
    report.timing.cold =
        s->contains("cold") && (*s)["cold"].is_boolean() && (*s)["cold"].get<bool>();
    // Files written before the blocking kernel existed timed launches as the host enqueued them.
    report.timing.block =
        s->contains("block") && (*s)["block"].is_boolean() && (*s)["block"].get<bool>();
    report.seed = device_number<std::uint64_t>(*s, "seed");
  }
  if (const auto sk = doc.find("skipped"); sk != doc.end() && sk->is_array()) {
    for (const json& note : *sk) {
      if (note.is_string()) report.skipped.push_back(note.get<std::string>());
    }
  }
  for (std::size_t i = 0; i < results->size(); ++i) {
    report.rows.push_back(row_from_json(ctx, (*results)[i], i));
  }
  return report;
}

BenchReport read_bench_file(std::string_view arg, const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(std::string(arg), "cannot read '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  json doc;
  try {
    doc = json::parse(text.str());
  } catch (const json::parse_error& e) {
    // nlohmann's message starts "[json.exception.parse_error.101] parse error at line 3, ...":
    // keep the part after the bracket, which says where.
    std::string what = e.what();
    if (const auto close = what.find("] "); close != std::string::npos) what.erase(0, close + 2);
    throw InputError(std::string(arg), "'" + path + "' is not JSON: " + what);
  }
  return bench_report_from_json(arg, path, doc);
}

}  // namespace tilegemm::bench
