// `tilegemm analyze` without the printing: evaluates the models for one problem and tile, and
// lays the results out as sections (text, markdown, CSV) or as one JSON object.
#include <cstdio>
#include <ostream>

#include "tilegemm/analysis.hpp"

namespace tilegemm::analysis {

namespace {

using bench::fixed;
using nlohmann::json;

std::string format(const char* fmt, double value) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), fmt, value);
  return buf;
}

std::string tile_text(const TileDims& t) {
  auto part = [](std::int64_t v) { return v != 0 ? std::to_string(v) : std::string("-"); };
  return part(t.bm) + "x" + part(t.bn) + "x" + part(t.bk);
}

std::string bytes_text(double bytes) {
  return format("%.0f", bytes);
}

// The A/B type as the traffic section names it ("fp32" as the seed says).
std::string dtype_label(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return "fp32";
    case DType::kTF32:
      return "tf32 (fp32 storage)";
    case DType::kBF16:
    case DType::kF16:
      break;
  }
  return dtype_name(dtype);
}

std::string int_text(double v) {
  return format("%.0f", v);
}

TileRow square_row(int t, int regs, std::int64_t element_bytes, const DeviceSpec& device) {
  TileRow r;
  r.label = "T=" + std::to_string(t);
  r.tile = TileDims{t, t, t};
  r.threads = t * t;
  r.smem_bytes = 2LL * t * t * element_bytes;  // two T x T tiles of A/B's type
  r.reuse = t;
  r.regs_per_thread = regs;
  r.regs_source = "assumed (--regs)";
  r.occupancy = occupancy(r.threads, r.smem_bytes, regs, device);
  r.seed = seed_occupancy(r.threads, r.smem_bytes);
  return r;
}

json device_json(const DeviceSpec& s) {
  return json{{"key", s.key},
              {"name", s.name},
              {"fp32_tflops", s.fp32_tflops},
              {"bandwidth_gbs", s.bandwidth_gbs},
              {"source", s.source},
              {"tf32_tflops", s.tf32_tflops},
              {"bf16_tflops", s.bf16_tflops},
              {"fp16_tflops", s.fp16_tflops},
              {"fp8_tflops", s.fp8_tflops},
              {"tensor_source", s.tensor_source},
              {"measured", s.measured}};
}

json peak_json(const Peak& p) {
  return json{{"label", p.label}, {"tflops", p.tflops}, {"tensor", p.tensor}, {"source", p.source}};
}

}  // namespace

std::string seed_gb2(double bytes) {
  return format("%.2f GB", bytes / 1e9);
}
std::string seed_gb3(double bytes) {
  return format("%.3f GB", bytes / 1e9);
}
std::string seed_mb2(double bytes) {
  return format("%.2f MB", bytes / 1e6);
}
std::string seed_factor(double factor) {
  return format("%.1fx", factor);
}

