// Choosing a trainer by name: every listed name gives its rule with the learning rate asked for;
// a wrong name or learning rate is refused, naming what was wrong.

#include <catch2/catch.hpp>

#include <limits>
#include <string>
#include <typeinfo>

#include "trainers/training.h"

using namespace dynet;

TEST_CASE("every trainer name gives its update rule with the learning rate asked for", "[trainers][trainer_by_name]") {
  ParameterCollection model;
  model.add_parameters({2});
  const auto rule_of = [&](const std::string& name) -> const std::type_info& {
    const auto trainer = trainer_by_name(name, model, 0.25f);
    CHECK(trainer->learning_rate == 0.25f);
    return typeid(*trainer);
  };
  CHECK(rule_of("sgd") == typeid(SimpleSGDTrainer));
  CHECK(rule_of("momentum") == typeid(MomentumSGDTrainer));
  CHECK(rule_of("adagrad") == typeid(AdagradTrainer));
  CHECK(rule_of("rmsprop") == typeid(RMSPropTrainer));
  CHECK(rule_of("adam") == typeid(AdamTrainer));
  CHECK(rule_of("amsgrad") == typeid(AmsgradTrainer));
  CHECK(trainer_names() == std::vector<std::string>{"sgd", "momentum", "adagrad", "rmsprop", "adam", "amsgrad"});
}

TEST_CASE("an unknown trainer name or a learning rate that is negative or not finite is refused",
          "[trainers][trainer_by_name]") {
  ParameterCollection model;
  model.add_parameters({2});
  CHECK_THROWS_AS(trainer_by_name("adamw", model, 0.1f), std::invalid_argument);
  CHECK_THROWS_WITH(trainer_by_name("adamw", model, 0.1f),
                    Catch::StartsWith("trainer_by_name: unknown trainer 'adamw'") && Catch::Contains("amsgrad"));
  CHECK_THROWS_WITH(trainer_by_name("sgd", model, -1.f), Catch::Contains("learning rate must be finite and >= 0"));
  CHECK_THROWS_WITH(trainer_by_name("sgd", model, std::numeric_limits<float>::infinity()),
                    Catch::Contains("learning rate must be finite and >= 0"));
  CHECK(trainer_by_name("sgd", model, 0.f)->learning_rate == 0.f);
}
