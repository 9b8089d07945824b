// tilegemm: the lab's command line. Argument handling and printing only; the work lives in
// libtilegemm (tilegemm/bench.hpp, tilegemm/analysis.hpp, tilegemm/device_info.hpp), where the
// CPU tests reach it.
//
// Exit codes: 0 success; 1 a kernel FAILED verification (compare: a regression); 2 bad input
// (one line on stderr naming the flag or argument); 3 no CUDA device for a command that needs
// one; 4 an unexpected internal error (profile: also ncu not found, or ncu gave no result);
// 5 profile: ncu may not read the GPU's performance counters.
#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tilegemm/analysis.hpp"
#include "tilegemm/bench.hpp"
#include "tilegemm/compare.hpp"
#include "tilegemm/device_info.hpp"
#include "tilegemm/gemm.hpp"
#include "tilegemm/plot.hpp"
#include "tilegemm/profile.hpp"
#include "tilegemm/tune.hpp"
#include "tilegemm/tune_run.hpp"

extern char** environ;

namespace {

namespace tb = tilegemm::bench;
namespace ta = tilegemm::analysis;
namespace tp = tilegemm::profile;
namespace tt = tilegemm::tune;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitNoDevice = 3;
constexpr int kExitInternal = 4;
constexpr int kExitNoNcu = 4;  // profile: no ncu to run (as bench has no GPU: nothing to do)
constexpr int kExitCountersNotPermitted = 5;

constexpr const char* kDefaultSizes = "256,512,1024,2048,4096";

int no_device(const std::string& command, const std::string& nothing_to) {
  std::cerr << "tilegemm " << command << ": no CUDA device found; nothing to " << nothing_to
            << ". Without a GPU, `tilegemm analyze`, `tilegemm list` and the CPU tests work.\n";
  return kExitNoDevice;
}

// The flags of one GEMM case, shared by bench, verify and analyze (analyze takes the shape only).
struct CaseFlags {
  std::vector<std::string> shapes;
  std::string m, n, k, size;
  std::string alpha = "1", beta = "0";
  std::string layout_a = "row", layout_b = "row", layout_c = "row";
  std::string pad = "0,0,0";
  std::string seed = "1";
  std::vector<CLI::Option*> scalar_options;  // alpha, beta, layouts, pad: for "given?" checks
};

// --dtype and --dtype-c, shared by every subcommand that computes or lists GEMMs. Empty means
// not given: f32, and C's default for the A/B type (default_c_dtype).
struct DtypeFlags {
  std::string dtype, dtype_c;
  bool given() const { return !dtype.empty() || !dtype_c.empty(); }
  tilegemm::GemmTypes types() const {
    return tb::parse_types("--dtype", dtype, "--dtype-c", dtype_c);
  }
};

void add_dtype_flags(CLI::App* app, DtypeFlags* f) {
  app->add_option("--dtype", f->dtype, "A and B element type: f32|tf32|bf16|f16 (default f32)");
  app->add_option("--dtype-c", f->dtype_c,
                  "C element type: f32|bf16|f16 (default f32 for f32 and tf32, else A/B's)");
}

void print_notes(const std::string& command, const std::vector<std::string>& notes) {
  for (const std::string& note : notes) std::cerr << "tilegemm " << command << ": " << note << "\n";
}

// What `auto` did not take from its environment, one line each with the reason (the library only
// records them): tune-cache files it ignores on this GPU, a TILEGEMM_FP32_MATH it did not take.
void print_auto_notes(const std::string& command) {
  print_notes(command, tt::active_tables().notes);
  if (std::string note = tilegemm::fp32_math_env_note(); !note.empty()) {
    print_notes(command, {note});
  }
}

void add_shape_flags(CLI::App* app, CaseFlags* f, bool ranges) {
  const char* size_help =
      ranges ? "sizes: 256, 256,512, 256:4096:256 or 256:4096:x2" : "a single size";
  app->add_option("--shape", f->shapes,
                  ranges ? "MxNxK, e.g. 4095x4095x4095 (repeatable)" : "MxNxK, e.g. 4095x4095x4095")
      ->allow_extra_args(false);
  app->add_option("--m", f->m, std::string("M: ") + size_help);
  app->add_option("--n", f->n, std::string("N: ") + size_help);
  app->add_option("--k", f->k, std::string("K: ") + size_help);
  if (ranges) app->add_option("--size", f->size, "square sizes m=n=k, same syntax as --m");
}

void add_scalar_flags(CLI::App* app, CaseFlags* f) {
  f->scalar_options = {
      app->add_option("--alpha", f->alpha, "alpha"),
      app->add_option("--beta", f->beta, "beta"),
      app->add_option("--layout-a", f->layout_a, "layout of A: row|col"),
      app->add_option("--layout-b", f->layout_b, "layout of B: row|col"),
      app->add_option("--layout-c", f->layout_c, "layout of C: row|col"),
      app->add_option("--pad", f->pad, "extra leading-dimension elements of A,B,C"),
  };
  app->add_option("--seed", f->seed, "seed of the random inputs");
}

// The shapes the flags name, each with the flag it came from (for error messages).
struct NamedShape {
  tb::Shape shape;
  std::string flag;
};
std::vector<NamedShape> bench_shapes(const CaseFlags& f) {
  std::vector<NamedShape> out;
  const bool any_mnk = !f.m.empty() || !f.n.empty() || !f.k.empty();
  if (any_mnk) {
    // Parse what was given first, so a malformed list is named before a missing one.
    std::vector<std::int64_t> lists[3];
    const char* flags[3] = {"--m", "--n", "--k"};
    const std::string* texts[3] = {&f.m, &f.n, &f.k};
    for (int i = 0; i < 3; ++i) {
      if (!texts[i]->empty()) lists[i] = tb::parse_size_list(flags[i], *texts[i]);
    }
    for (int i = 0; i < 3; ++i) {
      if (texts[i]->empty()) {
        throw tb::InputError(flags[i],
                             "missing: --m, --n and --k go together (or use --size "
                             "or --shape)");
      }
    }
    for (const tb::Shape& s : tb::cartesian(lists[0], lists[1], lists[2])) {
      out.push_back({s, "--m/--n/--k"});
    }
  }
  if (!f.size.empty()) {
    for (std::int64_t s : tb::parse_size_list("--size", f.size))
      out.push_back({{s, s, s}, "--size"});
  }
  for (const std::string& text : f.shapes)
    out.push_back({tb::parse_shape("--shape", text), "--shape"});
  if (out.empty()) {
    for (std::int64_t s : tb::parse_size_list("default sizes", kDefaultSizes)) {
      out.push_back({{s, s, s}, "default sizes"});
    }
  }
  return out;
}

// --- subcommands ------------------------------------------------------------------------------

// Every kernel the globs match, whatever GPU is present; with --dtype/--dtype-c only those that
// compute the types. An empty answer is an answer (a table with no rows), not an error.
int run_list(const std::string& kernels_glob, const DtypeFlags& df,
             const std::string& format_text) {
  std::optional<tilegemm::GemmTypes> types;
  if (df.given()) types = df.types();
  const tb::Format format = tb::parse_format("--format", format_text);
  std::vector<tilegemm::KernelInfo> selected;
  for (const std::string& name : tb::select_kernels("--kernels", kernels_glob, {}, 0).names) {
    const tilegemm::KernelInfo* k = tilegemm::find_kernel(name);
    if (k != nullptr && (!types || k->desc.computes(*types))) selected.push_back(*k);
  }
  tb::write_kernels(std::cout, selected, tilegemm::current_compute_capability(), format);
  if (selected.empty() && types) {
    std::cerr << "tilegemm list: no kernel matching '" << kernels_glob << "' computes "
              << tilegemm::gemm_types_name(*types) << "\n";
  }
  return kExitOk;
}

int run_devices(const std::string& format_text) {
  const tb::Format format = tb::parse_format("--format", format_text);
  const std::vector<tilegemm::DeviceInfo> devices = tilegemm::query_devices();
  if (devices.empty()) {
    std::cerr << "tilegemm devices: no CUDA device found.\n";
    return kExitNoDevice;
  }
  tb::write_devices(std::cout, devices, format);
  return kExitOk;
}

struct BenchFlags {
  std::string kernels = "*";
  std::string warmup = "10", reps = "50", rounds = "1", min_time = "0", max_noise = "0",
              max_time = "10", random = "0", max_size = "8192";
  bool cold = false;
  bool no_block = false;
  bool nvtx = false;
  std::string format = "table";
  std::vector<std::string> outputs;
  std::string providers = "tilegemm,cublas";
  CLI::Option* format_option = nullptr;
  CLI::Option* kernels_option = nullptr;
};

// The problems bench and tune take: scalars, layouts, pads, seed, and the shapes (--random or the
// size flags), into `request`; the shapes with the flags they came from.
std::vector<NamedShape> parse_problems(const CaseFlags& cf, const BenchFlags& bf,
                                       tb::BenchRequest* request) {
  request->alpha = tb::parse_scalar("--alpha", cf.alpha);
  request->beta = tb::parse_scalar("--beta", cf.beta);
  request->la = tb::parse_layout("--layout-a", cf.layout_a);
  request->lb = tb::parse_layout("--layout-b", cf.layout_b);
  request->lc = tb::parse_layout("--layout-c", cf.layout_c);
  request->pads = tb::parse_pads("--pad", cf.pad);
  request->seed = tb::parse_seed("--seed", cf.seed);
  // --random N: N drawn shapes, each with its own layout mix, instead of the size flags.
  const std::int64_t random = tb::parse_int("--random", bf.random, 0, 100000);
  const std::int64_t max_size = tb::parse_int("--max-size", bf.max_size, 1, 1 << 20);
  std::vector<NamedShape> shapes;
  if (random > 0) {
    if (!cf.m.empty() || !cf.n.empty() || !cf.k.empty() || !cf.size.empty() ||
        !cf.shapes.empty()) {
      throw tb::InputError("--random", "draws the shapes: give no --size, --shape or --m/--n/--k");
    }
    for (const tb::RandomShape& r : tb::random_shapes(random, request->seed, max_size)) {
      shapes.push_back({r.shape, "--random"});
      request->shape_layouts.push_back(r.layouts);
    }
  } else {
    shapes = bench_shapes(cf);
  }
  for (const NamedShape& s : shapes) request->shapes.push_back(s.shape);
  return shapes;
}

void parse_timing(const BenchFlags& bf, tb::TimingOptions* timing) {
  timing->warmup = static_cast<int>(tb::parse_int("--warmup", bf.warmup, 0, 100000));
  timing->reps = static_cast<int>(tb::parse_int("--reps", bf.reps, 1, 100000));
  timing->rounds = static_cast<int>(tb::parse_int("--rounds", bf.rounds, 1, 1000));
  timing->min_time_s = tb::parse_number_in("--min-time", bf.min_time, 0.0, 3600.0);
  timing->max_noise_pct = tb::parse_number_in("--max-noise", bf.max_noise, 0.0, 100.0);
  timing->max_time_s = tb::parse_number_in("--max-time", bf.max_time, 0.001, 3600.0);
  timing->cold = bf.cold;
  timing->block = !bf.no_block;
  timing->nvtx = bf.nvtx;
}

// A shape whose testbed would not fit in the device's memory is bad input, before any GPU work.
void check_device_memory(const std::vector<NamedShape>& shapes, const tb::BenchRequest& request,
                         const tilegemm::DeviceInfo& device) {
  for (const NamedShape& s : shapes) {
    const double need = tb::testbed_bytes(tb::bench_case(request, s.shape));
    if (need > static_cast<double>(device.global_mem_bytes)) {
      throw tb::InputError(
          s.flag, "'" + s.shape.to_string() + "' needs " + tb::fixed(need / 1e9, 1) +
                      " GB of device memory for "
                      "its testbed; " +
                      device.name + " has " +
                      tb::fixed(static_cast<double>(device.global_mem_bytes) / 1e9, 1) + " GB");
    }
  }
}

// bench's JSON carries the record of the tune cache `auto` consulted; the other formats are
// write_bench's own.
void write_bench_with_cache(std::ostream& os, const tb::BenchReport& report, tb::Format format,
                            const nlohmann::json& cache) {
  if (format != tb::Format::kJson) {
    tb::write_bench(os, report, format);
    return;
  }
  nlohmann::json doc = tb::to_json(report);
  doc["tune_cache"] = cache;
  os << doc.dump(2) << '\n';
}

int run_bench(const CaseFlags& cf, const DtypeFlags& df, const BenchFlags& bf,
              const std::string& command) {
  tb::BenchRequest request;
  request.types = df.types();
  const tb::Providers providers = tb::parse_providers("--providers", bf.providers);
  if (!providers.tilegemm && bf.kernels_option->count() > 0) {
    throw tb::InputError("--kernels", "selects tilegemm kernels, and --providers leaves them out");
  }
  tb::KernelSelection selection;
  if (providers.tilegemm) {
    selection = tb::select_kernels("--kernels", bf.kernels, request.types,
                                   tilegemm::current_compute_capability());
  }
  request.kernels = selection.names;
  const std::vector<NamedShape> shapes = parse_problems(cf, bf, &request);
  parse_timing(bf, &request.timing);
  const tb::Format format = tb::parse_format("--format", bf.format);
  const std::vector<tb::OutputFile> outputs = tb::plan_outputs(
      "--output", bf.outputs, "--format", bf.format, bf.format_option->count() > 0);

  const std::optional<tilegemm::DeviceInfo> device = tilegemm::current_device();
  if (!device) return no_device("bench", "time");
  check_device_memory(shapes, request, *device);
  // Every file opened before the run: a path that cannot be written costs no GPU time.
  std::vector<std::ofstream> files(outputs.size());
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    files[i].open(outputs[i].path);
    if (!files[i]) {
      throw tb::InputError("--output", "cannot open '" + outputs[i].path + "' for writing");
    }
  }

