#include "autobatch/simple_engine.h"

namespace dynet {

void SimpleEngine::forward_nodes(VariableIndex begin, VariableIndex end) {
  if (cg_->vertex() == 0) {
    for (VariableIndex j = begin; j < end; ++j) forward_node(cg_->node(j));
    return;
  }
  order_.plan(*cg_, begin, end);
  ahead_.plan(*cg_, order_, begin, end);
  for (std::uint32_t p = begin; p < end; ++p) {
    const VariableIndex j = order_.order()[p];
    if (ahead_.computed(j)) continue;
    if (!ahead_.member(j)) {
      forward_node(cg_->node(j));
      continue;
    }
    if (ahead_.starts(j)) {
      for (VariableIndex leaf : ahead_.leaves_ahead(*cg_, j)) forward_node(cg_->node(leaf));
      ahead_.start_group(*cg_, j, profiling_);
      ++stats_.batches;
      ++stats_.leading_products;
    }
    forward_node(cg_->node(j), ahead_.partial(j));
  }
}

void SimpleEngine::backward_nodes(VariableIndex last, const std::uint8_t* needs) {
  record_.clear();
  group_grad_.clear();
  lazy_.clear();  // parts left by a pass a kernel's exception ended
  if (cg_->vertex() == 0) {
    for (VariableIndex j = last + 1; j-- > 0;)
      if (needs[j]) backward_node(cg_->node(j), needs);
    return;
  }
  record_.cover(last + 1);
  ahead_.begin_backward(&transposes_);
  std::uint64_t calls = 0;
  // In the reverse of the order computed, of which nodes after `last` take no part.
  for (std::uint32_t p = evaluated(); p-- > 0;) {
    const VariableIndex j = order_.order()[p];
    if (j > last) continue;
    calls += ahead_.before(*cg_, p, profiling_);
    if (needs[j] && !ahead_.postponed(j)) {
      const std::uint64_t lazy = leave_weight_gradients(j, needs);
      backward_node(cg_->node(j), needs, lazy | ahead_.wait(*cg_, j, needs, lazy));
    }
  }
  calls += ahead_.finish(*cg_, profiling_);
  for (VariableIndex leaf : ahead_.postponed_leaves()) backward_node(cg_->node(leaf), needs);
  const std::uint64_t lazy_calls = lazy_.run(*cg_, record_, group_grad_, &transposes_, profiling_);
  stats_.backward_batches += calls + lazy_calls;
  stats_.leading_gradients += calls;
  stats_.lazy_weight_calls += lazy_calls;
}

void SimpleEngine::on_forget() {
  order_.forget();
  ahead_.forget();
}

void SimpleEngine::on_truncate(VariableIndex n) {
  EngineBase::on_truncate(n);
  order_.truncate(n);
  ahead_.truncate(n);
}

std::uint64_t SimpleEngine::leave_weight_gradients(VariableIndex j, const std::uint8_t* needs) {
  Node& n = cg_->node(j);
  const OpDef& op = *n.op;
  // Checked before the node is recorded, so that most nodes cost nothing here.
  if (!op.backward || !LazyWeightGradients::node_may_wait(n) ||
      std::size_t(n.dim.bd) * n.dim.cols() >= kWaitBelowColumns)
    return 0;
  const VariableIndex* args = n.args();
  auto candidate = [&](unsigned k) { return k < 64 && needs[args[k]] && cg_->node(args[k]).op->grad_alias; };
  unsigned k = 0;
  while (k < n.nargs && !candidate(k)) ++k;
  if (k == n.nargs) return 0;
  const std::uint32_t g = record_.add_group(*cg_, &j, 1, n.value, n.dim.size());
  for (unsigned i = 0; i < n.nargs; ++i) record_.add_shared_argument(cg_->node(args[i]).value);
  group_grad_.push_back(n.grad);
  std::uint64_t skip = 0;
  for (; k < n.nargs; ++k) {
    if (!candidate(k) || !LazyWeightGradients::may_wait(*cg_, record_, g, k)) continue;
    lazy_.wait(g, k, args[k]);
    skip |= std::uint64_t(1) << k;
  }
  return skip;
}

}  // namespace dynet
