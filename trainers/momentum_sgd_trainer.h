#pragma once
// SGD with momentum: v = momentum * v - learning_rate * g;  w += v.

#include "trainers/shadow_params.h"
#include "trainers/trainer.h"

namespace dynet {

class MomentumSGDTrainer : public Trainer {
 public:
  explicit MomentumSGDTrainer(ParameterCollection& model, float learning_rate = 0.01f, float mom = 0.9f);
  const char* name() const override { return "MomentumSGDTrainer"; }

  float momentum;  ///< in [0, 1)
  /// The velocities, as DyNet exposes them: views of this trainer's state, one per parameter and
  /// lookup table, there from the first update on.
  std::vector<ShadowParameters> vp;
  std::vector<ShadowLookupParameters> vlp;

 protected:
  Hyperparameters hyperparameters() override;
  unsigned state_per_value() const override { return 1; }
  void update_values(Device& device, const update_rules::UpdateCall& call, float gscale) override;
  void state_allocated() override;
};

}  // namespace dynet