  print_notes("bench", selection.skipped);
  print_auto_notes("bench");
  tb::BenchReport report =
      tb::run_bench(request, [](const std::string& line) { std::cerr << line << std::endl; });
  // Judged before --providers drops rows: a cuBLAS row that FAILED still fails the run.
  const bool passed = tb::bench_passed(report);
  tb::keep_providers(&report, providers);
  report.skipped = selection.skipped;
  report.command = command;
  report.timestamp = tb::utc_timestamp();
  const nlohmann::json cache =
      tb::bench_cache_record(report, tt::active_tables(), device->compute_capability());
  if (const std::size_t hits = cache["auto_from_cache"].size(); hits > 0) {
    std::cerr << "tilegemm bench: auto's choice came from the tune cache in " << hits
              << " rows (TILEGEMM_TUNE_CACHE=off for the rules alone)\n";
  }
  if (!outputs.empty()) {
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      write_bench_with_cache(files[i], report, outputs[i].format, cache);
      std::cerr << "tilegemm bench: wrote " << report.rows.size() << " rows to " << outputs[i].path
                << "\n";
    }
    tb::write_bench(std::cout, report, tb::Format::kTable);
  } else {
    write_bench_with_cache(std::cout, report, format, cache);
  }
  return passed ? kExitOk : kExitFailed;
}

