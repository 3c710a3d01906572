#pragma once
// SGD with DyNet's cyclical learning rate (Smith, 2015): the first update uses eta_min, and after
// update `it` (from 0) learning_rate becomes
//   eta_min + (eta_max - eta_min) max(0, 1 - x) gamma^it,
//   cycle = floor(1 + it / (2 step_size)),  x = |it / step_size - 2 cycle + 1|
// (trainers/learning_rate_schedule.h). As in DyNet, the rate is set after each update, so a rate
// the program sets is the next update's; restart() does nothing and the cycle goes on; gamma = 0
// (the default) keeps eta at eta_min after the first update, gamma = 1 gives the plain triangle.

#include "trainers/simple_sgd_trainer.h"

namespace dynet {

class CyclicalSGDTrainer : public SimpleSGDTrainer {
 public:
  explicit CyclicalSGDTrainer(ParameterCollection& m, float learning_rate_min = 0.01f, float learning_rate_max = 0.1f,
                              float step_size = 2000, float gamma = 0.0f, float edecay = 0.0f);
  const char* name() const override { return "CyclicalSGDTrainer"; }
  using Trainer::restart;
  void restart() override {}

  float e_min, e_max, step_size, gamma;  ///< DyNet's members

 protected:
  void updated() override;
};

}  // namespace dynet
