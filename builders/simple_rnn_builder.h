#pragma once
// Elman RNN: h_t = tanh(b + W_x x_t + W_h h_{t-1}).
// Parameters of each layer, in DyNet's order: W_x {hidden, input}, W_h {hidden, hidden}, b {hidden}
// (zeros) and, with support_lags, W_l {hidden, hidden}, which add_auxiliary_input reads:
//   h_t = tanh(b + W_x x_t + W_l aux_t + W_h h_{t-1})   (every layer reads the same aux_t)

#include "builders/rnn_builder.h"

namespace dynet {

class SimpleRNNBuilder : public RNNBuilder {
 public:
  /// Without parameters until assigned a builder made with a model.
  SimpleRNNBuilder() : RNNBuilder("SimpleRNNBuilder", false) {}
  SimpleRNNBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim, ParameterCollection& model,
                   bool support_lags = false);
  std::unique_ptr<RNNBuilder> clone() const override { return std::make_unique<SimpleRNNBuilder>(*this); }

  /// add_input(x) with the auxiliary input aux ({hidden_dim}, the batch size of x or 1) added
  /// through W_l at every layer; throws std::invalid_argument unless made with support_lags.
  Expression add_auxiliary_input(const Expression& x, const Expression& aux);

 protected:
  CellState step(unsigned layer, const Expression& x, const CellState* prev, const Expression& h_rec) override;

 private:
  /// The cell of layer `layer`, with the auxiliary input's term when aux is given.
  CellState cell(unsigned layer, const Expression& x, const CellState* prev, const Expression& h_rec,
                 const Expression* aux) const;

  bool lagging_ = false;
};

}  // namespace dynet
