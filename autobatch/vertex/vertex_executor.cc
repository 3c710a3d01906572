#include "autobatch/vertex/vertex_executor.h"

#include <limits>

#include "autobatch/vertex/elementwise_chains.h"

namespace dynet {

namespace {

/// Where `a` is among the unit's nodes[0, p) (which are sorted), or p when it is not one of them.
std::uint32_t position_of(const VariableIndex* nodes, std::uint32_t p, VariableIndex a) {
  const VariableIndex* at = std::lower_bound(nodes, nodes + p, a);
  return at != nodes + p && *at == a ? static_cast<std::uint32_t>(at - nodes) : p;
}

}  // namespace

void VertexExecutor::plan_chains(const InstancePlan& plan, std::uint32_t u) {
  const ComputationGraph& cg = plan.graph();
  const VariableIndex* nodes = plan.nodes(u);
  const std::uint32_t n = plan.node_count(u);
  // Every value is kept (read_outside): backward runs the chain's groups one by one, and they
  // read the values of its ops.
  vertex::OpDag dag;
  dag.ops.resize(n);
  for (std::uint32_t p = 0; p < n; ++p) {
    const Node& nd = cg.node(nodes[p]);
    vertex::DagOp& o = dag.ops[p];
    o.op = nd.op;
    o.data = nd.data;
    o.dim = nd.dim;
    o.read_outside = true;
    for (unsigned i = 0; i < nd.nargs; ++i) {
      const std::uint32_t from = position_of(nodes, p, nd.arg(i));
      if (from < p) {
        o.args.push_back(vertex::DagRef::op(from));
        continue;
      }
      // Each argument from outside is an input of its own: two units may read one node where
      // others read two.
      const Node& a = cg.node(nd.arg(i));
      o.args.push_back(vertex::DagRef::input(static_cast<unsigned>(dag.inputs.size())));
      dag.inputs.push_back({a.dim, shared_argument(*nd.op, i, a, nd.dim)});
    }
  }
  chain_of_.assign(n, kNoChain);
  for (std::vector<unsigned>& ops : vertex::elementwise_chains(dag)) {
    for (unsigned op : ops) chain_of_[op] = static_cast<std::int32_t>(chains_.size());
    ChainPlan cp{vertex::FusedChain(dag, ops), std::vector<std::uint32_t>(ops.begin(), ops.end()), {}, {}, {}};
    for (const vertex::DagRef& r : cp.chain.reads()) {
      bool found = false;
      for (std::uint32_t k = 0; k < ops.size() && !found; ++k) {
        const std::vector<vertex::DagRef>& args = dag.ops[ops[k]].args;
        for (std::uint32_t i = 0; i < args.size() && !found; ++i)
          if (args[i] == r) {
            cp.read_op.push_back(k);
            cp.read_arg.push_back(i);
            cp.read_shared.push_back(dag.shared(r));
            found = true;
          }
      }
    }
    chains_.push_back(std::move(cp));
  }
}

void VertexExecutor::plan_stages(const InstancePlan& plan, std::uint32_t u) {
  // The agenda rule within one function: among the ready positions, a signature all of whose
  // positions are ready runs first (waiting cannot enlarge its group), else the one with the
  // shallowest ready position; all of its ready positions form the stage. A chain counts as one
  // position of a signature of its own, ready when everything it reads from outside it is.
  const ComputationGraph& cg = plan.graph();
  const VariableIndex* nodes = plan.nodes(u);
  const std::uint32_t n = plan.node_count(u);
  plan_chains(plan, u);
  rep_.resize(n);
  for (std::uint32_t p = 0; p < n; ++p) rep_[p] = chain_of_[p] == kNoChain ? p : chains_[chain_of_[p]].positions[0];
  auto signature_of = [&](std::uint32_t p) {
    return chain_of_[p] == kNoChain ? cg.node(nodes[p]).signature
                                    : std::numeric_limits<std::uint64_t>::max() - std::uint64_t(chain_of_[p]);
  };
  level_.assign(n, 0);
  pending_.assign(n, 0);
  for (std::uint32_t p = 0; p < n; ++p) {
    const Node& nd = cg.node(nodes[p]);
    for (unsigned i = 0; i < nd.nargs; ++i) {
      const std::uint32_t from = position_of(nodes, p, nd.arg(i));
      if (from == p) continue;
      level_[p] = std::max(level_[p], level_[from] + 1);
      if (rep_[from] != rep_[p]) ++pending_[rep_[p]];
    }
  }
  for (std::uint32_t p = 0; p < n; ++p)
    if (rep_[p] != p) pending_[p] = kDone;
  const std::size_t planned = stage_positions_.size();
  stage_start_.push_back(static_cast<std::uint32_t>(planned));
  stage_chain_.push_back(kNoChain);
  while (stage_positions_.size() - planned < n) {
    std::uint32_t best = n;
    bool best_complete = false;
    for (std::uint32_t p = 0; p < n; ++p) {
      if (pending_[p] != 0) continue;
      const std::uint64_t signature = signature_of(p);
      bool complete = true;
      for (std::uint32_t q = 0; q < n && complete; ++q)
        complete = pending_[q] == 0 || pending_[q] == kDone || signature_of(q) != signature;
      if (best == n || (complete && !best_complete) || (complete == best_complete && level_[p] < level_[best])) {
        best = p;
        best_complete = complete;
      }
    }
    const std::size_t stage_begin = stage_positions_.size();
    const std::int32_t chain = chain_of_[best];
    if (chain != kNoChain) {
      for (std::uint32_t p : chains_[chain].positions) stage_positions_.push_back(p);
    } else {
      const std::uint64_t signature = signature_of(best);
      for (std::uint32_t p = 0; p < n; ++p)
        if (pending_[p] == 0 && signature_of(p) == signature) stage_positions_.push_back(p);
    }
    for (std::size_t s = stage_begin; s < stage_positions_.size(); ++s) pending_[stage_positions_[s]] = kDone;
    for (std::size_t s = stage_begin; s < stage_positions_.size(); ++s) {
      const VariableIndex done = nodes[stage_positions_[s]];
      for (std::uint32_t q = stage_positions_[s] + 1; q < n; ++q) {
        if (pending_[rep_[q]] == kDone) continue;
        const Node& nd = cg.node(nodes[q]);
        for (unsigned i = 0; i < nd.nargs; ++i) pending_[rep_[q]] -= nd.arg(i) == done;
      }
    }
    stage_chain_.back() = chain;
    stage_start_.push_back(static_cast<std::uint32_t>(stage_positions_.size()));
    stage_chain_.push_back(kNoChain);
  }
}

const VertexExecutor::Stages& VertexExecutor::stages_of(const InstancePlan& plan, std::uint32_t u) {
  const auto found = stages_.find(plan.signature_key(u));
  if (found != stages_.end()) return found->second;
  if (stages_.size() >= kMaxPlans) {
    stages_.clear();
    ++generation_;
  }
  if (stages_.empty()) {
    stage_start_.clear();
    stage_chain_.clear();
    stage_positions_.clear();
    chains_.clear();
  }
  const std::uint32_t first = static_cast<std::uint32_t>(stage_start_.size());
  plan_stages(plan, u);
  // plan_stages opened with the start of its first stage; each stage appended its end.
  Stages st{first, static_cast<std::uint32_t>(stage_start_.size() - first - 1)};
  return stages_.emplace(plan.signature_key(u), st).first->second;
}

}  // namespace dynet
