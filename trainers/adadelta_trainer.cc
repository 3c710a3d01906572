#include "trainers/adadelta_trainer.h"

#include <cmath>

namespace dynet {

// DyNet gives AdaDelta the learning rate 1, which its rule never reads.
AdadeltaTrainer::AdadeltaTrainer(ParameterCollection& model, float eps, float rho)
    : Trainer(model, 1.f), epsilon(eps), rho(rho) {
  check_settings();
}

std::vector<Trainer::Hyperparameter> AdadeltaTrainer::hyperparameters() {
  return {{"epsilon", &epsilon, Hyperparameter::Range::Positive}, {"rho", &rho, Hyperparameter::Range::Fraction}};
}

void AdadeltaTrainer::update_values(float* values, const float* grads, float* state, std::size_t stride,
                                    std::size_t n, float gscale) {
  float* hg = state;
  float* hd = state + stride;
  for (std::size_t i = 0; i < n; ++i) {
    const float g = gscale * grads[i];
    hg[i] = rho * hg[i] + (1.f - rho) * g * g;
    const float d = -g * std::sqrt(hd[i] + epsilon) / std::sqrt(hg[i] + epsilon);
    hd[i] = rho * hd[i] + (1.f - rho) * d * d;
    values[i] += d;
  }
}

}  // namespace dynet
