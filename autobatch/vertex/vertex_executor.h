#pragma once
// Runs tasks: the ready units of one key (instances of one vertex function, autobatch/vertex/
// instance_plan.h) as one. The task runs the nodes at one position of every unit as one group
// through the engine's group runner, so each symbol of the function is one block in task order
// (Cavs' dynamic tensor: every op of the function reads and writes contiguous memory, and memory
// moves only where a task reads what other tasks or the outside computed). Outputs stay where
// their group put them; readers outside read them there.
// A chain of elementwise positions (fusion.h) is planned as one stage and handed to the engine's
// chain runner, which records its positions' groups as usual and computes them in one pass over
// tiles (fused_chain.h). Every value of the chain is kept: the engine runs the chain's backward as
// one pass too (find_chain), or its groups one by one as any others when its plan is gone.

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "autobatch/vertex/fused_chain.h"
#include "autobatch/vertex/instance_plan.h"
#include "dynet_core/signature.h"

namespace dynet {

class VertexExecutor {
 public:
  /// A fused chain over the units of a task: op k of the chain runs as one group of the nodes
  /// nodes[k * count, (k + 1) * count), in unit order; the chain reads reads()[r] as argument
  /// read_arg[r] of its op read_op[r]. `id` finds the chain again for backward (find_chain).
  struct ChainTask {
    const vertex::FusedChain* chain;
    const std::uint32_t* read_op;
    const std::uint32_t* read_arg;
    const VariableIndex* nodes;
    std::uint32_t count;
    std::uint64_t id;
  };

  /// Runs the units whose first nodes are firsts[0, count) (all of one key) by calling
  /// run_group(nodes, n) for each group and run_chain(const ChainTask&) for each fused chain, in
  /// an order that runs every node after its arguments. run_chain returns whether it fused.
  template <class RunGroup, class RunChain>
  void run_task(const InstancePlan& plan, const VariableIndex* firsts, std::uint32_t count, RunGroup&& run_group,
                RunChain&& run_chain);
  /// Sets task.chain, read_op and read_arg to those of the chain a ChainTask's id names; false
  /// when its plan has been dropped since (plans are dropped whole, kMaxPlans).
  bool find_chain(std::uint64_t id, ChainTask& task) const {
    if (id >> 32 != generation_) return false;
    const ChainPlan& cp = chains_[static_cast<std::uint32_t>(id)];
    task.chain = &cp.chain;
    task.read_op = cp.read_op.data();
    task.read_arg = cp.read_arg.data();
    return true;
  }
  /// Fused chains the last task ran.
  std::uint32_t task_chains() const { return task_chains_; }
  /// Every node the last task ran, to be marked computed.
  const std::vector<VariableIndex>& task_nodes() const { return task_nodes_; }

 private:
  struct StageNode {
    VariableIndex node;
    std::uint64_t signature;
    std::uint64_t unit_signatures;  ///< of its unit
  };
  /// Where the stages of units like u are in stage_start_: planned for the first task of each
  /// signature key, reused by the others of every forward pass after (a signature key fixes the
  /// function, the signatures and so the shapes of every position and argument).
  struct Stages {
    std::uint32_t first, count;  ///< stage k's positions: [stage_start_[first + k], stage_start_[first + k + 1])
  };
  const Stages& stages_of(const InstancePlan& plan, std::uint32_t u);
  /// A fused chain of positions of a unit, planned with its stages.
  struct ChainPlan {
    vertex::FusedChain chain;
    std::vector<std::uint32_t> positions;          ///< of op k of the chain
    std::vector<std::uint32_t> read_op, read_arg;  ///< per read of the chain: which op reads it as which argument
    std::vector<std::uint8_t> read_shared;         ///< per read: planned as one tensor for every unit
  };
  /// Appends the stages of unit u to stage_start_, stage_chain_ and stage_positions_: each
  /// stage's positions read only positions of earlier stages; a chain is one stage.
  void plan_stages(const InstancePlan& plan, std::uint32_t u);
  /// Finds the elementwise chains of unit u's positions; chain_of_ tells each position's.
  void plan_chains(const InstancePlan& plan, std::uint32_t u);
  /// Runs positions stage_positions_[begin, end) of every unit of the task, those of one
  /// signature as one group.
  template <class RunGroup>
  void run_positions(const InstancePlan& plan, std::uint32_t begin, std::uint32_t end, RunGroup& run_group);
  /// Runs chain c as one ChainTask if every position of it has one signature over the task's
  /// units (so that each runs as one group, reading the one before in place) and each read is
  /// shared or not as planned; false if not.
  template <class RunChain>
  bool run_fused(const InstancePlan& plan, std::uint32_t c, RunChain& run_chain);
  static constexpr std::uint32_t kDone = 0xFFFFFFFFu;
  /// Signature keys planned before all plans are dropped: keys that name nodes (a value every
  /// unit reads) change from graph to graph, and their plans must not pile up.
  static constexpr std::size_t kMaxPlans = 1024;
  static constexpr std::int32_t kNoChain = -1;

