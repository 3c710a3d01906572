#include "autobatch/vertex/fusion.h"

#include <functional>
#include <queue>

namespace dynet {
namespace vertex {

namespace {

/// Kahn's algorithm over the DAG with each chain contracted to its first op, earliest op first
/// among the ready ones so that a DAG without chains keeps its order. Contracting a convex set
/// leaves the graph acyclic, so every step is reached.
std::vector<FusionPlan::Step> order_steps(const OpDag& dag, const FusionPlan& plan) {
  const unsigned n = unsigned(dag.ops.size());
  auto unit_of = [&](unsigned op) { return plan.chain_of[op] < 0 ? op : plan.chains[plan.chain_of[op]].ops().front(); };
  std::vector<unsigned> waiting(n, 0);
  std::vector<std::vector<unsigned>> readers(n);
  for (unsigned i = 0; i < n; ++i)
    for (const DagRef& a : dag.ops[i].args) {
      if (a.kind != DagRef::kOp || unit_of(a.index) == unit_of(i)) continue;
      readers[unit_of(a.index)].push_back(unit_of(i));
      ++waiting[unit_of(i)];
    }
  std::priority_queue<unsigned, std::vector<unsigned>, std::greater<unsigned>> ready;
  for (unsigned i = 0; i < n; ++i)
    if (unit_of(i) == i && waiting[i] == 0) ready.push(i);
  std::vector<FusionPlan::Step> steps;
  while (!ready.empty()) {
    const unsigned u = ready.top();
    ready.pop();
    steps.push_back({plan.chain_of[u], u});
    for (unsigned r : readers[u])
      if (--waiting[r] == 0) ready.push(r);
  }
  return steps;
}

}  // namespace

FusionPlan plan_fusion(const OpDag& dag, FusedChain::Values backward_values) {
  FusionPlan plan;
  plan.chain_of.assign(dag.ops.size(), -1);
  for (std::vector<unsigned>& ops : elementwise_chains(dag)) {
    for (unsigned op : ops) plan.chain_of[op] = int(plan.chains.size());
    plan.chains.emplace_back(dag, std::move(ops), backward_values);
  }
  plan.steps = order_steps(dag, plan);
  return plan;
}

}  // namespace vertex
}  // namespace dynet
