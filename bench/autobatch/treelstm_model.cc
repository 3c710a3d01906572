#include "autobatch/treelstm_model.h"

#include <vector>

#include "workloads/flops.h"

namespace bench {

using namespace dynet;

TreeLstmModel::TreeLstmModel(ParameterCollection& pc, unsigned vocab, unsigned e, unsigned h, bool every_node)
    : emb(e), hidden(h), loss_at_every_node(every_node) {
  E = pc.add_lookup_parameters(vocab, {e});
  W_leaf = pc.add_parameters({3 * h, e});
  b_leaf = pc.add_parameters({3 * h}, ParameterInitConst(0.f));
  U = pc.add_parameters({5 * h, 2 * h});
  b_node = pc.add_parameters({5 * h}, ParameterInitConst(0.f));
  W_out = pc.add_parameters({5, h});
  b_out = pc.add_parameters({5}, ParameterInitConst(0.f));
}

TreeLstmModel::GraphParameters TreeLstmModel::new_graph(ComputationGraph& cg, bool per_use) const {
  GraphParameters gp{per_use, {}};
  const Parameter* ps[] = {&W_leaf, &b_leaf, &U, &b_node, &W_out, &b_out};
  if (!per_use)
    for (unsigned k = 0; k < 6; ++k) gp.once[k] = parameter(cg, *ps[k]);
  return gp;
}

Expression TreeLstmModel::p(ComputationGraph& cg, const Parameter& param, unsigned which,
                            const GraphParameters& gp) const {
  return gp.per_use ? parameter(cg, param) : gp.once[which];
}

Expression TreeLstmModel::tree_loss(ComputationGraph& cg, const Tree& t, const GraphParameters& gp) const {
  const unsigned h = hidden;
  std::vector<Expression> hs(t.nodes.size()), cs(t.nodes.size()), losses;
  losses.reserve(t.nodes.size());
  for (std::size_t k = 0; k < t.nodes.size(); ++k) {
    const TreeNode& n = t.nodes[k];
    if (n.left < 0) {
      Expression g = affine_transform({p(cg, b_leaf, 1, gp), p(cg, W_leaf, 0, gp), lookup(cg, E, n.word)});
      Expression i = logistic(pick_range(g, 0, h));
      Expression o = logistic(pick_range(g, h, 2 * h));
      Expression u = tanh(pick_range(g, 2 * h, 3 * h));
      cs[k] = cmult(i, u);
      hs[k] = cmult(o, tanh(cs[k]));
    } else {
      Expression g = affine_transform({p(cg, b_node, 3, gp), p(cg, U, 2, gp), concatenate({hs[n.left], hs[n.right]})});
      Expression i = logistic(pick_range(g, 0, h));
      Expression fl = logistic(pick_range(g, h, 2 * h));
      Expression fr = logistic(pick_range(g, 2 * h, 3 * h));
      Expression o = logistic(pick_range(g, 3 * h, 4 * h));
      Expression u = tanh(pick_range(g, 4 * h, 5 * h));
      cs[k] = sum({cmult(i, u), cmult(fl, cs[n.left]), cmult(fr, cs[n.right])});
      hs[k] = cmult(o, tanh(cs[k]));
    }
    if (loss_at_every_node || k + 1 == t.nodes.size())
      losses.push_back(pickneglogsoftmax(affine_transform({p(cg, b_out, 5, gp), p(cg, W_out, 4, gp), hs[k]}), n.label));
  }
  return sum(losses);
}

double TreeLstmModel::flops(const Tree& t) const { return tree_lstm_flops(t, emb, hidden, loss_at_every_node); }

}  // namespace bench
