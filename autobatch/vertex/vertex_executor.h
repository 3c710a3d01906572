#pragma once
// Runs tasks: the ready units of one key (instances of one vertex function, autobatch/vertex/
// instance_plan.h) as one. Position by position, the task runs the nodes at that position of
// every unit as one group through the engine's group runner, so each symbol of the function is
// one block in task order (Cavs' dynamic tensor: every op of the function reads and writes
// contiguous memory, and memory moves only where a task reads what other tasks or the outside
// computed). Outputs stay where their group put them; readers outside read them there.

#include <cstdint>
#include <vector>

#include "autobatch/vertex/instance_plan.h"

namespace dynet {

class VertexExecutor {
 public:
  /// Runs the units whose first nodes are firsts[0, count) (all of one key) by calling
  /// run_group(nodes, n) for each position's group.
  template <class RunGroup>
  void run_task(const InstancePlan& plan, const VariableIndex* firsts, std::uint32_t count, RunGroup&& run_group);
  /// Every node the last task ran, to be marked computed.
  const std::vector<VariableIndex>& task_nodes() const { return task_nodes_; }

 private:
  std::vector<std::uint32_t> units_;
  std::vector<VariableIndex> group_;
  std::vector<VariableIndex> task_nodes_;
};

template <class RunGroup>
void VertexExecutor::run_task(const InstancePlan& plan, const VariableIndex* firsts, std::uint32_t count,
                              RunGroup&& run_group) {
  units_.resize(count);
  for (std::uint32_t k = 0; k < count; ++k) units_[k] = plan.unit_at(firsts[k]);
  const std::uint32_t positions = plan.node_count(units_[0]);
  task_nodes_.clear();
  group_.resize(count);
  // Each position runs as its own kernel; a run of elementwise positions is where a fused chain
  // runner takes over.
  for (std::uint32_t p = 0; p < positions; ++p) {
    for (std::uint32_t k = 0; k < count; ++k) group_[k] = plan.nodes(units_[k])[p];
    run_group(group_.data(), count);
    task_nodes_.insert(task_nodes_.end(), group_.begin(), group_.end());
  }
}

}  // namespace dynet