struct TuneFlags {
  std::string cache_dir;
  bool dry_run = false;
  bool show = false;
  std::string screen = "0";
  std::string output;
  CLI::Option* cache_dir_option = nullptr;
  CLI::Option* format_option = nullptr;
  // Every option but --show, --cache-dir and --format: what --show does not take.
  std::vector<CLI::Option*> measure_options;
};

int run_tune_show(const TuneFlags& tf, const std::string& format_text) {
  for (const CLI::Option* opt : tf.measure_options) {
    if (opt->count() > 0) {
      throw tb::InputError("--show", "prints the cache and measures nothing: it takes only "
                                     "--cache-dir and --format (given: " + opt->get_name() + ")");
    }
  }
  const tb::Format format = tb::parse_format("--format", format_text);
  const std::string dir = tf.cache_dir_option->count() > 0 ? tf.cache_dir : tt::default_cache_dir();
  const tb::CacheShow show = tb::show_cache(dir, tt::current_file_key(), tt::lookup_enabled_by_env());
  tb::write_cache_show(std::cout, show, format);
  return kExitOk;
}

int run_tune(const CaseFlags& cf, const DtypeFlags& df, const BenchFlags& bf, const TuneFlags& tf,
             const std::string& command) {
  if (tf.cache_dir_option->count() > 0 && tf.cache_dir.empty()) {
    throw tb::InputError("--cache-dir", "empty (want a directory)");
  }
  if (tf.show) return run_tune_show(tf, bf.format);
  tb::TuneRequest request;
  request.bench.types = df.types();
  const tb::KernelSelection selection = tb::select_kernels(
      "--kernels", bf.kernels, request.bench.types, tilegemm::current_compute_capability());
  if (std::find(selection.names.begin(), selection.names.end(), "auto") != selection.names.end()) {
    throw tb::InputError("--kernels",
                         "'auto' is what tune measures for: name registry kernels (globs)");
  }
  request.bench.kernels = selection.names;
  const std::vector<NamedShape> shapes = parse_problems(cf, bf, &request.bench);
  parse_timing(bf, &request.bench.timing);
  request.screen = tb::parse_number_in("--screen", tf.screen, 0.0, 1000.0);
  if (request.screen > 0.0 && request.screen < 1.0) {
    throw tb::InputError("--screen", "'" + tf.screen + "' must be 0 (off) or a factor >= 1");
  }
  const tb::Format format = tb::parse_format("--format", bf.format);
  std::vector<tb::OutputFile> outputs;
  if (!tf.output.empty()) {
    outputs = tb::plan_outputs("--output", {tf.output}, "--format", bf.format,
                               tf.format_option->count() > 0);
  }
  std::string dir;
  if (!tf.dry_run) {
    dir = tf.cache_dir_option->count() > 0 ? tf.cache_dir : tt::default_cache_dir();
    if (dir.empty()) {
      throw tb::InputError("--cache-dir", "missing: no TILEGEMM_CACHE_DIR, XDG_CACHE_HOME or "
                                          "HOME to find the cache in (or use --dry-run)");
    }
  }

  const std::optional<tilegemm::DeviceInfo> device = tilegemm::current_device();
  if (!device) return no_device("tune", "measure");
  check_device_memory(shapes, request.bench, *device);
  if (!dir.empty()) {
    if (const std::string why = tt::check_writable(dir); !why.empty()) {
      throw tb::InputError("--cache-dir", why);
    }
    request.cache_dir = dir;
  }
  std::ofstream file;
  if (!outputs.empty()) {
    file.open(outputs.front().path);
    if (!file) throw tb::InputError("--output", "cannot open '" + tf.output + "' for writing");
  }

  print_notes("tune", selection.skipped);
  tb::TuneReport report =
      tb::run_tune(request, [](const std::string& line) { std::cerr << line << std::endl; });
  report.skipped = selection.skipped;
  report.command = command;
  report.timestamp = tb::utc_timestamp();
  if (!outputs.empty()) {
    tb::write_tune(file, report, outputs.front().format);
    std::cerr << "tilegemm tune: wrote " << report.shapes.size() << " shapes to " << tf.output
              << "\n";
    tb::write_tune(std::cout, report, tb::Format::kTable);
  } else {
    tb::write_tune(std::cout, report, format);
  }
  std::size_t stored = 0;
  for (const tb::TuneShape& s : report.shapes) stored += s.stored ? 1 : 0;
  if (tf.dry_run) {
    std::cerr << "tilegemm tune: --dry-run: nothing stored\n";
  } else {
    std::cerr << "tilegemm tune: stored " << stored << " of " << report.shapes.size()
              << " winners in " << report.cache_path << "\n";
  }
  return tb::tune_passed(report) ? kExitOk : kExitFailed;
}

