// The tune cache: which kernel measured fastest for a problem on this GPU, as `tilegemm tune`
// stored it, consulted by `auto` (select_kernel) before its shape rules.
//
// A cache file (JSON, docs/tune.md) holds one file key and a list of entries. The file key says
// what the measurements are valid for: the GPU (name, compute capability, SM count), the driver
// and runtime, the library version and the registry (a digest of the kernel names in order). An
// entry key says which problem: A/B and C dtypes, the three layouts, the alignment class of each
// operand, beta == 0, and M, N, K. Two sources, in this order:
//   1. the user's cache: <dir>/<device>.json, dir = $TILEGEMM_CACHE_DIR, else
//      $XDG_CACHE_HOME/tilegemm, else $HOME/.cache/tilegemm; every field of the file key must
//      match this process;
//   2. the tables built into the library (data/tune/<device>.json, measured on that GPU with
//      `tilegemm tune`): device, library version and registry must match; the driver and runtime
//      they were measured with need not (a user's are rarely the lab's).
// A file whose key differs is ignored, with one line on stderr naming the field (once per
// process and device; an empty table is skipped without a word, as it could change nothing).
// A hit is used only when the kernel it names exists, runs on the GPU and can_implement the
// problem; otherwise the rules decide as if there were no cache. TILEGEMM_TUNE_CACHE=off turns
// lookup off (tests, reproducible benchmarks).
//
// Part of the core library: nothing here needs more than the CUDA runtime.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilegemm/device_info.hpp"
#include "tilegemm/kernel.hpp"
#include "tilegemm/problem.hpp"

