#pragma once
// DyNet's exponentiated gradient with momentum: every parameter (each row of a lookup table on a
// sparse update) holds a distribution, kept positive and summing to one:
//   v = momentum v - learning_rate g;   w = exp(log w + v) / sum(exp(log w + v)).
// enableCyclicalLR sets DyNet's cyclical learning rate (see CyclicalSGDTrainer).

#include "trainers/trainer.h"

namespace dynet {

class EGTrainer : public Trainer {
 public:
  explicit EGTrainer(ParameterCollection& mod, float learning_rate = 0.1f, float mom = 0.9f, float ne = 0.0f);
  const char* name() const override { return "EGTrainer"; }

  void enableCyclicalLR(float learning_rate_min = 0.01f, float learning_rate_max = 0.1f, float step_size = 2000,
                        float gamma = 0.0f);

  float momentum;  ///< in [0, 1)

 protected:
  Hyperparameters hyperparameters() override;
  unsigned state_per_value() const override { return 1; }
  void update_values(Device& device, const update_rules::UpdateCall& call, float gscale) override;
};

}  // namespace dynet
