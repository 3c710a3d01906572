#pragma once
// Elman RNN: h_t = tanh(b + W_x x_t + W_h h_{t-1}).
// Parameters of each layer: W_x {hidden, input}, W_h {hidden, hidden}, b {hidden} (zeros).

#include "builders/rnn_builder.h"

namespace dynet {

class SimpleRNNBuilder : public RNNBuilder {
 public:
  /// Without parameters until assigned a builder made with a model.
  SimpleRNNBuilder() : RNNBuilder("SimpleRNNBuilder", false) {}
  SimpleRNNBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim, ParameterCollection& model);
  std::unique_ptr<RNNBuilder> clone() const override { return std::make_unique<SimpleRNNBuilder>(*this); }

 protected:
  CellState step(unsigned layer, const Expression& x, const CellState* prev, const Expression& h_rec) override;
};

}  // namespace dynet