AnalysisReport analyze(const AnalyzeRequest& request) {
  AnalysisReport r;
  r.request = request;
  const DeviceSpec* device = find_device_spec(request.device_key);
  if (device == nullptr) {
    std::string keys;
    for (const DeviceSpec& s : device_specs()) keys += (keys.empty() ? "" : ", ") + s.key;
    throw bench::InputError("--device", "'" + request.device_key +
                                            "' is not a known device (want one of " + keys + ")");
  }
  r.device = *device;
  if (!dtype_valid(request.types.ab)) throw bench::InputError("--dtype", "not a valid dtype");
  if (!types_supported(request.types)) {
    throw bench::InputError("--dtype-c", std::string("'") + dtype_name(request.types.c) +
                                             "' is not a C dtype for --dtype " +
                                             dtype_name(request.types.ab));
  }
  if (request.kernel != nullptr && !request.kernel->desc.computes(request.types)) {
    std::string computes;
    for (GemmTypes t : request.kernel->desc.types) {
      computes += (computes.empty() ? "" : ", ") + std::string(gemm_types_name(t));
    }
    throw bench::InputError("--kernel", "'" + request.kernel->name + "' does not compute " +
                                            gemm_types_name(request.types) + " (it computes " +
                                            computes + ": pick one with --dtype/--dtype-c)");
  }
  if (request.regs_per_thread < 1 || request.regs_per_thread > device->max_regs_per_thread) {
    throw bench::InputError("--regs", "'" + std::to_string(request.regs_per_thread) +
                                          "' must be 1.." +
                                          std::to_string(device->max_regs_per_thread));
  }
  if (request.kernel != nullptr) {
    const TileConfig& c = request.kernel->tile;
    r.tile = TileDims{c.bm, c.bn, c.bk};
    r.tile_label = request.kernel->name + " (block tile " + tile_text(r.tile) + ")";
  } else {
    if (request.tile.bm < 1 || request.tile.bn < 1 || request.tile.bk < 1) {
      throw bench::InputError("--tile", "tile sizes must be >= 1");
    }
    r.tile = request.tile;
    r.tile_label = tile_text(r.tile);
    if (r.tile.bm == r.tile.bn && r.tile.bn == r.tile.bk) {
      r.tile_label += " (square, T=" + std::to_string(r.tile.bm) + ")";
    }
  }
  const GemmTypes types = request.types;
  r.traffic = traffic(request.size, r.tile, types);
  r.intensity = arithmetic_intensity(request.size, types);
  r.op_class =
      request.kernel != nullptr ? request.kernel->desc.op_class : default_op_class(types.ab);

  std::vector<const DeviceSpec*> ceilings{device};
  if (const DeviceSpec* measured = measured_spec_for(device->key)) {
    const Peak p = peak_for(*measured, types.ab, r.op_class);
    if (p.tflops > 0.0) {
      ceilings.push_back(measured);
    } else {
      r.roofline_notes.push_back(measured->key + " is left out: it holds no measured " + p.label +
                                 " peak.");
    }
  }
  const GemmSize& size = request.size;
  for (const DeviceSpec* spec : ceilings) {
    RooflineSet set;
    set.device = *spec;
    set.peak = peak_for(*spec, types.ab, r.op_class);
    auto roof = [&](double intensity) {
      return roofline(intensity, set.peak.tflops, spec->bandwidth_gbs);
    };
    set.rows.push_back({"ideal: each operand moved once (seed 002)", ideal_bytes(size, types),
                        roof(r.intensity)});
    if (r.traffic.has_tiled) {
      const double b = r.traffic.tiled_bytes + r.traffic.c_store_bytes;
      set.rows.push_back({"tiled: tile loads + C store", b, roof(intensity_of(size, b))});
    }
    const double nb = r.traffic.naive_bytes + r.traffic.c_store_bytes;
    set.rows.push_back({"naive: per-thread loads + C store", nb, roof(intensity_of(size, nb))});
    r.rooflines.push_back(set);
  }

  const int regs = request.regs_per_thread;
  const auto element = static_cast<std::int64_t>(dtype_bytes(types.ab));
  for (int t : {8, 16, 32}) r.tiles.push_back(square_row(t, regs, element, *device));
  const bool square = request.kernel == nullptr && r.tile.bm == r.tile.bn && r.tile.bn == r.tile.bk;
  if (square && r.tile.bm != 8 && r.tile.bm != 16 && r.tile.bm != 32 && r.tile.bm <= 1024) {
    r.tiles.push_back(square_row(static_cast<int>(r.tile.bm), regs, element, *device));
  }
  if (request.kernel != nullptr) {
    const TileConfig& c = request.kernel->tile;
    TileRow k;
    k.label = request.kernel->name;
    k.tile = r.tile;
    k.threads = c.threads;
    k.smem_bytes = c.smem_bytes;
    k.reuse = r.traffic.has_tiled ? r.traffic.max_reduction : 1.0;
    k.regs_per_thread = request.kernel_regs.value_or(regs);
    k.regs_source = request.kernel_regs ? request.kernel_regs_source : "assumed (--regs)";
    k.occupancy = occupancy(k.threads, k.smem_bytes, k.regs_per_thread, *device);
    k.seed = seed_occupancy(k.threads, k.smem_bytes);
    r.tiles.push_back(k);
  }
  return r;
}

