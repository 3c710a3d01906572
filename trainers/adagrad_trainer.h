#pragma once
// Adagrad (Duchi et al., 2011): h += g^2;  w -= learning_rate * g / sqrt(h + epsilon).

#include "trainers/trainer.h"

namespace dynet {

class AdagradTrainer : public Trainer {
 public:
  explicit AdagradTrainer(ParameterCollection& model, float learning_rate = 0.1f, float eps = 1e-20f);
  const char* name() const override { return "AdagradTrainer"; }

  float epsilon;  ///< > 0

 protected:
  Hyperparameters hyperparameters() override;
  unsigned state_per_value() const override { return 1; }
  void update_values(Device& device, const update_rules::UpdateCall& call, float gscale) override;
};

}  // namespace dynet
