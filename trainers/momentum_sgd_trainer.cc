#include "trainers/momentum_sgd_trainer.h"

namespace dynet {

MomentumSGDTrainer::MomentumSGDTrainer(ParameterCollection& model, float learning_rate, float mom)
    : Trainer(model, learning_rate), momentum(mom) {
  check_settings();
}

std::vector<Trainer::Hyperparameter> MomentumSGDTrainer::hyperparameters() {
  return {{"momentum", &momentum, Hyperparameter::Range::Fraction}};
}

void MomentumSGDTrainer::update_values(float* values, const float* grads, float* state, std::size_t, std::size_t n,
                                       float gscale) {
  const float step = learning_rate * gscale;
  for (std::size_t i = 0; i < n; ++i) {
    state[i] = momentum * state[i] - step * grads[i];
    values[i] += state[i];
  }
}

}  // namespace dynet
