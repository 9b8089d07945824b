// `tilegemm tune`: measure every candidate of a problem with the benchmark runner and store the
// fastest in the tune cache; `tune --show`; the record `bench` keeps of the cache. The runner
// already verifies a kernel before timing it, so a kernel with a wrong result never has a time
// and can never win.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>

#include "tilegemm/gemm.hpp"
#include "tilegemm/tune_run.hpp"

namespace tilegemm::bench {

namespace {

using nlohmann::json;

json number_or_null(double v) { return std::isnan(v) ? json(nullptr) : json(v); }

std::string layouts_text(Layout a, Layout b, Layout c) {
  return std::string(layout_name(a)) + "," + layout_name(b) + "," + layout_name(c);
}

std::string align_text(const tune::EntryKey& k) {
  return std::to_string(k.align_a) + "," + std::to_string(k.align_b) + "," +
         std::to_string(k.align_c);
}

std::string key_line(const tune::FileKey& k) {
  return k.device + ", " + sm_name(k.compute_capability) + ", " + std::to_string(k.sm_count) +
         " SMs, driver " + cuda_version_string(k.driver_version) + ", runtime " +
         cuda_version_string(k.runtime_version) + ", tilegemm " + k.library_version +
         ", registry " + k.registry_hash;
}

json key_json(const tune::FileKey& k) {
  return json{{"device", k.device},
              {"compute_capability", k.compute_capability},
              {"sm_count", k.sm_count},
              {"driver_version", k.driver_version},
              {"runtime_version", k.runtime_version},
              {"library_version", k.library_version},
              {"registry_hash", k.registry_hash}};
}

json entry_key_json(const tune::EntryKey& k) {
  return json{{"dtype", dtype_name(k.types.ab)},
              {"dtype_c", dtype_name(k.types.c)},
              {"layout_a", layout_name(k.la)},
              {"layout_b", layout_name(k.lb)},
              {"layout_c", layout_name(k.lc)},
              {"align_a", k.align_a},
              {"align_b", k.align_b},
              {"align_c", k.align_c},
              {"beta_zero", k.beta_zero},
              {"m", k.m},
              {"n", k.n},
              {"k", k.k}};
}

CandidateOutcome outcome_of(RowStatus status) {
  switch (status) {
    case RowStatus::kOk:
      return CandidateOutcome::kTimed;
    case RowStatus::kFailed:
      return CandidateOutcome::kFailed;
    case RowStatus::kNotApplicable:
      return CandidateOutcome::kNotApplicable;
  }
  return CandidateOutcome::kNotApplicable;
}

const BenchRow* row_of(const std::vector<BenchRow>& rows, const std::string& kernel) {
  for (const BenchRow& r : rows) {
    if (r.kernel == kernel) return &r;
  }
  return nullptr;
}

std::string ratio_text(double ratio) { return std::isnan(ratio) ? "-" : fixed(ratio, 3); }

}  // namespace

const char* outcome_name(CandidateOutcome outcome) {
  switch (outcome) {
    case CandidateOutcome::kTimed:
      return "ok";
    case CandidateOutcome::kFailed:
      return "FAILED";
    case CandidateOutcome::kNotApplicable:
      return "N/A";
    case CandidateOutcome::kScreenedOut:
      return "screened out";
  }
  return "unknown";
}

Problem case_problem(const CaseSpec& s) {
  Problem p = Problem::make_typed(s.m, s.n, s.k, s.types, nullptr, nullptr, nullptr, s.alpha,
                                  s.beta, s.la, s.lb, s.lc);
  p.a.ld += s.pad_a;
  p.b.ld += s.pad_b;
  p.c.ld += s.pad_c;
  return p;
}

tune::EntryKey case_entry_key(const CaseSpec& spec) { return tune::entry_key(case_problem(spec)); }

std::optional<std::size_t> pick_winner(const std::vector<TuneCandidate>& candidates) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const TuneCandidate& c = candidates[i];
    if (c.outcome != CandidateOutcome::kTimed || std::isnan(c.median_ms)) continue;
    if (!best || c.median_ms < candidates[*best].median_ms) best = i;
  }
  return best;
}

