#include "builders/gru_builder.h"

#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/linalg.h"

namespace dynet {

namespace {
enum { kX2Z, kH2Z, kBZ, kX2R, kH2R, kBR, kX2H, kH2H, kBH };
}

GRUBuilder::GRUBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim, ParameterCollection& model)
    : RNNBuilder(model, "GRUBuilder", "gru-builder", layers, input_dim, hidden_dim, false) {
  for (unsigned l = 0; l < layers; ++l)
    for (int gate = 0; gate < 3; ++gate) {
      add_layer_parameter(l, {hidden_dim, layer_input_dim(l)});
      add_layer_parameter(l, {hidden_dim, hidden_dim});
      add_layer_parameter(l, {hidden_dim}, 0.f);
    }
}

CellState GRUBuilder::step(unsigned layer, const Expression& x, const CellState* prev, const Expression& h_rec) {
  auto v = [&](int k) -> const Expression& { return var(layer, static_cast<unsigned>(k)); };
  if (!prev) {
    const Expression z = logistic(affine_transform({v(kBZ), v(kX2Z), x}));
    return {cmult(z, tanh(affine_transform({v(kBH), v(kX2H), x}))), Expression()};
  }
  const Expression z = logistic(affine_transform({v(kBZ), v(kX2Z), x, v(kH2Z), h_rec}));
  const Expression r = logistic(affine_transform({v(kBR), v(kX2R), x, v(kH2R), h_rec}));
  const Expression g = tanh(affine_transform({v(kBH), v(kX2H), x, v(kH2H), cmult(r, h_rec)}));
  return {cmult(1.f - z, prev->h) + cmult(z, g), Expression()};
}

}  // namespace dynet
