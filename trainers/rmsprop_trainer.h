#pragma once
// RMSProp (Tieleman & Hinton, 2012): h = rho h + (1 - rho) g^2;  w -= learning_rate g / sqrt(h + epsilon).

#include "trainers/trainer.h"

namespace dynet {

class RMSPropTrainer : public Trainer {
 public:
  explicit RMSPropTrainer(ParameterCollection& model, float learning_rate = 0.1f, float eps = 1e-20f,
                          float rho = 0.95f);
  const char* name() const override { return "RMSPropTrainer"; }

  float epsilon;  ///< > 0
  float rho;      ///< in [0, 1)

 protected:
  Hyperparameters hyperparameters() override;
  unsigned state_per_value() const override { return 1; }
  void update_values(Device& device, const update_rules::UpdateCall& call, float gscale) override;
};

}  // namespace dynet
