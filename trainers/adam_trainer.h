#pragma once
// Adam (Kingma & Ba, 2015), with the bias correction folded into the step size as DyNet does:
//   m = beta_1 m + (1 - beta_1) g;  v = beta_2 v + (1 - beta_2) g^2;
//   w -= learning_rate sqrt(1 - beta_2^t) / (1 - beta_1^t) * m / (sqrt(v) + epsilon),
// where t counts updates since the last restart(), for every value (rows of a sparsely updated
// lookup table included).

#include "trainers/trainer.h"

namespace dynet {

class AdamTrainer : public Trainer {
 public:
  explicit AdamTrainer(ParameterCollection& model, float learning_rate = 0.001f, float beta_1 = 0.9f,
                       float beta_2 = 0.999f, float eps = 1e-8f);
  const char* name() const override { return "AdamTrainer"; }

  float beta_1;   ///< in [0, 1)
  float beta_2;   ///< in [0, 1)
  float epsilon;  ///< > 0

 protected:
  struct Variant {};
  /// For variants of Adam: leaves check_settings() to them, so that errors carry their name().
  AdamTrainer(Variant, ParameterCollection& model, float learning_rate, float beta_1, float beta_2, float eps);

  Hyperparameters hyperparameters() override;
  unsigned state_per_value() const override { return 2; }
  void update_values(Device& device, const update_rules::UpdateCall& call, float gscale) override;
  /// The step size of the update about to run: learning_rate sqrt(1 - beta_2^t) / (1 - beta_1^t).
  float bias_corrected_rate() const;
};

}  // namespace dynet
