#include "builders/simple_rnn_builder.h"

#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/linalg.h"

namespace dynet {

namespace {
enum { kX2H, kH2H, kBias };
}

SimpleRNNBuilder::SimpleRNNBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim,
                                   ParameterCollection& model)
    : RNNBuilder(model, "SimpleRNNBuilder", "simple-rnn-builder", layers, input_dim, hidden_dim, false) {
  for (unsigned l = 0; l < layers; ++l) {
    add_layer_parameter(l, {hidden_dim, layer_input_dim(l)});
    add_layer_parameter(l, {hidden_dim, hidden_dim});
    add_layer_parameter(l, {hidden_dim}, 0.f);
  }
}

CellState SimpleRNNBuilder::step(unsigned layer, const Expression& x, const CellState* prev, const Expression& h_rec) {
  const Expression& b = var(layer, kBias);
  const Expression& wx = var(layer, kX2H);
  const Expression a = prev ? affine_transform({b, wx, x, var(layer, kH2H), h_rec}) : affine_transform({b, wx, x});
  return {tanh(a), Expression()};
}

}  // namespace dynet
