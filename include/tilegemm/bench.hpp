// The benchmark side of libtilegemm, everything `tilegemm` does beyond argument handling:
//   1. parsing of the lab's inputs (size lists, shapes, layouts, pads, formats, kernel globs),
//      each error an InputError that names the flag;
//   2. the case lists of the correctness sweep (standard_sweep, fuzz_cases);
//   3. the timer (CUDA events around each launch, warm-up, median/min/max, optional L2 flush);
//   4. the benchmark and verification runners over the Testbed;
//   5. the writers: aligned text tables, CSV, markdown and JSON.
// Parsing, sweeps and writers need no GPU and are covered by the CPU tests.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tilegemm/device_info.hpp"
#include "tilegemm/kernel.hpp"
#include "tilegemm/problem.hpp"
#include "tilegemm/status.hpp"
#include "tilegemm/testbed.hpp"

namespace tilegemm::bench {

// ---------------------------------------------------------------------------------------------
// 1. Inputs
// ---------------------------------------------------------------------------------------------

// A malformed or impossible input. what() is "<flag>: <message>", one line.
class InputError : public std::runtime_error {
 public:
  InputError(std::string flag, const std::string& message);
  const std::string& flag() const { return flag_; }

 private:
  std::string flag_;
};

// Largest accepted matrix dimension: the kernels index with int.
inline constexpr std::int64_t kMaxDim = std::numeric_limits<std::int32_t>::max();
// Longest accepted size list (a typo like 1:100000:1 should not start a week-long sweep).
inline constexpr std::size_t kMaxSizeListLength = 4096;

struct Shape {
  std::int64_t m = 0, n = 0, k = 0;
  std::string to_string() const;  // "4095x4095x4095"
  friend bool operator==(const Shape& a, const Shape& b) {
    return a.m == b.m && a.n == b.n && a.k == b.k;
  }
};

// A size list in cutlass_profiler style: comma-separated items, each a value ("256"), an
// additive range "start:end:step" (256:1024:256 -> 256 512 768 1024) or a multiplicative range
// "start:end:xF" (256:4096:x2 -> 256 512 ... 4096). Ranges include `end` when the walk hits it.
std::vector<std::int64_t> parse_size_list(std::string_view flag, std::string_view text);
// "MxNxK", each >= 1.
Shape parse_shape(std::string_view flag, std::string_view text);
// Every (m, n, k) of the three lists, m slowest.
std::vector<Shape> cartesian(const std::vector<std::int64_t>& ms,
                             const std::vector<std::int64_t>& ns,
                             const std::vector<std::int64_t>& ks);
// "row" or "col".
Layout parse_layout(std::string_view flag, std::string_view text);
struct Pads {
  std::int64_t a = 0, b = 0, c = 0;
};
// "a,b,c": extra leading-dimension elements, each 0..kMaxPad.
inline constexpr std::int64_t kMaxPad = 1 << 20;
Pads parse_pads(std::string_view flag, std::string_view text);
// A decimal integer in [min_value, max_value].
std::int64_t parse_int(std::string_view flag, std::string_view text, std::int64_t min_value,
                       std::int64_t max_value);
std::uint64_t parse_seed(std::string_view flag, std::string_view text);
// A finite number that survives the conversion to float.
float parse_scalar(std::string_view flag, std::string_view text);

// Comma-separated globs over the registry's names ('*', '?'), plus the word "auto" (the
// dispatcher's choice per problem). Returns the selected names in ladder order, "auto" last;
// a glob that matches no kernel is an error.
std::vector<std::string> select_kernels(std::string_view flag, std::string_view text);

enum class Format { kTable, kCsv, kJson, kMarkdown };
Format parse_format(std::string_view flag, std::string_view text);  // table|csv|json|md

// ---------------------------------------------------------------------------------------------
// 2. Case lists of the correctness sweep
// ---------------------------------------------------------------------------------------------

// The awkward sizes every kernel is swept over: 1, powers of two and their neighbours, and
// sizes past 1000 that are no multiple of any tile.
const std::vector<std::int64_t>& sweep_sizes();
// The layout mixes (A, B, C) and (alpha, beta) pairs the standard sweep crosses.
struct LayoutMix {
  Layout a, b, c;
};
const std::vector<LayoutMix>& sweep_layouts();
const std::vector<std::pair<float, float>>& sweep_scalars();

// Deterministic cover of the sweep sizes: the all-equal triples plus a pairwise cover (every
// pair of sizes meets in every pair of positions), spread over the layout x (alpha, beta)
// combinations, plus, for every combination, shapes with 1 and with 1025 in each position.
// Some cases pad the leading dimensions. Every case carries `seed`. Over 300 cases.
std::vector<CaseSpec> standard_sweep(std::uint64_t seed);
// `count` random cases: each dimension 1..2048, any of the 8 layout mixes, alpha and beta from a
// set that includes 0 and 1 (all exactly printable, so replay flags reproduce them), pads 0..5.
// The same (count, seed) always gives the same cases, on any platform.
std::vector<CaseSpec> fuzz_cases(std::int64_t count, std::uint64_t seed);

// ---------------------------------------------------------------------------------------------
// 3. Timer
// ---------------------------------------------------------------------------------------------

struct TimingOptions {
  int warmup = 10;    // untimed launches first
  int reps = 50;      // timed launches, one event pair each
  bool cold = false;  // write a buffer of 2x L2 before each timed launch (outside the events)
};

struct TimingStats {
  double median_ms = 0.0, min_ms = 0.0, max_ms = 0.0;
  int reps = 0;
};
// Median (mean of the middle two for an even count), min and max of the samples.
TimingStats summarize_ms(std::vector<float> samples_ms);

// One launch to time, enqueued on the stream.
using LaunchFn = std::function<Status(cudaStream_t)>;

class Timer {
 public:
  // `l2_bytes` sizes the flush buffer when options.cold.
  Timer(const TimingOptions& options, std::int64_t l2_bytes);
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;
  const Status& init_status() const { return init_; }
  Status time(const LaunchFn& launch, cudaStream_t stream, TimingStats* out);

