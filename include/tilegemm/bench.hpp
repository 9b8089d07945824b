// The benchmark side of libtilegemm, everything `tilegemm` does beyond argument handling:
//   1. parsing of the lab's inputs (size lists, shapes, layouts, pads, element types, formats,
//      kernel globs), each error an InputError that names the flag;
//   2. the case lists of the correctness sweep (standard_sweep, fuzz_cases);
//   3. the timer (CUDA events around each launch, warm-up, median/min/max, optional L2 flush);
//   4. the benchmark and verification runners over the Testbed;
//   5. the writers: aligned text tables, CSV, markdown and JSON;
//   6. result files read back, the files one run writes, and which providers' rows it keeps.
// Parsing, sweeps, writers and readers need no GPU and are covered by the CPU tests.
// `compare` and `plot` build on 6 (tilegemm/compare.hpp, tilegemm/plot.hpp).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
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
// A finite number in [min_value, max_value] (seconds, percentages).
double parse_number_in(std::string_view flag, std::string_view text, double min_value,
                       double max_value);

// A/B's element type: "f32", "tf32", "bf16" or "f16" (dtype_name's spellings). Anything else:
// "<flag>: unknown dtype 'fp8'; expected f32, tf32, bf16 or f16".
DType parse_dtype(std::string_view flag, std::string_view text);
// C's element type: "f32", "bf16" or "f16" (tf32 is a way of reading fp32 A/B, not a storage type
// for C).
DType parse_dtype_c(std::string_view flag, std::string_view text);
// The element types of `--dtype` and `--dtype-c`: an empty A/B text means f32, an empty C text
// means default_c_dtype(A/B). A combination the library does not compute (types_supported) is
// an InputError naming `c_flag`.
GemmTypes parse_types(std::string_view ab_flag, std::string_view ab_text, std::string_view c_flag,
                      std::string_view c_text);

// The GPUs a kernel runs on, from its description: "any", "sm_80" (8.0 or later), "sm_90a"
// (exactly 9.0: an architecture-specific kernel), "sm_80..sm_89".
std::string cc_requirement(const KernelDesc& desc);
// "sm_90" for 90.
std::string sm_name(int cc);

// What `--kernels` selects for one run.
struct KernelSelection {
  std::vector<std::string> names;    // ladder order, "auto" last
  std::vector<std::string> skipped;  // one note per kernel this GPU cannot run:
                                     // "skipped <name>: needs sm_90a (this GPU is sm_80)"
};
// Comma-separated globs over the registry's names ('*', '?'), plus the word "auto" (the
// dispatcher's choice per problem). A glob that matches no kernel is an error; with `types`,
// kernels that do not compute them are dropped, and a glob left with none is an error naming
// the types. With cc > 0 (10 * major + minor of the GPU that will run them), kernels that GPU
// cannot run are moved to `skipped`; cc == 0 filters nothing by GPU. "auto" is never dropped.
KernelSelection select_kernels(std::string_view flag, std::string_view text,
                               std::optional<GemmTypes> types, int cc);

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
// Some cases pad the leading dimensions. Every case carries `seed` and `types`. Over 300 cases.
std::vector<CaseSpec> standard_sweep(std::uint64_t seed, GemmTypes types = {});
// `count` random cases: each dimension 1..2048, any of the 8 layout mixes, alpha and beta from a
// set that includes 0 and 1 (all exactly printable, so replay flags reproduce them), pads 0..5,
// every case of element types `types`. The same (count, seed) always gives the same shapes,
// layouts, scalars and pads, on any platform and for any types.
std::vector<CaseSpec> fuzz_cases(std::int64_t count, std::uint64_t seed, GemmTypes types = {});

// A shape and its own layout mix, as `bench --random` draws them.
struct RandomShape {
  Shape shape;
  LayoutMix layouts;
};
// `count` shapes for judging performance on shapes nobody picked: each of M, N, K log-uniform over
// 1..max_size (as likely in 1..8 as in 512..4096 for 4096), A, B and C each row- or column-major
// with equal odds. The same (count, seed, max_size) always gives the same list.
std::vector<RandomShape> random_shapes(std::int64_t count, std::uint64_t seed, std::int64_t max_size);

// ---------------------------------------------------------------------------------------------
// 3. Timer
// ---------------------------------------------------------------------------------------------