std::vector<std::string> screen_survivors(const std::vector<BenchRow>& rows, double factor) {
  double fastest = std::numeric_limits<double>::infinity();
  for (const BenchRow& r : rows) {
    if (r.kernel != "cublas" && r.status == RowStatus::kOk && !std::isnan(r.median_ms)) {
      fastest = std::min(fastest, r.median_ms);
    }
  }
  std::vector<std::string> out;
  for (const BenchRow& r : rows) {
    if (r.kernel != "cublas" && r.status == RowStatus::kOk && !std::isnan(r.median_ms) &&
        r.median_ms <= factor * fastest) {
      out.push_back(r.kernel);
    }
  }
  return out;
}

TuneReport run_tune(const TuneRequest& request, const ProgressFn& progress) {
  // The rules' own choice is what the table reports beside the winner, and nothing this run
  // measures may depend on an earlier run's cache.
  tune::disable_lookup();
  TuneReport report;
  if (std::optional<DeviceInfo> d = current_device()) report.device = *d;
  report.key = tune::file_key_for(report.device);
  report.timing = request.bench.timing;
  report.screen = request.screen;
  report.seed = request.bench.seed;
  if (!request.cache_dir.empty()) {
    report.cache_path = tune::cache_path(request.cache_dir, report.key.device);
  }
  const int cc = report.device.compute_capability();
  const std::size_t count = request.bench.shapes.size();

  for (std::size_t si = 0; si < count; ++si) {
    BenchRequest one = request.bench;
    one.shapes = {request.bench.shapes[si]};
    one.shape_layouts.clear();
    if (si < request.bench.shape_layouts.size()) {
      one.la = request.bench.shape_layouts[si].a;
      one.lb = request.bench.shape_layouts[si].b;
      one.lc = request.bench.shape_layouts[si].c;
    }
    const CaseSpec spec = bench_case(one, one.shapes.front());
    TuneShape ts;
    ts.shape = one.shapes.front();
    ts.pads = one.pads;
    ts.key = case_entry_key(spec);
    if (const KernelInfo* rules = select_kernel(case_problem(spec), cc)) {
      ts.rules_choice = rules->name;
    }
    const std::string place = "shape " + std::to_string(si + 1) + "/" + std::to_string(count) +
                              " (" + tune::to_string(ts.key) + "): ";
    const ProgressFn shape_progress = [&](const std::string& line) {
      if (progress) progress(place + line);
    };

    std::vector<BenchRow> screen_rows;
    std::vector<std::string> full = one.kernels;
    const bool screening = request.screen > 0.0 && one.kernels.size() > 1;
    if (screening) {
      BenchRequest s = one;
      s.timing.warmup = 1;
      s.timing.reps = 3;
      s.timing.rounds = 1;
      s.timing.min_time_s = 0.0;
      s.timing.max_noise_pct = 0.0;
      s.timing.nvtx = false;
      screen_rows = run_bench(s, shape_progress).rows;
      full = screen_survivors(screen_rows, request.screen);
    }
    std::vector<BenchRow> rows;
    if (!full.empty() || !screening) {
      one.kernels = full;
      rows = run_bench(one, shape_progress).rows;
    }
    const std::vector<BenchRow>& cublas_rows = rows.empty() ? screen_rows : rows;
    if (const BenchRow* c = row_of(cublas_rows, "cublas")) {
      ts.cublas_ms = c->median_ms;
      if (c->status != RowStatus::kOk) ts.cublas_detail = c->detail;
    }
    for (const std::string& name : request.bench.kernels) {
      TuneCandidate cand;
      cand.kernel = name;
      const BenchRow* timed = row_of(rows, name);
      const BenchRow* screened = row_of(screen_rows, name);
      if (screened != nullptr) cand.screen_ms = screened->median_ms;
      const BenchRow* from = timed != nullptr ? timed : screened;
      if (from == nullptr) continue;
      cand.outcome = outcome_of(from->status);
      cand.detail = from->detail;
      if (timed != nullptr) {
        cand.median_ms = timed->median_ms;
        cand.noise_pct = timed->noise_pct;
        cand.cublas_ratio = timed->cublas_ratio;
      } else if (cand.outcome == CandidateOutcome::kTimed) {
        cand.outcome = CandidateOutcome::kScreenedOut;
        cand.detail = "more than " + fixed(request.screen, 2) + "x the fastest in the screen";
      }
      ts.candidates.push_back(std::move(cand));
    }
    if (const std::optional<std::size_t> w = pick_winner(ts.candidates)) {
      ts.winner = ts.candidates[*w].kernel;
      ts.winner_ms = ts.candidates[*w].median_ms;
      if (!request.cache_dir.empty()) {
        tune::Entry entry;
        entry.key = ts.key;
        entry.kernel = ts.winner;
        entry.median_ms = ts.winner_ms;
        entry.cublas_ms = ts.cublas_ms;
        entry.measured = utc_timestamp();
        const tune::StoreResult stored = tune::store(request.cache_dir, report.key, {entry});
        ts.stored = true;
        if (!stored.dropped.empty()) {
          report.notes.push_back(stored.path + ": " + stored.dropped);
          if (progress) progress(stored.path + ": " + stored.dropped);
        }
      }
    }
    report.shapes.push_back(std::move(ts));
  }
  return report;
}

