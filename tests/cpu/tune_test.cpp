// The tune cache (tilegemm/tune.hpp, tilegemm/tune_run.hpp) and `tilegemm tune`, on the CPU: keys
// and alignment classes, the file format, which files apply to which process and why not, locked
// and merged writes, `auto` consulting the cache through select_kernel, the off switch, the
// built-in table, the CLI's --show and its no-GPU exit.
//
// This binary never reads a user's cache: the environment below turns lookup off and points the
// cache directory at a temporary one before any test runs (so the rule tests see the rules alone
// on a machine with a GPU and a cache too); a test that needs lookup turns it on for itself, in a
// directory of its own, and off again after.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cli_run.hpp"
#include "tilegemm/bench.hpp"
#include "tilegemm/device_info.hpp"
#include "tilegemm/gemm.hpp"
#include "tilegemm/tune.hpp"
#include "tilegemm/tune_run.hpp"

namespace tilegemm {
namespace {

namespace fs = std::filesystem;
using test::count_lines;
using test::run_cli;
using test::RunResult;

std::string make_temp_dir(const std::string& stem) {
  std::string pattern = ::testing::TempDir() + "tilegemm_tune_" + stem + ".XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp " + pattern);
  return pattern;
}

class CacheOffEverywhere : public ::testing::Environment {
 public:
  void SetUp() override {
    dir_ = make_temp_dir("process");
    ::setenv("TILEGEMM_TUNE_CACHE", "off", 1);
    ::setenv("TILEGEMM_CACHE_DIR", dir_.c_str(), 1);
    tune::reload();
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};
CacheOffEverywhere* const g_env = static_cast<CacheOffEverywhere*>(
    ::testing::AddGlobalTestEnvironment(new CacheOffEverywhere));

// A GPU no machine has, with this build's library version and registry.
tune::FileKey test_key() {
  tune::FileKey k;
  k.device = "Test GPU (tilegemm tune test)";
  k.compute_capability = 90;
  k.sm_count = 132;
  k.driver_version = 13000;
  k.runtime_version = 13000;
  k.library_version = tune::library_version();
  k.registry_hash = tune::registry_hash();
  return k;
}

tune::EntryKey f32_key(std::int64_t m, std::int64_t n, std::int64_t k) {
  tune::EntryKey key;
  key.m = m;
  key.n = n;
  key.k = k;
  return key;
}

tune::Entry entry(const tune::EntryKey& key, const std::string& kernel, double ms = 1.5) {
  tune::Entry e;
  e.key = key;
  e.kernel = kernel;
  e.median_ms = ms;
  e.cublas_ms = 1.0;
  e.measured = "2026-01-01T00:00:00Z";
  return e;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Each test gets its own cache directory (TILEGEMM_CACHE_DIR) and leaves lookup off after.
class TuneCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir("test");
    ::setenv("TILEGEMM_CACHE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    ::setenv("TILEGEMM_TUNE_CACHE", "off", 1);
    ::setenv("TILEGEMM_CACHE_DIR", g_env->dir().c_str(), 1);
    tune::reload();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  static void lookup_on() { ::unsetenv("TILEGEMM_TUNE_CACHE"); }

  std::string dir_;
};

// --- keys ------------------------------------------------------------------------------------

TEST(TuneKeys, AlignmentClassIsTheLargestDividingBaseAndLeadingDimension) {
  EXPECT_EQ(tune::alignment_class(0, 4096, 4), 16);
  EXPECT_EQ(tune::alignment_class(256, 4096, 4), 16);
  EXPECT_EQ(tune::alignment_class(260, 4096, 4), 4);    // base 4 bytes off
  EXPECT_EQ(tune::alignment_class(264, 4096, 4), 8);    // base 8 bytes off
  EXPECT_EQ(tune::alignment_class(256, 4095, 4), 4);    // 16380-byte rows
  EXPECT_EQ(tune::alignment_class(256, 4094, 4), 8);    // 16376-byte rows
  EXPECT_EQ(tune::alignment_class(256, 4095, 2), 2);    // 8190-byte rows
  EXPECT_EQ(tune::alignment_class(256, 6, 2), 4);       // 12-byte rows
  EXPECT_EQ(tune::alignment_class(257, 4096, 2), 1);    // an odd address
  EXPECT_EQ(tune::alignment_class(256, 4104, 2), 16);   // 8208-byte rows
}

TEST(TuneKeys, EntryKeyOfAProblem) {
  alignas(16) static float buf[16];
  Problem p = Problem::make(4095, 64, 32, buf, buf + 2, buf + 1, 1.0f, 0.0f, Layout::kRowMajor,
                            Layout::kColMajor, Layout::kRowMajor);
  tune::EntryKey k = tune::entry_key(p);
  EXPECT_EQ(k.types, (GemmTypes{DType::kF32, DType::kF32}));
  EXPECT_EQ(k.la, Layout::kRowMajor);
  EXPECT_EQ(k.lb, Layout::kColMajor);
  EXPECT_EQ(k.align_a, 16);  // base aligned, lda 32 floats
  EXPECT_EQ(k.align_b, 8);   // base 8 bytes off, ldb 32 floats
  EXPECT_EQ(k.align_c, 4);   // base 4 bytes off
  EXPECT_TRUE(k.beta_zero);
  EXPECT_EQ(k.m, 4095);
  EXPECT_EQ(k.n, 64);
  EXPECT_EQ(k.k, 32);
  EXPECT_EQ(tune::to_string(k), "f32 row,col,row align 16,8,4 beta=0 4095x64x32");
  p.beta = 0.5f;
  EXPECT_FALSE(tune::entry_key(p).beta_zero);
  EXPECT_NE(tune::entry_key(p), k);
  alignas(16) static std::uint16_t h[16];
  const Problem bf = Problem::make_typed(8, 8, 8, {DType::kBF16, DType::kF32}, h, h, h);
  EXPECT_EQ(tune::entry_key(bf).types, (GemmTypes{DType::kBF16, DType::kF32}));
  EXPECT_EQ(tune::entry_key(bf).align_a, 16);  // 8 bf16 = 16 bytes
  EXPECT_EQ(tune::entry_key(bf).align_c, 16);  // 8 f32 = 32 bytes
}

TEST(TuneKeys, RegistryHashAndFileNames) {
  EXPECT_EQ(tune::registry_hash({}), "cbf29ce484222325");  // FNV-1a 64 of nothing
  const std::string ab = tune::registry_hash({"a", "b"});
  EXPECT_EQ(ab.size(), 16u);
  EXPECT_NE(ab, tune::registry_hash({"b", "a"}));
  EXPECT_NE(ab, tune::registry_hash({"ab"}));
  std::vector<std::string> names;
  for (const KernelInfo& k : all_kernels()) names.push_back(k.name);
  EXPECT_EQ(tune::registry_hash(), tune::registry_hash(names));
  names.pop_back();
  EXPECT_NE(tune::registry_hash(), tune::registry_hash(names));
  EXPECT_EQ(tune::file_name_for("NVIDIA H200"), "NVIDIA-H200.json");
  EXPECT_EQ(tune::file_name_for("NVIDIA H100 80GB HBM3"), "NVIDIA-H100-80GB-HBM3.json");
  EXPECT_EQ(tune::file_name_for("../x/y"), "..-x-y.json");
  EXPECT_EQ(tune::cache_path("d", "NVIDIA H200"), "d/NVIDIA-H200.json");
  EXPECT_EQ(tune::lock_path("d", "NVIDIA H200"), "d/NVIDIA-H200.json.lock");
}

TEST(TuneKeys, WhichFieldsAFileKeyMustMatch) {
  const tune::FileKey k = test_key();
  EXPECT_EQ(tune::key_mismatch(k, k, tune::KeyRule::kUser), "");
  EXPECT_EQ(tune::key_mismatch(k, k, tune::KeyRule::kShipped), "");
  tune::FileKey other = k;
  other.driver_version = 12080;
  EXPECT_NE(tune::key_mismatch(other, k, tune::KeyRule::kUser).find("driver_version is '12.8'"),
            std::string::npos);
  EXPECT_EQ(tune::key_mismatch(other, k, tune::KeyRule::kShipped), "");
  other = k;
  other.runtime_version = 12090;
  EXPECT_NE(tune::key_mismatch(other, k, tune::KeyRule::kUser).find("runtime_version"),
            std::string::npos);
  EXPECT_EQ(tune::key_mismatch(other, k, tune::KeyRule::kShipped), "");
  for (tune::KeyRule rule : {tune::KeyRule::kUser, tune::KeyRule::kShipped}) {
    other = k;
    other.device = "NVIDIA H100";
    EXPECT_EQ(tune::key_mismatch(other, k, rule).rfind("device is 'NVIDIA H100'", 0), 0u);
    other = k;
    other.compute_capability = 80;
    EXPECT_EQ(tune::key_mismatch(other, k, rule).rfind("compute_capability", 0), 0u);
    other = k;
    other.sm_count = 114;
    EXPECT_EQ(tune::key_mismatch(other, k, rule).rfind("sm_count", 0), 0u);
    other = k;
    other.library_version = "0.0.1";
    EXPECT_EQ(tune::key_mismatch(other, k, rule).rfind("library_version", 0), 0u);
    other = k;
    other.registry_hash = "0123456789abcdef";
    EXPECT_EQ(tune::key_mismatch(other, k, rule).rfind("registry_hash", 0), 0u);
  }
}

TEST_F(TuneCache, CacheDirectoryAndOffSwitchFromTheEnvironment) {
  const char* saved_xdg = std::getenv("XDG_CACHE_HOME");
  const std::string xdg = saved_xdg != nullptr ? saved_xdg : "";
  EXPECT_EQ(tune::default_cache_dir(), dir_);
  ::unsetenv("TILEGEMM_CACHE_DIR");
  ::setenv("XDG_CACHE_HOME", "xdg-cache", 1);
  EXPECT_EQ(tune::default_cache_dir(), "xdg-cache/tilegemm");
  ::unsetenv("XDG_CACHE_HOME");
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    EXPECT_EQ(tune::default_cache_dir(), std::string(home) + "/.cache/tilegemm");
  }
  if (saved_xdg != nullptr) ::setenv("XDG_CACHE_HOME", xdg.c_str(), 1);
  for (const char* off : {"off", "OFF", "0", "false", "no"}) {
    ::setenv("TILEGEMM_TUNE_CACHE", off, 1);
    EXPECT_FALSE(tune::lookup_enabled_by_env()) << off;
  }
  for (const char* on : {"on", "1", ""}) {
    ::setenv("TILEGEMM_TUNE_CACHE", on, 1);
    EXPECT_TRUE(tune::lookup_enabled_by_env()) << on;
  }
  ::unsetenv("TILEGEMM_TUNE_CACHE");
  EXPECT_TRUE(tune::lookup_enabled_by_env());
}

// --- the file --------------------------------------------------------------------------------

TEST_F(TuneCache, WriteThenReadRoundTrips) {
  const tune::FileKey key = test_key();
  tune::EntryKey a = f32_key(4096, 4096, 4096);
  tune::EntryKey b = f32_key(16, 8192, 8192);
  b.types = {DType::kBF16, DType::kBF16};
  b.lb = Layout::kColMajor;
  b.align_c = 2;
  b.beta_zero = false;
  tune::Entry eb = entry(b, "wgmma_128x64x64_s8_ts", 0.25);
  eb.cublas_ms = tune::kNotMeasured;
  const tune::StoreResult r = tune::store(dir_, key, {entry(a, "naive"), eb});
  EXPECT_EQ(r.path, tune::cache_path(dir_, key.device));
  EXPECT_EQ(r.added, 2u);
  EXPECT_EQ(r.total, 2u);
  EXPECT_EQ(r.dropped, "");

  const tune::ReadResult read = tune::read_table_file(r.path, key, tune::KeyRule::kUser);
  EXPECT_TRUE(read.exists);
  EXPECT_EQ(read.ignored, "");
  ASSERT_TRUE(read.table.has_value());
  EXPECT_EQ(read.table->key, key);
  ASSERT_EQ(read.table->entries.size(), 2u);
  const tune::Entry* got_a = read.table->find(a);
  const tune::Entry* got_b = read.table->find(b);
  ASSERT_NE(got_a, nullptr);
  ASSERT_NE(got_b, nullptr);
  EXPECT_EQ(got_a->kernel, "naive");
  EXPECT_DOUBLE_EQ(got_a->median_ms, 1.5);
  EXPECT_EQ(got_a->measured, "2026-01-01T00:00:00Z");
  EXPECT_EQ(got_b->kernel, "wgmma_128x64x64_s8_ts");
  EXPECT_TRUE(std::isnan(got_b->cublas_ms));
  EXPECT_EQ(read.table->find(f32_key(4096, 4096, 4095)), nullptr);

  // The text: what docs/tune.md describes, and the same table once more through it.
  const nlohmann::json doc = nlohmann::json::parse(read_text(r.path));
  EXPECT_EQ(doc["format"], "tilegemm tune cache");
  EXPECT_EQ(doc["format_version"], tune::kFormatVersion);
  EXPECT_EQ(doc["key"]["device"], key.device);
  EXPECT_EQ(doc["key"]["registry_hash"], key.registry_hash);
  const tune::Table again = tune::parse_table(tune::serialize_table(*read.table), "again");
  EXPECT_EQ(again.key, key);
  ASSERT_EQ(again.entries.size(), 2u);
  EXPECT_EQ(again.entries[0].key, read.table->entries[0].key);
  EXPECT_EQ(again.entries[1].kernel, read.table->entries[1].kernel);
}

TEST_F(TuneCache, MalformedFilesSayWhere) {
  const std::string bad_m =
      R"({"format": "tilegemm tune cache", "format_version": 1, "key": {"device": "X",
      "compute_capability": 90, "sm_count": 1, "driver_version": 1, "runtime_version": 1,
      "library_version": "0", "registry_hash": "0"}, "entries": [{"dtype": "f32",
      "dtype_c": "f32", "layout_a": "row", "layout_b": "row", "layout_c": "row", "align_a": 16,
      "align_b": 16, "align_c": 16, "beta_zero": true, "m": 0, "n": 1, "k": 1, "kernel": "naive"}]})";
  try {
    tune::parse_table(bad_m, "f.json");
    FAIL() << "m = 0 parsed";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "f.json: entries[0].m: want an integer >= 1");
  }
  EXPECT_THROW(tune::parse_table("{", "f.json"), std::runtime_error);
  EXPECT_THROW(tune::parse_table(R"({"format": "other", "format_version": 1})", "f.json"),
               std::runtime_error);
  try {
    tune::parse_table(R"({"format": "tilegemm tune cache", "format_version": 2})", "f.json");
    FAIL() << "format_version 2 parsed";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("format_version"), std::string::npos) << e.what();
  }
  std::string bad_align = bad_m;
  bad_align.replace(bad_align.find("\"m\": 0"), 6, "\"m\": 4");
  bad_align.replace(bad_align.find("\"align_b\": 16"), 13, "\"align_b\": 3");
  try {
    tune::parse_table(bad_align, "f.json");
    FAIL() << "align 3 parsed";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "f.json: entries[0].align_b: want 1, 2, 4, 8 or 16");
  }
}

