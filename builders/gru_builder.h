#pragma once
// Gated recurrent unit (Cho et al., 2014), with DyNet's GRUBuilder equations:
//   z = logistic(b_z + W_xz x_t + W_hz h_{t-1}),  r = logistic(b_r + W_xr x_t + W_hr h_{t-1})
//   g = tanh(b_h + W_xh x_t + W_hh (r * h_{t-1}))
//   h_t = (1 - z) * h_{t-1} + z * g
// Parameters of each layer, in DyNet's order: W_xz {hidden, input}, W_hz {hidden, hidden}, b_z
// {hidden}, W_xr, W_hr, b_r, W_xh, W_hh, b_h (biases zero).
// The update and reset gates run as one affine transform (one matrix product per step instead of
// two): new_graph joins W_xz and W_xr, W_hz and W_hr, b_z and b_r into {2 hidden} rows once per graph.

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
  void derive_graph_expressions(ComputationGraph&, bool) override;

 private:
  /// One layer's update and reset gates joined, [z; r], in the bound graph.
  struct JoinedGates {
    Expression w_x, w_h, b;
  };
  std::vector<JoinedGates> zr_;
};

}  // namespace dynet
