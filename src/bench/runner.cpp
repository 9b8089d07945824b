// The runners of `tilegemm bench` and `tilegemm verify`, without the printing.
//   bench:  per shape one Testbed in the request's element types; cuBLAS verified and timed on
//           its buffers in the same types, then every selected kernel verified and, only if
//           right, timed the same way.
//   verify: per case one Testbed, every selected kernel checked on it; failures carry the case
//           and the command that replays it.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "tilegemm/bench.hpp"
#include "tilegemm/gemm.hpp"
#include "tilegemm/reference.hpp"

namespace tilegemm::bench {

namespace {

// A non-blocking stream, destroyed on every path.
class Stream {
 public:
  Stream() {
    err_ = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
    if (err_ != cudaSuccess) cudaGetLastError();
  }
  ~Stream() {
    if (err_ == cudaSuccess) cudaStreamDestroy(stream_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Status status() const { return from_cuda_error(err_); }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
  cudaError_t err_ = cudaSuccess;
};

void mark_failed(BenchRow* row, const std::string& detail) {
  row->status = RowStatus::kFailed;
  row->detail = detail;
}

// Verifies with run_and_check; a wrong result fails the row, which is then never timed.
bool verify(Testbed& testbed, cudaStream_t stream, const Testbed::RunFn& run, BenchRow* row) {
  const CheckResult check = testbed.run_and_check(run, stream);
  row->rel_error = check.rel_error;
  row->tolerance = check.tolerance;
  if (!check.passed) {
    mark_failed(row, check.detail.empty() ? "verification failed" : check.detail);
    return false;
  }
  return true;
}

// A verified row waiting for its timing rounds.
struct Timed {
  std::size_t row;  // index into the shape's rows
  Testbed::RunFn run;
  std::vector<float> samples_ms;
  std::vector<float> host_us;
};

// Times every verified row of a shape in `rounds` rounds, each row's warm-up and reps in turn,
// C reset once before the first, and fills the rows' statistics. Round r starts at row r (mod the
// count) and wraps, so no row always follows the same neighbour: a kernel that draws more power
// lowers the clock its successor starts at. With `nvtx`, each row's first timed launch of round 0
// is in its NVTX range (TimingOptions::nvtx).
void time_rows(Testbed& testbed, Timer& timer, cudaStream_t stream, int rounds, bool nvtx,
               std::vector<Timed>& timed, std::vector<BenchRow>& rows) {
  if (timed.empty()) return;
  if (Status s = testbed.reset_c(stream); !s.ok()) {
    for (const Timed& t : timed) mark_failed(&rows[t.row], "reset_c: " + s.message());
    return;
  }
  const Problem& problem = testbed.problem();
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t i = 0; i < timed.size(); ++i) {
      Timed& t = timed[(i + static_cast<std::size_t>(round)) % timed.size()];
      BenchRow& row = rows[t.row];
      if (row.status == RowStatus::kFailed) continue;
      // One range per row: round 0's first timed launch, the one `profile` measures.
      const std::string range =
          nvtx && round == 0 ? nvtx_range_name(row.kernel, row.shape) : std::string();
      const Status s = timer.sample([&](cudaStream_t st) { return t.run(problem, st); }, stream,
                                    &t.samples_ms, range, &t.host_us);
      if (s.cuda_error() == cudaErrorTimeout) {
        mark_failed(&row,
                    "timing: the call waited for the GPU while the blocking kernel held the "
                    "stream (a synchronizing call); time it with --no-block");
      } else if (!s.ok()) {
        mark_failed(&row, "timing: " + s.message());
      }
    }
  }
  for (Timed& t : timed) {
    BenchRow& row = rows[t.row];
    if (row.status == RowStatus::kFailed) continue;
    row.samples = static_cast<int>(t.samples_ms.size());
    row.noise_pct = noise_pct(t.samples_ms);
    row.host_us = summarize_ms(std::move(t.host_us)).median_ms;  // the median, of microseconds
    const TimingStats stats = summarize_ms(std::move(t.samples_ms));
    row.median_ms = stats.median_ms;
    row.min_ms = stats.min_ms;
    row.max_ms = stats.max_ms;
    row.tflops = tflops(row.shape, stats.median_ms);
  }
}

}  // namespace

const char* row_status_name(RowStatus status) {
  switch (status) {
    case RowStatus::kOk:
      return "ok";
    case RowStatus::kFailed:
      return "FAILED";
    case RowStatus::kNotApplicable:
      return "N/A";
  }
  return "unknown";
}

CaseSpec bench_case(const BenchRequest& request, const Shape& shape) {
  CaseSpec c;
  c.types = request.types;
  c.m = shape.m;
  c.n = shape.n;
  c.k = shape.k;
  c.alpha = request.alpha;
  c.beta = request.beta;
  c.la = request.la;
  c.lb = request.lb;
  c.lc = request.lc;
  c.pad_a = request.pads.a;
  c.pad_b = request.pads.b;
  c.pad_c = request.pads.c;
  c.seed = request.seed;
  return c;
}

double testbed_bytes(const CaseSpec& s) {
  // The testbed's own count, so the memory check and the allocation cannot drift apart.
  return static_cast<double>(Testbed::device_bytes(s));
}

bool bench_passed(const BenchReport& report) {
  for (const BenchRow& row : report.rows) {
    if (row.status == RowStatus::kFailed) return false;
  }
  return true;
}

BenchReport run_bench(const BenchRequest& request, const ProgressFn& progress) {
  BenchReport report;
  report.timing = request.timing;
  report.seed = request.seed;
  if (std::optional<DeviceInfo> d = current_device()) report.device = *d;

  Stream stream;
  reference::Cublas cublas;
  Timer timer(request.timing, report.device.l2_bytes);
  // A setup failure fails every row with the same reason.
  std::string setup_error;
  if (!stream.status().ok())
    setup_error = "stream: " + stream.status().message();
  else if (!cublas.init_status().ok())
    setup_error = "cuBLAS: " + cublas.init_status().message();
  else if (!timer.init_status().ok())
    setup_error = "timer: " + timer.init_status().message();

  const std::size_t total = request.shapes.size() * (request.kernels.size() + 1);
  std::size_t done = 0;
  auto announce = [&](const std::string& name, const Shape& shape) {
    ++done;
    if (progress) {
      progress("[" + std::to_string(done) + "/" + std::to_string(total) + "] " + name + " " +
               shape.to_string() + " ...");
    }
  };

  for (std::size_t si = 0; si < request.shapes.size(); ++si) {
    const Shape& shape = request.shapes[si];
    CaseSpec spec = bench_case(request, shape);
    if (si < request.shape_layouts.size()) {
      spec.la = request.shape_layouts[si].a;
      spec.lb = request.shape_layouts[si].b;
      spec.lc = request.shape_layouts[si].c;
    }
    BenchRow base;
    base.types = spec.types;
    base.shape = shape;
    base.la = spec.la;
    base.lb = spec.lb;
    base.lc = spec.lc;
    base.alpha = spec.alpha;
    base.beta = spec.beta;
    base.pads = request.pads;

    Testbed testbed(spec);
    std::string shape_error = setup_error;
    if (shape_error.empty() && !testbed.init_status().ok()) {
      shape_error = "testbed: " + testbed.init_status().message();
    }

    // Every row of the shape is verified first, then the verified ones are timed together.
    std::vector<BenchRow> rows;
    std::vector<Timed> timed;
    announce("cublas", shape);
    BenchRow cublas_row = base;
    cublas_row.kernel = "cublas";
    Testbed::RunFn cublas_run = [&](const Problem& p, cudaStream_t st) {
      return cublas.gemm(p, st);
    };
    if (!shape_error.empty()) {
      mark_failed(&cublas_row, shape_error);
    } else if (verify(testbed, stream.get(), cublas_run, &cublas_row)) {
      timed.push_back(Timed{rows.size(), cublas_run, {}, {}});
    }
    rows.push_back(cublas_row);

    for (const std::string& name : request.kernels) {
      BenchRow row = base;
      const bool is_auto = name == "auto";
      const KernelInfo* info = nullptr;
      if (shape_error.empty()) {
        info = is_auto ? select_kernel(testbed.problem()) : find_kernel(name);
      } else if (!is_auto) {
        info = find_kernel(name);
      }
      row.kernel =
          is_auto ? "auto(" + (info != nullptr ? info->name : std::string("none")) + ")" : name;
      announce(row.kernel, shape);
      if (!shape_error.empty()) {
        mark_failed(&row, shape_error);
      } else if (info == nullptr) {
        row.status = RowStatus::kNotApplicable;
        row.detail =
            is_auto ? "no registered kernel implements this problem" : "no kernel of this name";
      } else if (!runs_on_current_device(*info)) {
        row.status = RowStatus::kNotApplicable;
        row.detail = "needs " + cc_requirement(info->desc);
      } else if (!info->can_implement(testbed.problem())) {
        row.status = RowStatus::kNotApplicable;
        row.detail = "can_implement is false for this problem";
      } else {
        const std::string run_name = is_auto ? std::string("auto") : name;
        Testbed::RunFn run = [run_name](const Problem& p, cudaStream_t st) {
          return gemm(p, run_name, st);
        };
        if (verify(testbed, stream.get(), run, &row)) {
          timed.push_back(Timed{rows.size(), run, {}, {}});
        }
      }
      rows.push_back(row);
    }

    time_rows(testbed, timer, stream.get(), request.timing.rounds, request.timing.nvtx, timed,
              rows);
    const double cublas_ms = rows.front().median_ms;
    for (BenchRow& row : rows) {
      row.cublas_ms = cublas_ms;
      if (row.status == RowStatus::kOk && cublas_ms > 0.0) {
        row.cublas_ratio = cublas_ms / row.median_ms;
      }
      report.rows.push_back(row);
    }
  }
  return report;
}

std::string dtype_flags(GemmTypes types) {
  if (types == GemmTypes{}) return "";
  std::string flags = std::string("--dtype ") + dtype_name(types.ab);
  if (types.c != default_c_dtype(types.ab))
    flags += std::string(" --dtype-c ") + dtype_name(types.c);
  return flags;
}

std::string replay_command(const std::string& kernel, const CaseSpec& spec) {
  std::string command = "tilegemm verify --kernels " + kernel + " " + spec.replay_flags();
  // The case's types, unless replay_flags() already names them.
  const std::string flags = dtype_flags(spec.types);
  if (!flags.empty() && spec.replay_flags().find("--dtype") == std::string::npos) {
    command += " " + flags;
  }
  return command;
}

VerifyReport run_verify(const std::vector<std::string>& kernels, const std::vector<CaseSpec>& cases,
                        const ProgressFn& progress,
                        const std::function<void(const VerifyFailure&)>& on_failure) {
  VerifyReport report;
  if (!cases.empty()) report.types = cases.front().types;
  for (const std::string& name : kernels) {
    KernelSummary s;
    s.kernel = name;
    report.kernels.push_back(s);
  }
  Stream stream;
  auto fail = [&](KernelSummary* summary, const CaseSpec& spec, CheckResult check) {
    ++summary->failed;
    VerifyFailure f{summary->kernel, spec, std::move(check)};
    if (on_failure) on_failure(f);
    report.failures.push_back(std::move(f));
  };

  const std::size_t every = 50;  // a progress line per 50 cases keeps long sweeps alive
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const CaseSpec& spec = cases[i];
    if (progress && (i % every == 0 || i + 1 == cases.size())) {
      progress("[" + std::to_string(i + 1) + "/" + std::to_string(cases.size()) + "] " +
               spec.to_string());
    }
    Testbed testbed(spec);
    Status setup = stream.status();
    if (setup.ok()) setup = testbed.init_status();
    for (KernelSummary& summary : report.kernels) {
      ++summary.cases;
      if (!setup.ok()) {
        CheckResult r;
        r.status = setup;
        r.detail = "testbed: " + setup.message();
        fail(&summary, spec, std::move(r));
        continue;
      }
      const bool is_auto = summary.kernel == "auto";
      const KernelInfo* info =
          is_auto ? select_kernel(testbed.problem()) : find_kernel(summary.kernel);
      if (info == nullptr || !runs_on_current_device(*info) ||
          !info->can_implement(testbed.problem())) {
        ++summary.not_applicable;
        continue;
      }
      const std::string& run_name = summary.kernel;
      CheckResult r = testbed.run_and_check(
          [&](const Problem& p, cudaStream_t st) { return gemm(p, run_name, st); }, stream.get());
      // NaN (a NaN or Inf in C) counts as the worst error there is.
      const double err =
          std::isnan(r.rel_error) ? std::numeric_limits<double>::infinity() : r.rel_error;
      summary.worst_rel_error = std::max(summary.worst_rel_error, err);
      if (r.tolerance > 0.0) summary.worst_ratio = std::max(summary.worst_ratio, err / r.tolerance);
      if (r.passed) {
        ++summary.passed;
      } else {
        if (r.detail.empty()) r.detail = "verification failed";
        fail(&summary, spec, std::move(r));
      }
    }
  }
  return report;
}

}  // namespace tilegemm::bench
