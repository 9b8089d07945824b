// The timer's blocking kernel (TimingOptions::block): the host's enqueue stays out of the events,
// a call that waits for the GPU under a hold fails its row after the timeout instead of hanging,
// and a failed launch releases its hold at once.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "gpu_env.hpp"
#include "tilegemm/bench.hpp"

namespace tilegemm::bench {
namespace {

// A stream and a small device buffer, released on every path.
class TimerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TILEGEMM_REQUIRE_GPU();
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&buffer_, kBytes), cudaSuccess);
  }
  void TearDown() override {
    if (buffer_ != nullptr) cudaFree(buffer_);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  // A launch that takes the host 2 ms to enqueue and the GPU a few microseconds to run.
  LaunchFn slow_host_launch() {
    return [this](cudaStream_t s) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      return from_cuda_error(cudaMemsetAsync(buffer_, 1, kBytes, s));
    };
  }
  static TimingOptions options(bool block) {
    TimingOptions o;
    o.warmup = 1;
    o.reps = 5;
    o.block = block;
    return o;
  }

  static constexpr std::size_t kBytes = 1024;
  cudaStream_t stream_ = nullptr;
  void* buffer_ = nullptr;
};

TEST_F(TimerTest, BlockingKernelKeepsTheHostsEnqueueOutOfTheEvents) {
  std::vector<float> held, unheld;
  {
    Timer timer(options(true), 0);
    ASSERT_TRUE(timer.init_status().ok()) << timer.init_status().message();
    ASSERT_TRUE(timer.sample(slow_host_launch(), stream_, &held).ok());
  }
  {
    Timer timer(options(false), 0);
    ASSERT_TRUE(timer.init_status().ok()) << timer.init_status().message();
    ASSERT_TRUE(timer.sample(slow_host_launch(), stream_, &unheld).ok());
  }
  ASSERT_EQ(held.size(), 5u);
  ASSERT_EQ(unheld.size(), 5u);
  // Held, the events see a 1 KiB memset; unheld, the GPU records the start event, then waits
  // the host's 2 ms for the memset (which shows that this launch tells the two apart).
  for (float ms : held) EXPECT_LT(ms, 0.5f);
  for (float ms : unheld) EXPECT_GT(ms, 1.5f);
}

TEST_F(TimerTest, ACallThatWaitsForTheGpuUnderAHoldFailsAfterTheTimeout) {
  TimingOptions o = options(true);
  o.reps = 1;
  o.block_timeout_s = 0.05;
  Timer timer(o, 0);
  ASSERT_TRUE(timer.init_status().ok()) << timer.init_status().message();
  std::vector<float> samples;
  const Status s =
      timer.sample([](cudaStream_t st) { return from_cuda_error(cudaStreamSynchronize(st)); },
                   stream_, &samples);
  EXPECT_EQ(s.code(), StatusCode::kCudaError);
  EXPECT_EQ(s.cuda_error(), cudaErrorTimeout) << s.message();
  // The next row starts clean: a launch that does not wait is timed.
  std::vector<float> next;
  EXPECT_TRUE(timer.sample(slow_host_launch(), stream_, &next).ok());
  EXPECT_EQ(next.size(), 1u);
}

TEST_F(TimerTest, AFailedLaunchReleasesItsHoldAtOnce) {
  TimingOptions o = options(true);
  o.block_timeout_s = 30.0;
  Timer timer(o, 0);
  ASSERT_TRUE(timer.init_status().ok()) << timer.init_status().message();
  int calls = 0;
  std::vector<float> samples;
  // The warm-up launch succeeds; the first timed one fails after its hold is enqueued.
  const Status s = timer.sample(
      [&](cudaStream_t) { return ++calls == 1 ? Status() : Status(StatusCode::kNotSupported); },
      stream_, &samples);
  EXPECT_EQ(s.code(), StatusCode::kNotSupported);
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  const double waited_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(waited_s, 5.0);  // not the 30 s timeout
}

}  // namespace
}  // namespace tilegemm::bench