TEST_F(TuneCache, AFileOfAnotherKeyIsIgnoredWithTheReason) {
  const tune::FileKey process = test_key();
  const std::string path = tune::cache_path(dir_, process.device);
  struct Case {
    const char* field;
    void (*change)(tune::FileKey*);
  };
  const Case cases[] = {
      {"device", [](tune::FileKey* k) { k->device = "Another GPU"; }},
      {"sm_count", [](tune::FileKey* k) { k->sm_count = 114; }},
      {"driver_version", [](tune::FileKey* k) { k->driver_version = 12080; }},
      {"runtime_version", [](tune::FileKey* k) { k->runtime_version = 12080; }},
      {"library_version", [](tune::FileKey* k) { k->library_version = "0.0.0-old"; }},
      {"registry_hash", [](tune::FileKey* k) { k->registry_hash = "0123456789abcdef"; }},
  };
  for (const Case& c : cases) {
    tune::Table t;
    t.key = process;
    c.change(&t.key);
    t.entries = {entry(f32_key(64, 64, 64), "naive")};
    write_text(path, tune::serialize_table(t));
    const tune::ActiveTables active = tune::load_tables(process, dir_);
    EXPECT_TRUE(active.tables.empty()) << c.field;
    ASSERT_EQ(active.notes.size(), 1u) << c.field;
    EXPECT_EQ(active.notes[0].rfind("tune cache " + path + " ignored: its " + c.field, 0), 0u)
        << active.notes[0];
    EXPECT_EQ(count_lines(active.notes[0]), 0u);
  }
  // The same file under this process's key applies, without a note.
  tune::Table t;
  t.key = process;
  t.entries = {entry(f32_key(64, 64, 64), "naive")};
  write_text(path, tune::serialize_table(t));
  tune::ActiveTables active = tune::load_tables(process, dir_);
  ASSERT_EQ(active.tables.size(), 1u);
  EXPECT_TRUE(active.notes.empty());
  // An empty table of another key could change nothing: skipped without a word.
  t.key.driver_version = 1;
  t.entries.clear();
  write_text(path, tune::serialize_table(t));
  active = tune::load_tables(process, dir_);
  EXPECT_TRUE(active.tables.empty());
  EXPECT_TRUE(active.notes.empty());
  // A file that does not parse: the note says where.
  write_text(path, R"({"format": "tilegemm tune cache", "format_version": 1, "key": 3})");
  active = tune::load_tables(process, dir_);
  EXPECT_TRUE(active.tables.empty());
  ASSERT_EQ(active.notes.size(), 1u);
  EXPECT_EQ(active.notes[0], "tune cache " + path + " ignored: key: want an object");
  // No file: nothing, and no note.
  fs::remove(path);
  active = tune::load_tables(process, dir_);
  EXPECT_TRUE(active.tables.empty());
  EXPECT_TRUE(active.notes.empty());
}