std::vector<bench::Section> analysis_sections(const AnalysisReport& r) {
  const GemmSize& size = r.request.size;
  const TrafficModel& t = r.traffic;
  std::vector<bench::Section> out;

  // Traffic.
  const GemmTypes types = r.request.types;
  const bool f32 = types == GemmTypes{};
  const std::string e = int_text(t.ab_bytes);    // bytes of an A/B element
  const std::string ec = int_text(t.c_bytes);    // bytes of a C element
  bench::Section traffic_s;
  traffic_s.title = "Memory traffic (seed 004 analyze_tiled_traffic; " + dtype_label(types.ab) +
                    ", loads of A and B)";
  std::string problem_line = "Problem: C = alpha*A*B + beta*C, M=" + std::to_string(size.m) +
                             " N=" + std::to_string(size.n) + " K=" + std::to_string(size.k) +
                             ", " + format("%.3f", flops(size) / 1e9) + " GFLOP; tile " +
                             r.tile_label;
  if (!f32) {
    problem_line += "; A/B " + std::string(dtype_name(types.ab)) + " (" + e + " bytes), C " +
                    dtype_name(types.c) + " (" + ec + " bytes), fp32 accumulation";
  }
  const Layout la = r.request.la, lb = r.request.lb, lc = r.request.lc;
  if (la != Layout::kRowMajor || lb != Layout::kRowMajor || lc != Layout::kRowMajor) {
    problem_line += std::string("; layouts A,B,C ") + layout_name(la) + "," + layout_name(lb) +
                    "," + layout_name(lc);
  }
  traffic_s.notes_before.push_back(problem_line + ".");
  bench::Table& tt = traffic_s.table;
  tt.add_column("model");
  tt.add_column("formula");
  tt.add_column("bytes", true);
  tt.add_column("size", true);
  tt.add_column("x minimum", true);
  tt.add_row({"naive", "M*N*(K+K)*" + e, bytes_text(t.naive_bytes), seed_gb2(t.naive_bytes),
              seed_factor(t.naive_bytes / t.minimum_bytes)});
  if (t.has_tiled) {
    tt.add_row({"tiled " + tile_text(r.tile), "blocks_m*blocks_n*blocks_k*(BM*BK+BK*BN)*" + e,
                bytes_text(t.tiled_bytes), seed_gb3(t.tiled_bytes),
                seed_factor(t.tiled_bytes / t.minimum_bytes)});
  }
  tt.add_row({"minimum", "(M*K + K*N)*" + e, bytes_text(t.minimum_bytes),
              seed_mb2(t.minimum_bytes), seed_factor(1.0)});
  if (t.has_tiled) {
    traffic_s.notes_after.push_back("Reduction factor naive/tiled: " + seed_factor(t.reduction) +
                                    " (theoretical max " + seed_factor(t.max_reduction) +
                                    " = 2*BM*BN/(BM+BN), which is T for a square tile)");
    traffic_s.notes_after.push_back("Blocks: " + std::to_string(t.blocks_m) + " x " +
                                    std::to_string(t.blocks_n) + ", " + std::to_string(t.blocks_k) +
                                    " K steps each; A tiles " + bytes_text(t.tiled_a_bytes) +
                                    " bytes, B tiles " + bytes_text(t.tiled_b_bytes) + " bytes.");
  } else {
    traffic_s.notes_after.push_back(
        "The kernel has no K tile (BK = -): it reads A and B straight from global memory, and "
        "only the naive model applies.");
  }
  traffic_s.notes_after.push_back(
      "C's store, M*N*" + ec + " = " + bytes_text(t.c_store_bytes) +
      " bytes, is in none of the three (as in the seed). Loads, not DRAM bytes: L2 serves part "
      "of them, so DRAM traffic lies between the minimum and the model.");
  out.push_back(traffic_s);

  // Roofline.
  bench::Section roof;
  roof.title = "Arithmetic intensity and roofline on " + r.device.name;
  const std::string ai_bytes = t.ab_bytes == t.c_bytes ? e + "(MK + KN + MN)"
                                                       : e + "(MK + KN) + " + ec + "MN";
  roof.notes_before.push_back("AI = 2MNK / (" + ai_bytes + ") = " + format("%.0f", flops(size)) +
                              " / " + format("%.0f", flops(size) / r.intensity) + " = " +
                              fixed(r.intensity, 2) + " FLOP/byte (seed 002)");
  const Peak& peak = r.rooflines.front().peak;
  if (!f32 || r.op_class != OpClass::kSimt) {
    std::string why;
    if (r.request.kernel != nullptr) {
      why = r.request.kernel->name + " is op class " + op_class_name(r.op_class) +
            (peak.tensor ? "" : ": fp32 math whatever the storage type");
    } else {
      why = std::string("the ceiling of a ") + dtype_name(types.ab) +
            " GEMM on tensor cores; a SIMT kernel's is the FP32 peak (name one with --kernel)";
    }
    roof.notes_before.push_back("Peak: " + peak.label +
                                (peak.tensor ? " cores (dense)" : " (FFMA)") + ": " + why + ".");
  }
  bench::Table& rt = roof.table;
  rt.add_column("ceilings");
  rt.add_column(peak.label + " peak (TFLOP/s)", true);
  rt.add_column("bandwidth (GB/s)", true);
  rt.add_column("ridge (FLOP/byte)", true);
  rt.add_column("traffic model");
  rt.add_column("bytes", true);
  rt.add_column("AI (FLOP/byte)", true);
  rt.add_column("attainable (TFLOP/s)", true);
  rt.add_column("bound");
  for (const RooflineSet& set : r.rooflines) {
    const std::string label = set.device.measured ? set.device.key : set.device.key + " (spec)";
    for (const RooflineRow& row : set.rows) {
      rt.add_row({label, fixed(set.peak.tflops, 1), fixed(set.device.bandwidth_gbs, 0),
                  fixed(row.roofline.ridge, 2), row.model, bytes_text(row.bytes),
                  fixed(row.roofline.intensity, 2), fixed(row.roofline.attainable_tflops, 2),
                  row.roofline.compute_bound ? "compute" : "memory"});
    }
  }
  for (const RooflineSet& set : r.rooflines) {
    if (set.peak.tensor) {
      roof.notes_after.push_back(set.device.key + ": " + set.peak.source + "; bandwidth: " +
                                 set.device.source + ".");
    } else {
      roof.notes_after.push_back(set.device.key + ": " + set.device.source + ".");
    }
  }
  for (const std::string& note : r.roofline_notes) roof.notes_after.push_back(note);
  roof.notes_after.push_back(
      "attainable = min(peak, AI * bandwidth); compute-bound when AI >= ridge = peak / "
      "bandwidth.");
  out.push_back(roof);

  // Occupancy.
  const DeviceSpec& dev = r.device;
  bench::Section occ;
  occ.title = "Tile sizes and occupancy on " + dev.name + " (cc " + dev.cc + ")";
  occ.notes_before.push_back(
      "Per-SM limits: " + std::to_string(dev.max_threads_per_sm) + " threads (" +
      std::to_string(dev.max_warps_per_sm) + " warps), " + std::to_string(dev.max_blocks_per_sm) +
      " blocks, " + std::to_string(dev.regs_per_sm) +
      " registers (allocated per warp in units of " + std::to_string(dev.reg_alloc_unit) + "), " +
      std::to_string(dev.smem_per_sm_bytes / 1024) + " KB shared memory; at most " +
      std::to_string(dev.max_smem_per_block_bytes / 1024) + " KB and " +
      std::to_string(dev.max_threads_per_block) + " threads per block (" + dev.limits_source +
      ").");
  bench::Table& ot = occ.table;
  ot.add_column("tile");
  ot.add_column("threads", true);
  ot.add_column("smem (bytes)", true);
  ot.add_column("reuse", true);
  ot.add_column("regs/thread", true);
  ot.add_column("blocks/SM by smem", true);
  ot.add_column("by threads", true);
  ot.add_column("by regs", true);
  ot.add_column("cap", true);
  ot.add_column("blocks/SM", true);
  ot.add_column("limited by");
  ot.add_column("occupancy (%)", true);
  ot.add_column("seed: by 48 KB smem", true);
  ot.add_column("seed: by 1024 threads", true);
  for (const TileRow& row : r.tiles) {
    const Occupancy& o = row.occupancy;
    const bool launches = o.warps_per_block > 0;
    auto n = [&](int v) { return launches ? std::to_string(v) : std::string("-"); };
    ot.add_row({row.label, std::to_string(row.threads), std::to_string(row.smem_bytes),
                fixed(row.reuse, 1), std::to_string(row.regs_per_thread), n(o.by_smem),
                n(o.by_threads), n(o.by_registers), n(o.by_block_limit), std::to_string(o.blocks),
                o.limiter, fixed(100.0 * o.occupancy, 1),
                row.seed.by_smem_48kb >= 0 ? std::to_string(row.seed.by_smem_48kb) : "-",
                std::to_string(row.seed.by_threads_1024)});
  }
  occ.notes_after.push_back("Registers per thread: " + std::to_string(r.request.regs_per_thread) +
                            " is an assumption (--regs) for every row not marked otherwise.");
  for (const TileRow& row : r.tiles) {
    if (row.regs_source != "assumed (--regs)") {
      occ.notes_after.push_back(row.label + ": " + std::to_string(row.regs_per_thread) +
                                " registers per thread from " + row.regs_source + ".");
    }
  }
  if (r.request.runtime_blocks_per_sm) {
    occ.notes_after.push_back(
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor on " + r.request.runtime_device + ": " +
        std::to_string(*r.request.runtime_blocks_per_sm) + " blocks/SM for " +
        (r.request.kernel != nullptr ? r.request.kernel->name : std::string("the kernel")) + ".");
  }
  if (!r.request.runtime_plan.empty()) {
    occ.notes_after.push_back("Plan on " + r.request.runtime_device + ": " +
                              r.request.runtime_plan + ".");
  }
  occ.notes_after.push_back(
      "Shared memory per block counts the runtime's " +
      std::to_string(dev.smem_reserved_per_block_bytes) +
      "-byte reservation, in 128-byte units, at the largest carveout. The seed's two columns "
      "divide its 'typical' 48 KB of shared memory and 1024 threads by the block's own.");
  out.push_back(occ);
  return out;
}

