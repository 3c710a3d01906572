#pragma once
// SGD with DyNet's cyclical learning rate (Smith, 2015): after update `it` (from 0) the rate is
//   cycle = floor(1 + it / (2 step_size)),  x = |it / step_size - 2 cycle + 1|,
//   eta = eta_min + (eta_max - eta_min) max(0, 1 - x) gamma^it,
// and the first update uses eta_min. As in DyNet, gamma = 0 (the default) keeps eta at eta_min
// after the first update; gamma = 1 gives the plain triangle.

#include "trainers/simple_sgd_trainer.h"

namespace dynet {

class CyclicalSGDTrainer : public SimpleSGDTrainer {
 public:
  explicit CyclicalSGDTrainer(ParameterCollection& m, float learning_rate_min = 0.01f, float learning_rate_max = 0.1f,
                              float step_size = 2000, float gamma = 0.0f, float edecay = 0.0f);
  const char* name() const override { return "CyclicalSGDTrainer"; }
};

}  // namespace dynet