// --- writing ---------------------------------------------------------------------------------

TEST_F(TuneCache, WritersMergeWithWhatIsOnDisk) {
  const tune::FileKey key = test_key();
  tune::store(dir_, key, {entry(f32_key(1, 1, 1), "naive"), entry(f32_key(2, 2, 2), "naive")});
  const tune::StoreResult second = tune::store(
      dir_, key, {entry(f32_key(2, 2, 2), "smem_tiled_t8"), entry(f32_key(3, 3, 3), "naive")});
  EXPECT_EQ(second.added, 1u);
  EXPECT_EQ(second.replaced, 1u);
  EXPECT_EQ(second.total, 3u);
  tune::ReadResult r = tune::read_table_file(second.path, key, tune::KeyRule::kUser);
  ASSERT_TRUE(r.table.has_value());
  ASSERT_EQ(r.table->entries.size(), 3u);
  EXPECT_EQ(r.table->find(f32_key(1, 1, 1))->kernel, "naive");
  EXPECT_EQ(r.table->find(f32_key(2, 2, 2))->kernel, "smem_tiled_t8");
  EXPECT_EQ(r.table->find(f32_key(3, 3, 3))->kernel, "naive");

  // Writers in parallel (each its own lock file description, as separate processes): nothing lost.
  constexpr int kWriters = 8, kEach = 5;
  std::vector<std::thread> writers;
  std::atomic<int> failures{0};
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < kEach; ++i) {
        try {
          tune::store(dir_, key, {entry(f32_key(100 + w, 100 + i, 7), "naive")});
        } catch (const std::exception&) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& t : writers) t.join();
  EXPECT_EQ(failures.load(), 0);
  r = tune::read_table_file(second.path, key, tune::KeyRule::kUser);
  ASSERT_TRUE(r.table.has_value());
  EXPECT_EQ(r.table->entries.size(), 3u + kWriters * kEach);
  // Only the file and its lock file are left: every temporary file was renamed into place.
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  const std::string file = tune::file_name_for(key.device);
  EXPECT_EQ(names, (std::vector<std::string>{file, file + ".lock"}));

  // A file of another key (a driver update) is replaced, and the result says so.
  tune::FileKey updated = key;
  updated.driver_version = 13010;
  const tune::StoreResult third = tune::store(dir_, updated, {entry(f32_key(9, 9, 9), "naive")});
  EXPECT_EQ(third.total, 1u);
  EXPECT_NE(third.dropped.find("dropped its 43 entries: its driver_version"), std::string::npos)
      << third.dropped;
  // A file that does not parse is replaced too.
  write_text(third.path, "not json");
  const tune::StoreResult fourth = tune::store(dir_, updated, {entry(f32_key(9, 9, 9), "naive")});
  EXPECT_EQ(fourth.total, 1u);
  EXPECT_EQ(fourth.dropped.rfind("replaced a file that did not parse", 0), 0u) << fourth.dropped;
}

