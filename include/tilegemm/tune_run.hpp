// `tilegemm tune`, the lab side of the tune cache (tilegemm/tune.hpp): for each problem, every
// candidate kernel is verified and timed beside cuBLAS by the benchmark runner (tilegemm/bench.hpp),
// and the one with the lowest median is stored in the cache. Also what `tune --show` prints, and
// the record `bench` keeps of the cache it consulted. Needs the lab (cuBLAS, the testbed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tilegemm/bench.hpp"
#include "tilegemm/device_info.hpp"
#include "tilegemm/testbed.hpp"
#include "tilegemm/tune.hpp"

namespace tilegemm::bench {

struct TuneRequest {
  // The problems (shapes, per-shape layouts, types, alpha, beta, layouts, pads, seed), the
  // candidates (registry names: each shape's candidates are those of them that run on the GPU and
  // can_implement it) and the timing.
  BenchRequest bench;
  // > 0: a screening pass first (verification and one short round of every candidate), and only
  // the candidates within `screen` times the fastest screened median are timed in full. 0: every
  // verified candidate is timed in full.
  double screen = 0.0;
  // Where each shape's winner is stored as soon as it is known (tune::store); "" stores nothing.
  std::string cache_dir;
};

enum class CandidateOutcome : std::uint8_t { kTimed, kFailed, kNotApplicable, kScreenedOut };
const char* outcome_name(CandidateOutcome outcome);  // "ok", "FAILED", "N/A", "screened out"

struct TuneCandidate {
  std::string kernel;
  CandidateOutcome outcome = CandidateOutcome::kTimed;
  double median_ms = kNoValue;
  double noise_pct = kNoValue;
  double cublas_ratio = kNoValue;  // cuBLAS median / this median
  double screen_ms = kNoValue;     // its median in the screening pass
  std::string detail;
};

struct TuneShape {
  Shape shape;
  Pads pads;
  tune::EntryKey key;
  double cublas_ms = kNoValue;
  std::string cublas_detail;  // why cuBLAS has no time, when it has none
  std::vector<TuneCandidate> candidates;  // in the request's (ladder) order
  std::string winner;                     // "" when no candidate was timed
  double winner_ms = kNoValue;
  std::string rules_choice;  // what auto's rules choose without a cache ("" when none)
  bool stored = false;
};

struct TuneReport {
  DeviceInfo device;
  tune::FileKey key;
  std::string command;
  std::string timestamp;
  TimingOptions timing;
  double screen = 0.0;
  std::uint64_t seed = 1;
  std::string cache_path;  // the file winners went to; "" when nothing was stored (--dry-run)
  std::vector<TuneShape> shapes;
  std::vector<std::string> skipped;  // select_kernels' notes: kernels this GPU cannot run
  std::vector<std::string> notes;    // what store() said (a file of another key replaced)
};

// The entry key of a benchmark case as the testbed lays it out: every operand its own cudaMalloc
// allocation (16-byte class base), leading dimensions min_ld + pad.
tune::EntryKey case_entry_key(const CaseSpec& spec);
// The problem of a case with null pointers (16-byte class, as the testbed's): what select_kernel
// and tune::lookup see for it.
Problem case_problem(const CaseSpec& spec);

// The timed candidate with the lowest median (the first in order of those tied); nullopt when
// none was timed.
std::optional<std::size_t> pick_winner(const std::vector<TuneCandidate>& candidates);
// The kernels of a screening pass's rows (not cuBLAS's) that were timed and are within `factor`
// times the fastest of them, in row order.
std::vector<std::string> screen_survivors(const std::vector<BenchRow>& rows, double factor);

// Per shape: the rules' choice (lookup off: tune::disable_lookup() for the rest of the process),
// the optional screening pass, the full timing beside cuBLAS (run_bench), the winner, stored at
// once when cache_dir is set. Needs a GPU. `progress` gets the runner's lines, prefixed with the
// shape's place. Throws std::runtime_error when a store fails.
TuneReport run_tune(const TuneRequest& request, const ProgressFn& progress);
// No candidate FAILED verification.
bool tune_passed(const TuneReport& report);

// One section per shape (its candidates, fastest first, cuBLAS on top; the winner and the rules'
// choice under it), then a summary with one row per shape.
std::vector<Section> tune_sections(const TuneReport& report);
nlohmann::json to_json(const TuneReport& report);
void write_tune(std::ostream& os, const TuneReport& report, Format format);

// `tilegemm tune --show`: the cache files a process would consult, without a GPU as well.
struct CacheFileView {
  std::string source;    // a path, or "built-in <name>"
  bool built_in = false;
  std::optional<tune::Table> table;  // unset when the file did not parse
  std::string status;  // "in effect", "ignored: <why>", "another device's", "not checked: no GPU"
};
struct CacheShow {
  std::string cache_dir;
  bool lookup_enabled = true;
  std::optional<tune::FileKey> process;  // this GPU with this build; unset without a GPU
  std::string library_version;
  std::string registry_hash;
  std::size_t registry_size = 0;
  std::vector<CacheFileView> files;  // every *.json in cache_dir (by name), then the built-in ones
};
CacheShow show_cache(const std::string& cache_dir, const std::optional<tune::FileKey>& process,
                     bool lookup_enabled);
std::vector<Section> cache_sections(const CacheShow& show);
nlohmann::json to_json(const CacheShow& show);
void write_cache_show(std::ostream& os, const CacheShow& show, Format format);

// What `bench` records under "tune_cache": whether lookup was on, the tables in effect and the
// files ignored, and each `auto` row whose choice came from the cache. `cc`: the GPU's.
nlohmann::json bench_cache_record(const BenchReport& report, const tune::ActiveTables& active,
                                  int cc);

}  // namespace tilegemm::bench
