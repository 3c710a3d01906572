#include "builders/sparse_lstm_builder.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>

#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/leaves.h"
#include "dynet_core/tensor_tools.h"

namespace dynet {

SparseLSTMBuilder::SparseLSTMBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim,
                                     ParameterCollection& model, bool ln_lstm, float forget_bias)
    : VanillaLSTMBuilder(model, "SparseLSTMBuilder", "sparse-lstm-builder", layers, input_dim, hidden_dim, ln_lstm,
                         forget_bias) {
  for (unsigned l = 0; l < layers; ++l) {
    masks_.emplace_back();
    for (unsigned k = 0; k < 2; ++k) {
      Parameter mask =
          get_parameter_collection().add_parameters(layer_parameters()[l][k].dim(), ParameterInitConst(1.f));
      mask.set_updated(false);
      masks_.back()[k] = mask;
    }
  }
}

void SparseLSTMBuilder::set_sparsity(float sparsity) {
  if (!(sparsity >= 0.f && sparsity <= 1.f))
    throw std::invalid_argument(name() +
                                "::set_sparsity: the sparsity is the fraction of weights to prune, in [0, 1]; got " +
                                std::to_string(sparsity));
  if (masks_.empty())
    throw std::invalid_argument(name() + "::set_sparsity: this builder was default-constructed and has no parameters");
  std::vector<std::size_t> order;
  std::vector<float> stored, read;
  for (unsigned l = 0; l < masks_.size(); ++l)
    for (unsigned k = 0; k < 2; ++k) {
      stored = as_vector(*Parameter(layer_parameters()[l][k]).values());
      std::vector<float> mask = as_vector(*masks_[l][k].values());
      // Smallest first as the gates read them (pruned weights as 0); then by stored magnitude, so
      // that lowering the sparsity restores the largest pruned weights first; then by position. A
      // NaN counts as the largest magnitude, so that the order stays one.
      read.resize(stored.size());
      for (std::size_t i = 0; i < stored.size(); ++i) {
        stored[i] = std::isnan(stored[i]) ? std::numeric_limits<float>::infinity() : std::fabs(stored[i]);
        read[i] = mask[i] != 0.f ? stored[i] : 0.f;
      }
      order.resize(stored.size());
      std::iota(order.begin(), order.end(), std::size_t(0));
      std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return std::tie(read[a], stored[a], a) < std::tie(read[b], stored[b], b);
      });
      const std::size_t pruned = static_cast<std::size_t>(double(sparsity) * double(stored.size()));
      for (std::size_t i = 0; i < order.size(); ++i) mask[order[i]] = i < pruned ? 0.f : 1.f;
      TensorTools::set_elements(*masks_[l][k].values(), mask);
    }
}

void SparseLSTMBuilder::derive_graph_expressions(ComputationGraph& cg, bool update) {
  VanillaLSTMBuilder::derive_graph_expressions(cg, update);
  for (unsigned l = 0; l < masks_.size(); ++l)
    for (unsigned k = 0; k < 2; ++k) {
      // A parameter reads as its stored values times the pending weight-decay factor; the mask
      // must read as 0 and 1, and (s * 1) / s is 1 exactly.
      Expression mask = const_parameter(cg, masks_[l][k]);
      const float s = masks_[l][k].current_weight_decay();
      if (s != 1.f) mask = mask / s;
      set_var(l, k, cmult(var(l, k), mask));
    }
}

}  // namespace dynet