TEST_F(TuneCache, AWriterWaitsForTheLock) {
  const tune::FileKey key = test_key();
  const std::string lock = tune::lock_path(dir_, key.device);
  const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  std::atomic<bool> done{false};
  std::thread writer([&] {
    tune::store(dir_, key, {entry(f32_key(5, 5, 5), "naive")});
    done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(done.load());
  EXPECT_FALSE(fs::exists(tune::cache_path(dir_, key.device)));
  ::flock(fd, LOCK_UN);
  ::close(fd);
  writer.join();
  EXPECT_TRUE(done.load());
  EXPECT_TRUE(fs::exists(tune::cache_path(dir_, key.device)));
}

TEST_F(TuneCache, UnwritableDirectoriesAreNamed) {
  const std::string file = dir_ + "/plain-file";
  write_text(file, "x");
  EXPECT_NE(tune::check_writable(file + "/sub"), "");
  EXPECT_THROW(tune::store(file + "/sub", test_key(), {entry(f32_key(1, 1, 1), "naive")}),
               std::runtime_error);
  EXPECT_EQ(tune::check_writable(dir_ + "/new/dir"), "");
  EXPECT_TRUE(fs::is_directory(dir_ + "/new/dir"));
}

// --- auto consults the cache -----------------------------------------------------------------

alignas(16) float g_buf[64];

const KernelInfo* choose(const Problem& p, int cc = 90) { return select_kernel(p, cc); }

TEST_F(TuneCache, AutoTakesTheCachedKernelWhenItCanImplementTheProblem) {
  const Problem p = Problem::make(4096, 4096, 4096, g_buf, g_buf, g_buf);
  const KernelInfo* by_rules = choose(p);
  ASSERT_NE(by_rules, nullptr);
  ASSERT_NE(by_rules->name, "naive");
  // A misaligned problem of the same shape: its own entry key.
  const Problem off = Problem::make(4096, 4096, 4096, g_buf + 1, g_buf + 1, g_buf + 1);
  const KernelInfo* off_by_rules = choose(off);
  ASSERT_NE(off_by_rules, nullptr);
  const Problem other_shape = Problem::make(2048, 2048, 2048, g_buf, g_buf, g_buf);
  const KernelInfo* other_by_rules = choose(other_shape);
  const Problem bf16 =
      Problem::make_typed(4096, 4096, 4096, {DType::kBF16, DType::kBF16}, g_buf, g_buf, g_buf);
  const KernelInfo* bf16_by_rules = choose(bf16);
  ASSERT_NE(bf16_by_rules, nullptr);

  const tune::FileKey key = test_key();
  ASSERT_NE(find_kernel("vectorized_128x128x8_8x8"), nullptr);
  std::vector<tune::Entry> entries = {
      entry(tune::entry_key(p), "naive"),
      // needs 16-byte alignment: cannot implement the misaligned problem
      entry(tune::entry_key(off), "vectorized_128x128x8_8x8"),
      // no such kernel
      entry(tune::entry_key(other_shape), "no_such_kernel_x"),
      // an f32 kernel for a bf16 problem
      entry(tune::entry_key(bf16), "smem_tiled_t16")};
  // three tf32 products (rung 22), taken only where set_fp32_math allows them
  const char* x3 = "wgmma_3xtf32_128x128x32_s6_ts_p4";
  const Problem x3_shape = Problem::make(3000, 3000, 3000, g_buf, g_buf, g_buf);
  const Fp32Math math = fp32_math();
  set_fp32_math(Fp32Math::kSimt);
  const KernelInfo* x3_by_simt_rules = choose(x3_shape);
  set_fp32_math(math);
  if (find_kernel(x3) != nullptr) entries.push_back(entry(tune::entry_key(x3_shape), x3));
  tune::store(dir_, key, entries);
  lookup_on();
  tune::reload_for(key);
  EXPECT_TRUE(tune::active_tables().enabled);
  ASSERT_EQ(tune::active_tables().tables.size(), 1u);

  EXPECT_EQ(choose(p)->name, "naive");
  EXPECT_EQ(tune::lookup(p, 90), find_kernel("naive"));
  EXPECT_EQ(choose(off), off_by_rules);
  EXPECT_EQ(tune::lookup(off, 90), nullptr);
  EXPECT_EQ(choose(other_shape), other_by_rules);
  EXPECT_EQ(choose(bf16), bf16_by_rules);
  if (find_kernel(x3) != nullptr) {
    set_fp32_math(Fp32Math::kSimt);
    EXPECT_EQ(choose(x3_shape), x3_by_simt_rules);
    EXPECT_NE(x3_by_simt_rules->family, "wgmma_3xtf32");
    set_fp32_math(Fp32Math::kThreeTf32);
    EXPECT_EQ(choose(x3_shape)->name, x3);
    set_fp32_math(math);
  }
  // The table is for compute capability 9.0: another GPU's choice is the rules'.
  EXPECT_EQ(tune::lookup(p, 80), nullptr);
  // beta != 0 is another entry key.
  Problem with_beta = p;
  with_beta.beta = 1.0f;
  EXPECT_EQ(tune::lookup(with_beta, 90), nullptr);

  // Off: the rules alone, whatever the files say.
  ::setenv("TILEGEMM_TUNE_CACHE", "off", 1);
  tune::reload_for(key);
  EXPECT_FALSE(tune::active_tables().enabled);
  EXPECT_EQ(choose(p), by_rules);
  EXPECT_EQ(tune::lookup(p, 90), nullptr);
  // disable_lookup() does the same from inside the process.
  lookup_on();
  tune::reload_for(key);
  EXPECT_EQ(choose(p)->name, "naive");
  tune::disable_lookup();
  EXPECT_EQ(choose(p), by_rules);
}

TEST_F(TuneCache, WithoutAGpuNothingIsLoaded) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  const Problem p = Problem::make(4096, 4096, 4096, g_buf, g_buf, g_buf);
  lookup_on();
  tune::reload();
  EXPECT_FALSE(tune::active_tables().key.has_value());
  EXPECT_EQ(tune::lookup(p, 90), nullptr);
}

// --- the table built into the library --------------------------------------------------------

// The H200's table is built in and keyed to the H200 (what every table must hold: below).
TEST(TuneBuiltIn, TheH200TableNamesTheH200) {
  const tune::BuiltInTable* h200 = nullptr;
  for (const tune::BuiltInTable& b : tune::built_in_tables()) {
    if (b.name == "NVIDIA-H200.json") h200 = &b;
  }
  ASSERT_NE(h200, nullptr) << "data/tune/NVIDIA-H200.json is not built in";
  const tune::Table t = tune::parse_table(h200->text, "built-in NVIDIA-H200.json");
  EXPECT_EQ(t.key.device, "NVIDIA H200");
  EXPECT_EQ(t.key.sm_count, 132);
}

// Every table built in (data/tune/*.json) parses, is named after the device its key names, and,
// where it claims this build's registry, names only kernels of it.
TEST(TuneBuiltIn, EveryTableParsesAndNamesItsDevice) {
  ASSERT_GE(tune::built_in_tables().size(), 2u);  // the H200's and the H100's
  for (const tune::BuiltInTable& b : tune::built_in_tables()) {
    SCOPED_TRACE(b.name);
    const tune::Table t = tune::parse_table(b.text, "built-in " + b.name);
    EXPECT_EQ(tune::file_name_for(t.key.device), b.name);
    EXPECT_EQ(t.key.compute_capability, 90);
    EXPECT_FALSE(t.entries.empty());
    EXPECT_FALSE(t.key.library_version.empty());
    EXPECT_EQ(t.key.registry_hash.size(), 16u);
    if (t.key.registry_hash != tune::registry_hash()) continue;
    for (const tune::Entry& e : t.entries) {
      const KernelInfo* k = find_kernel(e.kernel);
      ASSERT_NE(k, nullptr) << e.kernel;
      EXPECT_TRUE(k->desc.computes(e.key.types)) << e.kernel;
    }
  }
}

TEST(TuneBuiltIn, ConsultedUnderTheShippedRule) {
  const tune::BuiltInTable* h200 = nullptr;
  for (const tune::BuiltInTable& b : tune::built_in_tables()) {
    if (b.name == "NVIDIA-H200.json") h200 = &b;
  }
  ASSERT_NE(h200, nullptr);
  const tune::Table t = tune::parse_table(h200->text, "x");
  tune::FileKey process = t.key;
  process.driver_version += 10;  // another driver: still the H200's table
  tune::ActiveTables active = tune::load_tables(process, "");
  ASSERT_EQ(active.tables.size(), 1u);
  EXPECT_EQ(active.tables[0].source, "built-in NVIDIA-H200.json");
  process.registry_hash = "0123456789abcdef";  // another set of kernels: not
  active = tune::load_tables(process, "");
  EXPECT_TRUE(active.tables.empty());
  EXPECT_EQ(active.notes.size(), t.entries.empty() ? 0u : 1u);
  process = t.key;
  process.device = "NVIDIA H100 80GB HBM3";  // another GPU: its table, if any, not this one
  active = tune::load_tables(process, "");
  for (const tune::Table& other : active.tables) {
    EXPECT_NE(other.source, "built-in NVIDIA-H200.json");
  }
  for (const std::string& note : active.notes) {
    EXPECT_EQ(note.find("NVIDIA-H200.json"), std::string::npos) << note;
  }
}

// --- the lab side ----------------------------------------------------------------------------

bench::TuneCandidate cand(const char* kernel, bench::CandidateOutcome outcome, double ms,
                          double cublas_ratio = bench::kNoValue) {
  bench::TuneCandidate c;
  c.kernel = kernel;
  c.outcome = outcome;
  c.median_ms = ms;
  c.cublas_ratio = cublas_ratio;
  return c;
}

TEST(TuneRun, WinnerAndScreen) {
  using bench::CandidateOutcome;
  std::vector<bench::TuneCandidate> c(4);
  c[0] = cand("a", CandidateOutcome::kTimed, 2.0);
  c[1] = cand("b", CandidateOutcome::kFailed, bench::kNoValue);
  c[2] = cand("c", CandidateOutcome::kTimed, 1.0);
  c[3] = cand("d", CandidateOutcome::kTimed, 1.0);
  ASSERT_TRUE(bench::pick_winner(c).has_value());
  EXPECT_EQ(*bench::pick_winner(c), 2u);  // the first of the two fastest
  c[2].outcome = CandidateOutcome::kScreenedOut;
  EXPECT_EQ(*bench::pick_winner(c), 3u);
  c[3].outcome = CandidateOutcome::kNotApplicable;
  EXPECT_EQ(*bench::pick_winner(c), 0u);
  c[0].outcome = CandidateOutcome::kFailed;  // a wrong result never wins, however fast
  EXPECT_FALSE(bench::pick_winner(c).has_value());

  std::vector<bench::BenchRow> rows(5);
  const char* names[] = {"cublas", "x", "y", "z", "w"};
  const double ms[] = {0.1, 1.0, 1.9, 2.1, 0.5};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i].kernel = names[i];
    rows[i].median_ms = ms[i];
  }
  rows[4].status = bench::RowStatus::kFailed;
  // cuBLAS and the failed row are no candidates: fastest x at 1.0.
  EXPECT_EQ(bench::screen_survivors(rows, 2.0), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(bench::screen_survivors(rows, 1.0), (std::vector<std::string>{"x"}));
}

