#include "builders/nary_tree_lstm_builder.h"

#include <stdexcept>
#include <string>

#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/linalg.h"
#include "dynet_core/ops/select.h"

namespace dynet {

namespace {
enum { kW, kBias, kU0 };
}

NaryTreeLSTMBuilder::NaryTreeLSTMBuilder(unsigned N, unsigned layers, unsigned input_dim, unsigned hidden_dim,
                                         ParameterCollection& model)
    : LayeredTreeLSTMBuilder(model, "NaryTreeLSTMBuilder", "nary-tree-lstm-builder", layers, input_dim, hidden_dim), n_(N) {
  if (N == 0) throw std::invalid_argument("NaryTreeLSTMBuilder: N (the most children a node may have) must be positive");
  const unsigned rows = (N + 3) * hidden_dim;
  for (unsigned l = 0; l < layers; ++l) {
    add_layer_parameter(l, {rows, layer_input_dim(l)});
    add_layer_parameter(l, {rows}, 0.f);
    for (unsigned k = 0; k < N; ++k) add_layer_parameter(l, {rows, hidden_dim});
  }
}

void NaryTreeLSTMBuilder::check_child_count(std::size_t n) const {
  if (n > n_)
    throw std::invalid_argument(name() + "::add_input: a node with " + std::to_string(n) +
                                " children, but this builder allows at most " + std::to_string(n_));
}

void NaryTreeLSTMBuilder::derive_graph_expressions(ComputationGraph&, bool) {
  leaf_w_.clear();
  leaf_b_.clear();
  for (unsigned l = 0; l < layers(); ++l) {
    leaf_w_.push_back(pick_range(var(l, kW), 0, 3 * hidden_dim()));
    leaf_b_.push_back(pick_range(var(l, kBias), 0, 3 * hidden_dim()));
  }
}

CellState NaryTreeLSTMBuilder::node(unsigned layer, const Expression& x, const std::vector<const CellState*>& children) {
  const unsigned n = hidden_dim();
  Expression a;
  if (children.empty()) {
    a = affine_transform({leaf_b_[layer], leaf_w_[layer], x});
  } else {
    std::vector<Expression> args{var(layer, kBias)};
    if (x.pg) args.insert(args.end(), {var(layer, kW), x});
    for (unsigned k = 0; k < children.size(); ++k) args.insert(args.end(), {var(layer, kU0 + k), children[k]->h});
    a = affine_transform(args);
  }
  const Expression i = logistic(pick_range(a, 0, n));
  const Expression o = logistic(pick_range(a, n, 2 * n));
  std::vector<Expression> terms{cmult(i, tanh(pick_range(a, 2 * n, 3 * n)))};
  for (unsigned k = 0; k < children.size(); ++k)
    terms.push_back(cmult(logistic(pick_range(a, (3 + k) * n, (4 + k) * n)), children[k]->c));
  const Expression c = terms.size() == 1 ? terms[0] : sum(terms);
  return {cmult(o, tanh(c)), c};
}

}  // namespace dynet
