// The writers of `list`, `devices`, `bench` and `verify`: what each report looks like as an
// aligned table (units in the headers), CSV, markdown and JSON.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ostream>

#include "tilegemm/bench.hpp"
#include "tilegemm/gemm.hpp"

namespace tilegemm::bench {

namespace {

using nlohmann::json;

// "64x64x8", zeros (not applicable) as "-"; "-" when all are zero.
std::string dims(std::initializer_list<int> values) {
  bool any = false;
  std::string out;
  for (int v : values) {
    if (!out.empty()) out += 'x';
    out += v != 0 ? std::to_string(v) : "-";
    any = any || v != 0;
  }
  return any ? out : "-";
}

// The shortest decimal that reads back as the same float, as a double: -1.3f is written as
// -1.3, not as -1.2999999523162842.
double shortest(float value) {
  char buf[32];
  for (int digits = 6; digits <= 9; ++digits) {
    std::snprintf(buf, sizeof(buf), "%.*g", digits, static_cast<double>(value));
    if (std::strtof(buf, nullptr) == value) break;
  }
  return std::strtod(buf, nullptr);
}
std::string shortest_text(float value) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", shortest(value));
  return buf;
}

json number_or_null(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

// Full precision for machine-read CSV; empty when absent.
std::string raw(double v) {
  if (std::isnan(v)) return "";
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

// "A/B bf16, C f32 (fp32 accumulation)": what the library and cuBLAS computed in.
std::string types_text(GemmTypes t) {
  return std::string("A/B ") + dtype_name(t.ab) + ", C " + dtype_name(t.c) + " (fp32 accumulation)";
}

std::string layout_triple(Layout a, Layout b, Layout c) {
  return std::string(layout_name(a)) + "," + layout_name(b) + "," + layout_name(c);
}

std::string kib(std::int64_t bytes) {
  return std::to_string(bytes) + " (" + fixed(static_cast<double>(bytes) / 1024.0, 0) + " KiB)";
}
std::string mib(std::int64_t bytes) {
  return std::to_string(bytes) + " (" + fixed(static_cast<double>(bytes) / 1048576.0, 1) + " MiB)";
}

// ", until >= 0.5 s and noise <= 1% (at most 10 s)" when a stopping rule is set.
std::string stopping_rule_text(const TimingOptions& t) {
  if (!(t.min_time_s > 0.0) && !(t.max_noise_pct > 0.0)) return "";
  std::string text = " per batch, until";
  if (t.min_time_s > 0.0) text += " >= " + shortest_text(static_cast<float>(t.min_time_s)) + " s";
  if (t.min_time_s > 0.0 && t.max_noise_pct > 0.0) text += " and";
  if (t.max_noise_pct > 0.0) {
    text += " noise <= " + shortest_text(static_cast<float>(t.max_noise_pct)) + "%";
  }
  return text + " (at most " + shortest_text(static_cast<float>(t.max_time_s)) + " s)";
}

std::string settings_line(const BenchReport& r) {
  std::string line =
      "warmup " + std::to_string(r.timing.warmup) + ", reps " + std::to_string(r.timing.reps) +
      (r.timing.rounds > 1 ? " x " + std::to_string(r.timing.rounds) + " interleaved rounds"
                           : std::string()) +
      stopping_rule_text(r.timing) + ", L2 " +
      (r.timing.cold ? "flushed before each launch" : "warm") +
      (r.timing.block ? ", launches queued behind a blocking kernel"
                      : ", launches timed as the host enqueues them") +
      ", seed " + std::to_string(r.seed);
  if (!r.rows.empty()) {
    const BenchRow& first = r.rows.front();
    line += ", alpha " + shortest_text(first.alpha) + ", beta " + shortest_text(first.beta) +
            ", pad " + std::to_string(first.pads.a) + "," + std::to_string(first.pads.b) + "," +
            std::to_string(first.pads.c) + ", " + types_text(first.types);
  }
  return line;
}

// Kernels this GPU could not run (skipped before the run), then the rows that FAILED.
std::vector<std::string> failure_notes(const BenchReport& r) {
  std::vector<std::string> notes = r.skipped;
  for (const BenchRow& row : r.rows) {
    if (row.status == RowStatus::kFailed) {
      notes.push_back("FAILED " + row.kernel + " " + row.shape.to_string() + ": " + row.detail);
    }
  }
  return notes;
}

}  // namespace

json to_json(const DeviceInfo& d) {
  return json{{"name", d.name},
              {"index", d.index},
              {"cuda_cc", d.cuda_cc()},
              {"sm_count", d.sm_count},
              {"sm_clock_mhz", d.sm_clock_mhz},
              {"mem_clock_mhz", d.mem_clock_mhz},
              {"mem_bus_width_bits", d.mem_bus_width_bits},
              {"global_mem_bytes", d.global_mem_bytes},
              {"l2_bytes", d.l2_bytes},
              {"smem_per_sm", d.smem_per_sm_bytes},
              {"smem_per_block", d.smem_per_block_bytes},
              {"smem_per_block_optin", d.smem_per_block_optin_bytes},
              {"regs_per_sm", d.regs_per_sm},
              {"regs_per_block", d.regs_per_block},
              {"max_threads_per_sm", d.max_threads_per_sm},
              {"max_threads_per_block", d.max_threads_per_block},
              {"max_blocks_per_sm", d.max_blocks_per_sm},
              {"warp_size", d.warp_size},
              {"driver_version", cuda_version_string(d.driver_version)},
              {"runtime_version", cuda_version_string(d.runtime_version)}};
}

// --- list -------------------------------------------------------------------------------------

std::string types_list(const KernelDesc& desc) {
  std::string out;
  for (GemmTypes t : desc.types) {
    if (!out.empty()) out += ',';
    out += gemm_types_name(t);
  }
  return out;
}

std::string runs_here(const KernelDesc& desc, int cc) {
  if (cc <= 0) return "no GPU";
  if (desc.runs_on(cc)) return "yes";
  return "no (needs " + cc_requirement(desc) + ")";
}

Table kernel_table(const std::vector<KernelInfo>& kernels, int cc) {
  Table t;
  t.add_column("kernel");
  t.add_column("family");
  t.add_column("rung", true);
  t.add_column("op class");
  t.add_column("types");
  t.add_column("align A,B,C");
  t.add_column("needs");
  t.add_column("runs here");
  t.add_column("block BMxBNxBK");
  t.add_column("warp WMxWN");
  t.add_column("thread TMxTN");
  t.add_column("threads", true);
  t.add_column("stages", true);
  t.add_column("smem (bytes)", true);
  t.add_column("summary");
  for (const KernelInfo& k : kernels) {
    const TileConfig& c = k.tile;
    const KernelDesc& d = k.desc;
    t.add_row({k.name, k.family, std::to_string(k.rung), op_class_name(d.op_class),
               types_list(d),
               std::to_string(d.align_a) + "," + std::to_string(d.align_b) + "," +
                   std::to_string(d.align_c),
               cc_requirement(d), runs_here(d, cc), dims({c.bm, c.bn, c.bk}), dims({c.wm, c.wn}),
               dims({c.tm, c.tn}), std::to_string(c.threads), std::to_string(c.stages),
               std::to_string(c.smem_bytes), k.summary});
  }
  return t;
}

json kernels_json(const std::vector<KernelInfo>& kernels, int cc) {
  json out = json::array();
  for (const KernelInfo& k : kernels) {
    const TileConfig& c = k.tile;
    const KernelDesc& d = k.desc;
    json types = json::array();
    for (GemmTypes t : d.types) {
      types.push_back({{"dtype", dtype_name(t.ab)},
                       {"dtype_c", dtype_name(t.c)},
                       {"name", gemm_types_name(t)}});
    }
    out.push_back({{"name", k.name},
                   {"family", k.family},
                   {"rung", k.rung},
                   {"op_class", op_class_name(d.op_class)},
                   {"types", types},
                   {"accumulator", dtype_name(d.accumulator)},
                   {"align_a", d.align_a},
                   {"align_b", d.align_b},
                   {"align_c", d.align_c},
                   {"min_cc", d.min_cc},
                   {"max_cc", d.max_cc},
                   {"needs", cc_requirement(d)},
                   {"runs_here", cc > 0 ? json(d.runs_on(cc)) : json(nullptr)},
                   {"runs_here_text", runs_here(d, cc)},
                   {"bm", c.bm},
                   {"bn", c.bn},
                   {"bk", c.bk},
                   {"wm", c.wm},
                   {"wn", c.wn},
                   {"tm", c.tm},
                   {"tn", c.tn},
                   {"threads", c.threads},
                   {"stages", c.stages},
                   {"cluster_m", c.cluster_m},
                   {"cluster_n", c.cluster_n},
                   {"smem_bytes", c.smem_bytes},
                   {"summary", k.summary}});
  }
  return json{{"kernels", out}};
}

void write_kernels(std::ostream& os, const std::vector<KernelInfo>& kernels, int cc,
                   Format format) {
  switch (format) {
    case Format::kTable:
      write_text(os, kernel_table(kernels, cc));
      break;
    case Format::kCsv:
      write_csv(os, kernel_table(kernels, cc));
      break;
    case Format::kMarkdown:
      write_markdown(os, kernel_table(kernels, cc));
      break;
    case Format::kJson:
      os << kernels_json(kernels, cc).dump(2) << '\n';
      break;
  }
}

// --- devices ----------------------------------------------------------------------------------

std::vector<Section> device_sections(const std::vector<DeviceInfo>& devices) {
  Section s;
  s.title = "CUDA devices";
  Table& t = s.table;
  t.add_column("property");
  for (const DeviceInfo& d : devices) t.add_column("GPU " + std::to_string(d.index), true);
  auto row = [&](const std::string& name, auto cell) {
    std::vector<std::string> cells{name};
    for (const DeviceInfo& d : devices) cells.push_back(cell(d));
    t.add_row(std::move(cells));
  };
  row("name", [](const DeviceInfo& d) { return d.name; });
  row("compute capability", [](const DeviceInfo& d) { return d.cuda_cc(); });
  row("SMs", [](const DeviceInfo& d) { return std::to_string(d.sm_count); });
  row("SM clock, max (MHz)", [](const DeviceInfo& d) { return std::to_string(d.sm_clock_mhz); });
  row("memory clock (MHz)", [](const DeviceInfo& d) { return std::to_string(d.mem_clock_mhz); });
  row("memory bus (bits)",
      [](const DeviceInfo& d) { return std::to_string(d.mem_bus_width_bits); });
  row("global memory (bytes)", [](const DeviceInfo& d) {
    return std::to_string(d.global_mem_bytes) + " (" +
           fixed(static_cast<double>(d.global_mem_bytes) / 1073741824.0, 1) + " GiB)";
  });
  row("L2 (bytes)", [](const DeviceInfo& d) { return mib(d.l2_bytes); });
  row("smem per SM (bytes)", [](const DeviceInfo& d) { return kib(d.smem_per_sm_bytes); });
  row("smem per block (bytes)", [](const DeviceInfo& d) { return kib(d.smem_per_block_bytes); });
  row("smem per block, opt-in (bytes)",
      [](const DeviceInfo& d) { return kib(d.smem_per_block_optin_bytes); });
  row("registers per SM", [](const DeviceInfo& d) { return std::to_string(d.regs_per_sm); });
  row("registers per block", [](const DeviceInfo& d) { return std::to_string(d.regs_per_block); });
  row("max threads per SM",
      [](const DeviceInfo& d) { return std::to_string(d.max_threads_per_sm); });
  row("max threads per block",
      [](const DeviceInfo& d) { return std::to_string(d.max_threads_per_block); });
  row("max blocks per SM", [](const DeviceInfo& d) { return std::to_string(d.max_blocks_per_sm); });
  row("warp size", [](const DeviceInfo& d) { return std::to_string(d.warp_size); });
  row("driver (CUDA version)",
      [](const DeviceInfo& d) { return cuda_version_string(d.driver_version); });
  row("runtime (CUDA version)",
      [](const DeviceInfo& d) { return cuda_version_string(d.runtime_version); });
  return {s};
}

void write_devices(std::ostream& os, const std::vector<DeviceInfo>& devices, Format format) {
  if (format == Format::kJson) {
    json list = json::array();
    for (const DeviceInfo& d : devices) list.push_back(to_json(d));
    os << json{{"devices", list}}.dump(2) << '\n';
    return;
  }
  write_sections(os, device_sections(devices), format);
}

// --- bench ------------------------------------------------------------------------------------

std::string device_line(const DeviceInfo& d) {
  if (d.name.empty()) return "no device";
  return d.name + " (cc " + d.cuda_cc() + ", " + std::to_string(d.sm_count) +
         " SMs, SM clock max " + std::to_string(d.sm_clock_mhz) + " MHz, memory clock " +
         std::to_string(d.mem_clock_mhz) + " MHz, L2 " +
         fixed(static_cast<double>(d.l2_bytes) / 1048576.0, 0) + " MiB, driver " +
         cuda_version_string(d.driver_version) + ", runtime " +
         cuda_version_string(d.runtime_version) + ")";
}

Table bench_table(const BenchReport& report) {
  Table t;
  t.add_column("kernel");
  t.add_column("M", true);
  t.add_column("N", true);
  t.add_column("K", true);
  t.add_column("layout A,B,C");
  t.add_column("types");
  t.add_column("median (ms)", true);
  t.add_column("min (ms)", true);
  t.add_column("max (ms)", true);
  t.add_column("TFLOP/s", true);
  t.add_column("% of cuBLAS", true);
  t.add_column("rel error", true);
  t.add_column("status");
  for (const BenchRow& r : report.rows) {
    t.add_row({r.kernel, std::to_string(r.shape.m), std::to_string(r.shape.n),
               std::to_string(r.shape.k), layout_triple(r.la, r.lb, r.lc),
               gemm_types_name(r.types), fixed(r.median_ms, 4),
               fixed(r.min_ms, 4), fixed(r.max_ms, 4), fixed(r.tflops, 2),
               fixed(100.0 * r.cublas_ratio, 1), scientific(r.rel_error, 2),
               row_status_name(r.status)});
  }
  return t;
}

Table bench_csv_table(const BenchReport& report) {
  Table t;
  for (const char* h :
       {"kernel",    "dtype",     "dtype_c", "m",         "n",            "k",
        "layout_a",  "layout_b",  "layout_c", "alpha",    "beta",         "pad_a",
        "pad_b",     "pad_c",     "median_ms", "min_ms",  "max_ms",       "tflops",
        "cublas_ms", "cublas_ratio", "rel_error", "tolerance", "status",  "detail"}) {
    t.add_column(h);
  }
  for (const BenchRow& r : report.rows) {
    t.add_row({r.kernel,
               dtype_name(r.types.ab),
               dtype_name(r.types.c),
               std::to_string(r.shape.m),
               std::to_string(r.shape.n),
               std::to_string(r.shape.k),
               layout_name(r.la),
               layout_name(r.lb),
               layout_name(r.lc),
               shortest_text(r.alpha),
               shortest_text(r.beta),
               std::to_string(r.pads.a),
               std::to_string(r.pads.b),
               std::to_string(r.pads.c),
               raw(r.median_ms),
               raw(r.min_ms),
               raw(r.max_ms),
               raw(r.tflops),
               raw(r.cublas_ms),
               raw(r.cublas_ratio),
               raw(r.rel_error),
               raw(r.tolerance),
               row_status_name(r.status),
               r.detail});
  }
  return t;
}

json settings_json(const TimingOptions& timing, std::uint64_t seed) {
  return json{{"warmup", timing.warmup},
              {"reps", timing.reps},
              {"rounds", timing.rounds},
              {"min_time_s", timing.min_time_s},
              {"max_noise_pct", timing.max_noise_pct},
              {"max_time_s", timing.max_time_s},
              {"cold", timing.cold},
              {"block", timing.block},
              {"seed", seed},
              // how `auto` computed fp32 products (set_fp32_math, TILEGEMM_FP32_MATH)
              {"fp32_math", fp32_math() == Fp32Math::kThreeTf32 ? "3xtf32" : "simt"}};
}

json to_json(const BenchReport& report) {
  json rows = json::array();
  for (const BenchRow& r : report.rows) {
    rows.push_back({{"kernel", r.kernel},
                    {"dtype", dtype_name(r.types.ab)},
                    {"dtype_c", dtype_name(r.types.c)},
                    {"m", r.shape.m},
                    {"n", r.shape.n},
                    {"k", r.shape.k},
                    {"layout_a", layout_name(r.la)},
                    {"layout_b", layout_name(r.lb)},
                    {"layout_c", layout_name(r.lc)},
                    {"alpha", shortest(r.alpha)},
                    {"beta", shortest(r.beta)},
                    {"pad_a", r.pads.a},
                    {"pad_b", r.pads.b},
                    {"pad_c", r.pads.c},
                    {"median_ms", number_or_null(r.median_ms)},
                    {"samples", r.samples},
                    {"noise_pct", number_or_null(r.noise_pct)},
                    {"host_us", number_or_null(r.host_us)},
                    {"min_ms", number_or_null(r.min_ms)},
                    {"max_ms", number_or_null(r.max_ms)},
                    {"tflops", number_or_null(r.tflops)},
                    {"cublas_ms", number_or_null(r.cublas_ms)},
                    {"cublas_ratio", number_or_null(r.cublas_ratio)},
                    {"rel_error", number_or_null(r.rel_error)},
                    {"tolerance", number_or_null(r.tolerance)},
                    {"status", row_status_name(r.status)},
                    {"detail", r.detail}});
  }
  return json{{"device", to_json(report.device)},
              {"command", report.command},
              {"timestamp", report.timestamp},
              {"settings", settings_json(report.timing, report.seed)},
              {"results", rows},
              {"skipped", report.skipped}};
}

void write_bench(std::ostream& os, const BenchReport& report, Format format) {
  switch (format) {
    case Format::kJson:
      os << to_json(report).dump(2) << '\n';
      return;
    case Format::kCsv:
      write_csv(os, bench_csv_table(report));
      return;
    case Format::kTable:
      os << "tilegemm bench on " << device_line(report.device) << '\n'
         << settings_line(report) << "\n\n";
      write_text(os, bench_table(report));
      for (const std::string& n : failure_notes(report)) os << n << '\n';
      return;
    case Format::kMarkdown:
      os << "## tilegemm bench on " << device_line(report.device) << "\n\n"
         << settings_line(report) << ". Command: `" << report.command << "`, " << report.timestamp
         << ".\n\n";
      write_markdown(os, bench_table(report));
      const std::vector<std::string> notes = failure_notes(report);
      if (!notes.empty()) os << '\n';
      for (const std::string& n : notes) os << "- " << n << '\n';
      return;
  }
}

// --- verify -----------------------------------------------------------------------------------

Table verify_table(const VerifyReport& report) {
  Table t;
  t.add_column("kernel");
  t.add_column("types");
  t.add_column("cases", true);
  t.add_column("passed", true);
  t.add_column("failed", true);
  t.add_column("N/A", true);
  t.add_column("worst rel error", true);
  t.add_column("worst error/tolerance", true);
  for (const KernelSummary& s : report.kernels) {
    const bool ran = s.passed + s.failed > 0;
    t.add_row({s.kernel, gemm_types_name(report.types), std::to_string(s.cases),
               std::to_string(s.passed),
               std::to_string(s.failed), std::to_string(s.not_applicable),
               ran ? scientific(s.worst_rel_error, 2) : "-", ran ? fixed(s.worst_ratio, 3) : "-"});
  }
  return t;
}

json to_json(const VerifyReport& report) {
  json kernels = json::array();
  for (const KernelSummary& s : report.kernels) {
    kernels.push_back({{"kernel", s.kernel},
                       {"cases", s.cases},
                       {"passed", s.passed},
                       {"failed", s.failed},
                       {"not_applicable", s.not_applicable},
                       {"worst_rel_error", number_or_null(s.worst_rel_error)},
                       {"worst_ratio", number_or_null(s.worst_ratio)}});
  }
  json failures = json::array();
  for (const VerifyFailure& f : report.failures) {
    failures.push_back({{"kernel", f.kernel},
                        {"dtype", dtype_name(f.spec.types.ab)},
                        {"dtype_c", dtype_name(f.spec.types.c)},
                        {"case", f.spec.to_string()},
                        {"replay", replay_command(f.kernel, f.spec)},
                        {"rel_error", number_or_null(f.check.rel_error)},
                        {"tolerance", number_or_null(f.check.tolerance)},
                        {"detail", f.check.detail}});
  }
  return json{{"passed", report.passed()},
              {"dtype", dtype_name(report.types.ab)},
              {"dtype_c", dtype_name(report.types.c)},
              {"types", gemm_types_name(report.types)},
              {"kernels", kernels},
              {"failures", failures},
              {"skipped", report.skipped}};
}

void write_verify(std::ostream& os, const VerifyReport& report, Format format) {
  switch (format) {
    case Format::kTable:
      write_text(os, verify_table(report));
      break;
    case Format::kCsv:
      write_csv(os, verify_table(report));
      break;
    case Format::kMarkdown:
      write_markdown(os, verify_table(report));
      break;
    case Format::kJson:
      os << to_json(report).dump(2) << '\n';
      break;
  }
}

}  // namespace tilegemm::bench
