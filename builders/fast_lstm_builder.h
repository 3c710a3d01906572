#pragma once
// DyNet's FastLSTMBuilder: the coupled LSTM (f = 1 - i) without peephole connections. As in DyNet,
// each layer still holds the peephole parameters W_ci and W_co, {hidden, 1} (diagonal in intent),
// which no gate reads; the parameters are in CoupledLSTMBuilder's order.
//   i = logistic(b_i + W_xi x_t + W_hi h_{t-1}),  g = tanh(b_c + W_xc x_t + W_hc h_{t-1})
//   c_t = (1 - i) * c_{t-1} + i * g,  o = logistic(b_o + W_xo x_t + W_ho h_{t-1}),  h_t = o * tanh(c_t)

#include "builders/coupled_lstm_builder.h"

namespace dynet {

class FastLSTMBuilder : public CoupledLSTMBuilder {
 public:
  /// Without parameters until assigned a builder made with a model.
  FastLSTMBuilder() : CoupledLSTMBuilder("FastLSTMBuilder", Peepholes::never) {}
  FastLSTMBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim, ParameterCollection& model)
      : CoupledLSTMBuilder("FastLSTMBuilder", "fast-lstm-builder", layers, input_dim, hidden_dim, model,
                           Peepholes::never) {}
  std::unique_ptr<RNNBuilder> clone() const override { return std::make_unique<FastLSTMBuilder>(*this); }
};

}  // namespace dynet
