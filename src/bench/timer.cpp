// The timer: warm-up launches, then one CUDA event pair around each timed launch, so the median
// is over launches and one slow launch (a clock ramp, a context switch) shows in max, not in
// the median. The cold-L2 flush is enqueued before each launch's start event, so its own time is
// never counted. With TimingOptions::block (the default, as nvbench's cold measurement), a
// blocking kernel holds the stream from before the start event until the host has enqueued the
// launch and its stop event: the events then time the GPU's work, not the host's enqueue. With a
// stopping rule (TimingOptions::min_time_s, max_noise_pct) a round times batches of reps until
// the rule is satisfied or max_time_s of kernel time passed. With TimingOptions::nvtx, the first
// timed launch of a row sits in an NVTX range (header-only NVTX3 from the toolkit: nothing to
// link, a no-op without a tool).
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "stream_hold.hpp"
#include "tilegemm/bench.hpp"

namespace tilegemm::bench {

namespace {

// A failed call's error, cleared from the runtime's last-error slot so the next row starts clean.
Status cuda_status(cudaError_t err) {
  if (err != cudaSuccess) cudaGetLastError();
  return from_cuda_error(err);
}

// Events of the timed launches, destroyed on every path.
class EventPairs {
 public:
  explicit EventPairs(int count)
      : start_(static_cast<std::size_t>(count), nullptr),
        stop_(static_cast<std::size_t>(count), nullptr) {}
  ~EventPairs() {
    for (cudaEvent_t e : start_)
      if (e != nullptr) cudaEventDestroy(e);
    for (cudaEvent_t e : stop_)
      if (e != nullptr) cudaEventDestroy(e);
  }
  EventPairs(const EventPairs&) = delete;
  EventPairs& operator=(const EventPairs&) = delete;
  Status create() {
    for (std::size_t i = 0; i < start_.size(); ++i) {
      if (Status s = cuda_status(cudaEventCreate(&start_[i])); !s.ok()) return s;
      if (Status s = cuda_status(cudaEventCreate(&stop_[i])); !s.ok()) return s;
    }
    return Status();
  }
  cudaEvent_t start(std::size_t i) const { return start_[i]; }
  cudaEvent_t stop(std::size_t i) const { return stop_[i]; }

 private:
  std::vector<cudaEvent_t> start_;
  std::vector<cudaEvent_t> stop_;
};

// A push/pop range of kNvtxDomain for the lifetime of the object; none for an empty name.
class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name) : active_(!name.empty()) {
    if (!active_) return;
    nvtxEventAttributes_t attributes{};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = name.c_str();
    nvtxDomainRangePushEx(domain(), &attributes);
  }
  ~NvtxRange() {
    if (active_) nvtxDomainRangePop(domain());
  }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;

 private:
  static nvtxDomainHandle_t domain() {
    static const nvtxDomainHandle_t handle = nvtxDomainCreateA(kNvtxDomain);
    return handle;
  }
  bool active_;
};

// Releases a hold when it goes out of scope, on every path: a hold left in place would keep the
// stream waiting until its timeout.
class HoldRelease {
 public:
  HoldRelease(HoldWords* words, unsigned ticket) : words_(words), ticket_(ticket) {}
  ~HoldRelease() {
    if (words_ != nullptr) __atomic_store_n(&words_->release, ticket_, __ATOMIC_SEQ_CST);
  }
  HoldRelease(const HoldRelease&) = delete;
  HoldRelease& operator=(const HoldRelease&) = delete;

 private:
  HoldWords* words_;
  unsigned ticket_;
};

}  // namespace

std::string nvtx_range_name(const std::string& kernel, const Shape& shape) {
  return kernel + " " + shape.to_string();
}

TimingStats summarize_ms(std::vector<float> samples_ms) {
  TimingStats t;
  t.reps = static_cast<int>(samples_ms.size());
  if (samples_ms.empty()) {
    t.median_ms = t.min_ms = t.max_ms = kNoValue;
    return t;
  }
  std::sort(samples_ms.begin(), samples_ms.end());
  const std::size_t n = samples_ms.size();
  t.min_ms = static_cast<double>(samples_ms.front());
  t.max_ms = static_cast<double>(samples_ms.back());
  t.median_ms = n % 2 == 1 ? static_cast<double>(samples_ms[n / 2])
                           : 0.5 * (static_cast<double>(samples_ms[n / 2 - 1]) +
                                    static_cast<double>(samples_ms[n / 2]));
  return t;
}

double noise_pct(const std::vector<float>& samples_ms) {
  const std::size_t n = samples_ms.size();
  if (n < 2) return 0.0;
  double mean = 0.0;
  for (float v : samples_ms) mean += static_cast<double>(v);
  mean /= static_cast<double>(n);
  if (!(mean > 0.0)) return 0.0;
  double squares = 0.0;
  for (float v : samples_ms) {
    const double d = static_cast<double>(v) - mean;
    squares += d * d;
  }
  return 100.0 * std::sqrt(squares / static_cast<double>(n - 1)) / mean;
}

