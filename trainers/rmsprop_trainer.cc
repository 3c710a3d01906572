#include "trainers/rmsprop_trainer.h"

#include <cmath>

namespace dynet {

RMSPropTrainer::RMSPropTrainer(ParameterCollection& model, float learning_rate, float eps, float rho)
    : Trainer(model, learning_rate), epsilon(eps), rho(rho) {
  check_settings();
}

std::vector<Trainer::Hyperparameter> RMSPropTrainer::hyperparameters() {
  return {{"epsilon", &epsilon, Hyperparameter::Range::Positive}, {"rho", &rho, Hyperparameter::Range::Fraction}};
}

void RMSPropTrainer::update_values(float* values, const float* grads, float* state, std::size_t, std::size_t n,
                                   float gscale) {
  for (std::size_t i = 0; i < n; ++i) {
    const float g = gscale * grads[i];
    state[i] = rho * state[i] + (1.f - rho) * g * g;
    values[i] -= learning_rate * g / std::sqrt(state[i] + epsilon);
  }
}

}  // namespace dynet