bool tune_passed(const TuneReport& report) {
  for (const TuneShape& s : report.shapes) {
    for (const TuneCandidate& c : s.candidates) {
      if (c.outcome == CandidateOutcome::kFailed) return false;
    }
  }
  return true;
}

std::vector<Section> tune_sections(const TuneReport& report) {
  std::vector<Section> sections;
  Section summary;
  summary.title = "winners";
  summary.table.add_column("M", true);
  summary.table.add_column("N", true);
  summary.table.add_column("K", true);
  summary.table.add_column("types");
  summary.table.add_column("layout A,B,C");
  summary.table.add_column("align A,B,C");
  summary.table.add_column("beta");
  summary.table.add_column("winner");
  summary.table.add_column("median (ms)", true);
  summary.table.add_column("x cuBLAS", true);
  summary.table.add_column("rules' choice");
  summary.table.add_column("rules / winner", true);
  summary.table.add_column("stored");

  for (const TuneShape& s : report.shapes) {
    const tune::EntryKey& k = s.key;
    Section sec;
    sec.title = s.shape.to_string() + "  " + gemm_types_name(k.types) + "  " +
                layouts_text(k.la, k.lb, k.lc) + "  align " + align_text(k) +
                (k.beta_zero ? "  beta=0" : "  beta!=0");
    sec.table.add_column("kernel");
    sec.table.add_column("median (ms)", true);
    sec.table.add_column("x cuBLAS", true);
    sec.table.add_column("noise (%)", true);
    sec.table.add_column("screen (ms)", true);
    sec.table.add_column("status");
    sec.table.add_column("");
    const bool screened = report.screen > 0.0;
    sec.table.add_row({"cublas", fixed(s.cublas_ms, 4), std::isnan(s.cublas_ms) ? "-" : "1.000",
                       "-", "-", s.cublas_detail.empty() ? "ok" : "FAILED", ""});
    // Fastest first, then the screened out, then failures; N/A rows only counted.
    std::vector<const TuneCandidate*> order;
    std::size_t not_applicable = 0;
    for (const TuneCandidate& c : s.candidates) {
      if (c.outcome == CandidateOutcome::kNotApplicable) {
        ++not_applicable;
      } else {
        order.push_back(&c);
      }
    }
    auto rank = [](const TuneCandidate* c) {
      switch (c->outcome) {
        case CandidateOutcome::kTimed:
          return 0;
        case CandidateOutcome::kScreenedOut:
          return 1;
        default:
          return 2;
      }
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](const TuneCandidate* a, const TuneCandidate* b) {
                       if (rank(a) != rank(b)) return rank(a) < rank(b);
                       if (rank(a) == 0) return a->median_ms < b->median_ms;
                       if (rank(a) == 1) return a->screen_ms < b->screen_ms;
                       return false;
                     });
    double rules_ms = kNoValue;
    for (const TuneCandidate* c : order) {
      std::string mark;
      if (c->kernel == s.winner) mark = "<- winner";
      if (c->kernel == s.rules_choice) {
        mark += mark.empty() ? "<- rules' choice" : ", rules' choice";
        rules_ms = c->median_ms;
      }
      std::string status = outcome_name(c->outcome);
      if (c->outcome == CandidateOutcome::kFailed) status += ": " + c->detail;
      sec.table.add_row({c->kernel, fixed(c->median_ms, 4), ratio_text(c->cublas_ratio),
                         fixed(c->noise_pct, 1), screened ? fixed(c->screen_ms, 4) : "-", status,
                         mark});
    }
    if (not_applicable > 0) {
      sec.notes_after.push_back(std::to_string(not_applicable) +
                                " candidates cannot implement this problem (N/A)");
    }
    if (!s.cublas_detail.empty()) sec.notes_after.push_back("cublas: " + s.cublas_detail);
    if (s.winner.empty()) {
      sec.notes_after.push_back("no winner: no candidate was timed");
    } else if (!s.stored) {
      sec.notes_after.push_back("winner " + s.winner + " (not stored)");
    }
    if (!s.rules_choice.empty() && s.rules_choice != s.winner && std::isnan(rules_ms)) {
      sec.notes_after.push_back("rules' choice " + s.rules_choice + " was not timed");
    }
    sections.push_back(std::move(sec));

    const TuneCandidate* w = nullptr;
    for (const TuneCandidate& c : s.candidates) {
      if (c.kernel == s.winner) w = &c;
    }
    summary.table.add_row(
        {std::to_string(s.shape.m), std::to_string(s.shape.n), std::to_string(s.shape.k),
         gemm_types_name(k.types), layouts_text(k.la, k.lb, k.lc), align_text(k),
         k.beta_zero ? "0" : "!=0", s.winner.empty() ? "-" : s.winner, fixed(s.winner_ms, 4),
         w != nullptr ? ratio_text(w->cublas_ratio) : "-",
         s.rules_choice.empty() ? "-" : s.rules_choice,
         std::isnan(rules_ms) || std::isnan(s.winner_ms) ? "-" : fixed(rules_ms / s.winner_ms, 3),
         s.stored ? "yes" : "no"});
  }
  summary.notes_before.push_back("tilegemm tune on " + device_line(report.device));
  summary.notes_before.push_back(
      "warmup " + std::to_string(report.timing.warmup) + ", reps " +
      std::to_string(report.timing.reps) + ", rounds " + std::to_string(report.timing.rounds) +
      (report.screen > 0.0 ? ", screen " + fixed(report.screen, 2) + "x" : std::string()) +
      ", seed " + std::to_string(report.seed));
  summary.notes_after.push_back(report.cache_path.empty()
                                    ? std::string("nothing stored (--dry-run)")
                                    : "cache file: " + report.cache_path);
  for (const std::string& n : report.notes) summary.notes_after.push_back(n);
  for (const std::string& n : report.skipped) summary.notes_after.push_back(n);
  sections.push_back(std::move(summary));
  return sections;
}

