// The loop every trainer shares: clipping, the learning-rate schedule, restart(),
// and the checks that refuse bad settings without changing anything.

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "dynet_core/param_collection.h"
#include "dynet_core/tensor_tools.h"
#include "trainers/training.h"

using namespace dynet;

namespace {

void set_gradient(Parameter& p, const std::vector<float>& g) { set_from_host(*p.gradients(), g.data()); }

}  // namespace

TEST_CASE("clipping rescales gradients whose global norm exceeds the threshold", "[trainers]") {
  ParameterCollection m;
  Parameter a = m.add_parameters({2}, ParameterInitConst(0.f));
  LookupParameter t = m.add_lookup_parameters(2, {1}, ParameterInitConst(0.f));
  SimpleSGDTrainer sgd(m, 1.f);
  sgd.clip_threshold = 1.f;
  // Global norm |(3, 4, 12)| = 13 across a parameter and a lookup row.
  set_gradient(a, {3.f, 4.f});
  TensorTools::set_element(t.get_storage().grads[1], 0, 12.f);
  t.get_storage().non_zero_grads.insert(1);
  sgd.update();
  CHECK(as_vector(*a.values())[0] == Approx(-3.f / 13));
  CHECK(as_vector(*a.values())[1] == Approx(-4.f / 13));
  CHECK(as_vector(t.get_storage().values[1])[0] == Approx(-12.f / 13));
  CHECK(as_vector(*a.gradients()) == std::vector<float>{0.f, 0.f});

  sgd.clipping_enabled = false;
  set_gradient(a, {3.f, 4.f});
  sgd.update();
  CHECK(as_vector(*a.values())[1] == Approx(-4.f / 13 - 4.f));
  // Off, as DyNet's Python set_clip_threshold(0) turns it, clipping needs no threshold above 0.
  sgd.clip_threshold = 0.f;
  set_gradient(a, {3.f, 4.f});
  sgd.update();
  CHECK(as_vector(*a.values())[1] == Approx(-4.f / 13 - 8.f));
}

TEST_CASE("a NaN gradient is refused before any parameter changes", "[trainers][errors]") {
  ParameterCollection m;
  Parameter a = m.add_parameters({2}, ParameterInitConst(1.f));
  Parameter b = m.add_parameters({1}, ParameterInitConst(1.f));
  AdamTrainer adam(m);
  set_gradient(a, {0.5f, 0.5f});
  set_gradient(b, {std::numeric_limits<float>::quiet_NaN()});
  CHECK_THROWS_WITH(adam.update(), Catch::Contains("NaN or infinity"));
  CHECK(as_vector(*a.values()) == std::vector<float>{1.f, 1.f});
  CHECK(adam.updates == 0);
}

TEST_CASE("the learning-rate schedule sets the rate of every update", "[trainers]") {
  ParameterCollection m;
  Parameter a = m.add_parameters({1}, ParameterInitConst(0.f));
  SimpleSGDTrainer sgd(m);
  sgd.learning_rate_schedule = inverse_time_decay(1.f, 0.5f);
  double expected = 0;
  for (unsigned t = 0; t < 4; ++t) {
    set_gradient(a, {-1.f});
    sgd.update();
    expected += 1.0 / (1 + 0.5 * t);
    CHECK(sgd.learning_rate == Approx(1.0 / (1 + 0.5 * t)));
    CHECK(as_vector(*a.values())[0] == Approx(expected));
  }

  sgd.learning_rate_schedule = [](unsigned) { return -1.f; };
  set_gradient(a, {-1.f});
  CHECK_THROWS_WITH(sgd.update(), Catch::Contains("schedule") && Catch::Contains("after 4 updates"));
  CHECK(as_vector(*a.values())[0] == Approx(expected));
  CHECK(sgd.learning_rate == Approx(1.0 / 2.5));
}

TEST_CASE("restart forgets moments and the step count", "[trainers]") {
  ParameterCollection m1, m2;
  Parameter a1 = m1.add_parameters({2}, ParameterInitFromVector({1.f, 2.f}));
  AdamTrainer adam(m1, 0.1f);
  for (int s = 0; s < 3; ++s) {
    set_gradient(a1, {1.f, -1.f});
    adam.update();
  }
  adam.restart(0.05f);
  CHECK(adam.updates == 0);
  CHECK(adam.learning_rate == 0.05f);
  Parameter a2 = m2.add_parameters({2}, ParameterInitFromVector(as_vector(*a1.values())));
  AdamTrainer fresh(m2, 0.05f);
  set_gradient(a1, {0.3f, 0.7f});
  set_gradient(a2, {0.3f, 0.7f});
  adam.update();
  fresh.update();
  CHECK(as_vector(*a1.values()) == as_vector(*a2.values()));
  CHECK_THROWS_AS(adam.restart(-0.5f), std::invalid_argument);
}

