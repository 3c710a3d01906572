#pragma once
// Gated recurrent unit (Cho et al., 2014), with DyNet's GRUBuilder equations:
//   [a_z; a_r] = b_zr + W_zr x_t + U_zr h_{t-1},  z = logistic(a_z), r = logistic(a_r)
//   g = tanh(b_h + W_h x_t + U_h (r * h_{t-1}))
//   h_t = (1 - z) * h_{t-1} + z * g
// The update and reset gates share one affine transform (one matrix product per step instead of
// two). Parameters of each layer: W_zr {2 hidden, input}, U_zr {2 hidden, hidden}, b_zr {2 hidden},
// W_h {hidden, input}, U_h {hidden, hidden}, b_h {hidden} (biases zero).

#include "builders/rnn_builder.h"

namespace dynet {

class GRUBuilder : public RNNBuilder {
 public:
  /// Without parameters until assigned a builder made with a model.
  GRUBuilder() : RNNBuilder("GRUBuilder", false) {}
  GRUBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim, ParameterCollection& model);
  std::unique_ptr<RNNBuilder> clone() const override { return std::make_unique<GRUBuilder>(*this); }

 protected:
  CellState step(unsigned layer, const Expression& x, const CellState* prev, const Expression& h_rec) override;
};

}  // namespace dynet
