#pragma once
// Runs tasks: the ready units of one key (instances of one vertex function, autobatch/vertex/
// instance_plan.h) as one. The task runs the nodes at one position of every unit as one group
// through the engine's group runner, so each symbol of the function is one block in task order
// (Cavs' dynamic tensor: every op of the function reads and writes contiguous memory, and memory
// moves only where a task reads what other tasks or the outside computed). Outputs stay where
// their group put them; readers outside read them there.

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "autobatch/vertex/instance_plan.h"

namespace dynet {

class VertexExecutor {
 public:
  /// Runs the units whose first nodes are firsts[0, count) (all of one key) by calling
  /// run_group(nodes, n) for each group, in an order that runs every node after its arguments.
  template <class RunGroup>
  void run_task(const InstancePlan& plan, const VariableIndex* firsts, std::uint32_t count, RunGroup&& run_group);
  /// Forgets the stage plans of the last forward pass (a new plan of units starts).
  void start() { stages_.clear(); }
  /// Every node the last task ran, to be marked computed.
  const std::vector<VariableIndex>& task_nodes() const { return task_nodes_; }

 private:
  struct StageNode {
    VariableIndex node;
    std::uint64_t signature;
    std::uint64_t unit_signatures;  ///< of its unit
  };
  /// Where the stages of units like u are in stage_start_: planned for the first task of each
  /// signature key in a forward pass, reused by the others.
  struct Stages {
    std::uint32_t first, count;  ///< stage k's positions: [stage_start_[first + k], stage_start_[first + k + 1])
  };
  const Stages& stages_of(const InstancePlan& plan, std::uint32_t u);
  /// Appends the stages of unit u to stage_start_ and stage_positions_: each stage's positions
  /// read only positions of earlier stages.
  void plan_stages(const InstancePlan& plan, std::uint32_t u);
  static constexpr std::uint32_t kDone = 0xFFFFFFFFu;

  std::vector<std::uint32_t> units_;
  std::vector<std::uint32_t> level_;            // per position: its depth within the function
  std::vector<std::uint32_t> pending_;          // per position: positions it waits on, or kDone
  std::vector<std::uint32_t> stage_start_;      // per plan: where its stages start, then each one's end
  std::vector<std::uint32_t> stage_positions_;  // positions, stage by stage
  std::unordered_map<std::uint64_t, Stages> stages_;  // by signature key
  std::vector<StageNode> stage_;
  std::vector<VariableIndex> group_;
  std::vector<VariableIndex> task_nodes_;
};

template <class RunGroup>
void VertexExecutor::run_task(const InstancePlan& plan, const VariableIndex* firsts, std::uint32_t count,
                              RunGroup&& run_group) {
  const ComputationGraph& cg = plan.graph();
  units_.resize(count);
  for (std::uint32_t k = 0; k < count; ++k) units_[k] = plan.unit_at(firsts[k]);
  // Units that read the same weights side by side, so that positions where weights differ split
  // into few groups.
  std::stable_sort(units_.begin(), units_.end(), [&plan](std::uint32_t a, std::uint32_t b) {
    return plan.signature_key(a) < plan.signature_key(b);
  });
  const Stages st = stages_of(plan, units_[0]);
  task_nodes_.clear();
  // A stage's positions (of one signature in the first unit: an LSTM's gates) run as one group
  // over every unit, position by position so that each position's outputs are consecutive for
  // the stages that read them. A run of elementwise stages is where a fused chain runner takes
  // over.
  for (std::uint32_t stage = st.first; stage < st.first + st.count; ++stage) {
    stage_.clear();
    for (std::uint32_t s = stage_start_[stage]; s < stage_start_[stage + 1]; ++s)
      for (std::uint32_t u : units_) {
        const VariableIndex n = plan.nodes(u)[stage_positions_[s]];
        stage_.push_back({n, cg.node(n).signature, plan.signature_key(u)});
      }
    std::stable_sort(stage_.begin(), stage_.end(),
                     [](const StageNode& a, const StageNode& b) { return a.signature < b.signature; });
    for (std::size_t first = 0; first < stage_.size();) {
      // A slice runs as a view of its argument's group only when it reads one group: it splits
      // where its units' weights, and so their groups, change.
      const bool slice = cg.node(stage_[first].node).op->argument_span != nullptr;
      std::size_t end = first + 1;
      while (end < stage_.size() && stage_[end].signature == stage_[first].signature &&
             (!slice || stage_[end].unit_signatures == stage_[end - 1].unit_signatures))
        ++end;
      group_.clear();
      for (std::size_t k = first; k < end; ++k) group_.push_back(stage_[k].node);
      run_group(group_.data(), static_cast<std::uint32_t>(group_.size()));
      task_nodes_.insert(task_nodes_.end(), group_.begin(), group_.end());
      first = end;
    }
  }
}

}  // namespace dynet