json to_json(const TuneReport& report) {
  json shapes = json::array();
  for (const TuneShape& s : report.shapes) {
    json candidates = json::array();
    for (const TuneCandidate& c : s.candidates) {
      candidates.push_back({{"kernel", c.kernel},
                            {"status", outcome_name(c.outcome)},
                            {"median_ms", number_or_null(c.median_ms)},
                            {"noise_pct", number_or_null(c.noise_pct)},
                            {"cublas_ratio", number_or_null(c.cublas_ratio)},
                            {"screen_ms", number_or_null(c.screen_ms)},
                            {"detail", c.detail}});
    }
    json entry = entry_key_json(s.key);
    entry["pad_a"] = s.pads.a;
    entry["pad_b"] = s.pads.b;
    entry["pad_c"] = s.pads.c;
    entry["cublas_ms"] = number_or_null(s.cublas_ms);
    entry["cublas_detail"] = s.cublas_detail;
    entry["winner"] = s.winner.empty() ? json(nullptr) : json(s.winner);
    entry["winner_ms"] = number_or_null(s.winner_ms);
    entry["rules_choice"] = s.rules_choice.empty() ? json(nullptr) : json(s.rules_choice);
    entry["stored"] = s.stored;
    entry["candidates"] = candidates;
    shapes.push_back(entry);
  }
  json settings = settings_json(report.timing, report.seed);
  settings["screen"] = report.screen;
  return json{{"device", to_json(report.device)},
              {"key", key_json(report.key)},
              {"command", report.command},
              {"timestamp", report.timestamp},
              {"settings", settings},
              {"cache_file", report.cache_path.empty() ? json(nullptr) : json(report.cache_path)},
              {"results", shapes},
              {"skipped", report.skipped},
              {"notes", report.notes}};
}

void write_tune(std::ostream& os, const TuneReport& report, Format format) {
  if (format == Format::kJson) {
    os << to_json(report).dump(2) << '\n';
    return;
  }
  write_sections(os, tune_sections(report), format);
}

