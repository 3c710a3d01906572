#pragma once
// DyNet's CompactVanillaLSTMBuilder: the standard LSTM of VanillaLSTMBuilder (without layer
// normalization, forget bias 1) computed by the fused LSTM ops, three nodes per layer and step:
//   gates = vanilla_lstm_gates(x_t, h_{t-1}, W_x, W_h, b)      [i; f; o; g], f's bias + 1
//   c_t = vanilla_lstm_c(c_{t-1}, gates),  h_t = vanilla_lstm_h(c_t, gates)
// A zero initial state is a zero vector here (the fused ops always read h_{t-1} and c_{t-1}).
// Dropout is fused as in DyNet: with a rate set, the gates are vanilla_lstm_gates_dropout, which
// multiplies x_t and h_{t-1} by this sequence's masks inside the op (a rate of 0 gives a mask of ones).
// Weight noise (set_weightnoise) adds Gaussian noise to W_x, W_h and b at every step.
// Parameters of each layer, in DyNet's order: W_x {4 hidden, input}, W_h {4 hidden, hidden},
// b {4 hidden} (zeros), the layout of VanillaLSTMBuilder's `params`.

#include "builders/rnn_builder.h"

namespace dynet {

class CompactVanillaLSTMBuilder : public RNNBuilder {
 public:
  /// Without parameters until assigned a builder made with a model.
  CompactVanillaLSTMBuilder() : RNNBuilder("CompactVanillaLSTMBuilder", true) {}
  CompactVanillaLSTMBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim, ParameterCollection& model);
  std::unique_ptr<RNNBuilder> clone() const override { return std::make_unique<CompactVanillaLSTMBuilder>(*this); }

  /// Gaussian noise of standard deviation `std` (>= 0; 0: none) on the weights at every step.
  void set_weightnoise(float std);

 protected:
  CellState step(unsigned layer, const Expression& x, const CellState* prev, const Expression& h_rec) override;
  bool fuses_dropout() const override { return true; }

 private:
  float weightnoise_std_ = 0.f;
};

}  // namespace dynet
