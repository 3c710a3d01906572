#pragma once
// AMSGrad (Reddi et al., 2018): Adam whose step divides by the largest second moment seen so far,
//   v_max = max(v_max, v);  w -= learning_rate sqrt(1 - beta_2^t) / (1 - beta_1^t) * m / (sqrt(v_max) + epsilon).

#include "trainers/adam_trainer.h"

namespace dynet {

class AmsgradTrainer : public AdamTrainer {
 public:
  explicit AmsgradTrainer(ParameterCollection& model, float learning_rate = 0.001f, float beta_1 = 0.9f,
                          float beta_2 = 0.999f, float eps = 1e-8f)
      : AdamTrainer(Variant{}, model, learning_rate, beta_1, beta_2, eps) {
    check_settings();
  }
  const char* name() const override { return "AmsgradTrainer"; }

 protected:
  unsigned state_per_value() const override { return 3; }
  void update_values(Device& device, const update_rules::UpdateCall& call, float gscale) override;
};

}  // namespace dynet
