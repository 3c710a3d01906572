#include "trainers/simple_sgd_trainer.h"

namespace dynet {

SimpleSGDTrainer::SimpleSGDTrainer(ParameterCollection& model, float learning_rate) : Trainer(model, learning_rate) {
  check_settings();
}

void SimpleSGDTrainer::update_values(float* values, const float* grads, float*, std::size_t, std::size_t n,
                                     float gscale) {
  const float step = learning_rate * gscale;
  for (std::size_t i = 0; i < n; ++i) values[i] -= step * grads[i];
}

}  // namespace dynet
