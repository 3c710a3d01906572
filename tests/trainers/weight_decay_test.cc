// DyNet's lazy weight decay: the stored values stay as the trainer left them, expressions read
// them times the collection tree's factor, steps are divided by it, and it is folded into the
// values below 1/4. Expected values are worked out by hand from DyNet's rules.

#include <catch2/catch.hpp>

#include <iostream>
#include <sstream>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/leaves.h"
#include "dynet_core/ops/reductions.h"
#include "dynet_core/param_collection.h"
#include "dynet_core/tensor_tools.h"
#include "trainers/training.h"

using namespace dynet;

namespace {

std::vector<float> seen(const Parameter& p) {
  ComputationGraph cg;
  return as_vector(cg.forward(parameter(cg, p)));
}

std::vector<float> seen_row(const LookupParameter& p, unsigned row) {
  ComputationGraph cg;
  return as_vector(cg.forward(lookup(cg, p, row)));
}

void check_close(const std::vector<float>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(want[i]).epsilon(1e-5).margin(1e-7));
}

/// One update of `trainer` after backward from dot(p, direction) + (row `row` of `table`, if given).
void step(Trainer& trainer, Parameter& p, const std::vector<float>& direction, LookupParameter* table = nullptr,
          unsigned row = 0) {
  ComputationGraph cg;
  Expression loss = dot_product(parameter(cg, p), input(cg, p.dim(), direction));
  if (table) loss = loss + sum_elems(lookup(cg, *table, row));
  cg.backward(loss);
  trainer.update();
}

}  // namespace

TEST_CASE("weight decay keeps DyNet's factor: stored values, what expressions read, the gradient", "[trainers]") {
  ParameterCollection m;
  m.set_weight_decay_lambda(0.1f);
  Parameter a = m.add_parameters({2}, ParameterInitFromVector({1.f, -2.f}));
  Parameter frozen = m.add_parameters({1}, ParameterInitConst(3.f));
  frozen.set_updated(false);
  LookupParameter E = m.add_lookup_parameters(3, {1}, ParameterInitFromVector({1.f, 2.f, 4.f}));
  SimpleSGDTrainer sgd(m, 0.5f);

  // s = 1: v -= 0.5 g; then s = 0.9.
  step(sgd, a, {1.f, 0.f}, &E, 0);
  CHECK(m.get_weight_decay().current_weight_decay() == Approx(0.9f));
  CHECK(a.current_weight_decay() == Approx(0.9f));
  CHECK(E.current_weight_decay() == Approx(0.9f));
  check_close(as_vector(*a.values()), {0.5f, -2.f});
  check_close(seen(a), {0.45f, -1.8f});
  // Every parameter of the collection decays, updated or not, touched rows or not.
  check_close(as_vector(*frozen.values()), {3.f});
  check_close(seen(frozen), {2.7f});
  check_close(as_vector(E.get_storage().values[0]), {0.5f});
  check_close(seen_row(E, 0), {0.45f});
  check_close(seen_row(E, 2), {3.6f});
  {
    ComputationGraph cg;
    check_close(as_vector(cg.forward(const_parameter(cg, frozen))), {2.7f});
    check_close(as_vector(cg.forward(const_lookup(cg, E, 1u))), {1.8f});
    check_close(as_vector(cg.forward(parameter(cg, E))), {0.45f, 1.8f, 3.6f});
  }

  // The gradient is that of what the expression read, dE/d(s v), not scaled by s.
  ComputationGraph cg;
  cg.backward(dot_product(parameter(cg, a), input(cg, {2}, {1.f, 1.f})));
  check_close(as_vector(*a.gradients()), {1.f, 1.f});
  // s = 0.9: v -= 0.5 g / 0.9, so s v moves by -0.5 g; then s = 0.81.
  sgd.update();
  check_close(as_vector(*a.values()), {0.5f - 0.5f / 0.9f, -2.f - 0.5f / 0.9f});
  check_close(seen(a), {(0.45f - 0.5f) * 0.9f, (-1.8f - 0.5f) * 0.9f});
}

