// `tilegemm plot roofline` and `tilegemm plot ladder`: SVG built as text. The numbers come from
// the analysis module (intensity, peaks, bandwidth), never from a second model; this file only
// places them. Coordinates are written with two decimals, text always through xml_escape.
#include "tilegemm/plot.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>

#include "tilegemm/analysis.hpp"
#include "tilegemm/gemm.hpp"

namespace tilegemm::bench {

namespace {

namespace ta = tilegemm::analysis;

// Okabe-Ito's colour-blind-safe set (less black, which marks cuBLAS) then four of Paul Tol's,
// in the order types or sizes first appear: a ladder file holds up to about a dozen sizes.
constexpr const char* kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                    "#E69F00", "#56B4E9", "#F0E442", "#332288",
                                    "#882255", "#44AA99", "#999933", "#AA4499"};
constexpr std::size_t kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);
constexpr double kPi = 3.14159265358979323846;

const char* palette(std::size_t i) {
  return kPalette[i % kPaletteSize];
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f", v);
  return buf;
}

// "0.5", "20", "1000": axis labels without trailing zeros.
std::string tick_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return out;
}

std::string layouts_of(const BenchRow& r) {
  return std::string(layout_name(r.la)) + "," + layout_name(r.lb) + "," + layout_name(r.lc);
}

// What a mark's <title> says first: enough to find the row in the file.
std::string row_name(const BenchRow& r) {
  return r.kernel + " " + r.shape.to_string() + " " + layouts_of(r) + " " +
         gemm_types_name(r.types);
}

double row_tflops(const BenchRow& r) {
  return std::isfinite(r.tflops) ? r.tflops : tflops(r.shape, r.median_ms);
}

std::string svg_open(double width, double height, const std::string& title) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
         num(width) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(width) + " " +
         num(height) + "\" font-family=\"sans-serif\" font-size=\"12\">\n<title>" +
         xml_escape(title) + "</title>\n<rect class=\"background\" x=\"0\" y=\"0\" width=\"" +
         num(width) + "\" height=\"" + num(height) + "\" fill=\"white\"/>\n";
}

std::string text(double x, double y, const std::string& content, const std::string& attrs = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\"" + (attrs.empty() ? "" : " " + attrs) +
         ">" + xml_escape(content) + "</text>\n";
}

std::string line(double x1, double y1, double x2, double y2, const std::string& attrs) {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" +
         num(y2) + "\" " + attrs + "/>\n";
}

// Powers of ten around [lo, hi], so every point sits inside a whole decade.
std::pair<double, double> decades(double lo, double hi) {
  return {std::pow(10.0, std::floor(std::log10(lo))), std::pow(10.0, std::ceil(std::log10(hi)))};
}

// The smallest round number (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 x 10^n) at or above v: a
// linear axis's end, tight enough that the bars use most of the width.
double nice_ceil(double v) {
  if (!(v > 0.0)) return 1.0;
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double f : {1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0}) {
    if (f * p >= v * (1.0 - 1e-12)) return f * p;
  }
  return 10.0 * p;
}

std::string device_keys() {
  std::string keys;
  for (const ta::DeviceSpec& s : ta::device_specs()) keys += (keys.empty() ? "" : ", ") + s.key;
  return keys;
}

// A ceiling to draw: one compute peak (per A/B type) or the DRAM bandwidth, datasheet or measured.
struct Ceiling {
  std::string label;
  double tflops = 0.0;
  const char* colour = "#000000";
  bool measured = false;
};

}  // namespace

