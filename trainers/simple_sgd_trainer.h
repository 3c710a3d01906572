#pragma once
// Stochastic gradient descent: w -= learning_rate * g.

#include "trainers/trainer.h"

namespace dynet {

class SimpleSGDTrainer : public Trainer {
 public:
  explicit SimpleSGDTrainer(ParameterCollection& model, float learning_rate = 0.1f);
  const char* name() const override { return "SimpleSGDTrainer"; }

 protected:
  Hyperparameters hyperparameters() override { return {}; }
  unsigned state_per_value() const override { return 0; }
  void update_values(Device& device, const update_rules::UpdateCall& call, float gscale) override;
};

}  // namespace dynet
