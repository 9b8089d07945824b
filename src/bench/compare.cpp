// `tilegemm compare`: two bench results matched row by row, ratio and noise verdict per row
// (nvbench_compare style), and the regressions that set the exit status.
#include "tilegemm/compare.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>

namespace tilegemm::bench {

namespace {

using nlohmann::json;

std::string layouts_of(const BenchRow& r) {
  return std::string(layout_name(r.la)) + "," + layout_name(r.lb) + "," + layout_name(r.lc);
}

std::string scalar_text(float v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", static_cast<double>(v));
  return buf;
}

// "+8.3" / "-2.0": signed, so a reader sees the direction without reading the verdict.
std::string signed_pct(double fraction) {
  if (std::isnan(fraction)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%+.1f", 100.0 * fraction);
  return buf;
}

json number_or_null(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

std::string row_name(const BenchRow& r) {
  return r.kernel + " " + r.shape.to_string() + " " + layouts_of(r) + " " +
         gemm_types_name(r.types);
}

std::string file_line(const char* which, const std::string& path, const BenchReport& r) {
  std::string line = std::string(which) + " " + path + ": " + std::to_string(r.rows.size()) +
                     " rows, " + (r.device.name.empty() ? "no device named" : r.device.name);
  if (!r.timestamp.empty()) line += ", " + r.timestamp;
  return line;
}

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kFaster:
      return "faster";
    case Verdict::kSlower:
      return "slower";
    case Verdict::kNoise:
      return "noise";
    case Verdict::kNewFailed:
      return "FAILED";
    case Verdict::kNotTimed:
      return "not timed";
    case Verdict::kOnlyOld:
      return "only in OLD";
    case Verdict::kOnlyNew:
      return "only in NEW";
  }
  return "?";
}

double relative_spread(const BenchRow& row) {
  if (!(row.median_ms > 0.0) || std::isnan(row.min_ms) || std::isnan(row.max_ms)) return kNoValue;
  return (row.max_ms - row.min_ms) / row.median_ms;
}

std::string compare_key(const BenchRow& r) {
  return r.kernel + "|" + r.shape.to_string() + "|" + layouts_of(r) + "|" + dtype_name(r.types.ab) +
         ">" + dtype_name(r.types.c) + "|" + std::to_string(r.pads.a) + "," +
         std::to_string(r.pads.b) + "," + std::to_string(r.pads.c) + "|" + scalar_text(r.alpha) +
         "," + scalar_text(r.beta);
}

CompareRow compare_pair(const BenchRow& old_row, const BenchRow& new_row, double threshold_pct) {
  CompareRow c;
  c.old_row = old_row;
  c.new_row = new_row;
  if (old_row.status == RowStatus::kOk && new_row.status == RowStatus::kFailed) {
    c.verdict = Verdict::kNewFailed;
    c.regression = true;
    return c;
  }
  if (old_row.status != RowStatus::kOk || new_row.status != RowStatus::kOk) {
    c.verdict = Verdict::kNotTimed;
    return c;
  }
  c.ratio = new_row.median_ms / old_row.median_ms;
  const double s_old = relative_spread(old_row), s_new = relative_spread(new_row);
  // A row without min/max (hand-made) has no measured spread: treat it as exact rather than
  // letting a NaN call every difference noise.
  c.noise = std::hypot(std::isnan(s_old) ? 0.0 : s_old, std::isnan(s_new) ? 0.0 : s_new);
  const double change = c.ratio - 1.0;
  if (std::fabs(change) <= c.noise) {
    c.verdict = Verdict::kNoise;
  } else {
    c.verdict = change < 0.0 ? Verdict::kFaster : Verdict::kSlower;
  }
  c.regression = c.verdict == Verdict::kSlower && 100.0 * change > threshold_pct;
  return c;
}

std::size_t CompareReport::count(Verdict v) const {
  std::size_t n = 0;
  for (const CompareRow& r : rows) n += r.verdict == v ? 1 : 0;
  return n;
}

std::size_t CompareReport::regressions() const {
  std::size_t n = 0;
  for (const CompareRow& r : rows) n += r.regression ? 1 : 0;
  return n;
}

CompareReport compare_reports(const BenchReport& old_report, const BenchReport& new_report,
                              double threshold_pct) {
  CompareReport report;
  report.old_report = old_report;
  report.new_report = new_report;
  report.threshold_pct = threshold_pct;
  // NEW's rows by key, each key's rows in file order; a match consumes the first left.
  std::map<std::string, std::vector<std::size_t>> unmatched;
  for (std::size_t i = new_report.rows.size(); i-- > 0;) {
    unmatched[compare_key(new_report.rows[i])].push_back(i);
  }
  std::vector<bool> used(new_report.rows.size(), false);
  for (const BenchRow& old_row : old_report.rows) {
    auto it = unmatched.find(compare_key(old_row));
    if (it == unmatched.end() || it->second.empty()) {
      CompareRow c;
      c.old_row = old_row;
      c.verdict = Verdict::kOnlyOld;
      report.rows.push_back(std::move(c));
      continue;
    }
    const std::size_t j = it->second.back();
    it->second.pop_back();
    used[j] = true;
    report.rows.push_back(compare_pair(old_row, new_report.rows[j], threshold_pct));
  }
  for (std::size_t j = 0; j < new_report.rows.size(); ++j) {
    if (used[j]) continue;
    CompareRow c;
    c.new_row = new_report.rows[j];
    c.verdict = Verdict::kOnlyNew;
    report.rows.push_back(std::move(c));
  }
  return report;
}

std::vector<std::string> regression_lines(const CompareReport& report) {
  std::vector<std::string> lines;
  for (const CompareRow& r : report.rows) {
    if (!r.regression) continue;
    if (r.verdict == Verdict::kNewFailed) {
      lines.push_back("FAILED in NEW: " + row_name(*r.new_row) + ": " + r.new_row->detail);
      continue;
    }
    lines.push_back("slower: " + row_name(*r.new_row) + ": new/old " + fixed(r.ratio, 3) + " (" +
                    signed_pct(r.ratio - 1.0) + "%, noise " + fixed(100.0 * r.noise, 1) +
                    "%), beyond " + fixed(report.threshold_pct, 1) + "%");
  }
  return lines;
}

std::string compare_summary(const CompareReport& r) {
  const std::size_t matched =
      r.rows.size() - r.count(Verdict::kOnlyOld) - r.count(Verdict::kOnlyNew);
  std::string s = std::to_string(matched) +
                  " matched: " + std::to_string(r.count(Verdict::kFaster)) + " faster, " +
                  std::to_string(r.count(Verdict::kSlower)) + " slower, " +
                  std::to_string(r.count(Verdict::kNoise)) + " noise";
  if (const std::size_t failed = r.count(Verdict::kNewFailed)) {
    s += ", " + std::to_string(failed) + " FAILED in NEW";
  }
  if (const std::size_t not_timed = r.count(Verdict::kNotTimed)) {
    s += ", " + std::to_string(not_timed) + " not timed";
  }
  const std::size_t regressions = r.regressions();
  s += "; " + std::to_string(r.count(Verdict::kOnlyOld)) + " only in OLD, " +
       std::to_string(r.count(Verdict::kOnlyNew)) + " only in NEW; " + std::to_string(regressions) +
       (regressions == 1 ? " regression" : " regressions") + " beyond " +
       fixed(r.threshold_pct, 1) + "%";
  return s;
}

Table compare_table(const CompareReport& report) {
  // alpha, beta and pads are part of the key but rarely vary: their columns appear when some
  // row has other than bench's defaults, so two rows the key tells apart never look alike.
  bool scalars = false, pads = false;
  for (const CompareRow& c : report.rows) {
    const BenchRow& r = c.any_row();
    scalars = scalars || r.alpha != 1.0f || r.beta != 0.0f;
    pads = pads || r.pads.a != 0 || r.pads.b != 0 || r.pads.c != 0;
  }
  Table t;
  t.add_column("kernel");
  t.add_column("M", true);
  t.add_column("N", true);
  t.add_column("K", true);
  t.add_column("layout A,B,C");
  t.add_column("types");
  if (scalars) t.add_column("alpha,beta");
  if (pads) t.add_column("pad A,B,C");
  t.add_column("old median (ms)", true);
  t.add_column("new median (ms)", true);
  t.add_column("old TFLOP/s", true);
  t.add_column("new TFLOP/s", true);
  t.add_column("new/old", true);
  t.add_column("change (%)", true);
  t.add_column("noise (%)", true);
  t.add_column("verdict");
  for (const CompareRow& c : report.rows) {
    const BenchRow& r = c.any_row();
    const double old_ms = c.old_row ? c.old_row->median_ms : kNoValue;
    const double new_ms = c.new_row ? c.new_row->median_ms : kNoValue;
    const double old_tf = c.old_row ? c.old_row->tflops : kNoValue;
    const double new_tf = c.new_row ? c.new_row->tflops : kNoValue;
    std::string verdict = verdict_name(c.verdict);
    if (c.regression) verdict += " (regression)";
    std::vector<std::string> cells{r.kernel,
                                   std::to_string(r.shape.m),
                                   std::to_string(r.shape.n),
                                   std::to_string(r.shape.k),
                                   layouts_of(r),
                                   gemm_types_name(r.types)};
    if (scalars) cells.push_back(scalar_text(r.alpha) + "," + scalar_text(r.beta));
    if (pads) {
      cells.push_back(std::to_string(r.pads.a) + "," + std::to_string(r.pads.b) + "," +
                      std::to_string(r.pads.c));
    }
    for (std::string cell :
         {fixed(old_ms, 4), fixed(new_ms, 4), fixed(old_tf, 2), fixed(new_tf, 2), fixed(c.ratio, 3),
          signed_pct(c.ratio - 1.0), fixed(100.0 * c.noise, 1), verdict}) {
      cells.push_back(std::move(cell));
    }
    t.add_row(std::move(cells));
  }
  return t;
}

json to_json(const CompareReport& report) {
  json rows = json::array();
  for (const CompareRow& c : report.rows) {
    const BenchRow& r = c.any_row();
    auto side = [](const std::optional<BenchRow>& row) -> json {
      if (!row) return nullptr;
      return json{{"status", row_status_name(row->status)},
                  {"median_ms", number_or_null(row->median_ms)},
                  {"min_ms", number_or_null(row->min_ms)},
                  {"max_ms", number_or_null(row->max_ms)},
                  {"tflops", number_or_null(row->tflops)},
                  {"spread", number_or_null(relative_spread(*row))}};
    };
    rows.push_back({{"kernel", r.kernel},
                    {"m", r.shape.m},
                    {"n", r.shape.n},
                    {"k", r.shape.k},
                    {"layout_a", layout_name(r.la)},
                    {"layout_b", layout_name(r.lb)},
                    {"layout_c", layout_name(r.lc)},
                    {"dtype", dtype_name(r.types.ab)},
                    {"dtype_c", dtype_name(r.types.c)},
                    {"pad_a", r.pads.a},
                    {"pad_b", r.pads.b},
                    {"pad_c", r.pads.c},
                    {"alpha", static_cast<double>(r.alpha)},
                    {"beta", static_cast<double>(r.beta)},
                    {"old", side(c.old_row)},
                    {"new", side(c.new_row)},
                    {"ratio", number_or_null(c.ratio)},
                    {"noise", number_or_null(c.noise)},
                    {"verdict", verdict_name(c.verdict)},
                    {"regression", c.regression}});
  }
  return json{{"old",
               {{"path", report.old_path},
                {"device", report.old_report.device.name},
                {"timestamp", report.old_report.timestamp}}},
              {"new",
               {{"path", report.new_path},
                {"device", report.new_report.device.name},
                {"timestamp", report.new_report.timestamp}}},
              {"threshold_pct", report.threshold_pct},
              {"rows", rows},
              {"regressions", regression_lines(report)},
              {"summary", compare_summary(report)},
              {"passed", report.passed()}};
}

void write_compare(std::ostream& os, const CompareReport& report, Format format) {
  const std::string old_line = file_line("OLD", report.old_path, report.old_report);
  const std::string new_line = file_line("NEW", report.new_path, report.new_report);
  const std::string rule =
      "new/old is the ratio of median times (> 1: slower); noise: a change within "
      "sqrt(s_old^2 + s_new^2), s = (max - min) / median of a row's launches";
  std::string header_rule = rule;
  // Rows from two GPUs still match; the reader should know the ratios then compare machines.
  if (report.old_report.device.name != report.new_report.device.name) {
    header_rule += "\nnote: OLD and NEW ran on different GPUs; the ratios compare the machines too";
  }
  // A launch-bound row timed without the blocking kernel carries the host's enqueue time.
  if (report.old_report.timing.block != report.new_report.timing.block) {
    header_rule += std::string("\nnote: ") + (report.old_report.timing.block ? "NEW" : "OLD") +
                   " timed launches as the host enqueued them (--no-block), the other behind a "
                   "blocking kernel; launch-bound rows compare the two methods too";
  }
  switch (format) {
    case Format::kJson:
      os << to_json(report).dump(2) << '\n';
      return;
    case Format::kCsv:
      write_csv(os, compare_table(report));
      return;
    case Format::kTable:
      os << "tilegemm compare\n" << old_line << '\n' << new_line << '\n' << header_rule << "\n\n";
      write_text(os, compare_table(report));
      os << compare_summary(report) << '\n';
      for (const std::string& line : regression_lines(report)) os << line << '\n';
      return;
    case Format::kMarkdown:
      os << "## tilegemm compare\n\n- " << old_line << "\n- " << new_line << "\n\n"
         << rule << ".\n\n";
      if (header_rule != rule) {
        os << "Note: OLD and NEW ran on different GPUs; the ratios compare the machines too.\n\n";
      }
      write_markdown(os, compare_table(report));
      os << '\n' << compare_summary(report) << ".\n";
      const std::vector<std::string> lines = regression_lines(report);
      if (!lines.empty()) os << '\n';
      for (const std::string& line : lines) os << "- " << line << '\n';
      return;
  }
}

}  // namespace tilegemm::bench