TEST_CASE("weight decay: a stateful rule runs on the values expressions read", "[trainers]") {
  ParameterCollection m;
  m.set_weight_decay_lambda(0.1f);
  Parameter a = m.add_parameters({1}, ParameterInitConst(1.f));
  MomentumSGDTrainer momentum(m, 0.1f, 0.9f);
  // DyNet: vel = 0.9 vel - 0.1 g; v += vel / s.
  step(momentum, a, {1.f});  // vel = -0.1, v = 0.9, then s = 0.9
  step(momentum, a, {1.f});  // vel = -0.19, v = 0.9 - 0.19 / 0.9
  check_close(as_vector(*a.values()), {0.9f - 0.19f / 0.9f});
  check_close(seen(a), {(0.9f - 0.19f / 0.9f) * 0.81f});
}

TEST_CASE("weight decay folds the factor into updated values once it falls below 1/4", "[trainers]") {
  ParameterCollection m;
  m.set_weight_decay_lambda(0.5f);
  ParameterCollection sub = m.add_subcollection("sub");
  Parameter a = sub.add_parameters({2}, ParameterInitFromVector({4.f, -8.f}));
  Parameter frozen = m.add_parameters({1}, ParameterInitConst(2.f));
  frozen.set_updated(false);
  CHECK(&a.get_storage().owner->get_weight_decay() == &m.get_weight_decay());
  SimpleSGDTrainer sgd(m, 1.f);
  sgd.update();
  sgd.update();  // s = 0.25, not below 1/4
  CHECK(m.get_weight_decay().current_weight_decay() == 0.25f);
  check_close(as_vector(*a.values()), {4.f, -8.f});
  check_close(seen(frozen), {0.5f});
  sgd.update();  // s = 0.125: folded in, reset to 1
  CHECK(m.get_weight_decay().current_weight_decay() == 1.f);
  check_close(as_vector(*a.values()), {0.5f, -1.f});
  check_close(seen(a), {0.5f, -1.f});
  // As in DyNet, a parameter that is not updated keeps its stored value, which expressions see again.
  check_close(as_vector(*frozen.values()), {2.f});
  check_close(seen(frozen), {2.f});
}

TEST_CASE("clip_inplace clips what expressions read, as DyNet", "[trainers]") {
  ParameterCollection m;
  m.set_weight_decay_lambda(0.5f);
  Parameter a = m.add_parameters({3}, ParameterInitFromVector({1.f, -2.f, 0.2f}));
  SimpleSGDTrainer sgd(m);
  sgd.update();  // s = 0.5
  a.clip_inplace(-0.6f, 0.6f);
  check_close(as_vector(*a.values()), {1.f, -1.2f, 0.2f});
  check_close(seen(a), {0.5f, -0.6f, 0.1f});
}

TEST_CASE("project_weights writes the norm of every stored value, as DyNet", "[trainers]") {
  ParameterCollection m;
  m.add_parameters({2}, ParameterInitFromVector({3.f, 0.f}));
  m.add_lookup_parameters(2, {1}, ParameterInitFromVector({0.f, 4.f}));
  std::ostringstream captured;
  std::streambuf* const old = std::cerr.rdbuf(captured.rdbuf());
  m.project_weights();
  std::cerr.rdbuf(old);
  CHECK(captured.str() == "NORM: 5\n");
}

TEST_CASE("a lambda below 0 or from 1 up is refused with DyNet's exception type", "[trainers][errors]") {
  ParameterCollection m;
  m.set_weight_decay_lambda(0.1f);
  CHECK_THROWS_AS(m.set_weight_decay_lambda(-0.5f), std::domain_error);
  CHECK_THROWS_WITH(m.set_weight_decay_lambda(1.f), Catch::Contains("lambda") && Catch::Contains("[0, 1)"));
  CHECK(m.weight_decay_lambda() == 0.1f);
  CHECK(m.get_weight_decay().get_lambda() == 0.1f);
}
