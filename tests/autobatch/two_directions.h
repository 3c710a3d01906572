#pragma once
// A tagger-like recurrence in two directions over embedded words, h = tanh(b + U x_t + W h): the
// affine transforms whose input products the engines compute ahead (leading_products.h), run
// through any engine and compared.

#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/param_collection.h"

namespace dynet {

struct Run {
  std::vector<float> states, w, u, b, embeddings;
  EngineStats forward, backward;
};

/// The recurrences' parameters: h = tanh(b + U x_t + W h) over embeddings E.
struct Recurrence {
  ParameterCollection pc;
  Parameter W = pc.add_parameters({5, 5}), U = pc.add_parameters({5, 3}), b = pc.add_parameters({5});
  LookupParameter E = pc.add_lookup_parameters(10, {3});

  /// A graph of this model under --dynet-autobatch `strategy` and --dynet-vertex `vertex`,
  /// gradients reset.
  void start(ComputationGraph& cg, int strategy, int vertex);
  /// r's gradients, after backward.
  void read_gradients(Run& r) const;
};

/// The recurrence in both directions over seven words, the first step of each without W h, under
/// --dynet-autobatch `strategy` and --dynet-vertex `vertex`. The inputs are the lookups themselves
/// (leaves, looked up as the steps are built) or tanh of lookups made before the steps (computed
/// nodes; with `inputs_first`, computed by an incremental forward pass of their own before the steps are
/// built). With `computed_weight` the steps read 2 U, a node computed before them, in place of U.
Run two_directions(Recurrence& m, bool computed_inputs, int strategy, int vertex, bool computed_weight = false,
                   bool inputs_first = false);

/// Equal up to rounding: products taken in other groups round otherwise, and the recurrence and
/// its backward carry that along (5e-5 relative seen in a build whose Eigen uses no FMA, as the JIT
/// kernels do). Every value nonzero somewhere.
void check_close(const std::vector<float>& got, const std::vector<float>& want, const char* what);
/// check_close of the states and of every gradient.
void check_agree(const Run& got, const Run& want);

}  // namespace dynet
