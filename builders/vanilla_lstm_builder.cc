#include "builders/vanilla_lstm_builder.h"

#include "dynet_core/graph.h"
#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/leaves.h"
#include "dynet_core/ops/linalg.h"
#include "dynet_core/ops/lstm.h"
#include "dynet_core/ops/normalization.h"
#include "dynet_core/ops/select.h"

namespace dynet {

namespace {
enum { kX2I, kH2I, kBias, kGainH, kBiasH, kGainX, kBiasX, kGainC, kBiasC };
}

VanillaLSTMBuilder::VanillaLSTMBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim,
                                       ParameterCollection& model, bool ln_lstm, float forget_bias)
    : VanillaLSTMBuilder(model, "VanillaLSTMBuilder", "vanilla-lstm-builder", layers, input_dim, hidden_dim, ln_lstm,
                         forget_bias) {}

VanillaLSTMBuilder::VanillaLSTMBuilder(ParameterCollection& model, const std::string& name,
                                       const std::string& collection, unsigned layers, unsigned input_dim,
                                       unsigned hidden_dim, bool ln_lstm, float forget_bias)
    : RNNBuilder(model, name, collection, layers, input_dim, hidden_dim, true),
      ln_lstm_(ln_lstm),
      forget_bias_(forget_bias) {
  for (unsigned l = 0; l < layers; ++l) {
    add_layer_parameter(l, {4 * hidden_dim, layer_input_dim(l)});
    add_layer_parameter(l, {4 * hidden_dim, hidden_dim});
    add_layer_parameter(l, {4 * hidden_dim}, 0.f);
    if (!ln_lstm) continue;
    for (unsigned rows : {4 * hidden_dim, 4 * hidden_dim, hidden_dim}) {
      add_layer_parameter(l, {rows}, 1.f, model);
      add_layer_parameter(l, {rows}, 0.f, model);
    }
  }
  ln_params.resize(ln_lstm ? layers : 0);
  for (unsigned l = 0; l < ln_params.size(); ++l) {
    ln_params[l].assign(params[l].begin() + 3, params[l].end());
    params[l].resize(3);
  }
}

Expression VanillaLSTMBuilder::gate_activations(unsigned layer, const Expression& x, const CellState* prev,
                                                const Expression& h_rec) const {
  const Expression& b = var(layer, kBias);
  if (!ln_lstm_)
    return prev ? affine_transform({b, var(layer, kX2I), x, var(layer, kH2I), h_rec})
                : affine_transform({b, var(layer, kX2I), x});
  Expression a = b + layer_norm(var(layer, kX2I) * x, var(layer, kGainX), var(layer, kBiasX));
  if (prev) a = a + layer_norm(var(layer, kH2I) * h_rec, var(layer, kGainH), var(layer, kBiasH));
  return a;
}

CellState VanillaLSTMBuilder::step(unsigned layer, const Expression& x, const CellState* prev,
                                   const Expression& h_rec) {
  const unsigned n = hidden_dim();
  const Expression a = gate_activations(layer, x, prev, h_rec);
  ComputationGraph& cg = graph("add_input");
  Expression o, c;
  if (cg.runs_vertex_tasks()) {
    // DyNet's nodes: the vertex executor runs a step's elementwise chain as one pass over tiles.
    const Expression i = logistic(pick_range(a, 0, n));
    const Expression a_f = pick_range(a, n, 2 * n);
    const Expression f = logistic(forget_bias_ != 0.f ? a_f + forget_bias_ : a_f);
    o = logistic(pick_range(a, 2 * n, 3 * n));
    const Expression g = tanh(pick_range(a, 3 * n, 4 * n));
    c = prev ? cmult(f, prev->c) + cmult(i, g) : cmult(i, g);
  } else {
    // Elsewhere the same arithmetic in two nodes, three with the output, where DyNet's take fourteen:
    // at one sentence a graph, nodes, not FLOPs, take the time.
    const Expression gates = vanilla_lstm_activations(a, forget_bias_);
    c = vanilla_lstm_c(prev ? prev->c : zeros(cg, Dim({n}, x.dim().bd)), gates);
    if (!ln_lstm_) return {vanilla_lstm_h(c, gates), c};
    o = pick_range(gates, 2 * n, 3 * n);
  }
  const Expression c_out = ln_lstm_ ? layer_norm(c, var(layer, kGainC), var(layer, kBiasC)) : c;
  return {cmult(o, tanh(c_out)), c};
}

}  // namespace dynet
