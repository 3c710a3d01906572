#pragma once
// What a ComputationGraph asks of the engine that evaluates it. The core owns this interface and
// names no engine: the engines (autobatch/) implement it and define make_engine.

#include <cstdint>
#include <memory>

#include "dynet_core/engine_stats.h"
#include "dynet_core/node.h"

namespace dynet {

class ComputationGraph;

class ExecutionEngine {
 public:
  virtual ~ExecutionEngine() = default;

  /// Starts serving `cg`, with nothing computed.
  virtual void bind(ComputationGraph& cg) = 0;
  /// Forgets every value and gradient.
  virtual void invalidate() = 0;
  /// Nodes >= n no longer exist (the graph was reverted).
  virtual void truncate(VariableIndex n) = 0;
  /// Computes every node up to and including `last` that is not computed yet.
  virtual void incremental_forward(VariableIndex last) = 0;
  /// See ComputationGraph::backward; `seed` (null: ones) is the gradient of the output.
  virtual void backward(VariableIndex last, bool full, const float* seed = nullptr) = 0;

  /// Nodes [0, evaluated()) hold values.
  virtual VariableIndex evaluated() const = 0;
  /// Changes whenever values are forgotten, so that saved memory marks can be recognised as stale.
  virtual std::uint64_t generation() const = 0;
  /// Whether node i received a gradient in the last backward.
  virtual bool has_gradient(VariableIndex i) const = 0;

  const EngineStats& stats() const { return stats_; }
  void reset_stats() { stats_ = EngineStats(); }

 protected:
  EngineStats stats_;
};

/// The engine for a --dynet-autobatch strategy (0 sequential, 1 agenda, 2 depth); throws
/// std::invalid_argument for any other. Defined by the engine layer (autobatch/make_engine.cc).
std::unique_ptr<ExecutionEngine> make_engine(int strategy);

}  // namespace dynet
