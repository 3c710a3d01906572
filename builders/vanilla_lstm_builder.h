#pragma once
// The standard LSTM (Hochreiter and Schmidhuber; Gers et al.'s forget gate), as DyNet's
// VanillaLSTMBuilder. Per layer, one affine transform computes all four gate blocks:
//   [a_i; a_f; a_o; a_g] = b + W_x x_t + W_h h_{t-1}
//   i = logistic(a_i), f = logistic(a_f + forget_bias), o = logistic(a_o), g = tanh(a_g)
//   c_t = f * c_{t-1} + i * g,  h_t = o * tanh(c_t)
// With layer normalization (Ba et al., 2016), W_x x and W_h h are normalized separately before
// the bias is added, and c_t is normalized inside the tanh of h_t.
// Parameters of each layer: W_x {4 hidden, input}, W_h {4 hidden, hidden}, b {4 hidden} (zeros);
// with layer norm also gains/biases for W_h h, W_x x ({4 hidden}) and for c ({hidden}), which
// DyNet puts in the model given to the constructor, not in the builder's subcollection: they are
// saved and loaded with that model, not with get_parameter_collection().

#include "builders/rnn_builder.h"

namespace dynet {

class VanillaLSTMBuilder : public RNNBuilder {
 public:
  /// Without parameters until assigned a builder made with a model.
  VanillaLSTMBuilder() : VanillaLSTMBuilder(std::string("VanillaLSTMBuilder")) {}
  VanillaLSTMBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim, ParameterCollection& model,
                     bool ln_lstm = false, float forget_bias = 1.f);
  std::unique_ptr<RNNBuilder> clone() const override { return std::make_unique<VanillaLSTMBuilder>(*this); }

  bool layer_normalized() const { return ln_lstm_; }

  /// DyNet's split of the parameters: per layer W_x, W_h, b in `params`, and with layer norm the
  /// gains and biases (for W_h h, W_x x, c) in `ln_params`. layer_parameters() lists all of them.
  std::vector<std::vector<Parameter>> ln_params;

 protected:
  /// A VanillaLSTMBuilder under another class and subcollection name (SparseLSTMBuilder).
  VanillaLSTMBuilder(ParameterCollection& model, const std::string& name, const std::string& collection,
                     unsigned layers, unsigned input_dim, unsigned hidden_dim, bool ln_lstm, float forget_bias);
  explicit VanillaLSTMBuilder(const std::string& name) : RNNBuilder(name, true), ln_lstm_(false), forget_bias_(1.f) {}

  CellState step(unsigned layer, const Expression& x, const CellState* prev, const Expression& h_rec) override;

 private:
  Expression gate_activations(unsigned layer, const Expression& x, const CellState* prev,
                              const Expression& h_rec) const;

  bool ln_lstm_;
  float forget_bias_;
};

/// DyNet's LSTMBuilder (since DyNet 2.0): the standard LSTM.
using LSTMBuilder = VanillaLSTMBuilder;

}  // namespace dynet
