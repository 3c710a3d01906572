#pragma once
// The autobatching engine. Nodes that are ready (all arguments computed) are grouped by batching
// signature, and each group runs as one kernel call over a batch dimension that spans the group.
// Two policies pick the next group:
//  - Agenda (--dynet-autobatch 1): a group whose every remaining node is ready runs first (waiting
//    cannot make it larger); otherwise the signature of smallest average depth, as in DyNet, so
//    that signatures that still wait on many of their nodes are delayed.
//  - Depth (--dynet-autobatch 2): TensorFlow Fold's rule, one group per signature and depth.
// Memory continuity: a group's outputs are one block in group order, so a later group whose
// inputs are that block (in order) reads them in place; only otherwise are inputs gathered.
// Slices (ops with an argument span) are views: their nodes point into their arguments, every
// node or consecutive outputs of one group, and readers gather from them. Backward runs the
// same groups in reverse. Each group's gradients are one block in group order, a view's too: a
// slice's gradient is its own, which its backward adds into its argument's.

#include <cstdint>
#include <vector>

#include "autobatch/engine_base.h"

namespace dynet {

class BatchedEngine : public EngineBase {
 public:
  enum class Policy { Agenda, Depth };
  explicit BatchedEngine(Policy policy) : policy_(policy) {}

 protected:
  void forward_nodes(VariableIndex begin, VariableIndex end) override;
  void backward_nodes(VariableIndex last, const std::uint8_t* needs) override;
  void allocate_gradients(VariableIndex last, const std::uint8_t* needs) override;
  void on_forget() override;
  void on_truncate(VariableIndex n) override;

 private:
  struct Batch {
    std::uint32_t first_node;  // into batch_nodes_
    std::uint32_t count;
    std::uint32_t first_arg;   // into batch_args_: one entry per argument position
    float* values;             // the group's outputs in group order, node j at values + j * stride
    std::uint32_t stride;      // the node size, unless the group is a view of wider nodes (slices)
  };
  /// Where a group reads one argument position from, worked out once in forward so that
  /// backward finds the gradients without visiting the argument nodes again.
  struct GroupArg {
    float* values;            // the batched values (in place or gathered), or the shared argument
    std::uint32_t producer;   // the group whose outputs these are, in order, or kNoGroup
    std::uint32_t offset;     // position of the first of them in that group
    bool shared;
  };
  static constexpr std::uint32_t kNoGroup = 0xFFFFFFFFu;
  struct KeySlot {
    std::uint64_t key;
    std::uint32_t id;
  };
  static constexpr std::uint32_t kNotScheduled = 0xFFFFFFFFu;

  std::uint32_t key_id(std::uint64_t key);
  void clear_keys();
  void make_ready(VariableIndex node, std::uint32_t local);
  std::uint32_t pick_key() const;
  /// Runs the group batch_nodes_[first, first + count) as one kernel call.
  void run_group(std::uint32_t first, std::uint32_t count);
  /// Whether argument i of nodes[0, count) are consecutive outputs of one group (`producer`,
  /// from position `offset` on).
  bool consecutive_outputs(const VariableIndex* nodes, std::uint32_t count, unsigned i, std::uint32_t& producer,
                           std::uint32_t& offset) const;
  /// Where the outputs of a group of slices already are, every `stride` floats, when they need
  /// no copy (null otherwise): each node's argument has one batch element, and the arguments are
  /// one node or consecutive outputs of one group.
  float* view_of_argument(const VariableIndex* nodes, std::uint32_t count, std::uint32_t& stride) const;
  void release_consumers(std::uint32_t first, std::uint32_t count, VariableIndex begin);
  Tensor batched(const Dim& d, std::uint32_t count, float* v) const;
  /// Calls f(j, n, group, position, first argument) for each run of argument i of nodes[j, j + n) that holds
  /// consecutive outputs of one group, from `position` on; group is kNotScheduled (and n 1) for
  /// an argument in no group. Gathers and scatters move a run at a time.
  template <class F>
  void for_each_run(const VariableIndex* nodes, std::uint32_t count, unsigned i, F&& f) const;
  /// Zeroes what the gradient block of group g holds no gradients in yet, so that it can be added to.
  void zero_gradient_block(std::uint32_t g);
  /// Whether a kernel may overwrite elements [begin, end) of every batch element (of `size`
  /// elements) in group g's gradient block: none of them holds a gradient yet. If so, they are
  /// recorded as written; if not, the block is made whole (zero_gradient_block) to be added to.
  bool claim_span(std::uint32_t g, std::uint32_t begin, std::uint32_t end, std::uint32_t size);
  /// The same for the whole gradients of the group's nodes at positions [position, position + n).
  bool claim_nodes(std::uint32_t g, std::uint32_t position, std::uint32_t n);

  Policy policy_;

  // Groups run so far (kept for backward).
  std::vector<Batch> batches_;
  std::vector<VariableIndex> batch_nodes_;
  std::vector<const void*> batch_data_;    // op data of each group node, as batch_nodes_
  std::vector<GroupArg> batch_args_;
  std::vector<std::uint32_t> node_batch_;  // the group of each computed node
  std::vector<std::uint32_t> node_pos_;    // its position in that group
  std::vector<VariableIndex> alias_nodes_; // computed nodes whose value is parameter memory
  std::vector<float*> batch_grad_;         // each group's gradient block (backward)
  // Where a block holds gradients (zeroed or written): nowhere, in spans of every node (slices),
  // in some whole nodes, or everywhere. Writes of the two partial kinds never mix: the block is
  // made whole first.
  enum Written : std::uint8_t { kWrittenNothing, kWrittenSpans, kWrittenNodes, kWrittenAll };
  std::vector<std::uint8_t> batch_written_;
  std::vector<std::uint8_t> node_written_;         // kWrittenNodes: per group node, as batch_nodes_
  std::vector<std::uint32_t> nodes_written_;       // kWrittenNodes: how many, per group
  struct Span {
    std::uint32_t begin, end;  // elements of every batch element of the group's nodes
    std::uint32_t next;        // the group's next span, or kNoSpan
  };
  static constexpr std::uint32_t kNoSpan = 0xFFFFFFFFu;
  std::vector<Span> spans_;                // written spans of kWrittenSpans blocks (slices)
  std::vector<std::uint32_t> first_span_;  // per group
  std::vector<Span> gaps_;                 // zero_gradient_block's work list

  // Scheduling state of one forward call, indexed by node - begin; reused between calls.
  std::vector<std::uint32_t> key_of_;
  std::vector<std::uint32_t> pending_;
  std::vector<std::uint32_t> consumer_start_;
  std::vector<VariableIndex> consumers_;
  std::vector<VariableIndex> immediate_;
  // Per key id.
  std::vector<std::vector<VariableIndex>> ready_;
  std::vector<std::uint32_t> remaining_;
  std::vector<std::uint32_t> key_nodes_;
  std::vector<double> key_depth_sum_;
  std::vector<std::uint32_t> active_;
  std::vector<KeySlot> table_;
  std::vector<std::uint32_t> used_slots_;
  std::uint32_t keys_ = 0;

  std::uint64_t kernel_ns_ = 0;  // time inside run_group, so scheduling time can be told apart

  // Kernel call buffer.
  std::vector<Tensor> xs_;
};

}  // namespace dynet
