#include "builders/coupled_lstm_builder.h"

#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/linalg.h"

#include <vector>

namespace dynet {

namespace {
enum { kX2I, kH2I, kC2I, kBI, kX2O, kH2O, kC2O, kBO, kX2C, kH2C, kBC };
}

CoupledLSTMBuilder::CoupledLSTMBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim,
                                       ParameterCollection& model)
    : CoupledLSTMBuilder("CoupledLSTMBuilder", "lstm-builder", layers, input_dim, hidden_dim, model,
                         Peepholes::always) {}

CoupledLSTMBuilder::CoupledLSTMBuilder(const std::string& name, const std::string& collection, unsigned layers,
                                       unsigned input_dim, unsigned hidden_dim, ParameterCollection& model,
                                       Peepholes peepholes, UpperLayerInput upper)
    : RNNBuilder(model, name, collection, layers, input_dim, hidden_dim, true, upper), peepholes_(peepholes) {
  for (unsigned l = 0; l < layers; ++l) {
    for (int gate = 0; gate < 2; ++gate) {
      add_layer_parameter(l, {hidden_dim, layer_input_dim(l)});
      add_layer_parameter(l, {hidden_dim, hidden_dim});
      add_layer_parameter(l, {hidden_dim, peepholes == Peepholes::never ? 1 : hidden_dim});
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
  // The affine terms of a gate: bias, input, and, where there is a previous state, the recurrent
  // input and (with peepholes) a cell.
  const bool peep = peepholes_ == Peepholes::always || (peepholes_ == Peepholes::with_previous_state && prev);
  auto gate = [&](int bias, int from_x, int from_h, int from_c, const Expression* c) {
    std::vector<Expression> terms = {v(bias), v(from_x), x};
    if (prev) terms.insert(terms.end(), {v(from_h), h_rec});
    if (peep && c) terms.insert(terms.end(), {v(from_c), *c});
    return affine_transform(terms);
  };
  // With cell dropout, the gates read the cells through one mask, as DyNet's (the new cell's
  // update reads the previous one whole).
  const Expression mask = cell_dropout_mask(layer);
  auto read = [&](const Expression& cell) { return mask.pg ? cmult(cell, mask) : cell; };
  const Expression prev_c = prev ? read(prev->c) : Expression();
  const Expression i = logistic(gate(kBI, kX2I, kH2I, kC2I, prev ? &prev_c : nullptr));
  const Expression g = tanh(gate(kBC, kX2C, kH2C, -1, nullptr));
  const Expression c = prev ? cmult(1.f - i, prev->c) + cmult(i, g) : cmult(i, g);
  const Expression read_c = read(c);
  const Expression o = logistic(gate(kBO, kX2O, kH2O, kC2O, &read_c));
  return {cmult(o, tanh(c)), c};
}

}  // namespace dynet
