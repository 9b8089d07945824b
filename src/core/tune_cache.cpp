// The tune cache (tilegemm/tune.hpp): the file and entry keys, the JSON form, the tables a
// process consults, and the locked, atomic writes of `tilegemm tune`. nlohmann_json is used here
// privately (header-only): nothing of it reaches the library's public headers or its link line.
#include "tilegemm/tune.hpp"

#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "tilegemm/gemm.hpp"

#ifndef TILEGEMM_VERSION
#error "TILEGEMM_VERSION must be the project version (src/CMakeLists.txt defines it)"
#endif

namespace tilegemm::tune {

namespace {

using nlohmann::json;
using ordered_json = nlohmann::ordered_json;

constexpr const char* kFormatName = "tilegemm tune cache";

std::string version_text(int version) {
  return version > 0 ? cuda_version_string(version) : std::string("unknown");
}

std::optional<DType> dtype_from_name(std::string_view text) {
  for (DType d : {DType::kF32, DType::kTF32, DType::kBF16, DType::kF16}) {
    if (text == dtype_name(d)) return d;
  }
  return std::nullopt;
}

std::optional<Layout> layout_from_name(std::string_view text) {
  for (Layout l : {Layout::kRowMajor, Layout::kColMajor}) {
    if (text == layout_name(l)) return l;
  }
  return std::nullopt;
}

auto as_tuple(const EntryKey& k) {
  return std::make_tuple(static_cast<int>(k.types.ab), static_cast<int>(k.types.c),
                         static_cast<int>(k.la), static_cast<int>(k.lb), static_cast<int>(k.lc),
                         k.align_a, k.align_b, k.align_c, k.beta_zero, k.m, k.n, k.k);
}

// --- JSON ------------------------------------------------------------------------------------

[[noreturn]] void fail(const std::string& source, const std::string& where,
                       const std::string& what) {
  throw std::runtime_error(source + ": " + (where.empty() ? "" : where + ": ") + what);
}

// `where` by value: a reference parameter bound to a temporary (a "" argument) would make GCC 13
// warn that the returned reference may dangle.
const json& member(const json& object, const char* key, std::string_view where,
                   const std::string& source) {
  const auto it = object.find(key);
  if (it == object.end()) fail(source, std::string(where) + key, "missing");
  return *it;
}

std::string string_member(const json& object, const char* key, const std::string& where,
                          const std::string& source) {
  const json& v = member(object, key, where, source);
  if (!v.is_string()) fail(source, where + key, "want a string");
  return v.get<std::string>();
}

std::int64_t int_member(const json& object, const char* key, const std::string& where,
                        const std::string& source, std::int64_t min_value) {
  const json& v = member(object, key, where, source);
  if (!v.is_number_integer() || v.get<std::int64_t>() < min_value) {
    fail(source, where + key, "want an integer >= " + std::to_string(min_value));
  }
  return v.get<std::int64_t>();
}

int small_int_member(const json& object, const char* key, const std::string& where,
                     const std::string& source) {
  const std::int64_t v = int_member(object, key, where, source, 0);
  if (v > std::numeric_limits<int>::max()) fail(source, where + key, "out of range");
  return static_cast<int>(v);
}

double time_member(const json& object, const char* key, const std::string& where,
                   const std::string& source) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return kNotMeasured;
  if (!it->is_number() || !(it->get<double>() >= 0.0)) {
    fail(source, where + key, "want a number >= 0 or null");
  }
  return it->get<double>();
}

Entry entry_from_json(const json& e, std::size_t index, const std::string& source) {
  const std::string where = "entries[" + std::to_string(index) + "].";
  if (!e.is_object()) fail(source, where.substr(0, where.size() - 1), "want an object");
  Entry out;
  const std::string ab = string_member(e, "dtype", where, source);
  const std::string c = string_member(e, "dtype_c", where, source);
  const std::optional<DType> ab_type = dtype_from_name(ab);
  const std::optional<DType> c_type = dtype_from_name(c);
  if (!ab_type) fail(source, where + "dtype", "'" + ab + "' is not a dtype");
  if (!c_type) fail(source, where + "dtype_c", "'" + c + "' is not a dtype");
  out.key.types = GemmTypes{*ab_type, *c_type};
  if (!types_supported(out.key.types)) {
    fail(source, where + "dtype_c", "'" + ab + "' -> '" + c + "' is not a supported combination");
  }
  Layout* layouts[3] = {&out.key.la, &out.key.lb, &out.key.lc};
  int* aligns[3] = {&out.key.align_a, &out.key.align_b, &out.key.align_c};
  const char* layout_keys[3] = {"layout_a", "layout_b", "layout_c"};
  const char* align_keys[3] = {"align_a", "align_b", "align_c"};
  for (int i = 0; i < 3; ++i) {
    const std::string text = string_member(e, layout_keys[i], where, source);
    const std::optional<Layout> layout = layout_from_name(text);
    if (!layout) fail(source, where + layout_keys[i], "'" + text + "' is not a layout");
    *layouts[i] = *layout;
    const int align = small_int_member(e, align_keys[i], where, source);
    if (align != 1 && align != 2 && align != 4 && align != 8 && align != 16) {
      fail(source, where + align_keys[i], "want 1, 2, 4, 8 or 16");
    }
    *aligns[i] = align;
  }
  const json& beta_zero = member(e, "beta_zero", where, source);
  if (!beta_zero.is_boolean()) fail(source, where + "beta_zero", "want true or false");
  out.key.beta_zero = beta_zero.get<bool>();
  out.key.m = int_member(e, "m", where, source, 1);
  out.key.n = int_member(e, "n", where, source, 1);
  out.key.k = int_member(e, "k", where, source, 1);
  out.kernel = string_member(e, "kernel", where, source);
  if (out.kernel.empty()) fail(source, where + "kernel", "empty");
  out.median_ms = time_member(e, "median_ms", where, source);
  out.cublas_ms = time_member(e, "cublas_ms", where, source);
  if (const auto it = e.find("measured"); it != e.end() && it->is_string()) {
    out.measured = it->get<std::string>();
  }
  return out;
}

// Sorted by key; of two entries with one key, the later one.
void sort_unique(std::vector<Entry>* entries) {
  std::stable_sort(entries->begin(), entries->end(),
                   [](const Entry& a, const Entry& b) { return a.key < b.key; });
  std::vector<Entry> out;
  for (Entry& e : *entries) {
    if (!out.empty() && out.back().key == e.key) {
      out.back() = std::move(e);
    } else {
      out.push_back(std::move(e));
    }
  }
  *entries = std::move(out);
}

ordered_json time_json(double ms) { return std::isnan(ms) ? ordered_json(nullptr) : ordered_json(ms); }

// --- files -----------------------------------------------------------------------------------

std::string errno_text() { return std::strerror(errno); }

std::optional<std::string> read_file(const std::string& path, bool* exists) {
  std::error_code ec;
  *exists = std::filesystem::exists(path, ec);
  if (!*exists) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return ss.str();
}

// An exclusive flock on the lock file, released on every path. Locks belong to the open file
// description, so two of these in one process exclude each other as two processes do.
class FileLock {
 public:
  explicit FileLock(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw std::runtime_error("cannot open lock file '" + path + "': " + errno_text());
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      const std::string why = errno_text();
      ::close(fd_);
      throw std::runtime_error("cannot lock '" + path + "': " + why);
    }
  }
  ~FileLock() {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

// `text` to `path` through a temporary file in the same directory (so rename is atomic), synced
// before the rename, and the directory synced after it.
void write_atomically(const std::string& dir, const std::string& path, const std::string& text) {
  std::string temp = dir + "/." + std::filesystem::path(path).filename().string() + ".XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) throw std::runtime_error("cannot create a temporary file in '" + dir + "': " + errno_text());
  auto fail_with = [&](const std::string& what) {
    const std::string why = errno_text();
    ::close(fd);
    ::unlink(temp.c_str());
    throw std::runtime_error(what + " '" + temp + "': " + why);
  };
  // mkstemp makes the file private; a cache is as readable as any file the user writes.
  if (::fchmod(fd, 0644) != 0) fail_with("cannot set the mode of");
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_with("cannot write");
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) fail_with("cannot sync");
  if (::close(fd) != 0) {
    const std::string why = errno_text();
    ::unlink(temp.c_str());
    throw std::runtime_error("cannot close '" + temp + "': " + why);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string why = errno_text();
    ::unlink(temp.c_str());
    throw std::runtime_error("cannot rename '" + temp + "' to '" + path + "': " + why);
  }
  // The rename itself survives a crash only once the directory is synced; a file system that
  // cannot sync a directory has still renamed atomically.
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
}

void create_directory(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create directory '" + dir + "': " + ec.message());
}

// A parse error's message without the "<source>: " it starts with.
std::string without_source(const std::string& what, const std::string& source) {
  const std::string prefix = source + ": ";
  return what.compare(0, prefix.size(), prefix) == 0 ? what.substr(prefix.size()) : what;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

// --- the process's tables --------------------------------------------------------------------

struct State {
  std::mutex mutex;
  // Read from the environment on first use and on reload().
  std::optional<bool> enabled;
  std::map<int, std::shared_ptr<const ActiveTables>> by_device;
  // reload_for() and disable_lookup(): used on every device until reload().
  std::shared_ptr<const ActiveTables> forced;
};

State& state() {
  static State s;
  return s;
}

ActiveTables disabled_tables() {
  ActiveTables t;
  t.enabled = false;
  t.cache_dir = default_cache_dir();
  return t;
}

// The tables for the current device; null without a GPU. Loads once per device.
std::shared_ptr<const ActiveTables> current_tables() {
  State& s = state();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.forced) return s.forced;
    if (!s.enabled) s.enabled = lookup_enabled_by_env();
    if (!*s.enabled) {
      s.forced = std::make_shared<const ActiveTables>(disabled_tables());
      return s.forced;
    }
  }
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.forced) return s.forced;
  if (const auto it = s.by_device.find(device); it != s.by_device.end()) return it->second;
  ActiveTables loaded;
  loaded.cache_dir = default_cache_dir();
  if (const std::optional<FileKey> key = current_file_key()) {
    loaded = load_tables(*key, loaded.cache_dir);
  }
  auto shared = std::make_shared<const ActiveTables>(std::move(loaded));
  s.by_device[device] = shared;
  return shared;
}

}  // namespace