struct VerifyFlags {
  std::string kernels = "*";
  std::string fuzz = "0";
  std::string format = "table";
  CLI::Option* fuzz_option = nullptr;
};

int run_verify(const CaseFlags& cf, const DtypeFlags& df, const VerifyFlags& vf) {
  const tilegemm::GemmTypes types = df.types();
  const tb::KernelSelection selection =
      tb::select_kernels("--kernels", vf.kernels, types, tilegemm::current_compute_capability());
  const std::vector<std::string>& kernels = selection.names;
  const std::uint64_t seed = tb::parse_seed("--seed", cf.seed);
  const std::int64_t fuzz = tb::parse_int("--fuzz", vf.fuzz, 0, 1000000);
  const tb::Format format = tb::parse_format("--format", vf.format);
  std::vector<tilegemm::CaseSpec> cases;
  if (!cf.shapes.empty()) {
    if (vf.fuzz_option->count() > 0) {
      throw tb::InputError("--fuzz", "not with --shape (a --shape run replays exactly one case)");
    }
    tilegemm::CaseSpec spec;
    spec.types = types;
    spec.alpha = tb::parse_scalar("--alpha", cf.alpha);
    spec.beta = tb::parse_scalar("--beta", cf.beta);
    spec.la = tb::parse_layout("--layout-a", cf.layout_a);
    spec.lb = tb::parse_layout("--layout-b", cf.layout_b);
    spec.lc = tb::parse_layout("--layout-c", cf.layout_c);
    const tb::Pads pads = tb::parse_pads("--pad", cf.pad);
    spec.pad_a = pads.a;
    spec.pad_b = pads.b;
    spec.pad_c = pads.c;
    spec.seed = seed;
    for (const std::string& text : cf.shapes) {
      const tb::Shape s = tb::parse_shape("--shape", text);
      spec.m = s.m;
      spec.n = s.n;
      spec.k = s.k;
      cases.push_back(spec);
    }
  } else {
    for (const CLI::Option* opt : cf.scalar_options) {
      if (opt->count() > 0) {
        throw tb::InputError(opt->get_name(), "only with --shape (the sweep sets it per case)");
      }
    }
    cases = tb::standard_sweep(seed, types);
    const std::vector<tilegemm::CaseSpec> extra = tb::fuzz_cases(fuzz, seed, types);
    cases.insert(cases.end(), extra.begin(), extra.end());
  }

  if (tilegemm::cuda_device_count() == 0) return no_device("verify", "verify");
  print_notes("verify", selection.skipped);
  print_auto_notes("verify");

  // Failures go where a reader of the table looks; machine formats keep stdout clean.
  std::ostream& failures_out = format == tb::Format::kTable ? std::cout : std::cerr;
  tb::VerifyReport report = tb::run_verify(
      kernels, cases, [](const std::string& line) { std::cerr << line << std::endl; },
      [&](const tb::VerifyFailure& f) {
        failures_out << "FAILED " << f.kernel << " " << f.spec.to_string() << ": " << f.check.detail
                     << "\n  replay: " << tb::replay_command(f.kernel, f.spec) << std::endl;
      });
  report.types = types;
  report.skipped = selection.skipped;
  tb::write_verify(std::cout, report, format);
  if (format == tb::Format::kTable) {
    std::cout << (report.passed() ? "verify: all passed" : "verify: FAILED") << " ("
              << tilegemm::gemm_types_name(types) << ", " << cases.size() << " cases x "
              << kernels.size() << " kernels, " << report.failures.size() << " failures)\n";
  }
  return report.passed() ? kExitOk : kExitFailed;
}

struct AnalyzeFlags {
  std::string tile = "32";
  std::string kernel;
  std::string layout_a = "row", layout_b = "row", layout_c = "row";
  std::string device = "h200";
  std::string regs = "32";
  std::string format = "table";
  CLI::Option* tile_option = nullptr;
};

// An analyze request's problem as bench lays out its case (tb::case_problem): operands at a
// 16-byte base (no memory behind them) and their natural pitch, beta 0.
tilegemm::Problem problem_of(const ta::AnalyzeRequest& request) {
  tilegemm::CaseSpec spec;
  spec.m = request.size.m;
  spec.n = request.size.n;
  spec.k = request.size.k;
  spec.types = request.types;
  spec.la = request.la;
  spec.lb = request.lb;
  spec.lc = request.lc;
  return tb::case_problem(spec);
}

// `auto`'s kernel for an analyze request's problem: with a GPU, as a call there resolves it (the
// tune table for that GPU, then the rules); without one, by the rules for a 132-SM sm_90 GPU, so
// only for --device h100 or h200. The choice goes to stderr; machine formats keep stdout to the
// report.
const tilegemm::KernelInfo* auto_kernel(const ta::AnalyzeRequest& request,
                                        const std::string& device) {
  const bool gpu = tilegemm::cuda_device_count() > 0;
  if (!gpu && device.rfind("h100", 0) != 0 && device.rfind("h200", 0) != 0) {
    throw tb::InputError("--kernel",
                         "'auto' without a GPU is resolved by the rules of a 132-SM sm_90 GPU: "
                         "give --device h100 or h200");
  }
  const tilegemm::Problem problem = problem_of(request);
  const tilegemm::KernelInfo* kernel =
      gpu ? tilegemm::select_kernel(problem) : tilegemm::select_kernel(problem, 90);
  if (kernel == nullptr) throw tb::InputError("--kernel", "'auto' has no kernel for this problem");
  std::cerr << "auto: " << kernel->name
            << (gpu ? " (as a call on this GPU resolves it: its tune table, then the rules)"
                    : " (the rules of a 132-SM sm_90 GPU; a tune table needs the GPU)")
            << "\n";
  return kernel;
}

