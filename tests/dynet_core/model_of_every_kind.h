#pragma once
// A small model holding every kind of parameter (scalar, vector, matrix, 3-d tensor, lookup
// tables with vector and matrix rows, a subcollection), and bitwise snapshots of its values (and
// gradients).

#include <cstring>
#include <limits>
#include <vector>

#include "dynet_core/param_collection.h"

struct ModelOfEveryKind {
  explicit ModelOfEveryKind(const dynet::ParameterInit& init)
      : scalar(model.add_parameters(dynet::Dim(), init, "scalar")),
        vector(model.add_parameters({7}, init, "vector")),
        matrix(model.add_parameters({3, 4}, init, "matrix")),
        tensor(model.add_parameters({2, 3, 2}, init, "tensor")),
        embeddings(model.add_lookup_parameters(5, {3}, init, "embeddings")),
        encoder(model.add_subcollection("encoder")),
        encoder_w(encoder.add_parameters({2, 2}, init, "W")),
        encoder_table(encoder.add_lookup_parameters(3, {2, 2}, init, "table")) {}

  /// Puts the floats a file format must not lose into the matrix.
  void set_extreme_values() {
    using limits = std::numeric_limits<float>;
    matrix.set_value({-0.f, limits::denorm_min(), -limits::denorm_min(), limits::min(), limits::max(), -limits::max(),
                      limits::infinity(), -limits::infinity(), limits::quiet_NaN(), 1.f / 3.f, -1e-38f, 123456.789f});
  }

  dynet::ParameterCollection model;
  dynet::Parameter scalar, vector, matrix, tensor;
  dynet::LookupParameter embeddings;
  dynet::ParameterCollection encoder;
  dynet::Parameter encoder_w;
  dynet::LookupParameter encoder_table;
};

/// Every value of `m`, parameters then lookup tables.
inline std::vector<std::vector<float>> snapshot(const dynet::ParameterCollection& m) {
  std::vector<std::vector<float>> values;
  for (const auto& p : m.parameters_list()) values.push_back(dynet::as_vector(p->values));
  for (const auto& p : m.lookup_parameters_list()) values.push_back(dynet::as_vector(p->all_values));
  return values;
}

/// Every value of `m`, then every gradient: what a refused load must leave as it was.
inline std::vector<std::vector<float>> snapshot_with_gradients(const dynet::ParameterCollection& m) {
  std::vector<std::vector<float>> state = snapshot(m);
  for (const auto& p : m.parameters_list()) state.push_back(dynet::as_vector(p->g));
  for (const auto& p : m.lookup_parameters_list()) state.push_back(dynet::as_vector(p->all_grads));
  return state;
}

/// Bitwise equality (NaN equals the same NaN).
inline bool same_bits(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].size() != b[i].size() || std::memcmp(a[i].data(), b[i].data(), a[i].size() * sizeof(float)) != 0)
      return false;
  return true;
}