struct TimingOptions {
  int warmup = 10;    // untimed launches first (in every round)
  int reps = 50;      // timed launches, one event pair each (in every round)
  bool cold = false;  // write a buffer of 2x L2 before each timed launch (outside the events)
  // The blocking kernel (nvbench's cold measurement): before each timed launch's start event, a
  // one-thread kernel holds the stream until the host has enqueued the launch and its stop event,
  // so the events time the GPU's work and not the host's enqueue. Off, a launch that the GPU
  // runs faster than the host enqueues it is timed with the host's part in it (and under Nsight
  // Compute, which serializes launches, the hold would only wait out its timeout).
  bool block = true;
  // A hold the host has not released after this long ends and fails the row: the timed call
  // waited for the GPU (a synchronizing call), which a held stream never finishes.
  double block_timeout_s = 5.0;
  // Rounds of the shape's timing: in each, every verified kernel runs its warm-up and reps in
  // turn (round r starting at the r-th, cuBLAS first in round 0), and a row's statistics are
  // over all its rounds' samples. With more than one, the kernels take turns under the same
  // clock and power state, which a power-capped GPU changes over tens of milliseconds.
  int rounds = 1;
  // A stopping rule besides the fixed reps (nvbench's): when either is set, a round keeps timing
  // batches of `reps` launches until its samples cover at least min_time_s of kernel time and
  // their noise (relative standard deviation, %) is at most max_noise_pct, or max_time_s of kernel
  // time has passed. 0 leaves a criterion out.
  double min_time_s = 0.0;
  double max_noise_pct = 0.0;
  double max_time_s = 10.0;
  // An NVTX push/pop range (domain "tilegemm", named by nvtx_range_name) around the first timed
  // launch of each row in round 0: what `tilegemm profile` asks Nsight Compute to profile, so
  // that exactly one launch per row is measured, and not the verification or warm-up launches.
  bool nvtx = false;
};

// The NVTX domain of those ranges, and a row's range name: "<kernel> <MxNxK>", e.g.
// "cublas 4096x4096x4096" or "auto(wgmma_128x256x64_s4) 256x256x256" (no '/', '@' or ':', which
// Nsight Compute's range filters and CSV give meanings).
inline constexpr const char* kNvtxDomain = "tilegemm";
std::string nvtx_range_name(const std::string& kernel, const Shape& shape);

struct TimingStats {
  double median_ms = 0.0, min_ms = 0.0, max_ms = 0.0;
  int reps = 0;
};
// Median (mean of the middle two for an even count), min and max of the samples.
TimingStats summarize_ms(std::vector<float> samples_ms);
// The samples' relative standard deviation in percent (sample stdev over mean; 0 for fewer than
// two samples).
double noise_pct(const std::vector<float>& samples_ms);
// Whether a round with these samples (those of this round) goes on timing another batch under
// the stopping rule of `options`; false when neither min_time_s nor max_noise_pct is set.
bool keep_sampling(const std::vector<float>& samples_ms, const TimingOptions& options);

// One launch to time, enqueued on the stream.
using LaunchFn = std::function<Status(cudaStream_t)>;

struct HoldWords;  // the blocking kernel's words (src/bench)

class Timer {
 public:
  // `l2_bytes` sizes the flush buffer when options.cold.
  Timer(const TimingOptions& options, std::int64_t l2_bytes);
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;
  const Status& init_status() const { return init_; }
  // One round: the warm-up launches, then the timed ones, their milliseconds appended. A
  // non-empty `nvtx_range` wraps the first timed launch in that range of kNvtxDomain. With
  // `host_us`, each timed launch's host time (the call that enqueues it, by the host's steady
  // clock, in microseconds) is appended too: where it reaches the event-timed time, the GPU
  // waited for the host and the row measures the launch path, not the kernel.
  Status sample(const LaunchFn& launch, cudaStream_t stream, std::vector<float>* samples_ms,
                const std::string& nvtx_range = {}, std::vector<float>* host_us = nullptr);

 private:
  TimingOptions options_;
  Status init_;
  void* flush_buffer_ = nullptr;
  std::size_t flush_bytes_ = 0;
  // The words the blocking kernel and the host share (mapped pinned memory), and the last
  // ticket handed out; see TimingOptions::block.
  HoldWords* hold_ = nullptr;
  unsigned hold_ticket_ = 0;
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
  GemmTypes types;     // A/B and C element types (cuBLAS runs in the same ones)
  Shape shape;
  Layout la = Layout::kRowMajor, lb = Layout::kRowMajor, lc = Layout::kRowMajor;
  float alpha = 1.0f, beta = 0.0f;
  Pads pads;
  double median_ms = kNoValue, min_ms = kNoValue, max_ms = kNoValue;
  int samples = 0;              // timed launches behind the statistics
  double noise_pct = kNoValue;  // their relative standard deviation
  double host_us = kNoValue;    // median host time of the call that enqueues one launch
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
  // Per-shape layout mixes (bench --random), or empty: every shape in la, lb, lc below.
  std::vector<LayoutMix> shape_layouts;
  GemmTypes types;  // A/B and C element types of every shape
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
  std::vector<std::string> skipped;  // select_kernels' notes: kernels this GPU cannot run
};

