#include "trainers/eg_trainer.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dynet {

EGTrainer::EGTrainer(ParameterCollection& mod, float learning_rate, float mom, float)
    : Trainer(mod, learning_rate), momentum(mom) {
  check_settings();
}

void EGTrainer::enableCyclicalLR(float learning_rate_min, float learning_rate_max, float step_size, float gamma) {
  learning_rate_schedule = triangular_cyclical(learning_rate_min, learning_rate_max, step_size, gamma);
}

std::vector<Trainer::Hyperparameter> EGTrainer::hyperparameters() {
  return {{"momentum", &momentum, Hyperparameter::Range::Fraction}};
}

void EGTrainer::update_values(float* values, const float* grads, float* state, std::size_t, std::size_t n,
                              float gscale) {
  float top = -std::numeric_limits<float>::infinity();
  for (std::size_t i = 0; i < n; ++i) {
    state[i] = momentum * state[i] - learning_rate * gscale * grads[i];
    values[i] = std::log(values[i]) + state[i];
    top = std::max(top, values[i]);
  }
  // Normalized in the log domain, shifted by the largest value so that exp cannot overflow.
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += std::exp(values[i] - top);
  const float log_z = top + static_cast<float>(std::log(sum));
  for (std::size_t i = 0; i < n; ++i) values[i] = std::exp(values[i] - log_z);
}

}  // namespace dynet