std::string xml_escape(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (char ch : in) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string device_key_for_name(std::string_view gpu_name) {
  const std::string name = lower(gpu_name);
  if (name.find("h200") != std::string::npos) return "h200";
  if (name.find("h100") != std::string::npos) return "h100";
  if (name.find("a100") != std::string::npos) {
    return name.find("40gb") != std::string::npos ? "a100-40gb" : "a100";
  }
  return "";
}

// --- roofline ---------------------------------------------------------------------------------

PlotResult roofline_svg(const BenchReport& report, std::string_view input_flag,
                        std::string_view device_flag, const std::string& device_key,
                        const std::string& source) {
  PlotResult result;
  result.device_key = device_key.empty() ? device_key_for_name(report.device.name) : device_key;
  if (result.device_key.empty()) {
    throw InputError(std::string(device_flag),
                     "cannot tell the device's ceilings from '" + report.device.name + "' in '" +
                         source + "'; name one (want one of " + device_keys() + ")");
  }
  const ta::DeviceSpec* spec = ta::find_device_spec(result.device_key);
  if (spec == nullptr) {
    throw InputError(
        std::string(device_flag),
        "'" + result.device_key + "' is not a known device (want one of " + device_keys() + ")");
  }

  struct Point {
    const BenchRow* row;
    double intensity, tflops;
    std::size_t types_index;
  };
  std::vector<GemmTypes> types_seen;
  std::vector<bool> types_has_cublas;
  std::vector<Point> points;
  for (const BenchRow& r : report.rows) {
    if (r.status != RowStatus::kOk) {
      ++result.left_out;
      continue;
    }
    auto it = std::find(types_seen.begin(), types_seen.end(), r.types);
    if (it == types_seen.end()) {
      types_seen.push_back(r.types);
      types_has_cublas.push_back(false);
      it = types_seen.end() - 1;
    }
    const auto ti = static_cast<std::size_t>(it - types_seen.begin());
    if (r.kernel == "cublas") types_has_cublas[ti] = true;
    const ta::GemmSize size{r.shape.m, r.shape.n, r.shape.k};
    points.push_back({&r, ta::arithmetic_intensity(size, r.types), row_tflops(r), ti});
  }
  if (points.empty()) {
    throw InputError(std::string(input_flag), "'" + source + "' has no row with status ok to draw");
  }
  result.marks = points.size();

  // Compute ceilings: one per A/B type present, in the op class that computes it by default
  // (analysis::default_op_class), from the datasheet entry and, where it holds one, the
  // measured entry.
  std::vector<Ceiling> ceilings;
  std::vector<std::string> notes;
  const ta::DeviceSpec* measured = ta::measured_spec_for(spec->key);
  for (std::size_t i = 0; i < types_seen.size(); ++i) {
    const DType ab = types_seen[i].ab;
    const OpClass op = ta::default_op_class(ab);
    for (const ta::DeviceSpec* s : {spec, measured}) {
      if (s == nullptr) continue;
      const ta::Peak p = ta::peak_for(*s, ab, op);
      const bool seen = std::any_of(ceilings.begin(), ceilings.end(), [&](const Ceiling& c) {
        return c.label == p.label && c.measured == s->measured;
      });
      if (seen) continue;
      if (p.tflops <= 0.0) {
        notes.push_back(s->key + ": no " + p.label + " peak");
        continue;
      }
      ceilings.push_back({p.label, p.tflops, palette(i), s->measured});
    }
  }
  std::vector<std::pair<double, bool>> bandwidths{{spec->bandwidth_gbs, false}};
  if (measured != nullptr && measured->bandwidth_gbs > 0.0) {
    bandwidths.push_back({measured->bandwidth_gbs, true});
  }

  // Ranges: every point and every ridge point (where a ceiling meets the DRAM roof).
  double x_lo = points.front().intensity, x_hi = x_lo;
  double y_lo = points.front().tflops, y_hi = y_lo;
  for (const Point& p : points) {
    x_lo = std::min(x_lo, p.intensity);
    x_hi = std::max(x_hi, p.intensity);
    y_lo = std::min(y_lo, p.tflops);
    y_hi = std::max(y_hi, p.tflops);
  }
  double peak_max = 0.0;
  for (const Ceiling& c : ceilings) {
    peak_max = std::max(peak_max, c.tflops);
    y_hi = std::max(y_hi, c.tflops);
    for (const auto& bandwidth : bandwidths) {
      const double ridge = ta::roofline(1.0, c.tflops, bandwidth.first).ridge;
      // A decade of the DRAM roof left of the ridge, so the memory-bound slope shows.
      x_lo = std::min(x_lo, ridge / 10.0);
      x_hi = std::max(x_hi, ridge);
    }
  }
  const auto [x_min, x_max] = decades(x_lo / 1.2, x_hi * 1.2);
  const auto [y_min, y_max] = decades(y_lo / 1.2, y_hi * 1.2);

  const double width = 1000.0, height = 660.0;
  const double left = 80.0, top = 70.0, plot_w = 640.0, plot_h = 500.0;
  const double lx0 = std::log10(x_min), lx1 = std::log10(x_max);
  const double ly0 = std::log10(y_min), ly1 = std::log10(y_max);
  auto X = [&](double v) { return left + (std::log10(v) - lx0) / (lx1 - lx0) * plot_w; };
  auto Y = [&](double v) { return top + plot_h - (std::log10(v) - ly0) / (ly1 - ly0) * plot_h; };

  const std::string gpu = report.device.name.empty() ? "an unnamed device" : report.device.name;
  std::string svg = svg_open(
      width, height, "Roofline of " + source + " (" + gpu + "), " + spec->name + " ceilings");
  svg += text(left, 28, "Roofline: " + source + " (" + gpu + ")",
              "font-size=\"16\" font-weight=\"bold\"");
  svg += text(left, 48,
              "ceilings: " + spec->name + " (--device " + spec->key +
                  "); intensity: 2MNK / bytes with each operand moved once (analysis, seed 002)",
              "font-size=\"11\" fill=\"#444444\"");

  // Grid and decade labels; minor lines at 2..9 of each decade.
  svg += "<g class=\"grid\" stroke=\"#dddddd\" stroke-width=\"1\">\n";
  for (double d = x_min; d <= x_max * 1.0001; d *= 10.0) {
    for (int f = 1; f <= 9 && d * f <= x_max * 1.0001; ++f) {
      svg += line(X(d * f), top, X(d * f), top + plot_h,
                  f == 1 ? "stroke=\"#bbbbbb\"" : "stroke-dasharray=\"2,3\"");
    }
  }
  for (double d = y_min; d <= y_max * 1.0001; d *= 10.0) {
    for (int f = 1; f <= 9 && d * f <= y_max * 1.0001; ++f) {
      svg += line(left, Y(d * f), left + plot_w, Y(d * f),
                  f == 1 ? "stroke=\"#bbbbbb\"" : "stroke-dasharray=\"2,3\"");
    }
  }
  svg += "</g>\n<g class=\"axes\" font-size=\"11\">\n";
  for (double d = x_min; d <= x_max * 1.0001; d *= 10.0) {
    svg += text(X(d), top + plot_h + 16, tick_text(d), "text-anchor=\"middle\"");
  }
  for (double d = y_min; d <= y_max * 1.0001; d *= 10.0) {
    svg += text(left - 6, Y(d) + 4, tick_text(d), "text-anchor=\"end\"");
  }
  svg += "<rect x=\"" + num(left) + "\" y=\"" + num(top) + "\" width=\"" + num(plot_w) +
         "\" height=\"" + num(plot_h) + "\" fill=\"none\" stroke=\"#000000\"/>\n";
  svg += text(left + plot_w / 2, top + plot_h + 40,
              "arithmetic intensity (FLOP/byte, each operand moved once)",
              "text-anchor=\"middle\" font-size=\"13\"");
  svg += text(0, 0, "TFLOP/s",
              "text-anchor=\"middle\" font-size=\"13\" transform=\"translate(" + num(left - 50) +
                  "," + num(top + plot_h / 2) + ") rotate(-90)\"");
  svg += "</g>\n";

  // Ceilings: the DRAM roof up to the highest peak, each peak flat from its ridge point.
  svg += "<g class=\"ceilings\" fill=\"none\" stroke-width=\"2\">\n";
  for (const auto& [bw, is_measured] : bandwidths) {
    const double x_start = std::max(x_min, y_min * 1e3 / bw);  // where AI * bw enters the plot
    const double x_end = std::min(x_max, peak_max * 1e3 / bw);
    if (x_end <= x_start) continue;
    const std::string dash = is_measured ? " stroke-dasharray=\"6,4\"" : "";
    svg += line(X(x_start), Y(x_start * bw * 1e-3), X(x_end), Y(x_end * bw * 1e-3),
                "stroke=\"#555555\"" + dash);
    // Label along the roof, a little above its lower end.
    const double lx = x_start * std::pow(x_end / x_start, 0.2);
    const double ax = X(lx), ay = Y(lx * bw * 1e-3) + (is_measured ? 18.0 : 0.0);
    const double angle =
        std::atan2(Y(x_end * bw * 1e-3) - Y(x_start * bw * 1e-3), X(x_end) - X(x_start)) * 180.0 /
        kPi;
    svg +=
        text(0, 0, std::string(is_measured ? "measured " : "") + "DRAM " + fixed(bw, 0) + " GB/s",
             "font-size=\"11\" fill=\"#555555\" stroke=\"none\" transform=\"translate(" + num(ax) +
                 "," + num(ay - 6) + ") rotate(" + num(angle) + ")\"");
  }
  for (const Ceiling& c : ceilings) {
    const double ridge = c.tflops * 1e3 / bandwidths.front().first;
    const std::string dash = c.measured ? " stroke-dasharray=\"6,4\"" : "";
    svg += line(X(std::max(ridge, x_min)), Y(c.tflops), X(x_max), Y(c.tflops),
                std::string("stroke=\"") + c.colour + "\"" + dash);
    // Labelled just right of the ridge point: the rows crowd the right end, under the peak.
    svg += text(X(std::max(ridge, x_min)) + 6, Y(c.tflops) + (c.measured ? 14 : -5),
                std::string(c.measured ? "measured " : "") + c.label + " " + fixed(c.tflops, 1) +
                    " TFLOP/s",
                std::string("font-size=\"11\" stroke=\"none\" fill=\"") + c.colour + "\"");
  }
  svg += "</g>\n";

  // One mark per timed row: circles for tilegemm's kernels, squares for cuBLAS.
  svg += "<g class=\"marks\">\n";
  for (const Point& p : points) {
    const BenchRow& r = *p.row;
    const bool cublas = r.kernel == "cublas";
    const double cx = X(p.intensity), cy = Y(p.tflops);
    const std::string title = "<title>" +
                              xml_escape(row_name(r) + ": " + fixed(p.tflops, 2) + " TFLOP/s at " +
                                         fixed(p.intensity, 1) + " FLOP/byte") +
                              "</title>";
    const char* colour = palette(p.types_index);
    if (cublas) {
      svg += "<rect class=\"mark cublas\" x=\"" + num(cx - 4.5) + "\" y=\"" + num(cy - 4.5) +
             "\" width=\"9\" height=\"9\" fill=\"white\" stroke=\"" + colour +
             "\" stroke-width=\"2\">" + title + "</rect>\n";
    } else {
      svg += "<circle class=\"mark tilegemm\" cx=\"" + num(cx) + "\" cy=\"" + num(cy) +
             "\" r=\"4\" fill=\"" + colour + "\" fill-opacity=\"0.6\">" + title + "</circle>\n";
    }
  }
  svg += "</g>\n";

  // Legend: marks per types, then ceilings, then what was left out.
  const double lx = left + plot_w + 24;
  double ly = top + 6;
  svg += "<g class=\"legend\" font-size=\"11\">\n";
  svg += text(lx, ly, "rows", "font-weight=\"bold\"");
  ly += 18;
  for (std::size_t i = 0; i < types_seen.size(); ++i) {
    const char* colour = palette(i);
    const std::string types = gemm_types_name(types_seen[i]);
    svg += "<circle cx=\"" + num(lx + 6) + "\" cy=\"" + num(ly - 4) + "\" r=\"4\" fill=\"" +
           colour + "\" fill-opacity=\"0.6\"/>\n";
    svg += text(lx + 18, ly, "tilegemm, " + types);
    ly += 18;
    if (types_has_cublas[i]) {
      svg += "<rect x=\"" + num(lx + 1.5) + "\" y=\"" + num(ly - 8.5) +
             "\" width=\"9\" height=\"9\" fill=\"white\" stroke=\"" + colour +
             "\" stroke-width=\"2\"/>\n";
      svg += text(lx + 18, ly, "cuBLAS, " + types);
      ly += 18;
    }
  }
  ly += 8;
  svg += text(lx, ly, "ceilings", "font-weight=\"bold\"");
  ly += 18;
  for (const auto& [bw, is_measured] : bandwidths) {
    svg += line(lx, ly - 4, lx + 14, ly - 4,
                std::string("stroke=\"#555555\" stroke-width=\"2\"") +
                    (is_measured ? " stroke-dasharray=\"6,4\"" : ""));
    svg += text(lx + 18, ly,
                std::string(is_measured ? "measured " : "") + "DRAM " + fixed(bw, 0) + " GB/s");
    ly += 18;
  }
  for (const Ceiling& c : ceilings) {
    svg += line(lx, ly - 4, lx + 14, ly - 4,
                std::string("stroke=\"") + c.colour + "\" stroke-width=\"2\"" +
                    (c.measured ? " stroke-dasharray=\"6,4\"" : ""));
    svg += text(lx + 18, ly, std::string(c.measured ? "measured " : "") + c.label);
    ly += 18;
  }
  ly += 8;
  if (result.left_out > 0) {
    svg += text(lx, ly, std::to_string(result.left_out) + " rows not ok (N/A, FAILED) left out");
    ly += 16;
  }
  for (const std::string& note : notes) {
    svg += text(lx, ly, note, "fill=\"#444444\"");
    ly += 16;
  }
  svg += "</g>\n";
  const bool any_tensor = std::any_of(ceilings.begin(), ceilings.end(), [](const Ceiling& c) {
    return c.label.find("tensor") != std::string::npos;
  });
  svg += text(left, height - (any_tensor ? 26 : 14), "peaks: " + spec->source,
              "font-size=\"9\" fill=\"#666666\"");
  if (any_tensor) {
    svg += text(left, height - 14, "tensor peaks: " + spec->tensor_source,
                "font-size=\"9\" fill=\"#666666\"");
  }
  svg += "</svg>\n";
  result.svg = std::move(svg);
  return result;
}

// --- ladder -----------------------------------------------------------------------------------

namespace {

// The family heading a kernel is drawn under: the registry's rung and family; "auto(...)" rows
// under the dispatcher; a kernel this build does not register (a CuTe row read on a build
// without CuTe) under the first word of its name, since its rung is unknown here.
std::string family_heading(const std::string& base) {
  if (base == "cublas") return "cuBLAS";
  if (base == "auto") return "auto: the dispatcher's choice per shape";
  if (const KernelInfo* k = find_kernel(base)) {
    return "rung " + std::to_string(k->rung) + ": " + k->family;
  }
  return base.substr(0, base.find('_')) + " (not in this build's registry)";
}

// Rows that are the same case but for the kernel: which cuBLAS row a kernel's row is beside.
std::string case_key(const BenchRow& r) {
  char scalars[64];
  std::snprintf(scalars, sizeof(scalars), "%.9g,%.9g", static_cast<double>(r.alpha),
                static_cast<double>(r.beta));
  return r.shape.to_string() + "|" + layouts_of(r) + "|" + dtype_name(r.types.ab) + ">" +
         dtype_name(r.types.c) + "|" + std::to_string(r.pads.a) + "," + std::to_string(r.pads.b) +
         "," + std::to_string(r.pads.c) + "|" + scalars;
}

}  // namespace

PlotResult ladder_svg(const BenchReport& report, std::string_view input_flag,
                      std::string_view shape_flag, const std::optional<Shape>& shape,
                      const std::string& source) {
  PlotResult result;
  std::vector<const BenchRow*> rows;
  bool any_of_shape = false;
  for (const BenchRow& r : report.rows) {
    if (shape && !(r.shape == *shape)) continue;
    any_of_shape = true;
    if (r.status != RowStatus::kOk) {
      ++result.left_out;
      continue;
    }
    rows.push_back(&r);
  }
  if (shape && !any_of_shape) {
    throw InputError(std::string(shape_flag),
                     "'" + shape->to_string() + "': no row of '" + source + "' has this shape");
  }
  if (rows.empty()) {
    throw InputError(std::string(input_flag), "'" + source + "' has no row with status ok to draw");
  }
  result.marks = rows.size();

  // Sizes in the order they first appear; series (a kernel, "auto" for every auto(...) row)
  // likewise. A file that mixes types or layouts names them in each series' label.
  std::vector<Shape> sizes;
  std::vector<std::string> combos;
  for (const BenchRow* r : rows) {
    if (std::find(sizes.begin(), sizes.end(), r->shape) == sizes.end()) sizes.push_back(r->shape);
    const std::string combo = gemm_types_name(r->types) + std::string(" ") + layouts_of(*r);
    if (std::find(combos.begin(), combos.end(), combo) == combos.end()) combos.push_back(combo);
  }
  struct Series {
    std::string label, heading;
    std::vector<const BenchRow*> rows;
  };
  std::vector<Series> series;
  std::map<std::string, double> cublas_tflops;
  for (const BenchRow* r : rows) {
    const std::string base = r->kernel.rfind("auto(", 0) == 0 ? "auto" : r->kernel;
    std::string label = base;
    if (combos.size() > 1) {
      label += std::string(" [") + gemm_types_name(r->types) + " " + layouts_of(*r) + "]";
    }
    auto it = std::find_if(series.begin(), series.end(),
                           [&](const Series& s) { return s.label == label; });
    if (it == series.end()) {
      series.push_back({label, family_heading(base), {}});
      it = series.end() - 1;
    }
    it->rows.push_back(r);
    if (r->kernel == "cublas") cublas_tflops.emplace(case_key(*r), row_tflops(*r));
  }
  double max_tflops = 0.0;
  std::size_t label_chars = 0;
  for (const Series& s : series) {
    label_chars = std::max(label_chars, s.label.size());
    for (const BenchRow* r : s.rows) max_tflops = std::max(max_tflops, row_tflops(*r));
  }

  // Geometry: labels in an 11px monospace font (6.6px a character), bars 10px, a gap between
  // kernels and a heading wherever the family changes.
  const double char_w = 6.6, bar_h = 10.0, bar_gap = 2.0, series_gap = 8.0, heading_h = 22.0;
  const double left = std::max(160.0, 24.0 + char_w * static_cast<double>(label_chars));
  const double plot_w = 600.0, right = 90.0;
  const double width = left + plot_w + right;
  const double legend_top = 56.0;
  const double legend_rows = std::ceil(static_cast<double>(sizes.size() + 1) / 4.0);
  const double top = legend_top + 18.0 * legend_rows + 20.0;
  double content_h = 0.0;
  std::string previous_heading;
  for (const Series& s : series) {
    if (s.heading != previous_heading) content_h += heading_h;
    previous_heading = s.heading;
    content_h += static_cast<double>(s.rows.size()) * (bar_h + bar_gap) + series_gap;
  }
  const double height = top + content_h + 60.0;
  const double x_end = nice_ceil(max_tflops);
  auto X = [&](double v) { return left + v / x_end * plot_w; };
  auto size_index = [&](const Shape& s) {
    return static_cast<std::size_t>(std::find(sizes.begin(), sizes.end(), s) - sizes.begin());
  };

  const std::string gpu = report.device.name.empty() ? "an unnamed device" : report.device.name;
  const std::string what = shape ? " at " + shape->to_string() : std::string();
  std::string svg = svg_open(width, height, "Ladder of " + source + what + " (" + gpu + ")");
  svg += text(16, 26, "Ladder: TFLOP/s per kernel beside cuBLAS" + what,
              "font-size=\"16\" font-weight=\"bold\"");
  svg += text(16, 44, source + " (" + gpu + "); kernels in the file's order under their rung",
              "font-size=\"11\" fill=\"#444444\"");

  // Legend: one swatch per size, and the cuBLAS tick.
  svg += "<g class=\"legend\" font-size=\"11\">\n";
  for (std::size_t i = 0; i <= sizes.size(); ++i) {
    const double lx = 16.0 + 180.0 * static_cast<double>(i % 4);
    const double ly = legend_top + 18.0 * std::floor(static_cast<double>(i) / 4.0) + 10.0;
    if (i < sizes.size()) {
      svg += "<rect x=\"" + num(lx) + "\" y=\"" + num(ly - 9) +
             "\" width=\"14\" height=\"10\" fill=\"" + palette(i) + "\"/>\n";
      svg += text(lx + 20, ly, sizes[i].to_string());
    } else {
      svg += line(lx + 7, ly - 11, lx + 7, ly + 3, "stroke=\"#000000\" stroke-width=\"2\"");
      svg += text(lx + 20, ly, "cuBLAS at that size");
    }
  }
  svg += "</g>\n";

  // Grid and axis.
  const double bars_bottom = top + content_h;
  svg += "<g class=\"axes\" font-size=\"11\">\n";
  for (int i = 0; i <= 5; ++i) {
    const double v = x_end * i / 5.0;
    svg += line(X(v), top - 6, X(v), bars_bottom, "stroke=\"#dddddd\"");
    svg += text(X(v), bars_bottom + 16, tick_text(v), "text-anchor=\"middle\"");
  }
  svg += line(left, top - 6, left, bars_bottom, "stroke=\"#000000\"");
  svg += text(left + plot_w / 2, bars_bottom + 38, "TFLOP/s (2MNK / median time)",
              "text-anchor=\"middle\" font-size=\"13\"");
  svg += "</g>\n";

  svg += "<g class=\"bars\">\n";
  double y = top;
  previous_heading.clear();
  for (const Series& s : series) {
    if (s.heading != previous_heading) {
      svg += text(16, y + 15, s.heading, "font-size=\"12\" font-weight=\"bold\" fill=\"#333333\"");
      y += heading_h;
    }
    previous_heading = s.heading;
    const double series_h = static_cast<double>(s.rows.size()) * (bar_h + bar_gap);
    svg += text(left - 8, y + series_h / 2 + 4, s.label,
                "text-anchor=\"end\" font-family=\"monospace\" font-size=\"11\"");
    for (const BenchRow* r : s.rows) {
      const bool cublas = r->kernel == "cublas";
      const double tf = row_tflops(*r);
      const auto ref = cublas_tflops.find(case_key(*r));
      std::string title = row_name(*r) + ": " + fixed(tf, 2) + " TFLOP/s";
      if (!cublas && ref != cublas_tflops.end() && ref->second > 0.0) {
        title += ", " + fixed(tf / ref->second, 3) + "x cuBLAS (" + fixed(ref->second, 2) + ")";
      }
      svg += "<rect class=\"mark" + std::string(cublas ? " cublas" : "") + "\" x=\"" + num(left) +
             "\" y=\"" + num(y) + "\" width=\"" + num(std::max(0.5, X(tf) - left)) +
             "\" height=\"" + num(bar_h) + "\" fill=\"" + palette(size_index(r->shape)) + "\"" +
             (cublas ? " stroke=\"#000000\" stroke-width=\"1\"" : "") + "><title>" +
             xml_escape(title) + "</title></rect>\n";
      svg += text(X(tf) + 4, y + bar_h - 1, fixed(tf, 1), "font-size=\"9\" fill=\"#333333\"");
      if (!cublas && ref != cublas_tflops.end()) {
        svg += line(X(ref->second), y - 1, X(ref->second), y + bar_h + 1,
                    "class=\"cublas-ref\" stroke=\"#000000\" stroke-width=\"2\"");
      }
      y += bar_h + bar_gap;
    }
    y += series_gap;
  }
  svg += "</g>\n";
  if (result.left_out > 0) {
    svg += text(16, height - 12,
                std::to_string(result.left_out) + " rows not ok (N/A, FAILED) left out",
                "font-size=\"10\" fill=\"#666666\"");
  }
  svg += "</svg>\n";
  result.svg = std::move(svg);
  return result;
}

}  // namespace tilegemm::bench
