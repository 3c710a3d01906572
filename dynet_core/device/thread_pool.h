#pragma once
// A small pool for splitting one large kernel (a GEMM) across cores: the calling thread runs the
// first part, workers the others, and run() returns when all parts are done. After a part a
// worker spins for kSpin before it sleeps on a condition variable: a forward or backward pass
// runs its products a few microseconds to a few dozen apart, and waking a sleeping thread costs
// more than a product of a tree's level (on a virtual machine, tens of microseconds), while an
// idle pool still costs nothing on a shared machine after kSpin. Any number of threads may call
// run() at once: the pool serves one job at a time, and a caller that finds it busy runs every
// part of its job itself instead of waiting.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace dynet {

class ThreadPool {
 public:
  /// `threads` counts the calling thread. Threads are not pinned: pinning the caller would pin
  /// every thread it starts later, and on a shared machine it measured slower.
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned threads() const { return static_cast<unsigned>(workers_.size()) + 1; }

  /// How long a worker looks for the next job before it sleeps.
  static constexpr std::chrono::microseconds kSpin{200};

  /// Whether this thread is running a part of some pool's run(): kernels then stay on it, since
  /// the other threads are busy with their own parts (and run() does not nest).
  static bool in_task();

  /// Calls f(part) for part in [0, threads()), in parallel when the pool is free; f must not throw.
  template <class F>
  void run(F& f) {
    run_erased(&f, [](void* fn, unsigned part) { (*static_cast<F*>(fn))(part); });
  }

 private:
  using Invoke = void (*)(void*, unsigned);
  void run_erased(void* fn, Invoke invoke);
  void work(unsigned part);

  /// Waits for a job newer than `seen` (spinning, then asleep); false when the pool stops.
  bool wait_for_job(std::uint64_t seen);

  std::vector<std::thread> workers_;
  std::mutex job_;  ///< held by the caller whose job the workers serve
  std::mutex mutex_;
  std::condition_variable wake_;
  // A job's fn_ and invoke_ are written before generation_ counts it; a worker reads them after.
  void* fn_ = nullptr;
  Invoke invoke_ = nullptr;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<unsigned> sleepers_{0};  ///< workers that may be asleep: a new job must wake them
  std::atomic<bool> stopping_{false};
  std::atomic<unsigned> pending_{0};
};

}  // namespace dynet
