#pragma once
// The autobatching engine. Its scheduler (group_scheduler.h) hands out groups of ready nodes with
// one batching signature, and each group runs as one kernel call over a batch dimension that
// spans the group, reading its arguments where argument_placement.h finds them. The record of
// the groups run (group_record.h) lets backward run the same groups in reverse. Each group's
// gradients are one block in group order, a view's too: a slice's gradient is its own, which its
// backward adds into its argument's. gradient_coverage.h tracks what each block holds, so that
// blocks are zeroed only where gradients are added, not where kernels overwrite.
// With --dynet-vertex 1 or 2, the weight-gradient parts of small groups wait and run as one
// product per weight (lazy_weight_gradients.h), and narrow affine transforms over inputs known in
// advance take their input products from one product computed ahead and add their input
// gradients as one (leading_products.h), as the sequential engine's do. Where units are planned (plans_units), marked
// instances of vertex functions are scheduled as units and run as tasks (autobatch/vertex): one
// group per position of the function, over every unit of the task; a task's elementwise chains
// run as one pass over tiles, forward and backward.

#include <cstdint>
#include <vector>

#include "autobatch/engine_base.h"
#include "autobatch/gradient_coverage.h"
#include "autobatch/group_record.h"
#include "autobatch/group_scheduler.h"
#include "autobatch/strided_elementwise.h"
#include "autobatch/vertex/fused_chain_call.h"
#include "autobatch/vertex/instance_plan.h"
#include "autobatch/vertex/lazy_weight_gradients.h"
#include "autobatch/vertex/leading_products.h"
#include "autobatch/vertex/vertex_executor.h"

namespace dynet {

class BatchedEngine : public EngineBase {
 public:
  using Policy = GroupScheduler::Policy;
  explicit BatchedEngine(Policy policy) : scheduler_(policy) {}

 protected:
  void forward_nodes(VariableIndex begin, VariableIndex end) override;
  void backward_nodes(VariableIndex last, const std::uint8_t* needs) override;
  void allocate_gradients(VariableIndex last, const std::uint8_t* needs) override;
  void on_forget() override;
  void on_truncate(VariableIndex n) override;

 private:
  /// Bytes a group's kernel read where they were and bytes gathered for it.
  struct ArgumentBytes {
    std::uint64_t in_place = 0, gathered = 0;
  };

  /// Whether this forward pass plans vertex-function instances as units
  /// (ComputationGraph::runs_vertex_tasks).
  bool plans_units() const;
  /// Gives the parameter leaves the scheduler found their parameter's memory.
  void alias_parameter_leaves();
  /// Runs the `count` nodes at `ready` (of one signature) as few kernel calls as tensor sizes
  /// allow, slices as views where they can be.
  void run_scheduled(const VariableIndex* ready, std::uint32_t count);
  /// Runs them in groups as large as tensor sizes allow.
  void run_in_size_limits(const VariableIndex* ready, std::uint32_t count);
  /// Runs the `count` nodes at `ready` (of one signature) as one kernel call and records them;
  /// `deferred`: records them, their outputs placed and arguments read, for a fused chain to
  /// compute (its scratch stays until then).
  void run_as_one_call(const VariableIndex* ready, std::uint32_t count, bool deferred = false);
  /// Records the groups of a vertex task's elementwise chain and computes them in one call
  /// (fused_chain_call.h); false (each group run on its own) when a group would need splitting or
  /// the device can run no chain in one call.
  bool run_chain(const VertexExecutor::ChainTask& task);
  /// Where the group's outputs go, every `stride` floats from the returned address: a view of
  /// their arguments (`view` set) or a fresh block.
  float* place_outputs(const VariableIndex* nodes, std::uint32_t count, std::uint32_t& stride, bool& view);
  /// Makes xs_[i] the group's argument i, gathering it if need be, and records where it is. With
  /// `strided`, an argument of several nodes is read where it lies instead, along its runs
  /// (strided_elementwise.h); returns whether it is.
  bool read_argument(const VariableIndex* nodes, std::uint32_t count, unsigned i, bool view, bool strided,
                     ArgumentBytes& bytes);
  /// Runs group g's forward kernel into `out`, from the arguments in xs_, or, `along_runs`, node by
  /// node from where the record says they lie; with `partial`, from the values of b + W1 x1 there
  /// (leading_products.h) in place of its first three arguments.
  void run_forward_kernel(std::uint32_t g, float* out, bool along_runs, const ArgumentBytes& bytes,
                          const float* partial = nullptr);
  /// Whether every one of the `count` nodes at `nodes`, recorded as group g and about to run, has
  /// its b + W1 x1 computed ahead, starting the groups of ahead_ they belong to that have not
  /// started. A group starts with the members whose x1 is computed (by groups before g), unless
  /// the nodes that start it are wide enough to run on their own or hold every such member.
  bool runs_ahead(std::uint32_t g, const VariableIndex* nodes, std::uint32_t count);
  /// The values of b + W1 x1 computed ahead for those nodes, side by side: where they lie, or
  /// gathered into scratch.
  const float* partials(const VariableIndex* nodes, std::uint32_t count);
  /// Whether the x1 gradients of group g's nodes wait in ahead_: every node is a member of one of
  /// its groups. Makes the blocks they will be added to whole.
  bool input_gradients_wait(const Group& group);

