#include "trainers/simple_sgd_trainer.h"

namespace dynet {

void SimpleSGDTrainer::update_values(float* values, const float* grads, float*, std::size_t, std::size_t n,
                                     float gscale) {
  const float step = learning_rate * gscale;
  for (std::size_t i = 0; i < n; ++i) values[i] -= step * grads[i];
}

}  // namespace dynet
