#include "builders/nary_tree_lstm_builder.h"

#include <algorithm>
#include <stdexcept>

#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/leaves.h"
#include "dynet_core/ops/linalg.h"

namespace dynet {

namespace {
enum { kX2I, kBI, kX2F, kBF, kX2O, kBO, kX2C, kBC };          // params
enum { kH2I, kH2F, kH2O, kH2C, kC2I, kC2F, kC2O, kLookups };  // lparams
}  // namespace

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

void NaryTreeLSTMBuilder::derive_graph_expressions(ComputationGraph& cg, bool update) {
  rows_.assign(layers(), {});
  forget_bias_.clear();
  for (unsigned l = 0; l < layers(); ++l) {
    for (const LookupParameter& table : lparams[l]) {
      std::vector<Expression> rows;
      for (unsigned k = 0; k < table.get_storage().n; ++k)
        rows.push_back(update ? parameter(cg, table, k) : const_parameter(cg, table, k));
      rows_[l].push_back(std::move(rows));
    }
    forget_bias_.push_back(var(l, kBF) + 1.f);
  }
}

CellState NaryTreeLSTMBuilder::node(unsigned layer, const Expression& x,
                                    const std::vector<const CellState*>& children) {
  const std::vector<std::vector<Expression>>& rows = rows_[layer];
  auto position = [&](std::size_t j) { return std::min(static_cast<unsigned>(j), n_ - 1); };
  // b + W x + sum_j (U[row(j)] h_j + V[row(j)] c_j); no V for the candidate (v < 0).
  auto gate = [&](const Expression& b, int w, int u, int v, auto row) {
    std::vector<Expression> args{b};
    if (x.pg) args.insert(args.end(), {var(layer, static_cast<unsigned>(w)), x});
    for (std::size_t j = 0; j < children.size(); ++j) {
      args.insert(args.end(), {rows[static_cast<unsigned>(u)][row(j)], children[j]->h});
      if (v >= 0) args.insert(args.end(), {rows[static_cast<unsigned>(v)][row(j)], children[j]->c});
    }
    return affine_transform(args);
  };
  const Expression i = logistic(gate(var(layer, kBI), kX2I, kH2I, kC2I, position));
  const Expression o = logistic(gate(var(layer, kBO), kX2O, kH2O, kC2O, position));
  const Expression u = tanh(gate(var(layer, kBC), kX2C, kH2C, -1, position));
  std::vector<Expression> terms{cmult(i, u)};
  for (std::size_t k = 0; k < children.size(); ++k) {
    const auto row = [&](std::size_t j) { return position(j) * n_ + position(k); };
    terms.push_back(cmult(logistic(gate(forget_bias_[layer], kX2F, kH2F, kC2F, row)), children[k]->c));
  }
  const Expression c = terms.size() == 1 ? terms[0] : sum(terms);
  return {cmult(o, tanh(c)), c};
}

}  // namespace dynet
