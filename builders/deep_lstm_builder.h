#pragma once
// DyNet's DeepLSTMBuilder: a stack of coupled LSTMs with peepholes (CoupledLSTMBuilder's cell, except
// that a step from the zero state has no peephole into its output gate, as in DyNet's deep-lstm.cc) in
// which every layer above the first reads the layer below's output and the step's input joined,
// [h^{l-1}_t; x_t] ({hidden + input}), and whose add_input returns the outputs of all layers
// joined, [h^1_t; ...; h^L_t] ({layers * hidden}); back() is the top layer's output alone.
// Parameters of each layer, in DyNet's order: W_xi, W_hi, W_ci, b_i, W_xo, W_ho, W_co, b_o, W_xc,
// W_hc, b_c (biases zero), the W_x* of the layers above the first {hidden, hidden + input}.

#include "builders/coupled_lstm_builder.h"

namespace dynet {

class DeepLSTMBuilder : public CoupledLSTMBuilder {
 public:
  /// Without parameters until assigned a builder made with a model.
  DeepLSTMBuilder() : CoupledLSTMBuilder("DeepLSTMBuilder", Peepholes::with_previous_state) {}
  DeepLSTMBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim, ParameterCollection& model)
      : CoupledLSTMBuilder("DeepLSTMBuilder", "deep-lstm-builder", layers, input_dim, hidden_dim, model,
                           Peepholes::with_previous_state, UpperLayerInput::below_and_input) {}
  std::unique_ptr<RNNBuilder> clone() const override { return std::make_unique<DeepLSTMBuilder>(*this); }

 protected:
  Expression step_output(const std::vector<CellState>& layers) const override;
};

}  // namespace dynet
