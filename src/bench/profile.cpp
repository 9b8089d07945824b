// `tilegemm profile` without the process handling: the metrics and ncu's command line, the raw
// CSV parser, the counters and the seed's targets, and the join of each profiled launch with its
// bench row and with the analysis model. No GPU: the CLI runs ncu, this file reads what it wrote.
#include "tilegemm/profile.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ostream>

#include "tilegemm/gemm.hpp"
#include "tilegemm/plot.hpp"

namespace tilegemm::profile {

namespace {

using nlohmann::json;

// Every line of `text`, without its '\n' or a trailing '\r'.
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t at = text.find('\n');
    std::string_view line = text.substr(0, at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (at == std::string_view::npos) break;
    text.remove_prefix(at + 1);
  }
  return lines;
}

// One CSV record (RFC 4180: quoted fields, "" for a quote inside one). ncu quotes every field.
std::vector<std::string> csv_record(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch != '"') {
        fields.back() += ch;
      } else if (i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      fields.emplace_back();
    } else {
      fields.back() += ch;
    }
  }
  return fields;
}

// The factor from a unit ncu prints to the base unit the report uses (bytes, nanoseconds): 1 with
// --print-units base, which the CLI passes; the others in case a CSV was captured without it.
double unit_scale(const std::string& unit) {
  static const std::map<std::string, double> scales = {
      {"Kbyte", 1e3}, {"Mbyte", 1e6},   {"Gbyte", 1e9}, {"usecond", 1e3},
      {"us", 1e3},    {"msecond", 1e6}, {"ms", 1e6},    {"second", 1e9}};
  const auto it = scales.find(unit);
  return it == scales.end() ? 1.0 : it->second;
}

// A counter in base units; nullopt when missing or not a number.
std::optional<double> reading(const NcuRow& row, const std::map<std::string, std::string>& units,
                              const std::string& metric) {
  const std::optional<double> v = row.number(metric);
  if (!v) return std::nullopt;
  const auto unit = units.find(metric);
  return unit == units.end() ? *v : *v * unit_scale(unit->second);
}

std::optional<double> sum_of(std::optional<double> a, std::optional<double> b) {
  if (!a || !b) return std::nullopt;
  return *a + *b;
}

std::optional<double> ratio_of(std::optional<double> measured, std::optional<double> predicted) {
  if (!measured || !predicted || !(*predicted > 0.0)) return std::nullopt;
  return *measured / *predicted;
}

TargetResult judge(std::string name, std::string threshold, std::optional<double> measured,
                   bool applies, bool above, double limit) {
  TargetResult t{std::move(name), std::move(threshold), measured, Verdict::kNotApplicable};
  if (!applies) return t;
  if (!measured) {
    t.verdict = Verdict::kNoReading;
    return t;
  }
  const bool met = above ? *measured > limit : *measured < limit;
  t.verdict = met ? Verdict::kMet : Verdict::kNotMet;
  return t;
}

// The registry entry behind a bench row: "auto(<chosen>)" is its chosen kernel; cuBLAS has none.
const KernelInfo* kernel_of(const std::string& row_kernel) {
  std::string name = row_kernel;
  if (name.rfind("auto(", 0) == 0 && name.back() == ')') name = name.substr(5, name.size() - 6);
  return find_kernel(name);
}

// The seed's FMA-utilisation target is for fp32 SIMT kernels: the tilegemm ones on the FP32 pipe
// and cuBLAS's SGEMM (an f32 problem never gets tf32 math).
bool is_fp32_simt(const std::string& row_kernel, GemmTypes types) {
  if (types.ab != DType::kF32) return false;
  if (row_kernel == "cublas") return true;
  const KernelInfo* info = kernel_of(row_kernel);
  return info != nullptr && info->desc.op_class == OpClass::kSimt;
}

// The analysis device for the model's per-SM limits: by the GPU's name, else by its compute
// capability (the limits are the architecture's).
const analysis::DeviceSpec* model_device(const DeviceInfo& device, std::string* key) {
  *key = bench::device_key_for_name(device.name);
  if (key->empty()) {
    const std::string cc = device.cuda_cc();
    if (cc == "9.0") *key = "h100";
    if (cc == "8.0") *key = "a100";
  }
  return key->empty() ? nullptr : analysis::find_device_spec(*key);
}