// --- keys ------------------------------------------------------------------------------------

const char* library_version() { return TILEGEMM_VERSION; }

std::string registry_hash(const std::vector<std::string>& names) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64 offset basis
  auto mix = [&h](unsigned char byte) {
    h ^= byte;
    h *= 0x100000001b3ull;  // FNV-1a 64 prime
  };
  for (const std::string& name : names) {
    for (char ch : name) mix(static_cast<unsigned char>(ch));
    mix('\n');
  }
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(h));
  return text;
}

std::string registry_hash() {
  static const std::string hash = [] {
    std::vector<std::string> names;
    for (const KernelInfo& k : all_kernels()) names.push_back(k.name);
    return registry_hash(names);
  }();
  return hash;
}

bool operator==(const FileKey& a, const FileKey& b) {
  return a.device == b.device && a.compute_capability == b.compute_capability &&
         a.sm_count == b.sm_count && a.driver_version == b.driver_version &&
         a.runtime_version == b.runtime_version && a.library_version == b.library_version &&
         a.registry_hash == b.registry_hash;
}

FileKey file_key_for(const DeviceInfo& device) {
  FileKey key;
  key.device = device.name;
  key.compute_capability = device.compute_capability();
  key.sm_count = device.sm_count;
  key.driver_version = device.driver_version;
  key.runtime_version = device.runtime_version;
  key.library_version = library_version();
  key.registry_hash = registry_hash();
  return key;
}