  /// Runs the backward kernels of group g.
  void backward_group(std::uint32_t g);
  /// Where the gradient of argument i of the group goes, or null when no node needs it: the
  /// shared argument's own gradient (its group's block made whole first), the argument's span of
  /// its producer's block, or scratch (zeroed if `zero_scratch`) that scatter_gradient then adds
  /// into the blocks of the groups it was gathered from. Both backward paths, a group's and a
  /// fused chain's, ask it; the overwrite rule is theirs.
  float* gradient_destination(const Group& group, unsigned i, bool zero_scratch);
  /// Adds the gradients `g` holds for argument i of the group's nodes (asize floats each) into
  /// the blocks of the groups that computed them, and into the gradients of nodes in no group.
  void scatter_gradient(const Group& group, unsigned i, const float* g, std::size_t asize);
  /// Runs the backward of a task's fused chain in one call (fused_chain_call.h), its groups'
  /// gradient blocks made whole first; false when the device can run no chain in one call (its
  /// groups then run one by one, as its values are all kept).
  bool backward_chain(const VertexExecutor::ChainTask& task, std::uint32_t first);
  /// The overwrite rule: whether the backward kernel may write argument i's gradient over what
  /// is in group arg.producer's block instead of adding to it, because its op overwrites and
  /// nothing written there yet lies under what it writes. If so, that part is recorded as
  /// written; if not, the block is made whole so that it can be added to.
  bool may_overwrite(const OpCall& call, const Group& group, const GroupArg& arg, const Dim& ad);
  /// Whether a later kernel may overwrite the gradients of nodes [position, position + n) of
  /// group g (recorded as written then); if not, the block is made whole to be added to.
  bool may_overwrite_nodes(std::uint32_t g, std::uint32_t position, std::uint32_t n);
  /// Zeroes what group g's gradient block holds no gradients in yet (if it has a block).
  void complete_block(std::uint32_t g);
  bool needs_gradient(VariableIndex a) const { return a <= last_ && needs_[a]; }
  /// The first argument at position i of the group's nodes that needs a gradient, or kNoNode.
  VariableIndex argument_needing_gradient(const Group& group, unsigned i) const;
  /// Points t at `count` nodes of shape d side by side at v. Written in place: a Tensor made,
  /// returned and copied at once is read back before its writes drain from the store buffer, a
  /// stall at every argument of every group.
  void point(Tensor& t, const Dim& d, std::uint32_t count, float* v) const;

  GroupScheduler scheduler_;
  InstancePlan plan_;  // vertex-function instances of the forward pass running (--dynet-vertex)
  VertexExecutor executor_;
  const VertexFunction* task_function_ = nullptr;      // of the task running, if any
  std::vector<const VertexFunction*> group_function_;  // per group: the function of its task, or null
  LazyWeightGradients lazy_;                           // of the backward pass running
  LeadingProducts ahead_;
  bool leading_ = false;          // whether the forward pass running computes leading products ahead
  VariableIndex pass_begin_ = 0;  // the first node of the forward pass running
  GroupRecord record_;
  std::vector<VariableIndex> alias_nodes_;  // computed nodes whose value is parameter memory

  std::vector<float*> group_grad_;  // each group's gradient block, or null (backward)
  GradientCoverage coverage_;
  VariableIndex last_ = 0;  // of the backward pass running
  const std::uint8_t* needs_ = nullptr;

  std::uint64_t kernel_ns_ = 0;  // time inside run_as_one_call while profiling, so scheduling time can be told apart
  std::vector<Tensor> xs_;       // kernel call buffer
  std::vector<MemoryRun> runs_;  // run tables of a gather or of a scatter's copies
  std::vector<MemoryRun> adds_;  // run table of a scatter's additions
  FusedChainCall chain_call_;    // the lists of the fused chain running
  // The fused chains run, by the group of their first op and their executor's id, in group order.
  struct FusedRun {
    std::uint32_t first, ops;
    std::uint64_t chain;
  };
  std::vector<FusedRun> fused_runs_;
};

}  // namespace dynet
