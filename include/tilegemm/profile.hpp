// `tilegemm profile` without the process handling: the Nsight Compute side of the lab. The CLI
// runs `tilegemm bench --nvtx` under `ncu --csv --page raw`, one NVTX range per row around one
// timed launch (TimingOptions::nvtx); this module
//   1. names the metrics asked for and builds the ncu command line;
//   2. parses ncu's raw CSV (a header row, a units row, one row per profiled launch; numbers with
//      thousands separators, "n/a" where a counter has no value) and reads ncu's log for the
//      errors the CLI turns into exit codes;
//   3. maps each profiled launch back to its bench row (by NVTX range, else by order), reads the
//      seed's counters and the targets the seed set, and
//   4. puts the analysis model's predictions (tilegemm/analysis.hpp: tile-load traffic, DRAM
//      minimum, arithmetic intensity, theoretical occupancy) beside the counters they predict.
// The model stays in the analysis module; this module only joins. Everything here needs no GPU.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilegemm/analysis.hpp"
#include "tilegemm/bench.hpp"
#include "tilegemm/kernel.hpp"

namespace tilegemm::profile {

// ---------------------------------------------------------------------------------------------
// 1. Metrics and the command line
// ---------------------------------------------------------------------------------------------

// The metric names read. The seed's five first.
inline constexpr const char* kFfmaThreadInst = "sm__sass_thread_inst_executed_op_ffma_pred_on.sum";
inline constexpr const char* kGlobalLoadSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
inline constexpr const char* kGlobalLoadEfficiency =
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct";
inline constexpr const char* kRegisters = "launch__registers_per_thread";
inline constexpr const char* kAchievedOccupancy =
    "sm__warps_active.avg.pct_of_peak_sustained_active";
inline constexpr const char* kTheoreticalOccupancy = "sm__maximum_warps_per_active_cycle_pct";
inline constexpr const char* kFmaPipe =
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active";
inline constexpr const char* kBankConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum";
inline constexpr const char* kSharedWavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum";
inline constexpr const char* kDramRead = "dram__bytes_read.sum";
inline constexpr const char* kDramWrite = "dram__bytes_write.sum";
inline constexpr const char* kL2ToSmSectors = "lts__t_sectors_srcunit_tex_op_read.sum";
inline constexpr const char* kDuration = "gpu__time_duration.sum";

// Candidate tensor-pipe counters, in order of preference: which one has a value depends on the
// GPU and the ncu version (on an H200 with ncu 2025 the gmma instruction count reads and the
// hgmma cycle percentage is "n/a"). The first with a value is reported.
const std::vector<std::string>& tensor_metrics();
// The warp-stall reasons read, e.g. "long_scoreboard"; the metric of each is stall_metric().
const std::vector<std::string>& stall_reasons();
// "smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio"
std::string stall_metric(const std::string& reason);
// Every metric above, once each: what `--metrics` asks for.
std::vector<std::string> requested_metrics();

// What one profile run asks bench to do (the case flags are passed through as given).
struct ProfileRequest {
  std::string kernels;  // --kernels globs; empty: cuBLAS alone (bench --providers cublas)
  std::vector<bench::Shape> shapes;
  GemmTypes types;
  Layout la = Layout::kRowMajor, lb = Layout::kRowMajor, lc = Layout::kRowMajor;
};

// The argv of the ncu run: `ncu --clock-control none --print-units base --csv --page raw --nvtx
// --nvtx-include regex:tilegemm@.+/ --metrics <metrics> --log-file <log_path> <self> bench
// --kernels ... --shape ... --warmup 1 --reps 1 --rounds 1 --nvtx --format json --output
// <bench_json>` plus the type and layout flags that differ from the defaults. The rows of both
// providers are kept (cuBLAS always runs): the report drops the ones not asked for.
std::vector<std::string> ncu_command(const std::string& ncu, const std::string& self,
                                     const ProfileRequest& request,
                                     const std::vector<std::string>& metrics,
                                     const std::string& log_path, const std::string& bench_json);

// An executable's path: `name` itself when it holds a '/', else the first match on `path_env`
// (PATH's syntax). nullopt when there is no executable file there.
std::optional<std::string> find_executable(const std::string& name, std::string_view path_env);

// ---------------------------------------------------------------------------------------------
// 2. ncu's raw CSV and log
// ---------------------------------------------------------------------------------------------

// A number as ncu prints it: "194,624" -> 194624, "3,023,770.67" -> 3023770.67. nullopt for
// "n/a", an empty cell or anything else that is not a number.
std::optional<double> ncu_number(std::string_view text);

// One profiled launch: every cell by its column's name.
struct NcuRow {
  std::map<std::string, std::string> cells;
  // The cell of `column`, nullopt when the CSV has no such column.
  std::optional<std::string> cell(const std::string& column) const;
  // ncu_number of the cell; nullopt when missing or not a number ("n/a").
  std::optional<double> number(const std::string& column) const;
};

struct NcuTable {
  std::vector<std::string> headers;
  std::map<std::string, std::string> units;  // column -> unit ("byte", "ns", "%", or "")
  std::vector<NcuRow> rows;
  std::string nvtx_column;  // the column holding the push/pop ranges ("" without --nvtx)
  bool has_column(const std::string& column) const;
};

// The CSV that `--csv --page raw` prints, alone or inside a log (ncu's "==PROF==" and
// "==WARNING==" lines before and after are skipped). The header is the first record starting with
// "ID"; a record after it with an empty ID is the units row. A file without a header gives an
// empty table.
NcuTable parse_ncu_csv(std::string_view text);

// The innermost push/pop range of `domain` in a cell of the NVTX column, e.g. for
// `1  "tilegemm:cublas 64x64x64:none:none:none:none:none:none"` and domain "tilegemm":
// "cublas 64x64x64". "" when the cell holds no range of that domain.
std::string nvtx_range_in(std::string_view cell, std::string_view domain);

// ncu refused to read the performance counters (ERR_NVGPUCTRPERM in its output).
bool counters_not_permitted(std::string_view log);
// The requested metrics ncu says it cannot find ("==ERROR== Failed to find metric ..."): the CLI
// drops them and runs again, so that one name a GPU lacks costs a rerun and not the profile.
std::vector<std::string> metrics_not_found(std::string_view log,
                                           const std::vector<std::string>& requested);
// The "==ERROR==" lines of ncu's output, without the prefix.
std::vector<std::string> ncu_errors(std::string_view log);

// ---------------------------------------------------------------------------------------------
// 3. Counters and targets
// ---------------------------------------------------------------------------------------------

// One of the seed's targets, judged on one launch.
enum class Verdict { kMet, kNotMet, kNoReading, kNotApplicable };
const char* verdict_name(Verdict verdict);  // "met", "not met", "no reading", "n/a"

struct TargetResult {
  std::string name;       // "FMA utilisation", "global load efficiency", ...
  std::string threshold;  // "> 80%"
  std::optional<double> measured;
  Verdict verdict = Verdict::kNoReading;
};

struct Stall {
  std::string reason;
  double ratio = 0.0;  // warps stalled for this reason per issued instruction
};

// The counters of one launch; nullopt where ncu gave no value (or was not asked).
struct Counters {
  std::optional<double> duration_ns, ffma_thread_inst, global_load_sectors,
      global_load_efficiency_pct, registers, achieved_occupancy_pct, theoretical_occupancy_pct,
      fma_pipe_pct, bank_conflicts, shared_wavefronts, dram_read_bytes, dram_write_bytes,
      l2_to_sm_bytes;
  // conflicts / wavefronts * 100: the share of shared-memory wavefronts that conflicts added.
  std::optional<double> bank_conflict_pct;
  std::string tensor_metric;  // the first of tensor_metrics() with a value; "" if none has
  std::optional<double> tensor_value;
  std::vector<Stall> top_stalls;  // the three largest stall ratios with a value, largest first
};
// `units` (NcuTable::units) scales a value printed in another unit (Kbyte, usecond) to bytes and
// nanoseconds; with --print-units base, as the CLI runs ncu, every scale is 1.
Counters read_counters(const NcuRow& row, const std::map<std::string, std::string>& units = {});

// The seed's targets: FMA utilisation > 80% (fp32 SIMT only: `fp32_simt`), global load
// efficiency > 80%, shared-memory bank conflicts < 5%, achieved occupancy > 50%.
std::vector<TargetResult> judge_targets(const Counters& counters, bool fp32_simt);

// ---------------------------------------------------------------------------------------------
// 4. Model beside measurement, and the report
// ---------------------------------------------------------------------------------------------

struct ModelComparison {
  std::string quantity;  // "L2->SM load bytes", "DRAM bytes (read + write)", ...
  std::string model;     // what the analysis model predicts it with
  std::optional<double> predicted, measured;
  std::optional<double> ratio;  // measured / predicted
};

// The analysis model of a tilegemm launch beside its counters: tile loads (A and B, per block per
// K step) against L2->SM load bytes; each operand moved once against DRAM bytes read + written;
// the intensity of each; the occupancy calculator (with the launch's register count) against
// ncu's theoretical occupancy. `device` gives the per-SM limits (null: no occupancy row).
std::vector<ModelComparison> compare_with_model(const Counters& counters, const bench::Shape& shape,
                                                GemmTypes types, const TileConfig& tile,
                                                const analysis::DeviceSpec* device);

// One profiled launch, mapped to its bench row.
struct ProfiledKernel {
  std::string kernel;      // the bench row: registry name, "auto(<chosen>)" or "cublas"
  std::string ncu_kernel;  // ncu's "Kernel Name"
  bench::Shape shape;
  GemmTypes types;
  Layout la = Layout::kRowMajor, lb = Layout::kRowMajor, lc = Layout::kRowMajor;
  std::string mapped_by;  // "nvtx" or "order"
  Counters counters;
  std::vector<TargetResult> targets;
  std::vector<ModelComparison> model;  // empty for cuBLAS and kernels not in this build
};

struct ProfileReport {
  DeviceInfo device;
  std::string device_key;  // the analysis device whose limits the model used ("" if unknown)
  std::string command;
  std::string timestamp;
  std::vector<ProfiledKernel> kernels;
  std::vector<std::string> notes;  // rows not profiled (FAILED, N/A), launches not mapped
};

// Joins the profiled launches with bench's report of the same run: a launch whose NVTX range
// names a row that ran is that row's; without ranges, the launches are taken in run order, one per
// row with status ok. Rows that did not run (FAILED, N/A), rows that ran but have no profiled
// launch, and launches mapped to no row become notes. `providers` keeps cuBLAS's rows, tilegemm's
// or both.
ProfileReport build_report(const NcuTable& table, const bench::BenchReport& bench,
                           bench::Providers providers);

std::vector<bench::Section> profile_sections(const ProfileReport& report);
nlohmann::json to_json(const ProfileReport& report);
void write_profile(std::ostream& os, const ProfileReport& report, bench::Format format);

}  // namespace tilegemm::profile
