#include "builders/compact_vanilla_lstm_builder.h"

#include <stdexcept>
#include <string>

#include "dynet_core/ops/leaves.h"
#include "dynet_core/ops/lstm.h"

namespace dynet {

namespace {
enum { kX2I, kH2I, kBias };
}

CompactVanillaLSTMBuilder::CompactVanillaLSTMBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim,
                                                     ParameterCollection& model)
    : RNNBuilder(model, "CompactVanillaLSTMBuilder", "compact-vanilla-lstm-builder", layers, input_dim, hidden_dim,
                 true) {
  for (unsigned l = 0; l < layers; ++l) {
    add_layer_parameter(l, {4 * hidden_dim, layer_input_dim(l)});
    add_layer_parameter(l, {4 * hidden_dim, hidden_dim});
    add_layer_parameter(l, {4 * hidden_dim}, 0.f);
  }
}

void CompactVanillaLSTMBuilder::set_weightnoise(float std) {
  if (!(std >= 0.f))
    throw std::invalid_argument(name() + "::set_weightnoise: the standard deviation must be >= 0, got " +
                                std::to_string(std));
  weightnoise_std_ = std;
}

CellState CompactVanillaLSTMBuilder::step(unsigned layer, const Expression& x, const CellState* prev,
                                          const Expression& h_rec) {
  const Expression zero = prev ? Expression() : zeros(graph("add_input"), Dim({hidden_dim()}, x.dim().bd));
  const Expression& h = prev ? h_rec : zero;
  const std::pair<Expression, Expression> masks = dropout_masks(layer);
  const Expression gates =
      masks.first.pg
          ? vanilla_lstm_gates_dropout(x, h, var(layer, kX2I), var(layer, kH2I), var(layer, kBias), masks.first,
                                       masks.second, weightnoise_std_)
          : vanilla_lstm_gates(x, h, var(layer, kX2I), var(layer, kH2I), var(layer, kBias), weightnoise_std_);
  const Expression c = vanilla_lstm_c(prev ? prev->c : zero, gates);
  return {vanilla_lstm_h(c, gates), c};
}

}  // namespace dynet