bool keep_sampling(const std::vector<float>& samples_ms, const TimingOptions& options) {
  if (!(options.min_time_s > 0.0) && !(options.max_noise_pct > 0.0)) return false;
  double total_s = 0.0;
  for (float v : samples_ms) total_s += static_cast<double>(v) * 1e-3;
  if (options.max_time_s > 0.0 && total_s >= options.max_time_s) return false;
  if (options.min_time_s > 0.0 && total_s < options.min_time_s) return true;
  return options.max_noise_pct > 0.0 && noise_pct(samples_ms) > options.max_noise_pct;
}

double tflops(const Shape& shape, double elapsed_ms) {
  if (!(elapsed_ms > 0.0)) return kNoValue;
  const double flop = 2.0 * static_cast<double>(shape.m) * static_cast<double>(shape.n) *
                      static_cast<double>(shape.k);
  return flop / (elapsed_ms * 1e-3) / 1e12;
}

Timer::Timer(const TimingOptions& options, std::int64_t l2_bytes) : options_(options) {
  if (options_.reps < 1 || options_.warmup < 0 || options_.rounds < 1) {
    init_ = Status(StatusCode::kNotSupported);
    return;
  }
  if (options_.cold) {
    // Twice the L2: whatever the replacement policy, none of the previous launch's lines stay.
    flush_bytes_ = static_cast<std::size_t>(std::max<std::int64_t>(l2_bytes, 1 << 20)) * 2;
    init_ = cuda_status(cudaMalloc(&flush_buffer_, flush_bytes_));
  }
  if (init_.ok() && options_.block) {
    // Mapped pinned memory: with unified addressing its host address is its device address.
    void* words = nullptr;
    init_ = cuda_status(cudaHostAlloc(&words, sizeof(HoldWords), cudaHostAllocMapped));
    if (init_.ok()) {
      hold_ = static_cast<HoldWords*>(words);
      *hold_ = HoldWords{0, 0};
    }
  }
}

Timer::~Timer() {
  if (flush_buffer_ != nullptr) cudaFree(flush_buffer_);
  if (hold_ != nullptr) cudaFreeHost(hold_);
}

Status Timer::sample(const LaunchFn& launch, cudaStream_t stream, std::vector<float>* samples_ms,
                     const std::string& nvtx_range, std::vector<float>* host_us) {
  if (!init_.ok()) return init_;
  for (int i = 0; i < options_.warmup; ++i) {
    if (Status s = launch(stream); !s.ok()) return s;
  }
  EventPairs events(options_.reps);
  if (Status s = events.create(); !s.ok()) return s;
  // Batches of `reps` timed launches: one, or as many as the stopping rule asks for.
  std::vector<float> round;
  bool first = true;
  do {
    const auto reps = static_cast<std::size_t>(options_.reps);
    for (std::size_t i = 0; i < reps; ++i) {
      if (options_.cold) {
        // A write of every line evicts the operands (writes allocate in L2 on NVIDIA GPUs).
        if (Status s = cuda_status(cudaMemsetAsync(flush_buffer_, static_cast<int>(i & 0xff),
                                                   flush_bytes_, stream));
            !s.ok()) {
          return s;
        }
      }
      // The host releases the hold at the end of this iteration, once the stop event is
      // enqueued, or on the way out of a failed launch.
      HoldRelease release(hold_, hold_ != nullptr ? ++hold_ticket_ : 0);
      if (hold_ != nullptr) {
        const auto timeout_ns = static_cast<unsigned long long>(options_.block_timeout_s * 1e9);
        if (Status s = cuda_status(enqueue_hold(stream, hold_, hold_ticket_, timeout_ns));
            !s.ok()) {
          return s;
        }
      }
      if (Status s = cuda_status(cudaEventRecord(events.start(i), stream)); !s.ok()) return s;
      {
        const NvtxRange range(first && i == 0 ? nvtx_range : std::string());
        const auto t0 = std::chrono::steady_clock::now();
        if (Status s = launch(stream); !s.ok()) return s;
        if (host_us != nullptr) {
          host_us->push_back(std::chrono::duration<float, std::micro>(
                                 std::chrono::steady_clock::now() - t0)
                                 .count());
        }
      }
      if (Status s = cuda_status(cudaEventRecord(events.stop(i), stream)); !s.ok()) return s;
    }
    if (Status s = cuda_status(cudaStreamSynchronize(stream)); !s.ok()) return s;
    if (hold_ != nullptr && __atomic_load_n(&hold_->timed_out, __ATOMIC_SEQ_CST) != 0) {
      // A hold gave up: the call waited for the GPU while the stream was held, so its events
      // time the timeout, not the call.
      hold_->timed_out = 0;
      return Status(StatusCode::kCudaError, cudaErrorTimeout);
    }
    for (std::size_t i = 0; i < reps; ++i) {
      float ms = 0.0f;
      if (Status s = cuda_status(cudaEventElapsedTime(&ms, events.start(i), events.stop(i)));
          !s.ok()) {
        return s;
      }
      round.push_back(ms);
    }
    first = false;
  } while (keep_sampling(round, options_));
  samples_ms->insert(samples_ms->end(), round.begin(), round.end());
  return Status();
}

}  // namespace tilegemm::bench