 private:
  TimingOptions options_;
  Status init_;
  void* flush_buffer_ = nullptr;
  std::size_t flush_bytes_ = 0;
};

// 2mnk / t in TFLOP/s.
double tflops(const Shape& shape, double elapsed_ms);

// ---------------------------------------------------------------------------------------------
// 4. Runners (need a GPU)
// ---------------------------------------------------------------------------------------------

enum class RowStatus { kOk, kFailed, kNotApplicable };
const char* row_status_name(RowStatus status);  // "ok", "FAILED", "N/A"

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

struct BenchRow {
  std::string kernel;  // a registry name, "auto(<chosen>)" or "cublas"
  DType dtype = DType::kF32;
  Shape shape;
  Layout la = Layout::kRowMajor, lb = Layout::kRowMajor, lc = Layout::kRowMajor;
  float alpha = 1.0f, beta = 0.0f;
  Pads pads;
  double median_ms = kNoValue, min_ms = kNoValue, max_ms = kNoValue;
  double tflops = kNoValue;
  double cublas_ms = kNoValue;
  double cublas_ratio = kNoValue;  // cublas median / kernel median
  double rel_error = kNoValue;
  double tolerance = kNoValue;
  RowStatus status = RowStatus::kOk;
  std::string detail;
};

struct BenchRequest {
  std::vector<std::string> kernels;  // names from select_kernels
  std::vector<Shape> shapes;
  float alpha = 1.0f, beta = 0.0f;
  Layout la = Layout::kRowMajor, lb = Layout::kRowMajor, lc = Layout::kRowMajor;
  Pads pads;
  TimingOptions timing;
  std::uint64_t seed = 1;
};

struct BenchReport {
  DeviceInfo device;
  std::string command;
  std::string timestamp;
  TimingOptions timing;
  std::uint64_t seed = 1;
  std::vector<BenchRow> rows;
};

using ProgressFn = std::function<void(const std::string& line)>;

// The testbed case of one benchmark shape.
CaseSpec bench_case(const BenchRequest& request, const Shape& shape);
// Device bytes the testbed allocates for a case (A, B, three copies of C, the fp64 reference).
double testbed_bytes(const CaseSpec& spec);

// Per shape: verify and time cuBLAS, then each kernel (N/A when it cannot implement the problem,
// FAILED with the reason when its result is wrong, timed otherwise). Rows in run order, cuBLAS
// first per shape. `progress` gets one line per row before it runs.
BenchReport run_bench(const BenchRequest& request, const ProgressFn& progress);
// No row FAILED.
bool bench_passed(const BenchReport& report);

// Verification
struct VerifyFailure {
  std::string kernel;
  CaseSpec spec;
  CheckResult check;
};
struct KernelSummary {
  std::string kernel;
  std::int64_t cases = 0, passed = 0, failed = 0, not_applicable = 0;
  double worst_rel_error = 0.0;  // over the cases that ran
  double worst_ratio = 0.0;      // worst rel_error / tolerance
};
struct VerifyReport {
  std::vector<KernelSummary> kernels;
  std::vector<VerifyFailure> failures;
  bool passed() const { return failures.empty(); }
};
// "tilegemm verify --kernels <kernel> <spec.replay_flags()>"
std::string replay_command(const std::string& kernel, const CaseSpec& spec);
// One testbed per case, every kernel on it. `on_failure` is called as each failure happens.
VerifyReport run_verify(const std::vector<std::string>& kernels, const std::vector<CaseSpec>& cases,
                        const ProgressFn& progress,
                        const std::function<void(const VerifyFailure&)>& on_failure);

// ---------------------------------------------------------------------------------------------
// 5. Writers
// ---------------------------------------------------------------------------------------------

// A table of preformatted cells; text and markdown align columns, CSV quotes per RFC 4180.
struct Table {
  std::vector<std::string> headers;
  std::vector<bool> right_align;
  std::vector<std::vector<std::string>> rows;

