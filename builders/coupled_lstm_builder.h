#pragma once
// DyNet's CoupledLSTMBuilder: an LSTM with peephole connections from the memory cell into the input and
// output gates, and the forget gate coupled to the input gate (f = 1 - i):
//   i = logistic(b_i + W_xi x_t + W_hi h_{t-1} + W_ci c_{t-1})
//   g = tanh(b_c + W_xc x_t + W_hc h_{t-1})
//   c_t = (1 - i) * c_{t-1} + i * g
//   o = logistic(b_o + W_xo x_t + W_ho h_{t-1} + W_co c_t)
//   h_t = o * tanh(c_t)
// Each gate block is one affine transform. Parameters of each layer, in DyNet's order:
// W_xi, W_hi, W_ci, b_i, W_xo, W_ho, W_co, b_o, W_xc, W_hc, b_c (biases zero).

#include "builders/rnn_builder.h"

namespace dynet {

class CoupledLSTMBuilder : public RNNBuilder {
 public:
  /// Without parameters until assigned a builder made with a model.
  CoupledLSTMBuilder() : CoupledLSTMBuilder("CoupledLSTMBuilder", Peepholes::always) {}
  CoupledLSTMBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim, ParameterCollection& model);
  std::unique_ptr<RNNBuilder> clone() const override { return std::make_unique<CoupledLSTMBuilder>(*this); }

 protected:
  /// Where the cell feeds the gates, as DyNet's builders of this family differ:
  ///   always: as above (CoupledLSTMBuilder);
  ///   with_previous_state: only when there is a previous state, so a step from the zero state
  ///     computes o = logistic(b_o + W_xo x_t) (DeepLSTMBuilder);
  ///   never: W_ci and W_co are {hidden, 1} and feed no gate (FastLSTMBuilder).
  enum class Peepholes { always, with_previous_state, never };

  /// `name` is the class, as messages name it; `collection` DyNet's name for its parameters.
  CoupledLSTMBuilder(const std::string& name, const std::string& collection, unsigned layers, unsigned input_dim,
                     unsigned hidden_dim, ParameterCollection& model, Peepholes peepholes,
                     UpperLayerInput upper = UpperLayerInput::below);
  CoupledLSTMBuilder(const std::string& name, Peepholes peepholes) : RNNBuilder(name, true), peepholes_(peepholes) {}

  CellState step(unsigned layer, const Expression& x, const CellState* prev, const Expression& h_rec) override;
  bool gates_read_cells() const override { return peepholes_ == Peepholes::always; }

 private:
  Peepholes peepholes_ = Peepholes::always;
};

}  // namespace dynet