std::optional<FileKey> current_file_key() {
  const std::optional<DeviceInfo> device = current_device();
  if (!device) return std::nullopt;
  return file_key_for(*device);
}

std::string key_mismatch(const FileKey& table, const FileKey& process, KeyRule rule) {
  auto differs = [](const std::string& field, const std::string& theirs, const std::string& ours) {
    return field + " is '" + theirs + "' (this process: '" + ours + "')";
  };
  if (table.device != process.device) return differs("device", table.device, process.device);
  if (table.compute_capability != process.compute_capability) {
    return differs("compute_capability", std::to_string(table.compute_capability),
                   std::to_string(process.compute_capability));
  }
  if (table.sm_count != process.sm_count) {
    return differs("sm_count", std::to_string(table.sm_count), std::to_string(process.sm_count));
  }
  if (rule == KeyRule::kUser) {
    if (table.driver_version != process.driver_version) {
      return differs("driver_version", version_text(table.driver_version),
                     version_text(process.driver_version));
    }
    if (table.runtime_version != process.runtime_version) {
      return differs("runtime_version", version_text(table.runtime_version),
                     version_text(process.runtime_version));
    }
  }
  if (table.library_version != process.library_version) {
    return differs("library_version", table.library_version, process.library_version);
  }
  if (table.registry_hash != process.registry_hash) {
    return differs("registry_hash", table.registry_hash, process.registry_hash) +
           ", another set of kernels";
  }
  return "";
}