using ProgressFn = std::function<void(const std::string& line)>;

// The testbed case of one benchmark shape.
CaseSpec bench_case(const BenchRequest& request, const Shape& shape);
// Device bytes the testbed allocates for a case (Testbed::device_bytes: A and B at their element
// size, three copies of C at its element size, the fp64 reference).
double testbed_bytes(const CaseSpec& spec);

// Per shape: verify and time cuBLAS in the request's types on the same buffers, then each kernel
// (N/A when it cannot implement the problem or cannot run on this GPU, FAILED with the reason
// when its result is wrong, timed otherwise). Rows in run order, cuBLAS first per shape.
// `progress` gets one line per row before it runs.
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
  GemmTypes types;  // the cases' element types (one run verifies one combination)
  std::vector<KernelSummary> kernels;
  std::vector<VerifyFailure> failures;
  std::vector<std::string> skipped;  // select_kernels' notes: kernels this GPU cannot run
  bool passed() const { return failures.empty(); }
};
// "--dtype bf16 --dtype-c f32" for these types; "" for f32 -> f32 (the CLI's default).
std::string dtype_flags(GemmTypes types);
// "tilegemm verify --kernels <kernel> <spec.replay_flags()>", with the dtype flags of spec.types.
std::string replay_command(const std::string& kernel, const CaseSpec& spec);
// One testbed per case, every kernel on it (N/A where it cannot implement the case or cannot run
// on this GPU). report.types comes from the first case. `on_failure` is called as each failure
// happens.
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
// A result file's "settings": the timing options and the inputs' seed.
nlohmann::json settings_json(const TimingOptions& timing, std::uint64_t seed);

// `tilegemm list`. `cc` is the running GPU's compute capability (0: no GPU), for the "runs
// here" column: "yes", "no (needs sm_90a)" or "no GPU".
// "bf16,bf16->f32,f16,f16->f32": every combination the kernel computes, gemm_types_name each.
std::string types_list(const KernelDesc& desc);
std::string runs_here(const KernelDesc& desc, int cc);
Table kernel_table(const std::vector<KernelInfo>& kernels, int cc);
nlohmann::json kernels_json(const std::vector<KernelInfo>& kernels, int cc);
void write_kernels(std::ostream& os, const std::vector<KernelInfo>& kernels, int cc,
                   Format format);

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

// ---------------------------------------------------------------------------------------------
// 6. Result files read back; the files `bench` writes; providers
// ---------------------------------------------------------------------------------------------

// A result file as write_bench(..., Format::kJson) writes it, read back: the device (every
// number to_json(DeviceInfo) wrote), command, timestamp, settings, rows and skipped notes.
// Keys that files from before the element-type flags lack take the values bench had then:
// dtype f32, dtype_c default_c_dtype(dtype), and pads 0, alpha 1, beta 0 where absent. `arg` is
// the flag or positional argument that named the file; every error is an InputError naming it,
// the file (`path`) and the row ("results[3].m: want an integer >= 1").
BenchReport bench_report_from_json(std::string_view arg, const std::string& path,
                                   const nlohmann::json& doc);
// Reads `path` and parses it; a file that cannot be read, or is not JSON, is an InputError
// naming `arg`.
BenchReport read_bench_file(std::string_view arg, const std::string& path);

// One file a bench run writes, and its format.
struct OutputFile {
  std::string path;
  Format format = Format::kTable;
};
// The format an extension names: .json, .csv, .md, .txt or .table (case-insensitive); nullopt
// for any other.
std::optional<Format> format_from_extension(std::string_view path);
// The files of `--output` (repeatable). One file with `--format` given: that format (as before
// --output was repeatable). Otherwise each file's format comes from its extension; a single file
// with an unknown extension gets `format_text` (default "table"), as before. Errors, naming
// `output_flag` or `format_flag`: an unknown extension among several files, the same path twice,
// `--format` with several files (each takes its own format from its extension).
std::vector<OutputFile> plan_outputs(std::string_view output_flag,
                                     const std::vector<std::string>& paths,
                                     std::string_view format_flag, std::string_view format_text,
                                     bool format_given);

// Whose rows a bench report keeps (cutlass_profiler's --providers). cuBLAS still runs either way:
// it verifies the inputs and gives every row its ratio.
struct Providers {
  bool tilegemm = true;
  bool cublas = true;
};
// Comma-separated "tilegemm" and "cublas", at least one.
Providers parse_providers(std::string_view flag, std::string_view text);
// Drops the rows of providers not asked for: "cublas" rows are cuBLAS's, every other tilegemm's.
void keep_providers(BenchReport* report, Providers providers);

}  // namespace tilegemm::bench
