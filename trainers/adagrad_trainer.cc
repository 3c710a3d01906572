#include "trainers/adagrad_trainer.h"

#include "trainers/update_rules.h"

namespace dynet {

AdagradTrainer::AdagradTrainer(ParameterCollection& model, float learning_rate, float eps)
    : Trainer(model, learning_rate), epsilon(eps) {
  check_settings();
}

std::vector<Trainer::Hyperparameter> AdagradTrainer::hyperparameters() {
  return {{"epsilon", &epsilon, Hyperparameter::Range::Positive}};
}

void AdagradTrainer::update_values(float* values, const float* grads, float* state, std::size_t stride, std::size_t n,
                                   float gscale) {
  update_rules::apply(update_rules::Adagrad{learning_rate, epsilon, gscale}, values, grads, state, stride, n);
}

}  // namespace dynet
