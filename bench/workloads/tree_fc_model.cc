#include "workloads/tree_fc_model.h"

#include <vector>

namespace bench {

using namespace dynet;

TreeFcModel::TreeFcModel(ParameterCollection& pc, unsigned vocab, unsigned h) {
  E = pc.add_lookup_parameters(vocab, {h});
  p_W = pc.add_parameters({h, 2 * h});
  p_b = pc.add_parameters({h}, ParameterInitConst(0.f));
  p_out_w = pc.add_parameters({5, h});
  p_out_b = pc.add_parameters({5}, ParameterInitConst(0.f));
}

void TreeFcModel::new_graph(ComputationGraph& cg) {
  W = parameter(cg, p_W);
  b = parameter(cg, p_b);
  out_w = parameter(cg, p_out_w);
  out_b = parameter(cg, p_out_b);
}

Expression TreeFcModel::tree_loss(ComputationGraph& cg, const Tree& t) const {
  std::vector<Expression> hs(t.nodes.size());
  for (std::size_t k = 0; k < t.nodes.size(); ++k) {
    const TreeNode& n = t.nodes[k];
    hs[k] = n.left < 0 ? lookup(cg, E, n.word) : tanh(affine_transform({b, W, concatenate({hs[n.left], hs[n.right]})}));
  }
  return pickneglogsoftmax(affine_transform({out_b, out_w, hs.back()}), t.nodes.back().label);
}

}  // namespace bench
