#include "builders/coupled_lstm_builder.h"

#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/linalg.h"

namespace dynet {

namespace {
enum { kX2I, kH2I, kC2I, kBI, kX2O, kH2O, kC2O, kBO, kX2C, kH2C, kBC };
}

CoupledLSTMBuilder::CoupledLSTMBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim,
                                       ParameterCollection& model)
    : RNNBuilder(model, "CoupledLSTMBuilder", "lstm-builder", layers, input_dim, hidden_dim, true) {
  for (unsigned l = 0; l < layers; ++l) {
    for (int gate = 0; gate < 2; ++gate) {
      add_layer_parameter(l, {hidden_dim, layer_input_dim(l)});
      add_layer_parameter(l, {hidden_dim, hidden_dim});
      add_layer_parameter(l, {hidden_dim, hidden_dim});
      add_layer_parameter(l, {hidden_dim}, 0.f);
    }
    add_layer_parameter(l, {hidden_dim, layer_input_dim(l)});
    add_layer_parameter(l, {hidden_dim, hidden_dim});
    add_layer_parameter(l, {hidden_dim}, 0.f);
  }
}

CellState CoupledLSTMBuilder::step(unsigned layer, const Expression& x, const CellState* prev,
                                   const Expression& h_rec) {
  auto v = [&](int k) -> const Expression& { return var(layer, static_cast<unsigned>(k)); };
  if (!prev) {
    const Expression i = logistic(affine_transform({v(kBI), v(kX2I), x}));
    const Expression c = cmult(i, tanh(affine_transform({v(kBC), v(kX2C), x})));
    const Expression o = logistic(affine_transform({v(kBO), v(kX2O), x, v(kC2O), c}));
    return {cmult(o, tanh(c)), c};
  }
  const Expression i = logistic(affine_transform({v(kBI), v(kX2I), x, v(kH2I), h_rec, v(kC2I), prev->c}));
  const Expression g = tanh(affine_transform({v(kBC), v(kX2C), x, v(kH2C), h_rec}));
  const Expression c = cmult(1.f - i, prev->c) + cmult(i, g);
  const Expression o = logistic(affine_transform({v(kBO), v(kX2O), x, v(kH2O), h_rec, v(kC2O), c}));
  return {cmult(o, tanh(c)), c};
}

}  // namespace dynet
