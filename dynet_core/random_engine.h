#pragma once
// The random engine (--dynet-seed). Initializers draw from it directly; random ops draw one
// 64-bit seed per node when the node is built and generate their values from that seed with a
// counter-based hash, so recomputing a node (forward again, numeric gradient checks, another
// engine or device) reproduces the same values.

#include <cstdint>
#include <mutex>
#include <random>

namespace dynet {

class RandomEngine {
 public:
  void seed(std::uint64_t s) {
    std::lock_guard<std::mutex> lock(mutex_);
    engine_.seed(s);
  }
  std::uint64_t next() {
    std::lock_guard<std::mutex> lock(mutex_);
    return engine_();
  }
  /// Runs f(std::mt19937_64&) under the engine's lock.
  template <class F>
  void with(F&& f) {
    std::lock_guard<std::mutex> lock(mutex_);
    f(engine_);
  }

 private:
  std::mutex mutex_;
  std::mt19937_64 engine_{5489u};
};

/// The engine of this thread: the global one (--dynet-seed), unless a RandomEngineScope is open.
RandomEngine& random_engine();

/// Makes random_engine() return `engine` on this thread while alive: a graph built on a worker
/// thread draws from an engine of its own, seeded by the caller, so its random values do not
/// depend on how threads interleave.
class RandomEngineScope {
 public:
  explicit RandomEngineScope(RandomEngine& engine);
  ~RandomEngineScope();
  RandomEngineScope(const RandomEngineScope&) = delete;
  RandomEngineScope& operator=(const RandomEngineScope&) = delete;

 private:
  RandomEngine* previous_;
};

}  // namespace dynet
