#include "builders/simple_rnn_builder.h"

#include <stdexcept>
#include <vector>

#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/linalg.h"

namespace dynet {

namespace {
enum { kX2H, kH2H, kBias, kL2H };
}

SimpleRNNBuilder::SimpleRNNBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim, ParameterCollection& model,
                                   bool support_lags)
    : RNNBuilder(model, "SimpleRNNBuilder", "simple-rnn-builder", layers, input_dim, hidden_dim, false),
      lagging_(support_lags) {
  for (unsigned l = 0; l < layers; ++l) {
    add_layer_parameter(l, {hidden_dim, layer_input_dim(l)});
    add_layer_parameter(l, {hidden_dim, hidden_dim});
    add_layer_parameter(l, {hidden_dim}, 0.f);
    if (support_lags) add_layer_parameter(l, {hidden_dim, hidden_dim});
  }
}

CellState SimpleRNNBuilder::step(unsigned layer, const Expression& x, const CellState* prev, const Expression& h_rec) {
  return cell(layer, x, prev, h_rec, nullptr);
}

CellState SimpleRNNBuilder::cell(unsigned layer, const Expression& x, const CellState* prev, const Expression& h_rec,
                                 const Expression* aux) const {
  std::vector<Expression> terms = {var(layer, kBias), var(layer, kX2H), x};
  if (aux) terms.insert(terms.end(), {var(layer, kL2H), *aux});
  if (prev) terms.insert(terms.end(), {var(layer, kH2H), h_rec});
  return {tanh(affine_transform(terms)), Expression()};
}

Expression SimpleRNNBuilder::add_auxiliary_input(const Expression& x, const Expression& aux) {
  if (!lagging_)
    throw std::invalid_argument(name() + "::add_auxiliary_input: this builder has no W_l; make it with "
                                         "support_lags = true");
  check_vector(aux, hidden_dim(), "add_auxiliary_input", "the auxiliary input");
  const LayerCell lagged = [&](unsigned layer, const Expression& in, const CellState* prev, const Expression& h_rec) {
    return cell(layer, in, prev, h_rec, &aux);
  };
  return add_step(state(), x, &lagged, "add_auxiliary_input");
}

}  // namespace dynet
