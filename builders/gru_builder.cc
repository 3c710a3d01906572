#include "builders/gru_builder.h"

#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/linalg.h"
#include "dynet_core/ops/select.h"
#include "dynet_core/ops/shape.h"

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

void GRUBuilder::derive_graph_expressions(ComputationGraph&, bool) {
  zr_.clear();
  for (unsigned l = 0; l < layers(); ++l)
    zr_.push_back({concatenate({var(l, kX2Z), var(l, kX2R)}), concatenate({var(l, kH2Z), var(l, kH2R)}),
                   concatenate({var(l, kBZ), var(l, kBR)})});
}

CellState GRUBuilder::step(unsigned layer, const Expression& x, const CellState* prev, const Expression& h_rec) {
  const unsigned n = hidden_dim();
  const JoinedGates& zr = zr_[layer];
  if (!prev) {
    const Expression z = logistic(affine_transform({var(layer, kBZ), var(layer, kX2Z), x}));
    return {cmult(z, tanh(affine_transform({var(layer, kBH), var(layer, kX2H), x}))), Expression()};
  }
  const Expression both = logistic(affine_transform({zr.b, zr.w_x, x, zr.w_h, h_rec}));
  const Expression z = pick_range(both, 0, n);
  const Expression r = pick_range(both, n, 2 * n);
  const Expression g = tanh(affine_transform({var(layer, kBH), var(layer, kX2H), x, var(layer, kH2H), cmult(r, h_rec)}));
  return {cmult(1.f - z, prev->h) + cmult(z, g), Expression()};
}

}  // namespace dynet
