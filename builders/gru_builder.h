#pragma once
// Gated recurrent unit (Cho et al., 2014), with DyNet's GRUBuilder equations:
//   z = logistic(b_z + W_xz x_t + W_hz h_{t-1}),  r = logistic(b_r + W_xr x_t + W_hr h_{t-1})
//   g = tanh(b_h + W_xh x_t + W_hh (r * h_{t-1}))
//   h_t = (1 - z) * h_{t-1} + z * g
// Parameters of each layer, in DyNet's order: W_xz {hidden, input}, W_hz {hidden, hidden}, b_z
// {hidden}, W_xr, W_hr, b_r, W_xh, W_hh, b_h (biases zero).
// Each gate is its own affine transform, as in DyNet. Joining z's and r's rows into one product
// needs a copy of them in every graph, and joined weights are not parameters, whose gradients the
// batched engine may add late in one product: a one-layer GRU (128 -> 256, one core) trained about
// 1.2 times slower so than gate by gate, at 1 and at 16 sequences of 20 a graph.

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