// --- tune --show -----------------------------------------------------------------------------

CacheShow show_cache(const std::string& cache_dir, const std::optional<tune::FileKey>& process,
                     bool lookup_enabled) {
  CacheShow show;
  show.cache_dir = cache_dir;
  show.lookup_enabled = lookup_enabled;
  show.process = process;
  show.library_version = tune::library_version();
  show.registry_hash = tune::registry_hash();
  show.registry_size = all_kernels().size();

  auto status_of = [&](const std::string& name, const tune::Table& table, tune::KeyRule rule) {
    if (!process) return std::string("not checked: no GPU");
    if (name != tune::file_name_for(process->device)) return std::string("another device's");
    const std::string differs = tune::key_mismatch(table.key, *process, rule);
    if (!differs.empty()) return "ignored: its " + differs;
    return std::string(lookup_enabled ? "in effect" : "would apply (lookup is off)");
  };

  std::vector<std::filesystem::path> files;
  std::error_code ec;
  if (!cache_dir.empty() && std::filesystem::is_directory(cache_dir, ec)) {
    for (const auto& e : std::filesystem::directory_iterator(cache_dir, ec)) {
      if (e.path().extension() == ".json" && e.is_regular_file(ec)) files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  for (const std::filesystem::path& path : files) {
    CacheFileView v;
    v.source = path.string();
    const tune::FileKey any_key = process ? *process : tune::FileKey{};
    tune::ReadResult r = tune::read_table_file(v.source, any_key, tune::KeyRule::kUser);
    if (!r.table) {
      v.status = "ignored: " + r.ignored;
    } else {
      v.status = status_of(path.filename().string(), *r.table, tune::KeyRule::kUser);
      v.table = std::move(r.table);
    }
    show.files.push_back(std::move(v));
  }
  for (const tune::BuiltInTable& b : tune::built_in_tables()) {
    CacheFileView v;
    v.source = "built-in " + b.name;
    v.built_in = true;
    try {
      v.table = tune::parse_table(b.text, v.source);
      v.status = status_of(b.name, *v.table, tune::KeyRule::kShipped);
    } catch (const std::runtime_error& e) {
      v.status = std::string("ignored: ") + e.what();
    }
    show.files.push_back(std::move(v));
  }
  return show;
}

std::vector<Section> cache_sections(const CacheShow& show) {
  std::vector<Section> sections;
  Section head;
  head.title = "tilegemm tune cache";
  // Sections without a table keep their lines in notes_after: no blank line before the next.
  head.notes_after.push_back(std::string("lookup: ") +
                             (show.lookup_enabled ? "on" : "off (TILEGEMM_TUNE_CACHE)"));
  head.notes_after.push_back("this build: tilegemm " + show.library_version + ", registry " +
                             show.registry_hash + " (" + std::to_string(show.registry_size) +
                             " kernels)");
  head.notes_after.push_back(show.process ? "this GPU: " + key_line(*show.process)
                                          : std::string("this GPU: none"));
  head.notes_after.push_back("cache directory: " +
                             (show.cache_dir.empty() ? std::string("none") : show.cache_dir));
  std::size_t user_files = 0;
  for (const CacheFileView& f : show.files) user_files += f.built_in ? 0 : 1;
  if (user_files == 0) head.notes_after.push_back("no cache files in the cache directory");
  sections.push_back(std::move(head));

  for (const CacheFileView& f : show.files) {
    Section s;
    s.title = f.source + ": " + f.status;
    if (f.table) {
      std::vector<std::string>& lines = f.table->entries.empty() ? s.notes_after : s.notes_before;
      lines.push_back("key: " + key_line(f.table->key));
      lines.push_back(std::to_string(f.table->entries.size()) + " entries");
      if (!f.table->entries.empty()) {
        s.table.add_column("types");
        s.table.add_column("layout A,B,C");
        s.table.add_column("align A,B,C");
        s.table.add_column("beta");
        s.table.add_column("M", true);
        s.table.add_column("N", true);
        s.table.add_column("K", true);
        s.table.add_column("kernel");
        s.table.add_column("median (ms)", true);
        s.table.add_column("x cuBLAS", true);
        s.table.add_column("measured");
        for (const tune::Entry& e : f.table->entries) {
          const tune::EntryKey& k = e.key;
          const double ratio = e.cublas_ms / e.median_ms;
          s.table.add_row({gemm_types_name(k.types), layouts_text(k.la, k.lb, k.lc),
                           align_text(k), k.beta_zero ? "0" : "!=0", std::to_string(k.m),
                           std::to_string(k.n), std::to_string(k.k), e.kernel,
                           fixed(e.median_ms, 4), ratio_text(ratio),
                           e.measured.empty() ? "-" : e.measured});
        }
      }
    }
    sections.push_back(std::move(s));
  }
  return sections;
}

json to_json(const CacheShow& show) {
  json files = json::array();
  for (const CacheFileView& f : show.files) {
    json entries = json::array();
    if (f.table) {
      for (const tune::Entry& e : f.table->entries) {
        json j = entry_key_json(e.key);
        j["kernel"] = e.kernel;
        j["median_ms"] = number_or_null(e.median_ms);
        j["cublas_ms"] = number_or_null(e.cublas_ms);
        j["measured"] = e.measured;
        entries.push_back(j);
      }
    }
    files.push_back({{"source", f.source},
                     {"built_in", f.built_in},
                     {"status", f.status},
                     {"key", f.table ? key_json(f.table->key) : json(nullptr)},
                     {"entries", entries}});
  }
  return json{{"lookup", show.lookup_enabled},
              {"library_version", show.library_version},
              {"registry_hash", show.registry_hash},
              {"registry_size", show.registry_size},
              {"process_key", show.process ? key_json(*show.process) : json(nullptr)},
              {"cache_dir", show.cache_dir},
              {"files", files}};
}

void write_cache_show(std::ostream& os, const CacheShow& show, Format format) {
  if (format == Format::kJson) {
    os << to_json(show).dump(2) << '\n';
    return;
  }
  write_sections(os, cache_sections(show), format);
}

// --- bench's record --------------------------------------------------------------------------

// A path under the user's home directory as "~/...": result files get committed and shared, and
// the record should name where the cache was, not whose machine it was on.
std::string home_relative(const std::string& path) {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') return path;
  const std::string prefix = std::string(home) + "/";
  return path.compare(0, prefix.size(), prefix) == 0 ? "~/" + path.substr(prefix.size()) : path;
}

json bench_cache_record(const BenchReport& report, const tune::ActiveTables& active, int cc) {
  json tables = json::array();
  for (const tune::Table& t : active.tables) {
    tables.push_back({{"source", home_relative(t.source)}, {"entries", t.entries.size()}});
  }
  json hits = json::array();
  const std::string prefix = "auto(";
  for (const BenchRow& r : report.rows) {
    if (r.kernel.compare(0, prefix.size(), prefix) != 0 || !active.enabled) continue;
    CaseSpec spec;
    spec.types = r.types;
    spec.m = r.shape.m;
    spec.n = r.shape.n;
    spec.k = r.shape.k;
    spec.alpha = r.alpha;
    spec.beta = r.beta;
    spec.la = r.la;
    spec.lb = r.lb;
    spec.lc = r.lc;
    spec.pad_a = r.pads.a;
    spec.pad_b = r.pads.b;
    spec.pad_c = r.pads.c;
    if (const KernelInfo* k = tune::lookup(case_problem(spec), cc)) {
      hits.push_back({{"m", r.shape.m},
                      {"n", r.shape.n},
                      {"k", r.shape.k},
                      {"layout_a", layout_name(r.la)},
                      {"layout_b", layout_name(r.lb)},
                      {"layout_c", layout_name(r.lc)},
                      {"kernel", k->name}});
    }
  }
  json ignored = json::array();
  const char* home = std::getenv("HOME");
  for (std::string note : active.notes) {
    // The notes name files: the same home-relative form as the paths above.
    if (home != nullptr && *home != '\0') {
      const std::string home_dir = std::string(home) + "/";
      for (std::size_t at = note.find(home_dir); at != std::string::npos;
           at = note.find(home_dir)) {
        note.replace(at, home_dir.size(), "~/");
      }
    }
    ignored.push_back(note);
  }
  return json{{"lookup", active.enabled},
              {"cache_dir", home_relative(active.cache_dir)},
              {"tables", tables},
              {"ignored", ignored},
              {"auto_from_cache", hits}};
}

}  // namespace tilegemm::bench