int alignment_class(std::uintptr_t address, std::int64_t ld, std::size_t elem_bytes) {
  const std::uint64_t ld_bytes =
      static_cast<std::uint64_t>(ld < 0 ? 0 : ld) * static_cast<std::uint64_t>(elem_bytes);
  for (int c : {16, 8, 4, 2}) {
    const auto uc = static_cast<std::uint64_t>(c);
    if (address % uc == 0 && ld_bytes % uc == 0) return c;
  }
  return 1;
}

bool operator==(const EntryKey& a, const EntryKey& b) { return as_tuple(a) == as_tuple(b); }
bool operator<(const EntryKey& a, const EntryKey& b) { return as_tuple(a) < as_tuple(b); }

EntryKey entry_key(const Problem& p) {
  EntryKey key;
  key.types = p.types();
  key.la = p.a.layout;
  key.lb = p.b.layout;
  key.lc = p.c.layout;
  key.align_a = alignment_class(reinterpret_cast<std::uintptr_t>(p.a.data), p.a.ld,
                                dtype_bytes(p.a.dtype));
  key.align_b = alignment_class(reinterpret_cast<std::uintptr_t>(p.b.data), p.b.ld,
                                dtype_bytes(p.b.dtype));
  key.align_c = alignment_class(reinterpret_cast<std::uintptr_t>(p.c.data), p.c.ld,
                                dtype_bytes(p.c.dtype));
  key.beta_zero = p.beta == 0.0f;
  key.m = p.m;
  key.n = p.n;
  key.k = p.k;
  return key;
}

std::string to_string(const EntryKey& k) {
  return std::string(gemm_types_name(k.types)) + " " + layout_name(k.la) + "," +
         layout_name(k.lb) + "," + layout_name(k.lc) + " align " + std::to_string(k.align_a) +
         "," + std::to_string(k.align_b) + "," + std::to_string(k.align_c) +
         (k.beta_zero ? " beta=0 " : " beta!=0 ") + std::to_string(k.m) + "x" +
         std::to_string(k.n) + "x" + std::to_string(k.k);
}

const Entry* Table::find(const EntryKey& wanted) const {
  const auto it = std::lower_bound(entries.begin(), entries.end(), wanted,
                                   [](const Entry& e, const EntryKey& k) { return e.key < k; });
  return it != entries.end() && it->key == wanted ? &*it : nullptr;
}

// --- the file's text -------------------------------------------------------------------------

Table parse_table(std::string_view json_text, const std::string& source) {
  json doc;
  try {
    doc = json::parse(json_text.begin(), json_text.end());
  } catch (const json::parse_error& e) {
    fail(source, "", std::string("not JSON: ") + e.what());
  }
  if (!doc.is_object()) fail(source, "", "want a JSON object");
  const std::string format = string_member(doc, "format", "", source);
  if (format != kFormatName) fail(source, "format", "'" + format + "' is not '" + kFormatName + "'");
  const std::int64_t version = int_member(doc, "format_version", "", source, 0);
  if (version != kFormatVersion) {
    fail(source, "format_version",
         std::to_string(version) + " (this build reads " + std::to_string(kFormatVersion) + ")");
  }
  Table table;
  table.source = source;
  const json& key = member(doc, "key", "", source);
  if (!key.is_object()) fail(source, "key", "want an object");
  table.key.device = string_member(key, "device", "key.", source);
  table.key.compute_capability = small_int_member(key, "compute_capability", "key.", source);
  table.key.sm_count = small_int_member(key, "sm_count", "key.", source);
  table.key.driver_version = small_int_member(key, "driver_version", "key.", source);
  table.key.runtime_version = small_int_member(key, "runtime_version", "key.", source);
  table.key.library_version = string_member(key, "library_version", "key.", source);
  table.key.registry_hash = string_member(key, "registry_hash", "key.", source);
  const json& entries = member(doc, "entries", "", source);
  if (!entries.is_array()) fail(source, "entries", "want an array");
  for (std::size_t i = 0; i < entries.size(); ++i) {
    table.entries.push_back(entry_from_json(entries[i], i, source));
  }
  sort_unique(&table.entries);
  return table;
}