TEST(TuneRun, CaseKeysFollowTheTestbedLayout) {
  CaseSpec s;
  s.m = s.n = s.k = 4095;
  EXPECT_EQ(bench::case_entry_key(s).align_a, 4);  // 4095 floats a row
  s.pad_a = 1;
  s.pad_b = 1;
  EXPECT_EQ(bench::case_entry_key(s).align_a, 16);
  EXPECT_EQ(bench::case_entry_key(s).align_b, 16);
  EXPECT_EQ(bench::case_entry_key(s).align_c, 4);
  s.types = {DType::kBF16, DType::kBF16};
  s.pad_a = s.pad_b = 0;
  s.lb = Layout::kColMajor;
  s.beta = 1.0f;
  const tune::EntryKey k = bench::case_entry_key(s);
  EXPECT_EQ(k.align_a, 2);
  EXPECT_EQ(k.lb, Layout::kColMajor);
  EXPECT_FALSE(k.beta_zero);
  EXPECT_EQ(k.types, s.types);
}

TEST(TuneRun, ReportTablesNameTheWinnerAndTheRules) {
  bench::TuneReport report;
  report.device.name = "Test GPU";
  report.cache_path = "cache/Test-GPU.json";
  bench::TuneShape s;
  s.shape = {256, 256, 256};
  s.key = f32_key(256, 256, 256);
  s.cublas_ms = 0.01;
  s.candidates = {cand("slow_one", bench::CandidateOutcome::kTimed, 0.04, 0.25),
                  cand("fast_one", bench::CandidateOutcome::kTimed, 0.02, 0.5),
                  cand("broken", bench::CandidateOutcome::kFailed, bench::kNoValue),
                  cand("refuses", bench::CandidateOutcome::kNotApplicable, bench::kNoValue)};
  s.candidates[2].detail = "rel error 1e+00 > tolerance";
  s.winner = "fast_one";
  s.winner_ms = 0.02;
  s.rules_choice = "slow_one";
  s.stored = true;
  report.shapes.push_back(s);
  std::ostringstream text;
  bench::write_tune(text, report, bench::Format::kTable);
  const std::string out = text.str();
  EXPECT_NE(out.find("256x256x256  f32  row,row,row  align 16,16,16  beta=0"), std::string::npos)
      << out;
  EXPECT_LT(out.find("fast_one"), out.find("slow_one"));  // fastest first
  EXPECT_NE(out.find("<- winner"), std::string::npos);
  EXPECT_NE(out.find("<- rules' choice"), std::string::npos);
  EXPECT_NE(out.find("FAILED: rel error"), std::string::npos);
  EXPECT_NE(out.find("1 candidates cannot implement this problem (N/A)"), std::string::npos);
  EXPECT_NE(out.find("cache file: cache/Test-GPU.json"), std::string::npos);
  EXPECT_NE(out.find("2.000"), std::string::npos);  // rules / winner
  EXPECT_FALSE(bench::tune_passed(report));
  const nlohmann::json j = bench::to_json(report);
  EXPECT_EQ(j["results"][0]["winner"], "fast_one");
  EXPECT_EQ(j["results"][0]["rules_choice"], "slow_one");
  EXPECT_EQ(j["results"][0]["candidates"].size(), 4u);
  EXPECT_EQ(j["results"][0]["candidates"][2]["status"], "FAILED");
}