  std::vector<std::uint32_t> units_;
  std::vector<std::uint32_t> level_;            // per position: its depth within the function
  std::vector<std::uint32_t> pending_;          // per position: positions it waits on, or kDone
  std::vector<std::uint32_t> stage_start_;      // per plan: where its stages start, then each one's end
  std::vector<std::int32_t> stage_chain_;       // as stage_start_: the chain stage k runs, or kNoChain
  std::vector<std::uint32_t> stage_positions_;  // positions, stage by stage
  std::vector<ChainPlan> chains_;               // of the plans in stage_start_
  std::vector<std::int32_t> chain_of_;          // per position of the unit being planned
  std::vector<std::uint32_t> rep_;              // per position: the first of its chain, or itself
  std::vector<VariableIndex> chain_nodes_;
  std::uint32_t task_chains_ = 0;
  std::uint32_t generation_ = 0;                      // plans dropped so far
  bool uniform_ = false;                              // every unit of the task running has one signature key
  std::unordered_map<std::uint64_t, Stages> stages_;  // by signature key
  std::vector<StageNode> stage_;
  std::vector<VariableIndex> group_;
  std::vector<VariableIndex> task_nodes_;
};

template <class RunGroup>
void VertexExecutor::run_positions(const InstancePlan& plan, std::uint32_t begin, std::uint32_t end,
                                   RunGroup& run_group) {
  if (uniform_) {
    // Every unit has each position's signature: a position is one group of all units.
    for (std::uint32_t s = begin; s < end; ++s) {
      group_.clear();
      for (std::uint32_t u : units_) group_.push_back(plan.nodes(u)[stage_positions_[s]]);
      run_group(group_.data(), static_cast<std::uint32_t>(group_.size()));
      task_nodes_.insert(task_nodes_.end(), group_.begin(), group_.end());
    }
    return;
  }
  const ComputationGraph& cg = plan.graph();
  stage_.clear();
  for (std::uint32_t s = begin; s < end; ++s)
    for (std::uint32_t u : units_) {
      const VariableIndex n = plan.nodes(u)[stage_positions_[s]];
      stage_.push_back({n, cg.node(n).signature, plan.signature_key(u)});
    }
  // Sorted already when every unit has the position's signature, the usual case: stable_sort
  // would take a buffer from the heap for nothing.
  const auto by_signature = [](const StageNode& a, const StageNode& b) { return a.signature < b.signature; };
  if (!std::is_sorted(stage_.begin(), stage_.end(), by_signature))
    std::stable_sort(stage_.begin(), stage_.end(), by_signature);
  for (std::size_t first = 0; first < stage_.size();) {
    // A slice runs as a view of its argument's group only when it reads one group: it splits
    // where its units' weights, and so their groups, change.
    const bool slice = cg.node(stage_[first].node).op->argument_span != nullptr;
    std::size_t end_group = first + 1;
    while (end_group < stage_.size() && stage_[end_group].signature == stage_[first].signature &&
           (!slice || stage_[end_group].unit_signatures == stage_[end_group - 1].unit_signatures))
      ++end_group;
    group_.clear();
    for (std::size_t k = first; k < end_group; ++k) group_.push_back(stage_[k].node);
    run_group(group_.data(), static_cast<std::uint32_t>(group_.size()));
    task_nodes_.insert(task_nodes_.end(), group_.begin(), group_.end());
    first = end_group;
  }
}

template <class RunChain>
bool VertexExecutor::run_fused(const InstancePlan& plan, std::uint32_t c, RunChain& run_chain) {
  const ComputationGraph& cg = plan.graph();
  const ChainPlan& cp = chains_[c];
  const std::uint32_t count = static_cast<std::uint32_t>(units_.size());
  chain_nodes_.clear();
  for (std::uint32_t p : cp.positions) {
    if (uniform_) {
      for (std::uint32_t u : units_) chain_nodes_.push_back(plan.nodes(u)[p]);
      continue;
    }
    const std::uint64_t signature = cg.node(plan.nodes(units_[0])[p]).signature;
    for (std::uint32_t u : units_) {
      const VariableIndex n = plan.nodes(u)[p];
      if (cg.node(n).signature != signature) return false;
      chain_nodes_.push_back(n);
    }
  }
  for (std::size_t r = 0; r < cp.read_op.size() && count > 1; ++r) {
    const Node& n = cg.node(chain_nodes_[cp.read_op[r] * count]);
    const unsigned i = cp.read_arg[r];
    if (shared_argument(*n.op, i, cg.node(n.arg(i)), n.dim) != bool(cp.read_shared[r])) return false;
  }
  const std::uint64_t id = std::uint64_t(generation_) << 32 | c;
  if (run_chain(ChainTask{&cp.chain, cp.read_op.data(), cp.read_arg.data(), chain_nodes_.data(), count, id}))
    ++task_chains_;
  task_nodes_.insert(task_nodes_.end(), chain_nodes_.begin(), chain_nodes_.end());
  return true;
}

template <class RunGroup, class RunChain>
void VertexExecutor::run_task(const InstancePlan& plan, const VariableIndex* firsts, std::uint32_t count,
                              RunGroup&& run_group, RunChain&& run_chain) {
  units_.resize(count);
  for (std::uint32_t k = 0; k < count; ++k) units_[k] = plan.unit_at(firsts[k]);
  // Units that read the same weights side by side, so that positions where weights differ split
  // into few groups.
  const auto by_key = [&plan](std::uint32_t a, std::uint32_t b) {
    return plan.signature_key(a) < plan.signature_key(b);
  };
  if (!std::is_sorted(units_.begin(), units_.end(), by_key)) std::stable_sort(units_.begin(), units_.end(), by_key);
  uniform_ = plan.signature_key(units_.front()) == plan.signature_key(units_.back());
  const Stages st = stages_of(plan, units_[0]);
  task_nodes_.clear();
  task_chains_ = 0;
  // A stage's positions (of one signature in the first unit: an LSTM's gates) run as one group
  // over every unit, position by position so that each position's outputs are consecutive for
  // the stages that read them.
  for (std::uint32_t stage = st.first; stage < st.first + st.count; ++stage) {
    const std::int32_t c = stage_chain_[stage];
    if (c == kNoChain) {
      run_positions(plan, stage_start_[stage], stage_start_[stage + 1], run_group);
    } else if (!run_fused(plan, static_cast<std::uint32_t>(c), run_chain)) {
      // Positions whose units differ in signature: op by op, in the chain's order.
      for (std::uint32_t s = stage_start_[stage]; s < stage_start_[stage + 1]; ++s)
        run_positions(plan, s, s + 1, run_group);
    }
  }
}

}  // namespace dynet
