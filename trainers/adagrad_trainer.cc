#include "trainers/adagrad_trainer.h"

#include <cmath>

namespace dynet {

AdagradTrainer::AdagradTrainer(ParameterCollection& model, float learning_rate, float eps)
    : Trainer(model, learning_rate), epsilon(eps) {
  check_settings();
}

std::vector<Trainer::Hyperparameter> AdagradTrainer::hyperparameters() {
  return {{"epsilon", &epsilon, Hyperparameter::Range::Positive}};
}

void AdagradTrainer::update_values(float* values, const float* grads, float* state, std::size_t, std::size_t n,
                                   float gscale) {
  for (std::size_t i = 0; i < n; ++i) {
    const float g = gscale * grads[i];
    state[i] += g * g;
    values[i] -= learning_rate * g / std::sqrt(state[i] + epsilon);
  }
}

}  // namespace dynet
