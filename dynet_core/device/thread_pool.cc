#include "dynet_core/device/thread_pool.h"

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
    stopping_.store(true);
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
  fn_ = fn;
  invoke_ = invoke;
  pending_.store(static_cast<unsigned>(workers_.size()), std::memory_order_relaxed);
  // Sequentially consistent with the worker's announcing itself asleep and checking generation_
  // (wait_for_job): either it sees this job, or this sees it asleep and wakes it.
  generation_.fetch_add(1);
  if (sleepers_.load() != 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    wake_.notify_all();
  }
  invoke(fn, 0);
  // The parts are about equal, so the others finish soon: wait without sleeping.
  while (pending_.load(std::memory_order_acquire) != 0) std::this_thread::yield();
}

bool ThreadPool::wait_for_job(std::uint64_t seen) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  // Yielding between looks leaves the core to any other thread that is ready to run.
  for (unsigned looks = 1;; ++looks) {
    if (generation_.load(std::memory_order_acquire) != seen) return true;
    if (stopping_.load(std::memory_order_relaxed)) return false;
    if (looks % 16 == 0 && std::chrono::steady_clock::now() >= until) break;
    std::this_thread::yield();
  }
  std::unique_lock<std::mutex> lock(mutex_);
  sleepers_.fetch_add(1);
  wake_.wait(lock, [&] { return stopping_.load() || generation_.load() != seen; });
  sleepers_.fetch_sub(1);
  return !stopping_.load();
}

void ThreadPool::work(unsigned part) {
  std::uint64_t seen = 0;
  while (wait_for_job(seen)) {
    seen = generation_.load(std::memory_order_acquire);
    {
      const RunningPart running;
      invoke_(fn_, part);
    }
    pending_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

}  // namespace dynet
