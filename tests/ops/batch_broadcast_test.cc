// DyNet's batch rules: an argument with one batch element broadcasts against batched ones, and
// its gradient is the sum over the batch.

#include <catch2/catch.hpp>

#include <vector>

#include "dynet_core/expr.h"
#include "dynet_core/graph.h"

using namespace dynet;

TEST_CASE("affine_transform adds unbatched products to every batch element of a batched bias", "[ops][broadcast]") {
  for (int strategy : {0, 1, 2}) {
    ComputationGraph cg;
    cg.set_autobatch(strategy);
    const Expression W = input(cg, Dim({2, 3}), {1, 0, 0, 1, 1, 1});
    const Expression x = input(cg, Dim({3}), {1, 2, 3});
    const Expression b = input(cg, Dim({2}, 2), {1, 2, 3, 4});
    const Expression y = affine_transform({b, W, x});
    INFO("autobatch " << strategy);
    CHECK(as_vector(cg.forward(y)) == std::vector<float>{5, 7, 7, 9});  // DyNet's values
    cg.backward(sum_batches(sum_elems(y)), true);
    CHECK(as_vector(cg.get_gradient(W)) == std::vector<float>{2, 2, 4, 4, 6, 6});
    CHECK(as_vector(cg.get_gradient(x)) == std::vector<float>{2, 2, 4});
    CHECK(as_vector(cg.get_gradient(b)) == std::vector<float>{1, 1, 1, 1});
  }
}