json to_json(const AnalysisReport& r) {
  const TrafficModel& t = r.traffic;
  json traffic_j{{"ab_bytes_per_element", t.ab_bytes},
                 {"c_bytes_per_element", t.c_bytes},
                 {"naive_bytes", t.naive_bytes},
                 {"minimum_bytes", t.minimum_bytes},
                 {"c_store_bytes", t.c_store_bytes},
                 {"naive", seed_gb2(t.naive_bytes)},
                 {"minimum", seed_mb2(t.minimum_bytes)}};
  if (t.has_tiled) {
    traffic_j["tiled_bytes"] = t.tiled_bytes;
    traffic_j["tiled_a_bytes"] = t.tiled_a_bytes;
    traffic_j["tiled_b_bytes"] = t.tiled_b_bytes;
    traffic_j["tiled"] = seed_gb3(t.tiled_bytes);
    traffic_j["reduction"] = t.reduction;
    traffic_j["max_reduction"] = t.max_reduction;
    traffic_j["blocks"] = {t.blocks_m, t.blocks_n, t.blocks_k};
  } else {
    traffic_j["tiled_bytes"] = nullptr;
  }
  json rooflines = json::array();
  for (const RooflineSet& set : r.rooflines) {
    json rows = json::array();
    for (const RooflineRow& row : set.rows) {
      rows.push_back({{"model", row.model},
                      {"bytes", row.bytes},
                      {"intensity", row.roofline.intensity},
                      {"ridge", row.roofline.ridge},
                      {"attainable_tflops", row.roofline.attainable_tflops},
                      {"bound", row.roofline.compute_bound ? "compute" : "memory"}});
    }
    rooflines.push_back(
        {{"device", device_json(set.device)}, {"peak", peak_json(set.peak)}, {"rows", rows}});
  }
  json tiles = json::array();
  for (const TileRow& row : r.tiles) {
    const Occupancy& o = row.occupancy;
    tiles.push_back({{"label", row.label},
                     {"bm", row.tile.bm},
                     {"bn", row.tile.bn},
                     {"bk", row.tile.bk},
                     {"threads", row.threads},
                     {"smem_bytes", row.smem_bytes},
                     {"reuse", row.reuse},
                     {"regs_per_thread", row.regs_per_thread},
                     {"regs_source", row.regs_source},
                     {"blocks_by_smem", o.by_smem},
                     {"blocks_by_threads", o.by_threads},
                     {"blocks_by_registers", o.by_registers},
                     {"blocks_cap", o.by_block_limit},
                     {"blocks_per_sm", o.blocks},
                     {"limited_by", o.limiter},
                     {"occupancy", o.occupancy},
                     {"seed_blocks_by_smem_48kb", row.seed.by_smem_48kb},
                     {"seed_blocks_by_threads_1024", row.seed.by_threads_1024}});
  }
  const DeviceSpec& dev = r.device;
  json out{
      {"problem",
       {{"m", r.request.size.m},
        {"n", r.request.size.n},
        {"k", r.request.size.k},
        {"flops", flops(r.request.size)},
        {"dtype", dtype_name(r.request.types.ab)},
        {"dtype_c", dtype_name(r.request.types.c)},
        {"types", gemm_types_name(r.request.types)},
        {"layout_a", layout_name(r.request.la)},
        {"layout_b", layout_name(r.request.lb)},
        {"layout_c", layout_name(r.request.lc)}}},
      {"op_class", op_class_name(r.op_class)},
      {"tile", {{"bm", r.tile.bm}, {"bn", r.tile.bn}, {"bk", r.tile.bk}, {"label", r.tile_label}}},
      {"traffic", traffic_j},
      {"arithmetic_intensity", r.intensity},
      {"rooflines", rooflines},
      {"roofline_notes", r.roofline_notes},
      {"device_limits",
       {{"device", device_json(dev)},
        {"cc", dev.cc},
        {"max_threads_per_sm", dev.max_threads_per_sm},
        {"max_warps_per_sm", dev.max_warps_per_sm},
        {"max_blocks_per_sm", dev.max_blocks_per_sm},
        {"max_threads_per_block", dev.max_threads_per_block},
        {"regs_per_sm", dev.regs_per_sm},
        {"reg_alloc_unit", dev.reg_alloc_unit},
        {"smem_per_sm_bytes", dev.smem_per_sm_bytes},
        {"max_smem_per_block_bytes", dev.max_smem_per_block_bytes},
        {"smem_reserved_per_block_bytes", dev.smem_reserved_per_block_bytes},
        {"source", dev.limits_source}}},
      {"tiles", tiles},
      {"regs_assumed", r.request.regs_per_thread}};
  if (r.request.runtime_blocks_per_sm) {
    out["runtime_blocks_per_sm"] = *r.request.runtime_blocks_per_sm;
    out["runtime_device"] = r.request.runtime_device;
  }
  if (!r.request.runtime_plan.empty()) out["runtime_plan"] = r.request.runtime_plan;
  return out;
}

void write_analysis(std::ostream& os, const AnalysisReport& report, bench::Format format) {
  if (format == bench::Format::kJson) {
    os << to_json(report).dump(2) << '\n';
    return;
  }
  bench::write_sections(os, analysis_sections(report), format);
}

}  // namespace tilegemm::analysis
