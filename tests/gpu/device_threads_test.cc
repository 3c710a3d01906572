// Several threads driving one Device_GPU at once, as DataParallel, ShardedTraining and concurrent
// backward passes do: each thread's run lists, norms and kernel times stay its own.

#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>
#include <thread>
#include <vector>

#include "gpu/device_gpu.h"
#include "gpu/kernel_timer.h"

using namespace dynet;

namespace {

constexpr std::size_t MB = std::size_t(1) << 20;
constexpr unsigned kThreads = 8;

template <class F>
void on_threads(const F& f) {
  std::vector<std::thread> running;
  for (unsigned t = 0; t < kThreads; ++t) running.emplace_back([&, t] { f(t); });
  for (std::thread& t : running) t.join();
}

}  // namespace

TEST_CASE("threads that share one GPU each move their own runs", "[gpu][threads]") {
  Device_GPU gpu(0, MemorySizes{MB, MB, 64 * MB, MB});
  constexpr std::size_t kFloats = 1 << 16;
  std::vector<float*> src(kThreads), dst(kThreads);
  for (unsigned t = 0; t < kThreads; ++t) {
    src[t] = gpu.allocate_parameter_floats(kFloats);
    dst[t] = gpu.allocate_parameter_floats(kFloats);
    std::vector<float> v(kFloats);
    for (std::size_t i = 0; i < kFloats; ++i) v[i] = float(t * kFloats + i);
    gpu.to_device(src[t], v.data(), kFloats);
  }
  std::vector<unsigned> wrong(kThreads, 0);
  on_threads([&](unsigned t) {
    for (unsigned round = 0; round < 100; ++round) {
      // Lists of different lengths in every round, so that the staging buffer grows under others.
      const unsigned runs = 1 + (round * 7 + t * 13) % 300;
      const std::size_t n = kFloats / runs;
      std::vector<MemoryRun> list(runs);
      for (unsigned r = 0; r < runs; ++r) list[r] = {dst[t] + r * n, src[t] + (runs - 1 - r) * n, n};
      gpu.zero(dst[t], kFloats);
      gpu.apply_runs(RunOp::Copy, list.data(), runs);
      std::vector<float> back(runs * n);
      gpu.to_host(back.data(), dst[t], back.size());
      for (unsigned r = 0; r < runs; ++r)
        wrong[t] += back[r * n] != float(t * kFloats + (runs - 1 - r) * n) ||
                    back[r * n + n - 1] != float(t * kFloats + (runs - 1 - r) * n + n - 1);
    }
  });
  for (unsigned t = 0; t < kThreads; ++t) {
    INFO("thread " << t);
    CHECK(wrong[t] == 0);
  }
}

TEST_CASE("squared norms on a GPU are the same on every run and from every thread", "[gpu][threads]") {
  Device_GPU gpu(0, MemorySizes{MB, MB, 64 * MB, MB});
  // Runs shorter and longer than one thread block's piece, one over several million floats.
  const std::size_t lengths[] = {1, 300, 8192, 8193, 100000, 5000000};
  std::vector<MemoryRun> runs;
  double expected = 0;
  for (std::size_t n : lengths) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = std::sin(0.001f * float(i + n));
    for (float x : v) expected += double(x) * x;
    float* p = gpu.allocate_parameter_floats(n);
    gpu.to_device(p, v.data(), n);
    runs.push_back({nullptr, p, n});
  }
  const double first = gpu.squared_norm(runs.data(), runs.size());
  CHECK(first == Approx(expected).epsilon(1e-9));
  std::vector<double> seen(kThreads * 20);
  on_threads([&](unsigned t) {
    for (unsigned k = 0; k < 20; ++k) seen[t * 20 + k] = gpu.squared_norm(runs.data(), runs.size());
  });
  for (double s : seen) CHECK(s == first);  // bit for bit: a fixed order of additions
  CHECK(gpu.squared_norm(runs[4].src, lengths[4]) == gpu.squared_norm(runs[4].src, lengths[4]));
}

TEST_CASE("each thread collects the kernel times of its own calls", "[gpu][threads][profiling]") {
  Device_GPU gpu(0, MemorySizes{MB, MB, 16 * MB, MB});
  float* v = gpu.allocate_parameter_floats(1 << 20);
  gpu::KernelTimer clock(gpu.stream());
  std::vector<std::size_t> collected(kThreads);
  on_threads([&](unsigned t) {
    for (unsigned k = 0; k <= t; ++k) {
      const unsigned slot = clock.start();
      gpu.scale(v, 1.f, 1 << 20);
      clock.stop(slot);
    }
    collected[t] = clock.collect().size();
  });
  for (unsigned t = 0; t < kThreads; ++t) CHECK(collected[t] == t + 1);
}

TEST_CASE("a host loop is refused as a GPU kernel", "[gpu]") {
  Device_GPU gpu(0, MemorySizes{MB, MB, MB, MB});
  CHECK_FALSE(gpu.capabilities().host_kernels);
  bool ran = false;
  CHECK_THROWS_WITH(gpu.run_host_kernel("moving average", [&] { ran = true; }),
                    Catch::Contains("moving average") && Catch::Contains("GPU:0"));
  CHECK_FALSE(ran);
}
