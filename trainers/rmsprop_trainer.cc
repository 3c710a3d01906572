#include "trainers/rmsprop_trainer.h"

#include "trainers/update_rules.h"

namespace dynet {

RMSPropTrainer::RMSPropTrainer(ParameterCollection& model, float learning_rate, float eps, float rho)
    : Trainer(model, learning_rate), epsilon(eps), rho(rho) {
  check_settings();
}

std::vector<Trainer::Hyperparameter> RMSPropTrainer::hyperparameters() {
  return {{"epsilon", &epsilon, Hyperparameter::Range::Positive}, {"rho", &rho, Hyperparameter::Range::Fraction}};
}

void RMSPropTrainer::update_values(float* values, const float* grads, float* state, std::size_t stride, std::size_t n,
                                   float gscale) {
  update_rules::apply(update_rules::RMSProp{rho, learning_rate, epsilon, gscale}, values, grads, state, stride, n);
}

}  // namespace dynet