int run_analyze(const CaseFlags& cf, const DtypeFlags& df, const AnalyzeFlags& af) {
  ta::AnalyzeRequest request;
  request.types = df.types();
  request.la = tb::parse_layout("--layout-a", af.layout_a);
  request.lb = tb::parse_layout("--layout-b", af.layout_b);
  request.lc = tb::parse_layout("--layout-c", af.layout_c);
  if (!cf.shapes.empty()) {
    if (cf.shapes.size() > 1) throw tb::InputError("--shape", "analyze takes one shape");
    if (!cf.m.empty() || !cf.n.empty() || !cf.k.empty()) {
      throw tb::InputError("--shape", "give either --shape or --m/--n/--k");
    }
    const tb::Shape s = tb::parse_shape("--shape", cf.shapes.front());
    request.size = ta::GemmSize{s.m, s.n, s.k};
  } else {
    if (!cf.m.empty()) request.size.m = tb::parse_int("--m", cf.m, 1, tb::kMaxDim);
    if (!cf.n.empty()) request.size.n = tb::parse_int("--n", cf.n, 1, tb::kMaxDim);
    if (!cf.k.empty()) request.size.k = tb::parse_int("--k", cf.k, 1, tb::kMaxDim);
  }
  const std::int64_t t = tb::parse_int("--tile", af.tile, 1, 4096);
  request.tile = ta::TileDims{t, t, t};
  request.regs_per_thread = static_cast<int>(tb::parse_int("--regs", af.regs, 1, 255));
  request.device_key = af.device;
  const tb::Format format = tb::parse_format("--format", af.format);
  if (!af.kernel.empty()) {
    if (af.tile_option->count() > 0) {
      throw tb::InputError("--tile", "give either --tile or --kernel (which brings its own tile)");
    }
    request.kernel =
        af.kernel == "auto" ? auto_kernel(request, af.device) : tilegemm::find_kernel(af.kernel);
    if (request.kernel == nullptr) {
      throw tb::InputError("--kernel",
                           "'" + af.kernel + "' is not a registered kernel (see `tilegemm list`)");
    }
  }
  // Every input checked (a kernel that does not compute the types included) before any GPU query.
  ta::AnalysisReport report = ta::analyze(request);
  // With a GPU, the compiled register count and the runtime's own occupancy answer, of the
  // instance launch() would run for these layouts and types.
  if (request.kernel != nullptr && tilegemm::cuda_device_count() > 0) {
    const std::optional<tilegemm::DeviceInfo> device = tilegemm::current_device();
    const std::string gpu = device ? device->name : std::string("the current GPU");
    const tilegemm::Problem problem = problem_of(request);
    const void* function =
        request.kernel->device_function ? request.kernel->device_function(problem) : nullptr;
    if (const auto attr = tilegemm::function_attributes(function)) {
      request.kernel_regs = attr->regs_per_thread;
      request.kernel_regs_source =
          "cudaFuncGetAttributes on " + gpu + " (the instance for layouts " +
          tilegemm::layout_name(request.la) + "," + tilegemm::layout_name(request.lb) + "," +
          tilegemm::layout_name(request.lc) + ", " + tilegemm::gemm_types_name(request.types) +
          ")";
      const std::int64_t dynamic_smem =
          std::max<std::int64_t>(0, request.kernel->tile.smem_bytes - attr->static_smem_bytes);
      request.runtime_blocks_per_sm = tilegemm::runtime_blocks_per_sm(
          function, request.kernel->tile.threads, dynamic_smem);
      request.runtime_device = gpu;
      if (request.kernel->plan) request.runtime_plan = request.kernel->plan(problem);
      report = ta::analyze(request);
    }
  }
  ta::write_analysis(std::cout, report, format);
  return kExitOk;
}

struct ProfileFlags {
  std::string kernels;
  std::vector<std::string> shapes;
  std::string layout_a = "row", layout_b = "row", layout_c = "row";
  std::string providers = "tilegemm,cublas";
  std::string format = "table";
  std::string output;
  std::string ncu = "ncu";
  CLI::Option* format_option = nullptr;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// This binary, for ncu to run: /proc/self/exe, else argv[0].
std::string self_path(const char* argv0) {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n > 0) return std::string(buf, static_cast<std::size_t>(n));
  return argv0;
}

