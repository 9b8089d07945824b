// The writers of `tilegemm profile`: three sections (counters, the seed's targets, the model
// beside the measurement) as aligned text, markdown or CSV, and one JSON object.
#include <cmath>
#include <ostream>

#include "tilegemm/profile.hpp"

namespace tilegemm::profile {

namespace {

using bench::fixed;
using nlohmann::json;

// "-" for a counter ncu gave no value for.
std::string cell(std::optional<double> v, int decimals, double scale = 1.0) {
  return v ? fixed(*v / scale, decimals) : "-";
}

json number(std::optional<double> v) {
  return v && std::isfinite(*v) ? json(*v) : json(nullptr);
}

std::string layouts(const ProfiledKernel& k) {
  return std::string(layout_name(k.la)) + "," + layout_name(k.lb) + "," + layout_name(k.lc);
}

// "long_scoreboard 2.31, barrier 1.20, wait 0.40"
std::string stalls_text(const std::vector<Stall>& stalls) {
  std::string out;
  for (const Stall& s : stalls)
    out += (out.empty() ? "" : ", ") + s.reason + " " + fixed(s.ratio, 2);
  return out.empty() ? "-" : out;
}

// The tensor-pipe reading with the counter it came from: a percentage or an instruction count.
std::string tensor_text(const Counters& c) {
  if (!c.tensor_value) return "-";
  const bool pct = c.tensor_metric.find(".pct_") != std::string::npos;
  const std::string short_name = c.tensor_metric.substr(0, c.tensor_metric.find('.'));
  return (pct ? fixed(*c.tensor_value, 1) + "%" : fixed(*c.tensor_value, 0)) + " (" + short_name +
         ")";
}

bench::Section counters_section(const ProfileReport& r) {
  bench::Section s;
  s.title = "Counters (Nsight Compute, one launch per row)";
  s.notes_before.push_back(r.device.name.empty() ? std::string("device: unknown")
                                                 : bench::device_line(r.device));
  bench::Table& t = s.table;
  t.add_column("kernel");
  t.add_column("M", true);
  t.add_column("N", true);
  t.add_column("K", true);
  t.add_column("layouts");
  t.add_column("types");
  t.add_column("time (us)", true);
  t.add_column("regs", true);
  t.add_column("occ theor (%)", true);
  t.add_column("occ achieved (%)", true);
  t.add_column("FMA pipe (%)", true);
  t.add_column("FFMA (M thread inst)", true);
  t.add_column("ld sectors (M)", true);
  t.add_column("ld eff (%)", true);
  t.add_column("bank conflicts (%)", true);
  t.add_column("tensor pipe");
  t.add_column("DRAM read (MB)", true);
  t.add_column("DRAM write (MB)", true);
  t.add_column("L2->SM (MB)", true);
  t.add_column("top stalls (per issue)");
  t.add_column("ncu kernel");
  for (const ProfiledKernel& k : r.kernels) {
    const Counters& c = k.counters;
    t.add_row({k.kernel,
               std::to_string(k.shape.m),
               std::to_string(k.shape.n),
               std::to_string(k.shape.k),
               layouts(k),
               gemm_types_name(k.types),
               cell(c.duration_ns, 2, 1e3),
               cell(c.registers, 0),
               cell(c.theoretical_occupancy_pct, 2),
               cell(c.achieved_occupancy_pct, 2),
               cell(c.fma_pipe_pct, 1),
               cell(c.ffma_thread_inst, 1, 1e6),
               cell(c.global_load_sectors, 2, 1e6),
               cell(c.global_load_efficiency_pct, 1),
               cell(c.bank_conflict_pct, 2),
               tensor_text(c),
               cell(c.dram_read_bytes, 2, 1e6),
               cell(c.dram_write_bytes, 2, 1e6),
               cell(c.l2_to_sm_bytes, 2, 1e6),
               stalls_text(c.top_stalls),
               k.ncu_kernel});
  }
  s.notes_after = r.notes;
  return s;
}

bench::Section targets_section(const ProfileReport& r) {
  bench::Section s;
  s.title = "The seed's targets";
  s.notes_before.push_back(
      "FMA utilisation is sm__pipe_fma_cycles_active (fp32 SIMT kernels only); global load "
      "efficiency smsp__sass_average_data_bytes_per_sector_mem_global_op_ld; bank conflicts "
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared / l1tex__data_pipe_lsu_wavefronts_mem_shared;"
      " occupancy the achieved sm__warps_active.");
  bench::Table& t = s.table;
  t.add_column("kernel");
  t.add_column("shape");
  t.add_column("target");
  t.add_column("want");
  t.add_column("measured (%)", true);
  t.add_column("verdict");
  for (const ProfiledKernel& k : r.kernels) {
    for (const TargetResult& target : k.targets) {
      t.add_row({k.kernel, k.shape.to_string(), target.name, target.threshold,
                 cell(target.measured, 2), verdict_name(target.verdict)});
    }
  }
  return s;
}

bench::Section model_section(const ProfileReport& r) {
  bench::Section s;
  s.title = "Model beside measurement (tilegemm kernels)";
  s.notes_before.push_back(
      "predicted: the analysis model (`tilegemm analyze`) for the kernel's tile and the shape; "
      "measured: the counters above (L2->SM = lts__t_sectors_srcunit_tex_op_read x 32 bytes, "
      "DRAM = dram__bytes_read + dram__bytes_write, occupancy = "
      "sm__maximum_warps_per_active_cycle_pct); " +
      (r.device_key.empty() ? std::string("no per-SM limits known for this GPU: no occupancy row")
                            : std::string("per-SM limits of ") + r.device_key));
  bench::Table& t = s.table;
  t.add_column("kernel");
  t.add_column("shape");
  t.add_column("quantity");
  t.add_column("predicted", true);
  t.add_column("measured", true);
  t.add_column("measured/predicted", true);
  t.add_column("model");
  for (const ProfiledKernel& k : r.kernels) {
    for (const ModelComparison& m : k.model) {
      const bool bytes = m.quantity.find("bytes") != std::string::npos;
      const double scale = bytes ? 1e6 : 1.0;
      const std::string unit = bytes ? " MB" : "";
      t.add_row({k.kernel, k.shape.to_string(), m.quantity,
                 m.predicted ? fixed(*m.predicted / scale, 2) + unit : "-",
                 m.measured ? fixed(*m.measured / scale, 2) + unit : "-", cell(m.ratio, 3),
                 m.model});
    }
  }
  return s;
}

json counters_json(const Counters& c) {
  json stalls = json::array();
  for (const Stall& s : c.top_stalls) stalls.push_back({{"reason", s.reason}, {"ratio", s.ratio}});
  return json{{"duration_ns", number(c.duration_ns)},
              {"registers_per_thread", number(c.registers)},
              {"theoretical_occupancy_pct", number(c.theoretical_occupancy_pct)},
              {"achieved_occupancy_pct", number(c.achieved_occupancy_pct)},
              {"fma_pipe_pct", number(c.fma_pipe_pct)},
              {"ffma_thread_inst", number(c.ffma_thread_inst)},
              {"global_load_sectors", number(c.global_load_sectors)},
              {"global_load_efficiency_pct", number(c.global_load_efficiency_pct)},
              {"bank_conflicts", number(c.bank_conflicts)},
              {"shared_wavefronts", number(c.shared_wavefronts)},
              {"bank_conflict_pct", number(c.bank_conflict_pct)},
              {"tensor_metric", c.tensor_metric.empty() ? json(nullptr) : json(c.tensor_metric)},
              {"tensor_value", number(c.tensor_value)},
              {"dram_read_bytes", number(c.dram_read_bytes)},
              {"dram_write_bytes", number(c.dram_write_bytes)},
              {"l2_to_sm_bytes", number(c.l2_to_sm_bytes)},
              {"top_stalls", stalls}};
}

json kernel_json(const ProfiledKernel& k) {
  json targets = json::array();
  for (const TargetResult& t : k.targets) {
    targets.push_back({{"target", t.name},
                       {"want", t.threshold},
                       {"measured", number(t.measured)},
                       {"verdict", verdict_name(t.verdict)}});
  }
  json model = json::array();
  for (const ModelComparison& m : k.model) {
    model.push_back({{"quantity", m.quantity},
                     {"model", m.model},
                     {"predicted", number(m.predicted)},
                     {"measured", number(m.measured)},
                     {"ratio", number(m.ratio)}});
  }
  return json{{"kernel", k.kernel},
              {"ncu_kernel", k.ncu_kernel},
              {"m", k.shape.m},
              {"n", k.shape.n},
              {"k", k.shape.k},
              {"layout_a", layout_name(k.la)},
              {"layout_b", layout_name(k.lb)},
              {"layout_c", layout_name(k.lc)},
              {"dtype", dtype_name(k.types.ab)},
              {"dtype_c", dtype_name(k.types.c)},
              {"mapped_by", k.mapped_by},
              {"counters", counters_json(k.counters)},
              {"targets", targets},
              {"model", model}};
}

}  // namespace

std::vector<bench::Section> profile_sections(const ProfileReport& report) {
  return {counters_section(report), targets_section(report), model_section(report)};
}

json to_json(const ProfileReport& report) {
  json kernels = json::array();
  for (const ProfiledKernel& k : report.kernels) kernels.push_back(kernel_json(k));
  return json{{"device", bench::to_json(report.device)},
              {"model_device", report.device_key},
              {"command", report.command},
              {"timestamp", report.timestamp},
              {"kernels", kernels},
              {"notes", report.notes}};
}

void write_profile(std::ostream& os, const ProfileReport& report, bench::Format format) {
  if (format == bench::Format::kJson) {
    os << to_json(report).dump(2) << '\n';
    return;
  }
  bench::write_sections(os, profile_sections(report), format);
}

}  // namespace tilegemm::profile
