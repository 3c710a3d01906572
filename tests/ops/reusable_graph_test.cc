// DyNet's reusable graphs: an input's values, a lookup's rows, a pick's or a hinge's indices
// changed in place (set_input_values and the others) give, on the next forward and backward, what
// a graph built with the new data gives, under every engine; bad data is refused and changes
// nothing.

#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"

using namespace dynet;

namespace {

struct Data {
  std::vector<float> x;         // an input of 3 x 2
  float s;                      // a scalar input
  std::vector<unsigned> rows;   // a lookup of one row per batch element
  unsigned picked;              // a pick of the product's rows
  std::vector<unsigned> hinge;  // hinge classes, one per batch element
};

struct Outcome {
  float loss;
  std::vector<float> w_grad, e_grad;
};

struct Model {
  ParameterCollection pc;
  Parameter W = pc.add_parameters({2, 3});
  LookupParameter E = pc.add_lookup_parameters(5, {2});
};

/// The graph of the test, its settable nodes, built from `d`.
struct Built {
  Expression x, s, rows, pick, hinge, loss;
};

Built build(ComputationGraph& cg, Model& m, const Data& d) {
  Built b;
  b.x = input(cg, Dim({3, 2}), d.x);
  b.s = input(cg, d.s);
  b.rows = lookup(cg, m.E, d.rows);
  const Expression h = cmult(tanh(parameter(cg, m.W) * b.x), b.s);  // 2 x 2
  b.pick = pick(h, d.picked, 0);                                    // {2}
  b.hinge = hinge(b.rows + b.pick, d.hinge);                        // {1} x 2
  b.loss = sum_batches(b.hinge + sum_elems(b.pick));
  return b;
}

Outcome outcome(ComputationGraph& cg, Model& m, const Expression& loss) {
  m.pc.reset_gradient();
  const float l = as_scalar(cg.forward(loss));
  cg.backward(loss);
  return {l, as_vector(m.W.get_storage().g), as_vector(m.E.get_storage().all_grads)};
}

void check_same(const Outcome& a, const Outcome& b) {
  CHECK(a.loss == Approx(b.loss).epsilon(1e-6));
  REQUIRE(a.w_grad.size() == b.w_grad.size());
  for (std::size_t k = 0; k < a.w_grad.size(); ++k) CHECK(a.w_grad[k] == Approx(b.w_grad[k]).margin(1e-6));
  for (std::size_t k = 0; k < a.e_grad.size(); ++k) CHECK(a.e_grad[k] == Approx(b.e_grad[k]).margin(1e-6));
}

}  // namespace

TEST_CASE("a graph's inputs, lookups, picks and hinges set in place recompute as if built anew", "[ops][reuse]") {
  const int strategy = GENERATE(0, 1, 2);
  Model m;
  const Data first{{0.5f, -1.f, 2.f, 0.25f, 1.5f, -0.5f}, 0.75f, {1, 3}, 0, {0, 1}};
  const Data second{{-2.f, 0.5f, 1.f, 1.f, -0.25f, 0.5f}, -1.25f, {4, 4}, 1, {1, 0}};

  ComputationGraph cg;
  cg.set_autobatch(strategy);
  const Built b = build(cg, m, first);
  const Outcome before = outcome(cg, m, b.loss);
  set_input_values(b.x, second.x);
  set_input_values(b.s, {second.s});
  set_lookup_indices(b.rows, second.rows);
  set_pick_indices(b.pick, {second.picked});
  set_hinge_indices(b.hinge, second.hinge);
  const Outcome after = outcome(cg, m, b.loss);

  ComputationGraph fresh;
  fresh.set_autobatch(strategy);
  check_same(after, outcome(fresh, m, build(fresh, m, second).loss));
  CHECK(after.loss != Approx(before.loss));
}

TEST_CASE("setting a node's data refuses what its constructor would and changes nothing", "[ops][reuse][errors]") {
  Model m;
  ComputationGraph cg;
  const Data d{{0.5f, -1.f, 2.f, 0.25f, 1.5f, -0.5f}, 0.75f, {1, 3}, 0, {0, 1}};
  const Built b = build(cg, m, d);
  const float loss = as_scalar(cg.forward(b.loss));

  CHECK_THROWS_WITH(set_input_values(b.x, {1.f, 2.f}), Catch::Contains("set_input_values") && Catch::Contains("2"));
  CHECK_THROWS_WITH(set_lookup_indices(b.rows, {1, 5}), Catch::Contains("set_lookup_indices") && Catch::Contains("5"));
  CHECK_THROWS_WITH(set_lookup_indices(b.rows, {1}), Catch::Contains("set_lookup_indices"));
  CHECK_THROWS_WITH(set_pick_indices(b.pick, {2}), Catch::Contains("set_pick_indices") && Catch::Contains("2"));
  CHECK_THROWS_WITH(set_hinge_indices(b.hinge, {0, 2}), Catch::Contains("set_hinge_indices"));
  CHECK_THROWS_WITH(set_input_values(b.loss, {1.f}), Catch::Contains("set_input_values") && Catch::Contains("input"));
  CHECK_THROWS_WITH(set_pick_indices(b.x, {0}), Catch::Contains("'input' node"));
  CHECK(as_scalar(cg.forward(b.loss)) == loss);  // nothing was written

  // nodes of the pointer overloads read the caller's data, which the caller changes
  std::vector<float> caller(6, 1.f);
  unsigned row = 2;
  const Expression px = input(cg, Dim({3, 2}), &caller);
  const Expression pl = lookup(cg, m.E, &row);
  CHECK_THROWS_WITH(set_input_values(px, caller), Catch::Contains("caller"));
  CHECK_THROWS_WITH(set_lookup_indices(pl, {1}), Catch::Contains("caller"));

  // an expression of a graph cut back by revert names no node
  cg.checkpoint();
  const Expression later = input(cg, 1.f);
  cg.revert();
  CHECK_THROWS_WITH(set_input_values(later, {2.f}), Catch::Contains("stale"));
}