ProfiledKernel profiled(const NcuRow& launch, const NcuTable& table, const bench::BenchRow& row,
                        const char* mapped_by, const analysis::DeviceSpec* device) {
  ProfiledKernel k;
  k.kernel = row.kernel;
  k.ncu_kernel = launch.cell("Kernel Name").value_or("");
  k.shape = row.shape;
  k.types = row.types;
  k.la = row.la;
  k.lb = row.lb;
  k.lc = row.lc;
  k.mapped_by = mapped_by;
  k.counters = read_counters(launch, table.units);
  k.targets = judge_targets(k.counters, is_fp32_simt(row.kernel, row.types));
  if (const KernelInfo* info = row.kernel == "cublas" ? nullptr : kernel_of(row.kernel)) {
    k.model = compare_with_model(k.counters, row.shape, row.types, info->tile, device);
  }
  return k;
}

}  // namespace

// --- 1. metrics and the command line -----------------------------------------------------------

const std::vector<std::string>& tensor_metrics() {
  static const std::vector<std::string> names = {
      "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active",
      "sm__pipe_tensor_op_hgmma_cycles_active.avg.pct_of_peak_sustained_active",
      "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
      "sm__inst_executed_pipe_tensor_op_gmma.sum",
      "sm__inst_executed_pipe_tensor_op_hmma.sum",
  };
  return names;
}

const std::vector<std::string>& stall_reasons() {
  static const std::vector<std::string> reasons = {
      "barrier",      "long_scoreboard", "short_scoreboard", "wait",           "math_pipe_throttle",
      "mio_throttle", "lg_throttle",     "membar",           "dispatch_stall", "no_instruction",
      "not_selected", "selected",        "branch_resolving", "sleeping",       "drain",
      "misc",         "tex_throttle",    "imc_miss"};
  return reasons;
}

std::string stall_metric(const std::string& reason) {
  return "smsp__average_warps_issue_stalled_" + reason + "_per_issue_active.ratio";
}

std::vector<std::string> requested_metrics() {
  std::vector<std::string> metrics = {kFfmaThreadInst, kGlobalLoadSectors, kGlobalLoadEfficiency,
                                      kRegisters,      kAchievedOccupancy, kTheoreticalOccupancy,
                                      kFmaPipe,        kBankConflicts,     kSharedWavefronts,
                                      kDramRead,       kDramWrite,         kL2ToSmSectors,
                                      kDuration};
  metrics.insert(metrics.end(), tensor_metrics().begin(), tensor_metrics().end());
  for (const std::string& reason : stall_reasons()) metrics.push_back(stall_metric(reason));
  return metrics;
}

std::vector<std::string> ncu_command(const std::string& ncu, const std::string& self,
                                     const ProfileRequest& request,
                                     const std::vector<std::string>& metrics,
                                     const std::string& log_path, const std::string& bench_json) {
  std::string metric_list;
  for (const std::string& m : metrics) metric_list += (metric_list.empty() ? "" : ",") + m;
  // Only launches inside a push/pop range of the tilegemm domain, one per bench row: ncu's NVTX
  // filter reads "<domain>@<range>", a trailing '/' meaning a push/pop range, "regex:" a pattern.
  const std::string include = std::string("regex:") + bench::kNvtxDomain + "@.+/";
  std::vector<std::string> argv = {ncu,         "--clock-control", "none",   "--print-units",
                                   "base",      "--csv",           "--page", "raw",
                                   "--nvtx",    "--nvtx-include",  include,  "--metrics",
                                   metric_list, "--log-file",      log_path, self,
                                   "bench"};
  if (request.kernels.empty()) {
    argv.insert(argv.end(), {"--providers", "cublas"});
  } else {
    argv.insert(argv.end(), {"--kernels", request.kernels});
  }
  for (const bench::Shape& s : request.shapes) {
    argv.push_back("--shape");
    argv.push_back(s.to_string());
  }
  // --no-block: ncu serializes launches, so a blocking kernel would only wait out its timeout.
  const std::vector<std::string> fixed_flags = {"--warmup", "1",    "--reps",   "1",
                                                "--rounds", "1",    "--nvtx",   "--no-block",
                                                "--format", "json", "--output", bench_json};
  argv.insert(argv.end(), fixed_flags.begin(), fixed_flags.end());
  if (request.types != GemmTypes{}) {
    argv.insert(argv.end(), {"--dtype", dtype_name(request.types.ab), "--dtype-c",
                             dtype_name(request.types.c)});
  }
  const std::pair<const char*, Layout> layouts[] = {
      {"--layout-a", request.la}, {"--layout-b", request.lb}, {"--layout-c", request.lc}};
  for (const auto& [flag, layout] : layouts) {
    if (layout != Layout::kRowMajor) argv.insert(argv.end(), {flag, layout_name(layout)});
  }
  return argv;
}