namespace tilegemm::tune {

// The cache file format this build reads and writes (the file's "format_version").
inline constexpr int kFormatVersion = 1;

// The library's version (CMake's project version), e.g. "0.1.0".
const char* library_version();
// A digest of kernel names in order: FNV-1a 64 over each name and a '\n', 16 hex digits.
std::string registry_hash(const std::vector<std::string>& names);
// The digest of this build's registry (all_kernels(), ladder order).
std::string registry_hash();

// What a cache file's measurements are valid for.
struct FileKey {
  std::string device;  // DeviceInfo::name, "NVIDIA H200"
  int compute_capability = 0;  // 10 * major + minor
  int sm_count = 0;
  int driver_version = 0;   // 1000 * major + 10 * minor, as cudaDriverGetVersion
  int runtime_version = 0;  // as cudaRuntimeGetVersion
  std::string library_version;
  std::string registry_hash;
  friend bool operator==(const FileKey& a, const FileKey& b);
  friend bool operator!=(const FileKey& a, const FileKey& b) { return !(a == b); }
};
// The key of `device` with this build's library version and registry.
FileKey file_key_for(const DeviceInfo& device);
// The key of the calling thread's current GPU; nullopt without one.
std::optional<FileKey> current_file_key();

// Which fields of a table's key must equal the process's.
enum class KeyRule : std::uint8_t {
  kUser,     // every field
  kShipped,  // all but driver_version and runtime_version
};
// "" when a table with key `table` applies to a process with key `process` under `rule`; else
// the first field that differs, as "driver_version is 12.8 (this process: 13.0)".
std::string key_mismatch(const FileKey& table, const FileKey& process, KeyRule rule);

// The largest of 16, 8, 4, 2, 1 bytes that divides both the base address and the leading
// dimension in bytes (`ld` elements of `elem_bytes`).
int alignment_class(std::uintptr_t address, std::int64_t ld, std::size_t elem_bytes);

// Which problem an entry is for.
struct EntryKey {
  GemmTypes types;
  Layout la = Layout::kRowMajor, lb = Layout::kRowMajor, lc = Layout::kRowMajor;
  int align_a = 16, align_b = 16, align_c = 16;  // alignment_class of each operand, bytes
  bool beta_zero = true;
  std::int64_t m = 0, n = 0, k = 0;
  friend bool operator==(const EntryKey& a, const EntryKey& b);
  friend bool operator!=(const EntryKey& a, const EntryKey& b) { return !(a == b); }
  friend bool operator<(const EntryKey& a, const EntryKey& b);
};
// The key of a problem, from its pointers and leading dimensions (a null pointer counts as
// 16-byte aligned, as every cudaMalloc allocation is).
EntryKey entry_key(const Problem& problem);
// "bf16 row,row,row align 16,16,16 beta=0 4096x4096x4096"
std::string to_string(const EntryKey& key);

// A time nobody measured (written as null).
inline constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();

struct Entry {
  EntryKey key;
  std::string kernel;                 // the registry name that won
  double median_ms = kNotMeasured;    // its median, for people reading the file
  double cublas_ms = kNotMeasured;    // cuBLAS's median beside it
  std::string measured;               // UTC ISO-8601 time of the measurement
};

struct Table {
  FileKey key;
  std::vector<Entry> entries;  // sorted by key, one per key
  std::string source;          // the file's path, or "built-in <name>"
  // The entry for this key; null when there is none.
  const Entry* find(const EntryKey& wanted) const;
};

// A cache file's text as a Table. Throws std::runtime_error naming the place in the file
// ("entries[3].m: want an integer >= 1") for anything that is not a well-formed file of
// kFormatVersion.
Table parse_table(std::string_view json_text, const std::string& source);
// The file's text: pretty JSON, entries sorted by key.
std::string serialize_table(const Table& table);

// "NVIDIA-H200.json" for "NVIDIA H200": every character outside [A-Za-z0-9._-] becomes '-'.
std::string file_name_for(std::string_view device);
// $TILEGEMM_CACHE_DIR, else $XDG_CACHE_HOME/tilegemm, else $HOME/.cache/tilegemm (each only when
// set and not empty); "" when none is.
std::string default_cache_dir();
// False when TILEGEMM_TUNE_CACHE is "off" (also "0", "false", "no"; any case).
bool lookup_enabled_by_env();

// One cache file read for a process key: the table when it applies, else why not.
struct ReadResult {
  std::string source;
  bool exists = false;          // false: no such file (not an error)
  std::optional<Table> table;   // set when the file parsed, whatever its key
  std::string ignored;          // "" when the table applies; else the reason, one line
};
ReadResult read_table_file(const std::string& path, const FileKey& process, KeyRule rule);

// The tables built into this library from data/tune/*.json: file name and text.
struct BuiltInTable {
  std::string name;  // "NVIDIA-H200.json"
  std::string_view text;
};
const std::vector<BuiltInTable>& built_in_tables();

// What lookup consults for one device.
struct ActiveTables {
  bool enabled = true;              // false: TILEGEMM_TUNE_CACHE=off (or disable_lookup())
  std::optional<FileKey> key;       // the process key the tables were checked against
  std::string cache_dir;            // the user cache directory ("" when none is set)
  std::vector<Table> tables;        // in lookup order: the user's, then built-in
  std::vector<std::string> notes;   // one line per file ignored (the library prints nothing:
                                    // the CLI shows them, bench records them)
};
// The tables that apply to a process with `key`: <cache_dir>/<device>.json under KeyRule::kUser
// (cache_dir "" reads none), then the built-in table of the same device under kShipped. A table
// without entries is never a note.
ActiveTables load_tables(const FileKey& key, const std::string& cache_dir);

// The kernel the cache names for this problem on compute capability `cc`, when the tables in
// effect for the current GPU hold its key, the table is for `cc`, and the kernel exists, runs on
// `cc` and can_implement the problem; null otherwise (no GPU, no cache, lookup off, a miss).
// select_kernel calls it before its rules. Thread-safe; the first call per device loads the
// tables (why a file was ignored: active_tables().notes).
const KernelInfo* lookup(const Problem& problem, int cc);
// What lookup consults on the current GPU (loading it if not yet loaded). Without a GPU (and no
// reload_for), no key and no tables.
ActiveTables active_tables();

// Forget what was loaded: the next lookup reads the environment and the files again.
void reload();
// Counts the changes of the tables lookup() answers from (reload, reload_for, disable_lookup):
// a choice cached beside a generation is stale once it moves.
std::uint64_t generation();
// Load now for this device identity, and use it on every device of the process until the next
// reload: for programs that know their GPU, and for tests on a machine without one.
void reload_for(const FileKey& key);
// Turn lookup off in this process until the next reload (`tilegemm tune` reports what the rules
// alone would choose).
void disable_lookup();

// What store() did.
struct StoreResult {
  std::string path;
  std::size_t added = 0;     // entries whose key the file did not hold
  std::size_t replaced = 0;  // entries that replaced one of the same key
  std::size_t total = 0;     // entries in the file now
  std::string dropped;       // "" or why the file's earlier contents were dropped, one line
};
// <dir>/<device>.json: created with `key` and `entries`, or merged into the file on disk (its
// entries kept, those of the same entry key replaced) when its key equals `key`; a file of another
// key, or one that does not parse, is replaced (StoreResult::dropped says why). The directory is
// created if missing. Under an exclusive flock on <dir>/<device>.json.lock, the text goes to a
// temporary file in the same directory, is fsync'ed and renamed over the file, so a reader sees
// the old file or the new one, never a part, and concurrent writers lose nothing. Throws
// std::runtime_error naming the path on any I/O failure.
StoreResult store(const std::string& dir, const FileKey& key, const std::vector<Entry>& entries);
// "" when `dir` can be created and written (a lock file can be made there); else why not.
std::string check_writable(const std::string& dir);
// <dir>/<device>.json and its lock file.
std::string cache_path(const std::string& dir, std::string_view device);
std::string lock_path(const std::string& dir, std::string_view device);

}  // namespace tilegemm::tune
