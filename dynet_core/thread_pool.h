#pragma once
// A small pool for splitting one large kernel (a GEMM) across cores: the calling thread runs the
// first part, workers the others, and run() returns when all parts are done. Workers sleep on a
// condition variable between calls, so an idle pool costs nothing on a shared machine. Any number
// of threads may call run() at once: the pool serves one job at a time, and a caller that finds
// it busy runs every part of its job itself instead of waiting.

#include <atomic>
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

  std::vector<std::thread> workers_;
  std::mutex job_;  ///< held by the caller whose job the workers serve
  std::mutex mutex_;
  std::condition_variable wake_;
  std::uint64_t generation_ = 0;
  bool stopping_ = false;
  void* fn_ = nullptr;
  Invoke invoke_ = nullptr;
  std::atomic<unsigned> pending_{0};
};

}  // namespace dynet