std::optional<std::string> find_executable(const std::string& name, std::string_view path_env) {
  auto executable = [](const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
  };
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos) {
    if (executable(name)) return name;
    return std::nullopt;
  }
  while (true) {
    const std::size_t at = path_env.find(':');
    const std::string dir(path_env.substr(0, at));
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (executable(candidate)) return candidate;
    if (at == std::string_view::npos) return std::nullopt;
    path_env.remove_prefix(at + 1);
  }
}

// --- 2. ncu's raw CSV and log ------------------------------------------------------------------

std::optional<double> ncu_number(std::string_view text) {
  std::string digits;
  for (char ch : text) {
    if (ch != ',') digits += ch;
  }
  if (digits.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(digits.c_str(), &end);
  if (end != digits.c_str() + digits.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<std::string> NcuRow::cell(const std::string& column) const {
  const auto it = cells.find(column);
  if (it == cells.end()) return std::nullopt;
  return it->second;
}

std::optional<double> NcuRow::number(const std::string& column) const {
  const std::optional<std::string> text = cell(column);
  return text ? ncu_number(*text) : std::nullopt;
}

bool NcuTable::has_column(const std::string& column) const {
  return std::find(headers.begin(), headers.end(), column) != headers.end();
}

NcuTable parse_ncu_csv(std::string_view text) {
  NcuTable table;
  bool in_table = false;
  for (std::string_view line : lines_of(text)) {
    // ncu's own messages ("==PROF==", "==WARNING==") can come before and after the table.
    if (line.empty() || line.rfind("==", 0) == 0 || line.front() != '"') continue;
    std::vector<std::string> fields = csv_record(line);
    if (!in_table) {
      if (fields.front() != "ID") continue;
      table.headers = std::move(fields);
      for (const std::string& h : table.headers) {
        if (h.find("Push/Pop_Range") != std::string::npos) table.nvtx_column = h;
      }
      in_table = true;
      continue;
    }
    // Not a record of this table, or its header again.
    if (fields.size() != table.headers.size() || fields == table.headers) continue;
    if (fields.front().empty()) {  // the units row
      for (std::size_t c = 0; c < fields.size(); ++c) table.units[table.headers[c]] = fields[c];
      continue;
    }
    NcuRow row;
    for (std::size_t c = 0; c < fields.size(); ++c) row.cells[table.headers[c]] = fields[c];
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::string nvtx_range_in(std::string_view cell, std::string_view domain) {
  // The cell: the thread id, then one quoted "domain:range:attributes..." per range on the stack,
  // outermost first. The last of `domain` is the innermost.
  std::string found;
  std::size_t at = 0;
  while ((at = cell.find('"', at)) != std::string_view::npos) {
    const std::size_t end = cell.find('"', at + 1);
    if (end == std::string_view::npos) break;
    const std::string_view entry = cell.substr(at + 1, end - at - 1);
    at = end + 1;
    const std::size_t colon = entry.find(':');
    if (colon == std::string_view::npos || entry.substr(0, colon) != domain) continue;
    const std::string_view rest = entry.substr(colon + 1);
    found = std::string(rest.substr(0, rest.find(':')));
  }
  return found;
}

bool counters_not_permitted(std::string_view log) {
  return log.find("ERR_NVGPUCTRPERM") != std::string_view::npos;
}

std::vector<std::string> metrics_not_found(std::string_view log,
                                           const std::vector<std::string>& requested) {
  // "==ERROR== Failed to find metric regex:^name\.(sum|avg|...)$" or "... metric name".
  std::vector<std::string> missing;
  const std::string_view marker = "Failed to find metric ";
  for (std::string_view line : lines_of(log)) {
    const std::size_t at = line.find(marker);
    if (at == std::string_view::npos) continue;
    std::string_view token = line.substr(at + marker.size());
    token = token.substr(0, token.find_first_of(" \t"));
    if (token.rfind("regex:", 0) == 0) token.remove_prefix(6);
    if (!token.empty() && token.front() == '^') token.remove_prefix(1);
    std::string name;
    for (std::size_t i = 0; i < token.size(); ++i) {
      if (token[i] == '\\' && i + 1 < token.size()) continue;  // "\." is a '.'
      if (token[i] == '(' || token[i] == '$') break;
      name += token[i];
    }
    while (!name.empty() && name.back() == '.') name.pop_back();
    if (name.empty()) continue;
    for (const std::string& m : requested) {
      const bool same = m == name || m.rfind(name + ".", 0) == 0;
      if (same && std::find(missing.begin(), missing.end(), m) == missing.end()) {
        missing.push_back(m);
      }
    }
  }
  return missing;
}

std::vector<std::string> ncu_errors(std::string_view log) {
  std::vector<std::string> errors;
  const std::string_view prefix = "==ERROR== ";
  for (std::string_view line : lines_of(log)) {
    if (line.rfind(prefix, 0) == 0) errors.emplace_back(line.substr(prefix.size()));
  }
  return errors;
}

// --- 3. counters and targets -------------------------------------------------------------------

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::kMet:
      return "met";
    case Verdict::kNotMet:
      return "not met";
    case Verdict::kNoReading:
      return "no reading";
    case Verdict::kNotApplicable:
      return "n/a";
  }
  return "unknown";
}

Counters read_counters(const NcuRow& row, const std::map<std::string, std::string>& units) {
  Counters c;
  auto get = [&](const char* metric) { return reading(row, units, metric); };
  c.duration_ns = get(kDuration);
  c.ffma_thread_inst = get(kFfmaThreadInst);
  c.global_load_sectors = get(kGlobalLoadSectors);
  c.global_load_efficiency_pct = get(kGlobalLoadEfficiency);
  c.registers = get(kRegisters);
  c.achieved_occupancy_pct = get(kAchievedOccupancy);
  c.theoretical_occupancy_pct = get(kTheoreticalOccupancy);
  c.fma_pipe_pct = get(kFmaPipe);
  c.bank_conflicts = get(kBankConflicts);
  c.shared_wavefronts = get(kSharedWavefronts);
  c.dram_read_bytes = get(kDramRead);
  c.dram_write_bytes = get(kDramWrite);
  // A sector is 32 bytes.
  if (const std::optional<double> sectors = get(kL2ToSmSectors)) c.l2_to_sm_bytes = *sectors * 32.0;
  if (c.bank_conflicts && c.shared_wavefronts && *c.shared_wavefronts > 0.0) {
    c.bank_conflict_pct = *c.bank_conflicts / *c.shared_wavefronts * 100.0;
  }
  for (const std::string& metric : tensor_metrics()) {
    if (const std::optional<double> v = reading(row, units, metric)) {
      c.tensor_metric = metric;
      c.tensor_value = v;
      break;
    }
  }
  for (const std::string& reason : stall_reasons()) {
    if (const std::optional<double> v = row.number(stall_metric(reason))) {
      c.top_stalls.push_back({reason, *v});
    }
  }
  std::stable_sort(c.top_stalls.begin(), c.top_stalls.end(),
                   [](const Stall& a, const Stall& b) { return a.ratio > b.ratio; });
  if (c.top_stalls.size() > 3) c.top_stalls.resize(3);
  return c;
}

std::vector<TargetResult> judge_targets(const Counters& c, bool fp32_simt) {
  // Load efficiency and bank conflicts judge LSU instructions: a kernel whose operands reach
  // shared memory by cp.async or TMA issues no global load instructions that the efficiency
  // metric counts (it reads exactly 0, or there are no global load sectors at all), and one
  // without shared memory no shared wavefronts; the targets do not apply there.
  const bool lsu_loads = c.global_load_sectors.value_or(1.0) > 0.0 &&
                         c.global_load_efficiency_pct.value_or(1.0) > 0.0;
  const bool shared = c.shared_wavefronts.value_or(1.0) > 0.0;
  return {
      judge("FMA utilisation", "> 80%", c.fma_pipe_pct, fp32_simt, true, 80.0),
      judge("global load efficiency", "> 80%", c.global_load_efficiency_pct, lsu_loads, true,
            80.0),
      judge("shared-memory bank conflicts", "< 5%", c.bank_conflict_pct, shared, false, 5.0),
      judge("achieved occupancy", "> 50%", c.achieved_occupancy_pct, true, true, 50.0),
  };
}

// --- 4. model beside measurement, and the report -----------------------------------------------

std::vector<ModelComparison> compare_with_model(const Counters& c, const bench::Shape& shape,
                                                GemmTypes types, const TileConfig& tile,
                                                const analysis::DeviceSpec* device) {
  const analysis::GemmSize size{shape.m, shape.n, shape.k};
  const analysis::TrafficModel traffic =
      analysis::traffic(size, analysis::TileDims{tile.bm, tile.bn, tile.bk}, types);
  std::vector<ModelComparison> out;
  auto add = [&](std::string quantity, std::string model, std::optional<double> predicted,
                 std::optional<double> measured) {
    out.push_back({std::move(quantity), std::move(model), predicted, measured,
                   ratio_of(measured, predicted)});
  };
  if (traffic.has_tiled) {
    add("L2->SM load bytes", "tile loads: A and B per block per K step", traffic.tiled_bytes,
        c.l2_to_sm_bytes);
  }
  const std::optional<double> dram = sum_of(c.dram_read_bytes, c.dram_write_bytes);
  const double ideal = analysis::ideal_bytes(size, types);
  add("DRAM bytes (read + write)", "minimum: each operand moved once", ideal, dram);
  std::optional<double> measured_ai;
  if (dram && *dram > 0.0) measured_ai = analysis::flops(size) / *dram;
  add("arithmetic intensity (FLOP/byte)", "2MNK over the DRAM minimum",
      analysis::arithmetic_intensity(size, types), measured_ai);
  if (device != nullptr && c.registers) {
    const analysis::Occupancy occ =
        analysis::occupancy(tile.threads, tile.smem_bytes, static_cast<int>(*c.registers), *device);
    add("theoretical occupancy (%)",
        "occupancy calculator, " + std::to_string(static_cast<int>(*c.registers)) +
            " registers/thread, limited by " + occ.limiter,
        occ.occupancy * 100.0, c.theoretical_occupancy_pct);
  }
  return out;
}

ProfileReport build_report(const NcuTable& table, const bench::BenchReport& bench,
                           bench::Providers providers) {
  ProfileReport r;
  r.device = bench.device;
  const analysis::DeviceSpec* device = model_device(bench.device, &r.device_key);
  std::vector<const bench::BenchRow*> ran;
  for (const bench::BenchRow& row : bench.rows) {
    if (row.status == bench::RowStatus::kOk) {
      ran.push_back(&row);
    } else {
      r.notes.push_back(std::string("not profiled: ") + row.kernel + " " + row.shape.to_string() +
                        " is " + bench::row_status_name(row.status) +
                        (row.detail.empty() ? "" : " (" + row.detail + ")"));
    }
  }
  std::size_t next_in_order = 0;
  std::vector<const bench::BenchRow*> profiled_rows;
  for (const NcuRow& launch : table.rows) {
    const bench::BenchRow* row = nullptr;
    const char* mapped_by = "nvtx";
    const std::string range =
        table.nvtx_column.empty()
            ? std::string()
            : nvtx_range_in(launch.cell(table.nvtx_column).value_or(""), bench::kNvtxDomain);
    if (!range.empty()) {
      for (const bench::BenchRow* candidate : ran) {
        if (bench::nvtx_range_name(candidate->kernel, candidate->shape) == range) row = candidate;
      }
    } else if (next_in_order < ran.size()) {
      row = ran[next_in_order++];
      mapped_by = "order";
    }
    const std::string ncu_kernel = launch.cell("Kernel Name").value_or("?");
    if (row == nullptr) {
      r.notes.push_back("launch " + launch.cell("ID").value_or("?") + " (" + ncu_kernel +
                        ") maps to no bench row" +
                        (range.empty() ? "" : " (range '" + range + "')"));
      continue;
    }
    profiled_rows.push_back(row);
    const bool is_cublas = row->kernel == "cublas";
    if ((is_cublas && !providers.cublas) || (!is_cublas && !providers.tilegemm)) continue;
    r.kernels.push_back(profiled(launch, table, *row, mapped_by, device));
  }
  for (const bench::BenchRow* row : ran) {
    if (std::find(profiled_rows.begin(), profiled_rows.end(), row) == profiled_rows.end()) {
      r.notes.push_back("no launch profiled for " + row->kernel + " " + row->shape.to_string());
    }
  }
  return r;
}

}  // namespace tilegemm::profile