  void add_column(std::string header, bool align_right = false);
  void add_row(std::vector<std::string> cells);  // exactly one cell per column
};
void write_text(std::ostream& os, const Table& table);
void write_csv(std::ostream& os, const Table& table);
void write_markdown(std::ostream& os, const Table& table);
std::string csv_field(std::string_view text);

// A titled table with notes, the unit of the multi-part reports (analyze, devices).
struct Section {
  std::string title;
  std::vector<std::string> notes_before;
  Table table;
  std::vector<std::string> notes_after;
};
// table: title, notes and aligned table; md: "### title" and a markdown table; csv: "# title"
// comment lines before each CSV block. (JSON is written from the report's own structure.)
void write_sections(std::ostream& os, const std::vector<Section>& sections, Format format);

// Number formatting: "-" for NaN.
std::string fixed(double value, int decimals);
std::string scientific(double value, int decimals);

// The UTC time as ISO-8601, "2026-11-21T14:03:07Z".
std::string utc_timestamp();
// argv joined with spaces, arguments with shell-special characters single-quoted.
std::string join_command(int argc, const char* const* argv);

nlohmann::json to_json(const DeviceInfo& device);

// `tilegemm list`
Table kernel_table(const std::vector<KernelInfo>& kernels);
nlohmann::json kernels_json(const std::vector<KernelInfo>& kernels);
void write_kernels(std::ostream& os, const std::vector<KernelInfo>& kernels, Format format);

// `tilegemm devices`: one column per device, one row per property.
std::vector<Section> device_sections(const std::vector<DeviceInfo>& devices);
void write_devices(std::ostream& os, const std::vector<DeviceInfo>& devices, Format format);

// `tilegemm bench`
Table bench_table(const BenchReport& report);      // human columns, units in headers
Table bench_csv_table(const BenchReport& report);  // the JSON keys, full precision
nlohmann::json to_json(const BenchReport& report);
// One line naming the device, for the markdown header and the text title.
std::string device_line(const DeviceInfo& device);
void write_bench(std::ostream& os, const BenchReport& report, Format format);

// `tilegemm verify`
Table verify_table(const VerifyReport& report);
nlohmann::json to_json(const VerifyReport& report);
void write_verify(std::ostream& os, const VerifyReport& report, Format format);

}  // namespace tilegemm::bench
