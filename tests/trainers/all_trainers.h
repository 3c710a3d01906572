#pragma once
// Every trainer class, by name, made with constants that give visible steps on small problems.

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "trainers/training.h"

using MakeTrainer = std::function<std::unique_ptr<dynet::Trainer>(dynet::ParameterCollection&)>;

inline const std::vector<std::pair<const char*, MakeTrainer>>& all_trainers() {
  using namespace dynet;
  static const std::vector<std::pair<const char*, MakeTrainer>> trainers{
      {"SimpleSGDTrainer", [](ParameterCollection& m) { return std::make_unique<SimpleSGDTrainer>(m); }},
      {"MomentumSGDTrainer", [](ParameterCollection& m) { return std::make_unique<MomentumSGDTrainer>(m, 0.1f); }},
      {"AdagradTrainer", [](ParameterCollection& m) { return std::make_unique<AdagradTrainer>(m); }},
      {"AdadeltaTrainer", [](ParameterCollection& m) { return std::make_unique<AdadeltaTrainer>(m); }},
      {"RMSPropTrainer", [](ParameterCollection& m) { return std::make_unique<RMSPropTrainer>(m); }},
      {"AdamTrainer", [](ParameterCollection& m) { return std::make_unique<AdamTrainer>(m, 0.01f); }},
      {"AmsgradTrainer", [](ParameterCollection& m) { return std::make_unique<AmsgradTrainer>(m, 0.01f); }},
  };
  return trainers;
}
