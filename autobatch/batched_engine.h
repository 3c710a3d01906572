#pragma once
// The autobatching engine. Its scheduler (group_scheduler.h) hands out groups of ready nodes with
// one batching signature, and each group runs as one kernel call over a batch dimension that
// spans the group, reading its arguments where argument_placement.h finds them. The record of
// the groups run (group_record.h) lets backward run the same groups in reverse. Each group's
// gradients are one block in group order, a view's too: a slice's gradient is its own, which its
// backward adds into its argument's. gradient_coverage.h tracks what each block holds, so that
// blocks are zeroed only where gradients are added, not where kernels overwrite.
// With --dynet-vertex 1 or 2, the weight-gradient parts of small groups wait and run as one
// product per weight (lazy_weight_gradients.h). Where units are planned (plans_units), marked
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
#include "autobatch/vertex/instance_plan.h"
#include "autobatch/vertex/lazy_weight_gradients.h"
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
  /// Bytes a group's kernel read where they were and bytes gathered for it; whether it reads
  /// slices of wider nodes where they lie (strided_elementwise.h).
  struct Traffic {
    std::uint64_t in_place = 0, gathered = 0;
    bool strided = false;
  };

  /// Whether this forward pass plans vertex-function instances as units: always under
  /// --dynet-vertex 2; under 1 on a device whose kernel calls are launches (one that runs fused
  /// chains as kernels), where cutting calls pays. On the CPU a call costs little next to its
  /// kernel, and planning costs more than units save.
  bool plans_units() const;
  /// Gives the parameter leaves the scheduler found their parameter's memory.
  void alias_parameter_leaves();
  /// Runs the `count` nodes at `ready` (of one signature) as few kernel calls as tensor sizes
  /// allow, slices as views where they can be.
  void run_split(const VariableIndex* ready, std::uint32_t count);
  /// Runs them in groups as large as tensor sizes allow.
  void run_chunks(const VariableIndex* ready, std::uint32_t count);
  /// Runs the `count` nodes at `ready` (of one signature) as one kernel call and records them;
  /// `deferred`: records them, their outputs placed and arguments read, for a fused chain to
  /// compute (its scratch stays until then).
  void run_group(const VariableIndex* ready, std::uint32_t count, bool deferred = false);
  /// Records the groups of a vertex task's elementwise chain and computes them in one pass;
  /// false (each group run on its own) when a group would need splitting or the device neither is
  /// a CPU nor runs chains.
  bool run_chain(const VertexExecutor::ChainTask& task);
  /// Where the group's outputs go, every `stride` floats from the returned address: a view of
  /// their arguments (`view` set) or a fresh block.
  float* place_outputs(const VariableIndex* nodes, std::uint32_t count, std::uint32_t& stride, bool& view);
  /// Makes xs_[i] the group's argument i, gathering it if need be, and records where it is. With
  /// `strided`, slices of wider nodes are read where they lie instead (strided_elementwise.h).
  void read_argument(const VariableIndex* nodes, std::uint32_t count, unsigned i, bool view, bool strided,
                     Traffic& traffic);
  /// Runs group g's forward kernel into `out`, from the arguments in xs_, or node by node from
  /// where the record says they lie if the traffic says they are strided.
  void run_forward_kernel(std::uint32_t g, float* out, const Traffic& traffic);

  /// Runs the backward kernels of group g.
  void backward_group(std::uint32_t g);
  /// Backward into a shared argument (one node for the whole group); false if it needs none.
  /// Under --dynet-vertex 1 or 2, parts for a trainable parameter from a small group wait for one
  /// call over every such group (lazy_weight_gradients.h).
  bool backward_shared(OpCall& call, std::uint32_t g, unsigned i);
  /// Backward into consecutive outputs of one group: straight into that group's gradient block.
  bool backward_into_block(OpCall& call, const Group& group, unsigned i);
  /// Backward into arguments spread over groups: into scratch, then added to each run's block.
  bool backward_scattered(OpCall& call, const Group& group, unsigned i, std::uint64_t& scatter_ns,
                          std::uint64_t& scattered);
  /// Adds the gradients `g` holds for argument i of the group's nodes (asize floats each) into
  /// the blocks of the groups that computed them, and into the gradients of nodes in no group.
  void scatter_gradient(const Group& group, unsigned i, const float* g, std::size_t asize);
  /// Runs the backward of a task's fused chain as one pass over tiles (on the CPU) or as the
  /// device's chain kernel, its groups' gradient blocks made whole first; false when the chain's
  /// plan is gone or the device can do neither (its groups then run one by one, as its values are
  /// all kept).
  bool backward_chain(const VertexExecutor::ChainTask& task, std::uint32_t first);
  /// A run of the chain whose reads, writes and op data chain_reads_, chain_writes_ and
  /// chain_data_ hold, over `count` instances.
  ChainRun chain_run(std::uint32_t count) const;
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
  Tensor batched(const Dim& d, std::uint32_t count, float* v) const;

  GroupScheduler scheduler_;
  InstancePlan plan_;  // vertex-function instances of the forward pass running (--dynet-vertex)
  VertexExecutor executor_;
  const VertexFunction* task_function_ = nullptr;  // of the task running, if any
  std::vector<const VertexFunction*> group_function_;  // per group: the function of its task, or null
  LazyWeightGradients lazy_;  // of the backward pass running
  GroupRecord record_;
  std::vector<VariableIndex> alias_nodes_;  // computed nodes whose value is parameter memory

  std::vector<float*> group_grad_;  // each group's gradient block, or null (backward)
  GradientCoverage coverage_;
  VariableIndex last_ = 0;  // of the backward pass running
  const std::uint8_t* needs_ = nullptr;

  std::uint64_t kernel_ns_ = 0;  // time inside run_group while profiling, so scheduling time can be told apart
  std::vector<Tensor> xs_;       // kernel call buffer
  std::vector<MemoryRun> runs_;  // run tables of a gather or of a scatter's copies
  std::vector<MemoryRun> adds_;  // run table of a scatter's additions
  std::vector<const float*> chain_reads_;  // a fused chain's arguments
  std::vector<float*> chain_writes_;       // its outputs
  std::vector<const void*> chain_data_;    // its ops' data
  std::vector<float*> chain_read_grads_;   // in backward: its arguments' gradients
  std::vector<float*> chain_write_grads_;  // and its ops'
  std::vector<std::uint8_t> chain_fresh_;  // which of those blocks it writes over: its ops', then its reads'
  // The fused chains run, by the group of their first op and their executor's id, in group order.
  struct FusedRun {
    std::uint32_t first, ops;
    std::uint64_t chain;
  };
  std::vector<FusedRun> fused_runs_;
};

}  // namespace dynet