std::string serialize_table(const Table& table) {
  std::vector<Entry> entries = table.entries;
  sort_unique(&entries);
  ordered_json list = ordered_json::array();
  for (const Entry& e : entries) {
    list.push_back(ordered_json{{"dtype", dtype_name(e.key.types.ab)},
                                {"dtype_c", dtype_name(e.key.types.c)},
                                {"layout_a", layout_name(e.key.la)},
                                {"layout_b", layout_name(e.key.lb)},
                                {"layout_c", layout_name(e.key.lc)},
                                {"align_a", e.key.align_a},
                                {"align_b", e.key.align_b},
                                {"align_c", e.key.align_c},
                                {"beta_zero", e.key.beta_zero},
                                {"m", e.key.m},
                                {"n", e.key.n},
                                {"k", e.key.k},
                                {"kernel", e.kernel},
                                {"median_ms", time_json(e.median_ms)},
                                {"cublas_ms", time_json(e.cublas_ms)},
                                {"measured", e.measured}});
  }
  const FileKey& k = table.key;
  const ordered_json doc{{"format", kFormatName},
                         {"format_version", kFormatVersion},
                         {"key",
                          {{"device", k.device},
                           {"compute_capability", k.compute_capability},
                           {"sm_count", k.sm_count},
                           {"driver_version", k.driver_version},
                           {"runtime_version", k.runtime_version},
                           {"library_version", k.library_version},
                           {"registry_hash", k.registry_hash}}},
                         {"entries", list}};
  return doc.dump(2) + "\n";
}

// --- where the files are ---------------------------------------------------------------------

std::string file_name_for(std::string_view device) {
  std::string name(device);
  for (char& ch : name) {
    const bool keep = std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '.' ||
                      ch == '_' || ch == '-';
    if (!keep) ch = '-';
  }
  if (name.empty()) name = "unknown-device";
  return name + ".json";
}

std::string default_cache_dir() {
  if (std::string dir = env("TILEGEMM_CACHE_DIR"); !dir.empty()) return dir;
  if (std::string xdg = env("XDG_CACHE_HOME"); !xdg.empty()) return xdg + "/tilegemm";
  if (std::string home = env("HOME"); !home.empty()) return home + "/.cache/tilegemm";
  return "";
}

bool lookup_enabled_by_env() {
  std::string v = env("TILEGEMM_TUNE_CACHE");
  for (char& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return !(v == "off" || v == "0" || v == "false" || v == "no");
}

std::string cache_path(const std::string& dir, std::string_view device) {
  return dir + "/" + file_name_for(device);
}

std::string lock_path(const std::string& dir, std::string_view device) {
  return cache_path(dir, device) + ".lock";
}

ReadResult read_table_file(const std::string& path, const FileKey& process, KeyRule rule) {
  ReadResult r;
  r.source = path;
  const std::optional<std::string> text = read_file(path, &r.exists);
  if (!r.exists) return r;
  if (!text) {
    r.ignored = "cannot read it";
    return r;
  }
  try {
    r.table = parse_table(*text, path);
  } catch (const std::runtime_error& e) {
    r.ignored = without_source(e.what(), path);
    return r;
  }
  if (const std::string differs = key_mismatch(r.table->key, process, rule); !differs.empty()) {
    r.ignored = "its " + differs;
  }
  return r;
}

ActiveTables load_tables(const FileKey& key, const std::string& cache_dir) {
  ActiveTables out;
  out.key = key;
  out.cache_dir = cache_dir;
  auto consider = [&out](const std::string& source, std::optional<Table> table,
                         const std::string& ignored) {
    if (!table) {
      out.notes.push_back("tune cache " + source + " ignored: " + ignored);
    } else if (!ignored.empty()) {
      if (!table->entries.empty()) {
        out.notes.push_back("tune cache " + source + " ignored: " + ignored);
      }
    } else {
      out.tables.push_back(std::move(*table));
    }
  };
  if (!cache_dir.empty()) {
    ReadResult r = read_table_file(cache_path(cache_dir, key.device), key, KeyRule::kUser);
    if (r.exists) consider(r.source, std::move(r.table), r.ignored);
  }
  const std::string wanted = file_name_for(key.device);
  for (const BuiltInTable& b : built_in_tables()) {
    if (b.name != wanted) continue;  // another GPU's table: nothing to say about it
    const std::string source = "built-in " + b.name;
    try {
      Table t = parse_table(b.text, source);
      const std::string differs = key_mismatch(t.key, key, KeyRule::kShipped);
      consider(source, std::move(t), differs.empty() ? differs : "its " + differs);
    } catch (const std::runtime_error& e) {
      consider(source, std::nullopt, without_source(e.what(), source));
    }
  }
  return out;
}

// --- lookup ----------------------------------------------------------------------------------

const KernelInfo* lookup(const Problem& problem, int cc) {
  if (!dtype_valid(problem.a.dtype) || !dtype_valid(problem.b.dtype) ||
      !dtype_valid(problem.c.dtype)) {
    return nullptr;
  }
  const std::shared_ptr<const ActiveTables> active = current_tables();
  if (!active || !active->enabled || !active->key || active->tables.empty()) return nullptr;
  if (active->key->compute_capability != cc) return nullptr;
  const EntryKey key = entry_key(problem);
  for (const Table& table : active->tables) {
    const Entry* e = table.find(key);
    if (e == nullptr) continue;
    const KernelInfo* kernel = find_kernel(e->kernel);
    if (kernel != nullptr && kernel->desc.runs_on(cc) && kernel->can_implement(problem)) {
      return kernel;
    }
  }
  return nullptr;
}

ActiveTables active_tables() {
  const std::shared_ptr<const ActiveTables> active = current_tables();
  if (active) return *active;
  ActiveTables none;
  none.cache_dir = default_cache_dir();
  return none;
}

namespace {
std::atomic<std::uint64_t>& generation_counter() {
  static std::atomic<std::uint64_t> counter{0};
  return counter;
}
void bump_generation() { generation_counter().fetch_add(1, std::memory_order_release); }
}  // namespace

std::uint64_t generation() { return generation_counter().load(std::memory_order_acquire); }

void reload() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  bump_generation();
  s.enabled.reset();
  s.by_device.clear();
  s.forced.reset();
}

