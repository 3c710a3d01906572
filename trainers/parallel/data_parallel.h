#pragma once
// Data parallelism over the CPU's cores. A minibatch is split into shards; each shard is built,
// run forward and backward on a graph of its own, several shards at once (one per thread), each
// thread collecting parameter gradients in its own GradientSet. The sets are summed into the
// parameters before backward() returns, so the trainer's update that follows sees the
// minibatch's gradient, as if one graph had held every shard.

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "dynet_core/expression.h"
#include "dynet_core/gradient_set.h"

namespace dynet {

class ComputationGraph;
class ThreadPool;

class DataParallel {
 public:
  using ShardLoss = std::function<Expression(ComputationGraph& cg, unsigned shard)>;

  /// `threads` shards run at once; 0 means --dynet-threads.
  explicit DataParallel(unsigned threads = 0);
  ~DataParallel();
  DataParallel(const DataParallel&) = delete;
  DataParallel& operator=(const DataParallel&) = delete;

  unsigned threads() const { return static_cast<unsigned>(sets_.size()); }

  /// Builds loss(cg, k) on a new graph for each shard k in [0, shards), runs forward and
  /// backward, and adds every shard's parameter gradients to the parameters; returns the sum of
  /// the shard losses (each must be a scalar). Shard k's random ops draw from an engine seeded
  /// with the k-th number drawn here from random_engine(), so results depend on the seed, not on
  /// thread timing. `loss` runs on several threads at once and must only read shared state. If a
  /// shard throws, the first exception (in shard order) is rethrown and no parameter gradient
  /// has changed. Under --dynet-profiling the calling thread's shards stand for all: its step runs
  /// from its first shard's graph to the trainer's update; the other threads record nothing.
  /// Calls from several threads take turns.
  float backward(unsigned shards, const ShardLoss& loss);

 private:
  std::mutex turn_;  // the sets are one per thread of the pool, so one call uses them at a time
  std::unique_ptr<ThreadPool> pool_;
  std::vector<GradientSet> sets_;  // one per thread
};

}  // namespace dynet
