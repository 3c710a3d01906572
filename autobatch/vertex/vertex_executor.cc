#include "autobatch/vertex/vertex_executor.h"

namespace dynet {

void VertexExecutor::plan_stages(const InstancePlan& plan, std::uint32_t u) {
  // The agenda rule within one function: among the ready positions, a signature all of whose
  // positions are ready runs first (waiting cannot enlarge its group), else the one with the
  // shallowest ready position; all of its ready positions form the stage.
  const ComputationGraph& cg = plan.graph();
  const VariableIndex* nodes = plan.nodes(u);
  const std::uint32_t n = plan.node_count(u);
  level_.assign(n, 0);
  pending_.assign(n, 0);
  for (std::uint32_t p = 0; p < n; ++p) {
    const Node& nd = cg.node(nodes[p]);
    for (unsigned i = 0; i < nd.nargs; ++i) {
      const VariableIndex* at = std::lower_bound(nodes, nodes + p, nd.arg(i));
      if (at == nodes + p || *at != nd.arg(i)) continue;
      level_[p] = std::max(level_[p], level_[at - nodes] + 1);
      ++pending_[p];
    }
  }
  const std::size_t planned = stage_positions_.size();
  stage_start_.push_back(static_cast<std::uint32_t>(planned));
  while (stage_positions_.size() - planned < n) {
    std::uint32_t best = n;
    bool best_complete = false;
    for (std::uint32_t p = 0; p < n; ++p) {
      if (pending_[p] != 0) continue;
      const std::uint64_t signature = cg.node(nodes[p]).signature;
      bool complete = true;
      for (std::uint32_t q = 0; q < n && complete; ++q)
        complete = pending_[q] == 0 || pending_[q] == kDone || cg.node(nodes[q]).signature != signature;
      if (best == n || (complete && !best_complete) || (complete == best_complete && level_[p] < level_[best])) {
        best = p;
        best_complete = complete;
      }
    }
    const std::uint64_t signature = cg.node(nodes[best]).signature;
    const std::size_t stage_begin = stage_positions_.size();
    for (std::uint32_t p = 0; p < n; ++p)
      if (pending_[p] == 0 && cg.node(nodes[p]).signature == signature) stage_positions_.push_back(p);
    for (std::size_t s = stage_begin; s < stage_positions_.size(); ++s) pending_[stage_positions_[s]] = kDone;
    for (std::size_t s = stage_begin; s < stage_positions_.size(); ++s) {
      const VariableIndex done = nodes[stage_positions_[s]];
      for (std::uint32_t q = stage_positions_[s] + 1; q < n; ++q) {
        if (pending_[q] == kDone) continue;
        const Node& nd = cg.node(nodes[q]);
        for (unsigned i = 0; i < nd.nargs; ++i) pending_[q] -= nd.arg(i) == done;
      }
    }
    stage_start_.push_back(static_cast<std::uint32_t>(stage_positions_.size()));
  }
}

const VertexExecutor::Stages& VertexExecutor::stages_of(const InstancePlan& plan, std::uint32_t u) {
  const auto found = stages_.find(plan.signature_key(u));
  if (found != stages_.end()) return found->second;
  if (stages_.empty()) {
    stage_start_.clear();
    stage_positions_.clear();
  }
  const std::uint32_t first = static_cast<std::uint32_t>(stage_start_.size());
  plan_stages(plan, u);
  // plan_stages opened with the start of its first stage; each stage appended its end.
  Stages st{first, static_cast<std::uint32_t>(stage_start_.size() - first - 1)};
  return stages_.emplace(plan.signature_key(u), st).first->second;
}

}  // namespace dynet
