#include "trainers/adadelta_trainer.h"

#include "trainers/update_rules.h"

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
  update_rules::apply(update_rules::Adadelta{rho, epsilon, gscale}, values, grads, state, stride, n);
}

}  // namespace dynet