// A fresh private directory for ncu's log and bench's JSON, removed with its files.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/tilegemm-profile.XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("cannot create a temporary directory under " + pattern);
    }
    path_ = pattern;
  }
  ~TempDir() {
    for (const char* name : {"ncu.log", "bench.json", "bench.out"}) {
      std::remove((path_ + "/" + name).c_str());
    }
    ::rmdir(path_.c_str());
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const char* name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Runs argv with stdout into `stdout_path` (stderr stays: bench's progress lines), and waits.
// The exit status, or 128 + the signal that ended it.
int run_child(const std::vector<std::string>& argv, const std::string& stdout_path) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int err = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) throw std::runtime_error("cannot run " + argv[0] + ": " + std::strerror(err));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("waitpid: " + std::string(std::strerror(errno)));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Every flag checked, without a GPU or ncu: the request ncu's child bench will run.
tp::ProfileRequest profile_request(const ProfileFlags& f, const DtypeFlags& df,
                                   const tb::Providers& providers) {
  tp::ProfileRequest request;
  request.types = df.types();
  if (providers.tilegemm && f.kernels.empty()) {
    throw tb::InputError("--kernels",
                         "missing: name the kernels to profile (globs, as bench takes)");
  }
  if (!providers.tilegemm && !f.kernels.empty()) {
    throw tb::InputError("--kernels", "selects tilegemm kernels, and --providers leaves them out");
  }
  if (providers.tilegemm) {
    print_notes("profile", tb::select_kernels("--kernels", f.kernels, request.types,
                                              tilegemm::current_compute_capability())
                               .skipped);
    request.kernels = f.kernels;
  }
  if (f.shapes.empty()) throw tb::InputError("--shape", "missing: one or more MxNxK");
  for (const std::string& text : f.shapes)
    request.shapes.push_back(tb::parse_shape("--shape", text));
  request.la = tb::parse_layout("--layout-a", f.layout_a);
  request.lb = tb::parse_layout("--layout-b", f.layout_b);
  request.lc = tb::parse_layout("--layout-c", f.layout_c);
  return request;
}

// ncu runs until it profiles with every metric this GPU has: one it cannot find is dropped and
// the run repeated. Returns ncu's exit status; `log` gets ncu's log.
int run_ncu(const std::string& ncu, const std::string& self, const tp::ProfileRequest& request,
            const TempDir& tmp, std::string* log) {
  std::vector<std::string> metrics = tp::requested_metrics();
  int rc = 0;
  for (int attempt = 0; attempt < 8; ++attempt) {
    rc = run_child(
        tp::ncu_command(ncu, self, request, metrics, tmp.file("ncu.log"), tmp.file("bench.json")),
        tmp.file("bench.out"));
    // The log should hold everything ncu prints; its stdout (with bench's) is read as well, in
    // case this ncu prints the report or an error there.
    *log = slurp(tmp.file("ncu.log")) + "\n" + slurp(tmp.file("bench.out"));
    const std::vector<std::string> missing = tp::metrics_not_found(*log, metrics);
    if (missing.empty() || tp::counters_not_permitted(*log)) break;
    for (const std::string& m : missing) {
      std::cerr << "tilegemm profile: ncu has no metric " << m << " here; profiling without it\n";
      metrics.erase(std::find(metrics.begin(), metrics.end(), m));
    }
  }
  return rc;
}

// ncu gave no table: its errors and bench's output say why.
int ncu_failed(int rc, const std::string& log, const TempDir& tmp) {
  std::cerr << "tilegemm: profile: ncu gave no result (exit " << rc << ")";
  const std::vector<std::string> errors = tp::ncu_errors(log);
  if (!errors.empty()) std::cerr << ": " << errors.front();
  std::cerr << "\n" << slurp(tmp.file("bench.out"));
  return kExitInternal;
}

int run_profile(const ProfileFlags& f, const DtypeFlags& df, const std::string& command,
                const char* argv0) {
  const tb::Providers providers = tb::parse_providers("--providers", f.providers);
  const tp::ProfileRequest request = profile_request(f, df, providers);
  tb::parse_format("--format", f.format);
  std::vector<tb::OutputFile> outputs;
  if (!f.output.empty()) {
    outputs = tb::plan_outputs("--output", {f.output}, "--format", f.format,
                               f.format_option->count() > 0);
  }
  std::ofstream file;
  if (!outputs.empty()) {
    file.open(outputs.front().path);
    if (!file) throw tb::InputError("--output", "cannot open '" + f.output + "' for writing");
  }
  const char* path_env = std::getenv("PATH");
  const std::optional<std::string> ncu = tp::find_executable(f.ncu, path_env ? path_env : "");
  if (!ncu) {
    std::cerr << "tilegemm: profile: ncu not found (install Nsight Compute or pass --ncu PATH)\n";
    return kExitNoNcu;
  }
  if (tilegemm::cuda_device_count() == 0) return no_device("profile", "profile");

  const TempDir tmp;
  std::string log;
  const int rc = run_ncu(*ncu, self_path(argv0), request, tmp, &log);
  if (tp::counters_not_permitted(log)) {
    std::cerr << "tilegemm: profile: ncu may not read this GPU's performance counters "
                 "(ERR_NVGPUCTRPERM): run as root, or let every user profile (nvidia module "
                 "option NVreg_RestrictProfilingToAdminUsers=0)\n";
    return kExitCountersNotPermitted;
  }
  std::ifstream bench_json(tmp.file("bench.json"));
  if (!bench_json) return ncu_failed(rc, log, tmp);
  tb::BenchReport bench;
  try {
    bench = tb::read_bench_file("bench's result", tmp.file("bench.json"));
  } catch (const tb::InputError& e) {
    throw std::runtime_error(e.what());  // this run's own file: not the user's input
  }
  tp::NcuTable table = tp::parse_ncu_csv(slurp(tmp.file("ncu.log")));
  if (table.headers.empty()) table = tp::parse_ncu_csv(slurp(tmp.file("bench.out")));
  tp::ProfileReport report = tp::build_report(table, bench, providers);
  report.command = command;
  report.timestamp = tb::utc_timestamp();
  if (!outputs.empty()) {
    tp::write_profile(file, report, outputs.front().format);
    std::cerr << "tilegemm profile: wrote " << report.kernels.size() << " launches to " << f.output
              << "\n";
  }
  tp::write_profile(std::cout, report,
                    outputs.empty() ? tb::parse_format("--format", f.format) : tb::Format::kTable);
  return tb::bench_passed(bench) ? kExitOk : kExitFailed;
}

struct CompareFlags {
  std::string old_path, new_path;
  std::string threshold = "5";
  std::string format = "table";
};

// Exit 1 when a row regressed: a CI job can gate on it as on a failed verification.
int run_compare(const CompareFlags& f) {
  const double threshold = tb::parse_scalar("--threshold", f.threshold);
  if (threshold < 0.0) {
    throw tb::InputError("--threshold", "'" + f.threshold + "' must be >= 0 (a percentage)");
  }
  const tb::Format format = tb::parse_format("--format", f.format);
  tb::CompareReport report = tb::compare_reports(tb::read_bench_file("OLD", f.old_path),
                                                 tb::read_bench_file("NEW", f.new_path), threshold);
  report.old_path = f.old_path;
  report.new_path = f.new_path;
  tb::write_compare(std::cout, report, format);
  // Table and markdown list the regressions themselves; machine formats keep stdout parseable.
  if (format == tb::Format::kJson || format == tb::Format::kCsv) {
    for (const std::string& line : tb::regression_lines(report)) {
      std::cerr << "tilegemm compare: " << line << "\n";
    }
  }
  return report.passed() ? kExitOk : kExitFailed;
}

struct PlotFlags {
  std::string input, output;
  std::string device;  // roofline
  std::string shape;   // ladder
};

void write_svg(const std::string& kind, const PlotFlags& f, const tb::PlotResult& plot) {
  std::ofstream out(f.output);
  if (!out) throw tb::InputError("--output", "cannot open '" + f.output + "' for writing");
  out << plot.svg;
  if (!out) throw tb::InputError("--output", "cannot write '" + f.output + "'");
  std::cout << "tilegemm plot " << kind << ": " << plot.marks << " rows drawn";
  if (plot.left_out > 0) std::cout << " (" << plot.left_out << " not ok, left out)";
  if (!plot.device_key.empty()) std::cout << " under the " << plot.device_key << " ceilings";
  std::cout << ", wrote " << f.output << "\n";
}

int run_plot_roofline(const PlotFlags& f) {
  const tb::BenchReport report = tb::read_bench_file("--input", f.input);
  write_svg("roofline", f, tb::roofline_svg(report, "--input", "--device", f.device, f.input));
  return kExitOk;
}

int run_plot_ladder(const PlotFlags& f) {
  std::optional<tb::Shape> shape;
  if (!f.shape.empty()) shape = tb::parse_shape("--shape", f.shape);
  const tb::BenchReport report = tb::read_bench_file("--input", f.input);
  write_svg("ladder", f, tb::ladder_svg(report, "--input", "--shape", shape, f.input));
  return kExitOk;
}

// The timing and --random flags bench and tune share (returned for tune's --show check).
std::vector<CLI::Option*> add_timing_flags(CLI::App* app, BenchFlags* f) {
  return {
      app->add_option("--warmup", f->warmup, "untimed launches before timing"),
      app->add_option("--reps", f->reps, "timed launches (one event pair each) per round"),
      app->add_option("--random", f->random,
                      "N shapes drawn log-uniform over 1..--max-size per dimension, each with a "
                      "random A/B/C layout mix, from --seed (instead of the size flags)"),
      app->add_option("--max-size", f->max_size, "largest dimension --random draws"),
      app->add_option("--min-time", f->min_time,
                      "stopping rule: time batches of --reps until the samples cover this many "
                      "seconds of kernel time (0: off)"),
      app->add_option("--max-noise", f->max_noise,
                      "stopping rule: time batches of --reps until the samples' relative "
                      "standard deviation is at most this percentage (0: off)"),
      app->add_option("--max-time", f->max_time,
                      "stopping rule: stop a round after this many seconds of kernel time"),
      app->add_option("--rounds", f->rounds,
                      "timing rounds per shape: every verified kernel runs its warm-up and reps "
                      "in turn, each round starting one kernel later, so all see the same clock "
                      "and power state"),
      app->add_flag("--cold", f->cold, "flush L2 (write 2x its size) before each launch"),
      app->add_flag("--no-block", f->no_block,
                    "time each launch as the host enqueues it, without the blocking kernel that "
                    "queues it behind a hold first (then a launch the GPU runs faster than the "
                    "host enqueues it counts the host's time; for Nsight Compute, which "
                    "serializes launches)"),
  };
}

}  // namespace