TEST_F(TuneCache, BenchRecordsWhetherTheCacheWasConsulted) {
  bench::BenchReport report;
  bench::BenchRow row;
  row.kernel = "auto(naive)";
  row.shape = {4096, 4096, 4096};
  report.rows.push_back(row);
  row.shape = {64, 64, 64};
  report.rows.push_back(row);
  row.kernel = "naive";
  report.rows.push_back(row);

  nlohmann::json rec = bench::bench_cache_record(report, tune::active_tables(), 90);
  EXPECT_EQ(rec["lookup"], false);
  EXPECT_TRUE(rec["auto_from_cache"].empty());

  const tune::FileKey key = test_key();
  CaseSpec spec;
  spec.m = spec.n = spec.k = 4096;
  tune::store(dir_, key, {entry(bench::case_entry_key(spec), "naive")});
  lookup_on();
  tune::reload_for(key);
  rec = bench::bench_cache_record(report, tune::active_tables(), 90);
  EXPECT_EQ(rec["lookup"], true);
  ASSERT_EQ(rec["tables"].size(), 1u);
  EXPECT_EQ(rec["tables"][0]["entries"], 1);
  ASSERT_EQ(rec["auto_from_cache"].size(), 1u);  // the 4096^3 auto row; 64^3 is no entry
  EXPECT_EQ(rec["auto_from_cache"][0]["m"], 4096);
  EXPECT_EQ(rec["auto_from_cache"][0]["kernel"], "naive");
}

