#pragma once
// A handle to one node of a ComputationGraph. Cheap to copy; tied to the graph (and its
// epoch) it was made in, so that a handle of a cleared, reverted or destroyed-and-replaced
// graph is reported instead of silently reading another node.

#include <cstdint>

#include "dynet_core/node.h"
#include "dynet_core/tensor.h"

namespace dynet {

class ComputationGraph;

struct Expression {
  ComputationGraph* pg = nullptr;
  VariableIndex i = 0;
  std::uint32_t epoch = 0;
  std::uint64_t graph_id = 0;

  Expression() = default;
  Expression(ComputationGraph* g, VariableIndex index);

  const Dim& dim() const;
  /// Computes (incrementally) and returns the value.
  Tensor value() const;
  /// The gradient from the last backward.
  Tensor gradient() const;
  /// True when the graph was cleared, reverted past this node, or replaced.
  bool is_stale() const;
};

}  // namespace dynet
