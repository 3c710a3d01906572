#pragma once
// What every engine shares: which nodes are computed, the backward set-up (which nodes need
// gradients, their memory, the seed) and the calls of single-node kernels. Engines differ in the
// order and grouping of kernel calls.

#include <cstdint>
#include <vector>

#include "dynet_core/execution_engine.h"
#include "dynet_core/gemm/transpose_cache.h"
#include "dynet_core/graph.h"

namespace dynet {

class EngineBase : public ExecutionEngine {
 public:
  void bind(ComputationGraph& cg) final;
  void invalidate() final;
  void truncate(VariableIndex n) final;
  void incremental_forward(VariableIndex last) final;
  void backward(VariableIndex last, bool full, const float* seed = nullptr) final;
  VariableIndex evaluated() const final { return evaluated_; }
  std::uint64_t generation() const final { return generation_; }
  bool has_gradient(VariableIndex i) const final;

 protected:
  /// Computes nodes [begin, end); every node below begin is computed.
  virtual void forward_nodes(VariableIndex begin, VariableIndex end) = 0;
  /// Runs backward kernels for the nodes in [0, last] with needs[j] set, in reverse order of
  /// their forward computation.
  virtual void backward_nodes(VariableIndex last, const std::uint8_t* needs) = 0;
  /// Gives every node in [0, last] with needs[j] set a zeroed gradient (parameter leaves: the
  /// parameter gradient itself).
  virtual void allocate_gradients(VariableIndex last, const std::uint8_t* needs);
  /// Called whenever every value is forgotten (bind, invalidate); engines reset their own state.
  virtual void on_forget() {}
  /// Called by truncate() when values of nodes >= n exist.
  virtual void on_truncate(VariableIndex n);

  /// The kernel call of one node; argument tensors go to inline_xs (kInlineTensors of them) or,
  /// for more arguments, to scratch memory.
  OpCall node_call(Node& n, Tensor* inline_xs);
  static constexpr unsigned kInlineTensors = 4;
  /// Computes n; with `partial` (ops with OpDef::sum_of_products), n runs from that value of its
  /// first terms, x0 + x1 x2, computed ahead, in place of its first three arguments, and takes it
  /// as its value when it has no other terms.
  void forward_node(Node& n, const float* partial = nullptr);
  /// A zeroed gradient for n from the backward pool.
  float* zeroed_gradient(const Node& n);
  /// Runs n's backward kernels for the arguments that need a gradient, except those whose bit is
  /// set in `skip` (argument k: bit k).
  void backward_node(Node& n, const std::uint8_t* needs, std::uint64_t skip = 0);
  /// In debug-memory mode, throws when a kernel wrote past the end of `values`.
  static void check_guard(const OpDef& op, const AlignedMemoryPool& pool, const float* values, const Dim& d,
                          const char* what);

  ComputationGraph* cg_ = nullptr;
  TransposeCache transposes_;  // for backward kernels; reset by every backward pass
  bool profiling_ = false;     // --dynet-profiling, read when a graph is bound

 private:
  void forget_gradients();
  /// Adds the seed of backward (ones when null) to the gradient of `top`.
  void seed_gradient(const Node& top, const float* seed);

  VariableIndex evaluated_ = 0;
  VariableIndex gradients_upto_ = 0;  // nodes [0, gradients_upto_) may hold gradient pointers
  std::uint64_t generation_ = 0;
  // Host bookkeeping, reused from pass to pass.
  std::vector<Tensor> wide_xs_;            // arguments of a node with more than kInlineTensors
  std::vector<std::uint8_t> needs_flags_;  // per node: needs a gradient (backward)
  std::vector<std::uint8_t> reach_flags_;  // per node: the loss depends on it (backward)
  std::vector<float> seed_;                // the seed of backward, on the host
};

}  // namespace dynet