// --- the CLI ---------------------------------------------------------------------------------

TEST_F(TuneCache, CliShowPrintsTheCacheWithoutAGpu) {
  const tune::FileKey key = test_key();
  tune::store(dir_, key, {entry(f32_key(333, 444, 555), "smem_tiled_t16")});
  // --cache-dir, in every format.
  RunResult r = run_cli("tune --show --cache-dir '" + dir_ + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(tune::cache_path(dir_, key.device)), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("smem_tiled_t16"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("555"), std::string::npos);
  EXPECT_NE(r.out.find("built-in NVIDIA-H200.json"), std::string::npos);
  EXPECT_NE(r.out.find(tune::registry_hash()), std::string::npos);
  if (cuda_device_count() == 0) {
    EXPECT_NE(r.out.find("not checked: no GPU"), std::string::npos) << r.out;
  }
  r = run_cli("tune --show --format json --cache-dir '" + dir_ + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["cache_dir"], dir_);
  EXPECT_EQ(j["lookup"], false);  // this binary's environment turns lookup off
  ASSERT_GE(j["files"].size(), 2u);
  EXPECT_EQ(j["files"][0]["key"]["device"], key.device);
  EXPECT_EQ(j["files"][0]["entries"][0]["kernel"], "smem_tiled_t16");
  EXPECT_EQ(j["files"][0]["entries"][0]["m"], 333);
  // The directory from the environment when --cache-dir is not given.
  r = run_cli("tune --show");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("cache directory: " + dir_), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("smem_tiled_t16"), std::string::npos);
  // An empty directory says so.
  const std::string empty = dir_ + "/empty";
  fs::create_directory(empty);
  r = run_cli("tune --show --cache-dir '" + empty + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("no cache files in the cache directory"), std::string::npos);
}

