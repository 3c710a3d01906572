#include "builders/child_sum_tree_lstm_builder.h"

#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/linalg.h"
#include "dynet_core/ops/select.h"

namespace dynet {

namespace {
enum { kWiou, kUiou, kBiou, kWf, kUf, kBf };
}

ChildSumTreeLSTMBuilder::ChildSumTreeLSTMBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim,
                                                 ParameterCollection& model)
    : LayeredTreeLSTMBuilder(model, "ChildSumTreeLSTMBuilder", "child-sum-tree-lstm-builder", layers, input_dim,
                             hidden_dim) {
  for (unsigned l = 0; l < layers; ++l) {
    add_layer_parameter(l, {3 * hidden_dim, layer_input_dim(l)});
    add_layer_parameter(l, {3 * hidden_dim, hidden_dim});
    add_layer_parameter(l, {3 * hidden_dim}, 0.f);
    add_layer_parameter(l, {hidden_dim, layer_input_dim(l)});
    add_layer_parameter(l, {hidden_dim, hidden_dim});
    add_layer_parameter(l, {hidden_dim}, 0.f);
  }
}

CellState ChildSumTreeLSTMBuilder::node(unsigned layer, const Expression& x,
                                        const std::vector<const CellState*>& children) {
  const unsigned n = hidden_dim();
  std::vector<Expression> args{var(layer, kBiou)};
  if (x.pg) args.insert(args.end(), {var(layer, kWiou), x});
  if (!children.empty()) {
    std::vector<Expression> hs;
    for (const CellState* child : children) hs.push_back(child->h);
    args.insert(args.end(), {var(layer, kUiou), hs.size() == 1 ? hs[0] : sum(hs)});
  }
  const Expression a = affine_transform(args);
  const Expression i = logistic(pick_range(a, 0, n));
  const Expression o = logistic(pick_range(a, n, 2 * n));
  std::vector<Expression> terms{cmult(i, tanh(pick_range(a, 2 * n, 3 * n)))};
  if (!children.empty()) {
    // W_f x is shared by every child's forget gate: computed once per node, and added outside the
    // affine transform, whose bias must be the shared b_f for the gates of all nodes to batch.
    const Expression wfx = x.pg ? var(layer, kWf) * x : Expression();
    for (const CellState* child : children) {
      const Expression a_f = affine_transform({var(layer, kBf), var(layer, kUf), child->h});
      terms.push_back(cmult(logistic(wfx.pg ? a_f + wfx : a_f), child->c));
    }
  }
  const Expression c = terms.size() == 1 ? terms[0] : sum(terms);
  return {cmult(o, tanh(c)), c};
}

}  // namespace dynet
