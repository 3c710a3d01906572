#pragma once
// AdaDelta (Zeiler, 2012), which needs no learning rate:
//   hg = rho hg + (1 - rho) g^2;  d = -g sqrt(hd + epsilon) / sqrt(hg + epsilon);
//   hd = rho hd + (1 - rho) d^2;  w += d.

#include "trainers/trainer.h"

namespace dynet {

class AdadeltaTrainer : public Trainer {
 public:
  explicit AdadeltaTrainer(ParameterCollection& model, float eps = 1e-6f, float rho = 0.95f);
  const char* name() const override { return "AdadeltaTrainer"; }

  float epsilon;  ///< > 0
  float rho;      ///< in [0, 1)

 protected:
  Hyperparameters hyperparameters() override;
  unsigned state_per_value() const override { return 2; }
  void update_values(Device& device, const update_rules::UpdateCall& call, float gscale) override;
};

}  // namespace dynet
