#include "trainers/adam_trainer.h"

#include <cmath>

#include "trainers/update_kernels.h"

namespace dynet {

AdamTrainer::AdamTrainer(ParameterCollection& model, float learning_rate, float beta_1, float beta_2, float eps)
    : AdamTrainer(Variant{}, model, learning_rate, beta_1, beta_2, eps) {
  check_settings();
}

AdamTrainer::AdamTrainer(Variant, ParameterCollection& model, float learning_rate, float beta_1, float beta_2,
                         float eps)
    : Trainer(model, learning_rate), beta_1(beta_1), beta_2(beta_2), epsilon(eps) {}

Trainer::Hyperparameters AdamTrainer::hyperparameters() {
  return {{"beta_1", &beta_1, Hyperparameter::Range::Fraction},
          {"beta_2", &beta_2, Hyperparameter::Range::UnitInterval},
          {"epsilon", &epsilon, Hyperparameter::Range::Positive}};
}

float AdamTrainer::bias_corrected_rate() const {
  const double t = double(updates) + 1;
  return static_cast<float>(learning_rate * std::sqrt(1 - std::pow(double(beta_2), t)) /
                            (1 - std::pow(double(beta_1), t)));
}

void AdamTrainer::update_values(Device& device, const update_rules::UpdateCall& call, float gscale) {
  launch_update(device, update_rules::Adam{beta_1, beta_2, epsilon, bias_corrected_rate(), gscale, false}, call);
}

}  // namespace dynet
