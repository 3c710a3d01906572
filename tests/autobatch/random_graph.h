#pragma once
// A generator of random dynamic graphs for differential tests of the engines: chains, trees and
// DAGs over shared parameters, batch sizes 1..4, most operator families, dropout, constant
// parameters, weights computed from parameters or read from lookup tables, nobackprop, and reads of
// values in the middle of construction.

#include <cstdint>
#include <random>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"

namespace dynet_test {

struct RandomModel {
  /// On `device`; null: the default device.
  RandomModel(unsigned hidden, unsigned vocab, unsigned classes, dynet::Device* device = nullptr);
  void zero_gradients();
  /// Every gradient, parameters and lookup tables, in a fixed order.
  std::vector<float> gradients() const;

  unsigned hidden, vocab, classes;
  dynet::ParameterCollection pc;
  dynet::Parameter W, U, V, b, out, out_b, wide;
  dynet::LookupParameter emb, weights;  ///< weights: {hidden, hidden} rows, read as weights
};

struct RandomGraph {
  dynet::Expression loss;
  /// Values read with incremental_forward while the graph was being built.
  std::vector<float> mid_values;
};

struct RandomGraphOptions {
  bool parameter_per_use = false;  ///< parameter() at every use instead of once per graph
  bool read_mid_graph = true;      ///< call incremental_forward between structures
  bool repeated_cells = false;     ///< every vertex of a structure is the same cell
  bool vertex_scopes = false;      ///< each cell is built inside a VertexScope named for its kind
};

/// Builds one random graph from `seed` (the same seed builds the same graph).
RandomGraph build_random_graph(dynet::ComputationGraph& cg, RandomModel& m, std::uint64_t seed,
                               const RandomGraphOptions& options = {});

}  // namespace dynet_test