TEST_CASE("trainers refuse settings out of range, naming them", "[trainers][errors]") {
  ParameterCollection m;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH(SimpleSGDTrainer(m, -0.1f), Catch::Contains("learning_rate"));
  CHECK_THROWS_WITH(SimpleSGDTrainer(m, nan), Catch::Contains("learning_rate"));
  CHECK_THROWS_WITH(MomentumSGDTrainer(m, 0.1f, 1.5f), Catch::Contains("momentum") && Catch::Contains("[0, 1]"));
  CHECK_THROWS_WITH(AdagradTrainer(m, 0.1f, 0.f), Catch::Contains("epsilon"));
  // A denormal epsilon is 0 where denormals are flushed: Adam's and Adagrad's steps of a value of
  // zero second moment would be NaN.
  CHECK_THROWS_WITH(AdamTrainer(m, 0.001f, 0.9f, 0.999f, 1e-40f),
                    Catch::Contains("epsilon") && Catch::Contains("smallest normal float"));
  CHECK_THROWS_WITH(AdadeltaTrainer(m, 1e-6f, -0.1f), Catch::Contains("rho"));
  CHECK_THROWS_WITH(RMSPropTrainer(m, 0.1f, 1e-20f, 1.5f), Catch::Contains("rho"));
  // Adam's bias correction divides by 1 - beta_1^t.
  CHECK_THROWS_WITH(AdamTrainer(m, 0.001f, 1.f), Catch::Contains("beta_1") && Catch::Contains("[0, 1)"));
  // DyNet takes 1 where the rule stays finite: a momentum that never decays, a second moment that
  // keeps its start.
  CHECK_NOTHROW(MomentumSGDTrainer(m, 0.1f, 1.f));
  CHECK_NOTHROW(RMSPropTrainer(m, 0.1f, 1e-20f, 1.f));
  CHECK_NOTHROW(AdadeltaTrainer(m, 1e-6f, 1.f));
  CHECK_NOTHROW(AdamTrainer(m, 0.001f, 0.9f, 1.f));
  CHECK_THROWS_WITH(AmsgradTrainer(m, 0.001f, 0.9f, -1.f),
                    Catch::Contains("AmsgradTrainer") && Catch::Contains("beta_2"));

  Parameter a = m.add_parameters({1}, ParameterInitConst(1.f));
  MomentumSGDTrainer momentum(m);
  momentum.clip_threshold = -1.f;
  set_gradient(a, {1.f});
  CHECK_THROWS_WITH(momentum.update(), Catch::Contains("clip_threshold"));
  momentum.clip_threshold = 0.f;
  CHECK_THROWS_WITH(momentum.update(), Catch::Contains("clip_threshold (with clipping_enabled) = 0"));
  momentum.clip_threshold = 5.f;
  momentum.momentum = 2.f;
  CHECK_THROWS_WITH(momentum.update(), Catch::Contains("momentum"));
  CHECK(as_vector(*a.values()) == std::vector<float>{1.f});
  CHECK(momentum.updates == 0);
}

TEST_CASE("learning-rate schedules", "[trainers]") {
  const LearningRateSchedule inverse = inverse_time_decay(0.5f, 0.1f);
  CHECK(inverse(0) == 0.5f);
  CHECK(inverse(10) == Approx(0.25f));
  const LearningRateSchedule steps = step_decay(1.f, 0.5f, 3);
  CHECK(steps(0) == 1.f);
  CHECK(steps(2) == 1.f);
  CHECK(steps(3) == 0.5f);
  CHECK(steps(7) == 0.25f);
  CHECK_THROWS_AS(inverse_time_decay(0.f, 0.1f), std::invalid_argument);
  CHECK_THROWS_AS(inverse_time_decay(0.1f, -1.f), std::invalid_argument);
  CHECK_THROWS_AS(step_decay(0.1f, 0.f, 1), std::invalid_argument);
  CHECK_THROWS_AS(step_decay(0.1f, 1.5f, 1), std::invalid_argument);
  CHECK_THROWS_WITH(step_decay(0.1f, 0.5f, 0), Catch::Contains("every"));
}