void reload_for(const FileKey& key) {
  ActiveTables loaded = lookup_enabled_by_env() ? load_tables(key, default_cache_dir())
                                                : disabled_tables();
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  bump_generation();
  s.enabled.reset();
  s.by_device.clear();
  s.forced = std::make_shared<const ActiveTables>(std::move(loaded));
}

void disable_lookup() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  bump_generation();
  s.by_device.clear();
  s.forced = std::make_shared<const ActiveTables>(disabled_tables());
}

// --- writing ---------------------------------------------------------------------------------

StoreResult store(const std::string& dir, const FileKey& key, const std::vector<Entry>& entries) {
  if (dir.empty()) throw std::runtime_error("no cache directory");
  create_directory(dir);
  StoreResult result;
  result.path = cache_path(dir, key.device);
  const FileLock lock(lock_path(dir, key.device));

  Table table;
  table.key = key;
  table.source = result.path;
  bool exists = false;
  const std::optional<std::string> text = read_file(result.path, &exists);
  if (exists && !text) throw std::runtime_error("cannot read '" + result.path + "'");
  if (text) {
    try {
      Table on_disk = parse_table(*text, result.path);
      const std::string differs = key_mismatch(on_disk.key, key, KeyRule::kUser);
      if (differs.empty()) {
        table.entries = std::move(on_disk.entries);
      } else if (!on_disk.entries.empty()) {
        result.dropped = "dropped its " + std::to_string(on_disk.entries.size()) +
                         " entries: its " + differs;
      }
    } catch (const std::runtime_error& e) {
      result.dropped = std::string("replaced a file that did not parse: ") + e.what();
    }
  }
  for (const Entry& e : entries) {
    const auto it = std::find_if(table.entries.begin(), table.entries.end(),
                                 [&e](const Entry& x) { return x.key == e.key; });
    if (it != table.entries.end()) {
      *it = e;
      ++result.replaced;
    } else {
      table.entries.push_back(e);
      ++result.added;
    }
  }
  sort_unique(&table.entries);
  result.total = table.entries.size();
  write_atomically(dir, result.path, serialize_table(table));
  return result;
}

std::string check_writable(const std::string& dir) {
  if (dir.empty()) {
    return "no cache directory: set TILEGEMM_CACHE_DIR, XDG_CACHE_HOME or HOME, or pass one";
  }
  try {
    create_directory(dir);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return "cannot write in '" + dir + "': " + errno_text();
  }
  return "";
}

}  // namespace tilegemm::tune