int main(int argc, char** argv) {
  // The command as recorded with results: the program by its name, not its build path.
  std::vector<const char*> args(argv, argv + argc);
  if (!args.empty()) args[0] = "tilegemm";
  const std::string command = tb::join_command(static_cast<int>(args.size()), args.data());

  CLI::App app{"tilegemm: the lab of a tiled GEMM ladder, f32 to bf16 (verify, time, explain)",
               "tilegemm"};
  app.require_subcommand(1, 1);
  app.option_defaults()->always_capture_default();

  std::string list_kernels = "*", list_format = "table";
  DtypeFlags list_dtype;
  CLI::App* list = app.add_subcommand("list", "every registered kernel with its tile config");
  list->add_option("--kernels", list_kernels, "comma-separated name globs");
  add_dtype_flags(list, &list_dtype);
  list->add_option("--format", list_format, "table|csv|json|md");

  CaseFlags bench_case;
  DtypeFlags bench_dtype;
  BenchFlags bench_flags;
  CLI::App* bench = app.add_subcommand("bench", "verify, then time kernels against cuBLAS");
  bench_flags.kernels_option =
      bench->add_option("--kernels", bench_flags.kernels,
                        "comma-separated name globs, or auto (the dispatcher's choice)");
  add_shape_flags(bench, &bench_case, true);
  add_scalar_flags(bench, &bench_case);
  add_dtype_flags(bench, &bench_dtype);
  add_timing_flags(bench, &bench_flags);
  bench->add_flag("--nvtx", bench_flags.nvtx,
                  "an NVTX range around each row's first timed launch (what profile measures)");
  bench_flags.format_option = bench->add_option(
      "--format", bench_flags.format, "table|csv|json|md (of the one --output, else of stdout)");
  bench
      ->add_option("--output", bench_flags.outputs,
                   "write the results here, repeatable, format from the extension (.json, .csv, "
                   ".md, .txt); the table still goes to stdout")
      ->allow_extra_args(false);
  bench->add_option("--providers", bench_flags.providers,
                    "whose rows to report: tilegemm, cublas or both (cuBLAS always runs)");

  // tune: bench's problem and timing flags, with defaults for many shapes in interleaved rounds.
  CaseFlags tune_case;
  DtypeFlags tune_dtype;
  BenchFlags tune_bench;
  tune_bench.warmup = "5";
  tune_bench.reps = "20";
  tune_bench.rounds = "3";
  TuneFlags tune_flags;
  CLI::App* tune = app.add_subcommand(
      "tune", "measure every candidate kernel per shape and store the fastest in the tune cache "
              "that auto consults (--show: print the cache, no GPU needed)");
  tune_flags.measure_options.push_back(tune->add_option(
      "--kernels", tune_bench.kernels, "comma-separated name globs: the candidates (default all)"));
  add_shape_flags(tune, &tune_case, true);
  add_scalar_flags(tune, &tune_case);
  add_dtype_flags(tune, &tune_dtype);
  for (CLI::Option* opt : add_timing_flags(tune, &tune_bench)) {
    tune_flags.measure_options.push_back(opt);
  }
  tune_flags.measure_options.push_back(tune->add_option(
      "--screen", tune_flags.screen,
      "F >= 1: a short screening round first; only candidates within F x the fastest are timed "
      "in full (0: off, every candidate is)"));
  tune_flags.cache_dir_option = tune->add_option(
      "--cache-dir", tune_flags.cache_dir,
      "the cache directory (default: $TILEGEMM_CACHE_DIR, else $XDG_CACHE_HOME/tilegemm, else "
      "$HOME/.cache/tilegemm)");
  tune_flags.measure_options.push_back(
      tune->add_flag("--dry-run", tune_flags.dry_run, "measure and print; store nothing"));
  tune->add_flag("--show", tune_flags.show,
                 "print the cache files and their entries (no GPU needed), measure nothing");
  tune_flags.format_option = tune->add_option("--format", tune_bench.format,
                                              "table|csv|json|md (of --output, else of stdout)");
  tune_flags.measure_options.push_back(
      tune->add_option("--output", tune_flags.output,
                       "write the report here, format from --format or the extension; the table "
                       "still goes to stdout"));
  for (CLI::Option* opt : tune->get_options()) {
    const std::string name = opt->get_name();
    const bool shared = name == "--shape" || name == "--m" || name == "--n" || name == "--k" ||
                        name == "--size" || name == "--dtype" || name == "--dtype-c" ||
                        name == "--seed";
    if (shared) tune_flags.measure_options.push_back(opt);
  }
  for (CLI::Option* opt : tune_case.scalar_options) tune_flags.measure_options.push_back(opt);

  CaseFlags verify_case;
  DtypeFlags verify_dtype;
  VerifyFlags verify_flags;
  CLI::App* verify = app.add_subcommand(
      "verify", "correctness sweep (or one case with --shape) against the fp64 reference");
  verify->add_option("--kernels", verify_flags.kernels, "comma-separated name globs, or auto");
  verify
      ->add_option("--shape", verify_case.shapes,
                   "run exactly this case, MxNxK (repeatable): the replay path")
      ->allow_extra_args(false);
  add_scalar_flags(verify, &verify_case);
  add_dtype_flags(verify, &verify_dtype);
  verify_flags.fuzz_option =
      verify->add_option("--fuzz", verify_flags.fuzz, "random cases added to the sweep");
  verify->add_option("--format", verify_flags.format, "table|csv|json|md (the summary)");

  CaseFlags analyze_case;
  DtypeFlags analyze_dtype;
  AnalyzeFlags analyze_flags;
  CLI::App* analyze = app.add_subcommand(
      "analyze", "traffic, arithmetic intensity, roofline and occupancy (no GPU needed)");
  add_shape_flags(analyze, &analyze_case, false);
  analyze_flags.tile_option =
      analyze->add_option("--tile", analyze_flags.tile, "square tile size T");
  analyze->add_option("--kernel", analyze_flags.kernel,
                      "take the tile config and op class of this kernel; auto: the kernel auto "
                      "picks for the shape, layouts and types (named on stderr)");
  add_dtype_flags(analyze, &analyze_dtype);
  analyze->add_option("--layout-a", analyze_flags.layout_a,
                      "layout of A: row|col (picks --kernel's instance)");
  analyze->add_option("--layout-b", analyze_flags.layout_b,
                      "layout of B: row|col (picks --kernel's instance)");
  analyze->add_option("--layout-c", analyze_flags.layout_c,
                      "layout of C: row|col (picks --kernel's instance)");
  analyze->add_option("--device", analyze_flags.device,
                      "a100|h100|h200 (also a100-40gb, h200-measured)");
  analyze->add_option("--regs", analyze_flags.regs, "registers per thread to assume");
  analyze->add_option("--format", analyze_flags.format, "table|csv|json|md");

  std::string devices_format = "table";
  CLI::App* devices = app.add_subcommand("devices", "the GPUs present and their limits");
  devices->add_option("--format", devices_format, "table|csv|json|md");

  ProfileFlags profile_flags;
  DtypeFlags profile_dtype;
  CLI::App* profile = app.add_subcommand(
      "profile", "Nsight Compute counters of one launch per kernel, beside the analysis model");
  profile->add_option("--kernels", profile_flags.kernels,
                      "comma-separated name globs, or auto (the dispatcher's choice)");
  profile->add_option("--shape", profile_flags.shapes, "MxNxK, e.g. 4096x4096x4096 (repeatable)")
      ->allow_extra_args(false);
  add_dtype_flags(profile, &profile_dtype);
  profile->add_option("--layout-a", profile_flags.layout_a, "layout of A: row|col");
  profile->add_option("--layout-b", profile_flags.layout_b, "layout of B: row|col");
  profile->add_option("--layout-c", profile_flags.layout_c, "layout of C: row|col");
  profile->add_option("--providers", profile_flags.providers,
                      "whose launches to report: tilegemm, cublas or both");
  profile_flags.format_option = profile->add_option(
      "--format", profile_flags.format, "table|csv|json|md (of --output, else of stdout)");
  profile->add_option("--output", profile_flags.output,
                      "write the report here, format from --format or the extension; the table "
                      "still goes to stdout");
  profile->add_option("--ncu", profile_flags.ncu, "the Nsight Compute CLI to run");

  CompareFlags compare_flags;
  CLI::App* compare = app.add_subcommand(
      "compare", "two bench results row by row: ratio, noise, regressions (no GPU needed)");
  compare->add_option("OLD", compare_flags.old_path, "the baseline: a bench --format json result")
      ->required();
  compare->add_option("NEW", compare_flags.new_path, "the result to judge against OLD")->required();
  compare->add_option("--threshold", compare_flags.threshold,
                      "percent slower, outside noise, that counts as a regression");
  compare->add_option("--format", compare_flags.format, "table|csv|json|md");

  PlotFlags roofline_flags, ladder_flags;
  CLI::App* plot = app.add_subcommand("plot", "SVG figures of bench results (no GPU needed)");
  plot->require_subcommand(1, 1);
  CLI::App* roofline = plot->add_subcommand(
      "roofline", "rows by arithmetic intensity and TFLOP/s under the device's ceilings");
  roofline->add_option("--input", roofline_flags.input, "a bench --format json result")->required();
  roofline->add_option("--output", roofline_flags.output, "the SVG file to write")->required();
  roofline->add_option("--device", roofline_flags.device,
                       "ceilings of a100|h100|h200 (also a100-40gb); default: the file's GPU");
  CLI::App* ladder =
      plot->add_subcommand("ladder", "TFLOP/s per kernel (by rung) and size, beside cuBLAS");
  ladder->add_option("--input", ladder_flags.input, "a bench --format json result")->required();
  ladder->add_option("--output", ladder_flags.output, "the SVG file to write")->required();
  ladder->add_option("--shape", ladder_flags.shape, "only this shape, MxNxK");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::string message = e.what();
    if (app.get_subcommands().empty() && argc > 1 && argv[1][0] != '-') {
      message = "'" + std::string(argv[1]) +
                "' is not a subcommand (want list, bench, tune, verify, analyze, devices, "
                "profile, compare or plot)";
    }
    // `plot` without a known kind: name what was given rather than CLI11's generic sentence.
    if (plot->count() > 0 && plot->get_subcommands().empty()) {
      const auto at = std::find(argv + 1, argv + argc, std::string("plot"));
      const bool named = at + 1 < argv + argc && (*(at + 1))[0] != '-';
      message =
          named ? "plot: '" + std::string(*(at + 1)) + "' is not a plot (want roofline or ladder)"
                : "plot: name a plot (want roofline or ladder)";
    }
    for (char& ch : message) {
      if (ch == '\n') ch = ' ';
    }
    std::cerr << "tilegemm: " << message << " (see tilegemm --help)\n";
    return kExitBadInput;
  }

  try {
    if (list->parsed()) return run_list(list_kernels, list_dtype, list_format);
    if (devices->parsed()) return run_devices(devices_format);
    if (bench->parsed()) return run_bench(bench_case, bench_dtype, bench_flags, command);
    if (tune->parsed()) return run_tune(tune_case, tune_dtype, tune_bench, tune_flags, command);
    if (verify->parsed()) return run_verify(verify_case, verify_dtype, verify_flags);
    if (analyze->parsed()) return run_analyze(analyze_case, analyze_dtype, analyze_flags);
    if (profile->parsed()) return run_profile(profile_flags, profile_dtype, command, argv[0]);
    if (compare->parsed()) return run_compare(compare_flags);
    if (roofline->parsed()) return run_plot_roofline(roofline_flags);
    if (ladder->parsed()) return run_plot_ladder(ladder_flags);
  } catch (const tb::InputError& e) {
    std::cerr << "tilegemm: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "tilegemm: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
  return kExitBadInput;
}
