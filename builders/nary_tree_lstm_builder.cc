#include "builders/nary_tree_lstm_builder.h"

#include <algorithm>
#include <stdexcept>

#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/leaves.h"
#include "dynet_core/ops/linalg.h"
#include "dynet_core/ops/select.h"
#include "dynet_core/ops/shape.h"

namespace dynet {

namespace {
enum { kX2I, kBI, kX2F, kBF, kX2O, kBO, kX2C, kBC };            // params
enum { kH2I, kH2F, kH2O, kH2C, kC2I, kC2F, kC2O, kLookups };    // lparams
}

NaryTreeLSTMBuilder::NaryTreeLSTMBuilder(unsigned N, unsigned layers, unsigned input_dim, unsigned hidden_dim,
                                         ParameterCollection& model)
    : LayeredTreeLSTMBuilder(model, "NaryTreeLSTMBuilder", "nary-tree-lstm-builder", layers, input_dim, hidden_dim),
      n_(N) {
  if (N == 0) throw std::invalid_argument("NaryTreeLSTMBuilder: N (the number of child positions) must be positive");
  const Dim square{hidden_dim, hidden_dim};
  ParameterCollection& local = get_parameter_collection();
  for (unsigned l = 0; l < layers; ++l) {
    std::vector<LookupParameter> lp(kLookups);
    const Dim x_dim{hidden_dim, layer_input_dim(l)};
    add_layer_parameter(l, x_dim);
    lp[kH2I] = local.add_lookup_parameters(N, square);
    lp[kC2I] = local.add_lookup_parameters(N, square);
    add_layer_parameter(l, {hidden_dim}, 0.f);
    add_layer_parameter(l, x_dim);
    lp[kH2F] = local.add_lookup_parameters(N * N, square);
    lp[kC2F] = local.add_lookup_parameters(N * N, square);
    add_layer_parameter(l, {hidden_dim}, 0.f);
    add_layer_parameter(l, x_dim);
    lp[kH2O] = local.add_lookup_parameters(N, square);
    lp[kC2O] = local.add_lookup_parameters(N, square);
    add_layer_parameter(l, {hidden_dim}, 0.f);
    add_layer_parameter(l, x_dim);
    lp[kH2C] = local.add_lookup_parameters(N, square);
    add_layer_parameter(l, {hidden_dim}, 0.f);
    lparams.push_back(std::move(lp));
  }
}

NaryTreeLSTMBuilder::JoinedGates NaryTreeLSTMBuilder::join_layer(ComputationGraph& cg, unsigned layer,
                                                                 bool update) const {
  const unsigned n = hidden_dim();
  const std::vector<LookupParameter>& lp = lparams[layer];
  auto row = [&](int table, unsigned k) {
    return update ? lookup(cg, lp[static_cast<unsigned>(table)], k) : const_lookup(cg, lp[static_cast<unsigned>(table)], k);
  };
  JoinedGates g;
  std::vector<Expression> w{var(layer, kX2I), var(layer, kX2O), var(layer, kX2C)};
  std::vector<Expression> b{var(layer, kBI), var(layer, kBO), var(layer, kBC)};
  const Expression forget_bias = var(layer, kBF) + 1.f;
  for (unsigned k = 0; k < n_; ++k) {
    w.push_back(var(layer, kX2F));
    b.push_back(forget_bias);
  }
  g.w = concatenate(w);
  g.b = concatenate(b);
  g.leaf_w = pick_range(g.w, 0, 3 * n);
  g.leaf_b = pick_range(g.b, 0, 3 * n);
  const Expression no_cell = zeros(cg, Dim({n, n}));
  for (unsigned j = 0; j < n_; ++j) {
    std::vector<Expression> u{row(kH2I, j), row(kH2O, j), row(kH2C, j)};
    std::vector<Expression> v{row(kC2I, j), row(kC2O, j), no_cell};
    for (unsigned k = 0; k < n_; ++k) {
      u.push_back(row(kH2F, j * n_ + k));
      v.push_back(row(kC2F, j * n_ + k));
    }
    g.u.push_back(concatenate(u));
    g.v.push_back(concatenate(v));
  }
  return g;
}

void NaryTreeLSTMBuilder::derive_graph_expressions(ComputationGraph& cg, bool update) {
  joined_.clear();
  for (unsigned l = 0; l < layers(); ++l) joined_.push_back(join_layer(cg, l, update));
}

CellState NaryTreeLSTMBuilder::node(unsigned layer, const Expression& x, const std::vector<const CellState*>& children) {
  const unsigned n = hidden_dim();
  const JoinedGates& g = joined_[layer];
  auto position = [&](std::size_t j) { return std::min(static_cast<unsigned>(j), n_ - 1); };
  Expression a;
  if (children.empty()) {
    a = affine_transform({g.leaf_b, g.leaf_w, x});
  } else {
    std::vector<Expression> args{g.b};
    if (x.pg) args.insert(args.end(), {g.w, x});
    for (std::size_t j = 0; j < children.size(); ++j)
      args.insert(args.end(), {g.u[position(j)], children[j]->h, g.v[position(j)], children[j]->c});
    a = affine_transform(args);
  }
  const Expression i = logistic(pick_range(a, 0, n));
  const Expression o = logistic(pick_range(a, n, 2 * n));
  std::vector<Expression> terms{cmult(i, tanh(pick_range(a, 2 * n, 3 * n)))};
  for (std::size_t k = 0; k < children.size(); ++k) {
    const unsigned f = 3 + position(k);
    terms.push_back(cmult(logistic(pick_range(a, f * n, (f + 1) * n)), children[k]->c));
  }
  const Expression c = terms.size() == 1 ? terms[0] : sum(terms);
  return {cmult(o, tanh(c)), c};
}

}  // namespace dynet
