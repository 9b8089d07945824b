// `tilegemm compare OLD.json NEW.json`: two bench results, row by row, in the manner of nvbench's
// nvbench_compare.py. Rows match by everything that defines the measured case: kernel (an
// `auto(<chosen>)` name as written, so a changed choice shows as a row only in one file), M, N,
// K, layouts, element types, pads, alpha and beta. Each matched pair gets the ratio of the median
// times, new / old (> 1 is slower), and a verdict: "noise" when |ratio - 1| is within the two
// rows' combined spread, else "faster" or "slower". A row's spread is (max - min) / median of its
// timed launches; the two combine as sqrt(s_old^2 + s_new^2), the usual sum of independent
// relative errors. A slower row beyond the threshold, or a row that FAILED in NEW where it passed
// in OLD, is a regression.
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tilegemm/bench.hpp"

namespace tilegemm::bench {

inline constexpr double kDefaultRegressionPct = 5.0;

enum class Verdict {
  kFaster,
  kSlower,
  kNoise,
  kNewFailed,  // ok in OLD, FAILED in NEW: counted as a regression
  kNotTimed,   // either row is not ok (N/A, or FAILED in OLD): nothing to compare
  kOnlyOld,
  kOnlyNew,
};
const char* verdict_name(Verdict v);  // "faster", "slower", "noise", "FAILED", "not timed", ...

// (max - min) / median of a timed row; NaN when any of the three is missing.
double relative_spread(const BenchRow& row);

// Everything that identifies a measured case, as one string: rows match when their keys do.
std::string compare_key(const BenchRow& row);

struct CompareRow {
  std::optional<BenchRow> old_row, new_row;  // one of them absent for kOnlyOld / kOnlyNew
  double ratio = kNoValue;                   // new median / old median
  double noise = kNoValue;                   // combined relative spread of the two rows
  Verdict verdict = Verdict::kNotTimed;
  bool regression = false;
  const BenchRow& any_row() const { return old_row ? *old_row : *new_row; }
};

// One matched pair's numbers and verdict at `threshold_pct` (e.g. 5 for 5%).
CompareRow compare_pair(const BenchRow& old_row, const BenchRow& new_row, double threshold_pct);

struct CompareReport {
  std::string old_path, new_path;
  BenchReport old_report, new_report;
  double threshold_pct = kDefaultRegressionPct;
  // OLD's rows in its order (each with its match, or only in OLD), then NEW's unmatched rows.
  std::vector<CompareRow> rows;
  std::size_t count(Verdict v) const;
  std::size_t regressions() const;
  bool passed() const { return regressions() == 0; }
};

// Matches rows by compare_key; a key repeated within a file matches in order of appearance.
CompareReport compare_reports(const BenchReport& old_report, const BenchReport& new_report,
                              double threshold_pct);

// One line per regression: "slower: <kernel> <MxNxK> <layouts> <types>: new/old 1.083 (+8.3%,
// noise 1.2%), beyond 5%".
std::vector<std::string> regression_lines(const CompareReport& report);
// "3 matched: 1 faster, 1 slower, 1 noise; 0 only in OLD, 2 only in NEW; 1 regression beyond 5%"
std::string compare_summary(const CompareReport& report);

Table compare_table(const CompareReport& report);
nlohmann::json to_json(const CompareReport& report);
// table and md: a header naming both files' devices, the table, the summary and the regressions;
// csv: the table; json: to_json.
void write_compare(std::ostream& os, const CompareReport& report, Format format);

}  // namespace tilegemm::bench
