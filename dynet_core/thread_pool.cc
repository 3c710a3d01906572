#include "dynet_core/thread_pool.h"

namespace dynet {

namespace {

thread_local bool running_part = false;

/// Marks this thread as running a part for the lifetime of the object.
struct RunningPart {
  bool previous = running_part;
  RunningPart() { running_part = true; }
  ~RunningPart() { running_part = previous; }
};

}  // namespace

bool ThreadPool::in_task() { return running_part; }

ThreadPool::ThreadPool(unsigned threads) {
  for (unsigned part = 1; part < threads; ++part) workers_.emplace_back([this, part] { work(part); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::run_erased(void* fn, Invoke invoke) {
  const RunningPart running;
  // The job state below is one job's; waiting for it would idle this core while the workers use
  // theirs, so a caller that finds the pool busy computes all of its parts alone.
  std::unique_lock<std::mutex> job(job_, std::try_to_lock);
  if (workers_.empty() || !job.owns_lock()) {
    for (unsigned part = 0; part < threads(); ++part) invoke(fn, part);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    fn_ = fn;
    invoke_ = invoke;
    pending_.store(static_cast<unsigned>(workers_.size()), std::memory_order_relaxed);
    ++generation_;
  }
  wake_.notify_all();
  invoke(fn, 0);
  // The parts are about equal, so the others finish soon: wait without sleeping.
  while (pending_.load(std::memory_order_acquire) != 0) std::this_thread::yield();
}

void ThreadPool::work(unsigned part) {
  std::uint64_t seen = 0;
  for (;;) {
    void* fn;
    Invoke invoke;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      fn = fn_;
      invoke = invoke_;
    }
    {
      const RunningPart running;
      invoke(fn, part);
    }
    pending_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

}  // namespace dynet
