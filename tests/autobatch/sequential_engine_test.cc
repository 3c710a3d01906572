// The sequential engine (--dynet-autobatch 0) under --dynet-vertex 1 or 2: a node's part of a
// trainable parameter's gradient waits, and the parts of one signature are added as one product
// at the end of backward (lazy_weight_gradients.h); under 0 each node adds its own.

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"
#include "dynet_core/tensor.h"

using namespace dynet;

namespace {

struct Gradients {
  std::vector<float> w, u, b;
  EngineStats stats;  // of backward
};

/// A tanh recurrence of six steps, h = tanh(b + U x_t + W h), summed, through the sequential engine.
Gradients recurrence(ParameterCollection& pc, Parameter& W, Parameter& U, Parameter& b, int vertex) {
  pc.reset_gradient();
  ComputationGraph cg;
  cg.set_autobatch(0);
  cg.set_vertex(vertex);
  const Expression w = parameter(cg, W), u = parameter(cg, U), bias = parameter(cg, b);
  std::vector<float> first(5);
  for (unsigned e = 0; e < 5; ++e) first[e] = std::cos(0.7f * float(e));
  Expression h = input(cg, {5}, first);
  std::vector<Expression> states;
  for (unsigned t = 0; t < 6; ++t) {
    std::vector<float> xt(3);
    for (unsigned e = 0; e < 3; ++e) xt[e] = std::sin(1.3f * float(t * 3 + e));
    h = tanh(affine_transform({bias, u, input(cg, {3}, xt), w, h}));
    states.push_back(h);
  }
  const Expression loss = sum_elems(sum(states));
  cg.forward(loss);
  cg.engine().reset_stats();
  cg.backward(loss);
  return {as_vector(W.get_storage().g), as_vector(U.get_storage().g), as_vector(b.get_storage().g),
          cg.engine().stats()};
}

}  // namespace

TEST_CASE("the sequential engine adds a recurrence's weight gradients as one product per weight under "
          "--dynet-vertex 1 and 2, as 0 adds them step by step",
          "[autobatch]") {
  ParameterCollection pc;
  Parameter W = pc.add_parameters({5, 5}), U = pc.add_parameters({5, 3}), b = pc.add_parameters({5});
  const Gradients each = recurrence(pc, W, U, b, 0);
  CHECK(each.stats.lazy_weight_calls == 0);
  for (int vertex : {1, 2}) {
    INFO("--dynet-vertex " << vertex);
    const Gradients lazy = recurrence(pc, W, U, b, vertex);
    // b, U and W of the six affine transforms: one call each, over all six steps.
    CHECK(lazy.stats.lazy_weight_calls == 3);
    CHECK(lazy.stats.backward_batches < each.stats.backward_batches);
    for (const auto& [got, want] : {std::pair(lazy.w, each.w), std::pair(lazy.u, each.u), std::pair(lazy.b, each.b)}) {
      REQUIRE(got.size() == want.size());
      for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(want[i]).epsilon(1e-5).margin(1e-6));
    }
    // Every weight received a gradient at all.
    float norm = 0;
    for (float g : lazy.w) norm += g * g;
    CHECK(norm > 0);
  }
}
