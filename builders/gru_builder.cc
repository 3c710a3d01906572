#include "builders/gru_builder.h"

#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/linalg.h"
#include "dynet_core/ops/select.h"

namespace dynet {

namespace {
enum { kX2ZR, kH2ZR, kBZR, kX2H, kH2H, kBH };
}

GRUBuilder::GRUBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim, ParameterCollection& model)
    : RNNBuilder(model, "GRUBuilder", "gru-builder", layers, input_dim, hidden_dim, false) {
  for (unsigned l = 0; l < layers; ++l) {
    add_layer_parameter(l, {2 * hidden_dim, layer_input_dim(l)});
    add_layer_parameter(l, {2 * hidden_dim, hidden_dim});
    add_layer_parameter(l, {2 * hidden_dim}, 0.f);
    add_layer_parameter(l, {hidden_dim, layer_input_dim(l)});
    add_layer_parameter(l, {hidden_dim, hidden_dim});
    add_layer_parameter(l, {hidden_dim}, 0.f);
  }
}

CellState GRUBuilder::step(unsigned layer, const Expression& x, const CellState* prev, const Expression& h_rec) {
  const unsigned n = hidden_dim();
  if (!prev) {
    const Expression z = logistic(pick_range(affine_transform({var(layer, kBZR), var(layer, kX2ZR), x}), 0, n));
    return {cmult(z, tanh(affine_transform({var(layer, kBH), var(layer, kX2H), x}))), Expression()};
  }
  const Expression zr = logistic(affine_transform({var(layer, kBZR), var(layer, kX2ZR), x, var(layer, kH2ZR), h_rec}));
  const Expression z = pick_range(zr, 0, n);
  const Expression r = pick_range(zr, n, 2 * n);
  const Expression g = tanh(affine_transform({var(layer, kBH), var(layer, kX2H), x, var(layer, kH2H), cmult(r, h_rec)}));
  return {cmult(1.f - z, prev->h) + cmult(z, g), Expression()};
}

}  // namespace dynet