TEST_F(TuneCache, CliBadInputNamesTheFlag) {
  const std::pair<const char*, const char*> cases[] = {
      {"tune --show --size 256", "--show"},
      {"tune --show --dry-run", "--show"},
      {"tune --show --format yaml", "--format"},
      {"tune --screen 0.5", "--screen"},
      {"tune --screen x", "--screen"},
      {"tune --kernels auto", "--kernels"},
      {"tune --kernels 'nomatch*'", "--kernels"},
      {"tune --cache-dir ''", "--cache-dir"},
      {"tune --size 256:x", "--size"},
      {"tune --rounds 0", "--rounds"},
      {"tune --dtype fp8", "--dtype"},
      {"tune --random 3 --size 64", "--random"},
      {"tune --output r.dat --format xml", "--format"},
  };
  for (const auto& [args, flag] : cases) {
    const RunResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind(std::string("tilegemm: ") + flag + ":", 0), 0u) << args << "\n" << r.err;
    EXPECT_EQ(r.out, "") << args;
  }
  EXPECT_TRUE(fs::is_empty(dir_));  // nothing written
}

TEST_F(TuneCache, CliTuneWithoutAGpuFailsClearlyAndWritesNothing) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  const std::string dir = dir_ + "/never";
  const RunResult r = run_cli("tune --size 256 --cache-dir '" + dir + "'");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err,
            "tilegemm tune: no CUDA device found; nothing to measure. Without a GPU, `tilegemm "
            "analyze`, `tilegemm list` and the CPU tests work.\n");
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_EQ(run_cli("tune --dry-run --size 256").exit_code, 3);
}

}  // namespace
}  // namespace tilegemm
