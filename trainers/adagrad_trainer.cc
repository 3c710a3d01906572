#include "trainers/adagrad_trainer.h"

#include "trainers/update_kernels.h"

namespace dynet {

AdagradTrainer::AdagradTrainer(ParameterCollection& model, float learning_rate, float eps)
    : Trainer(model, learning_rate), epsilon(eps) {
  check_settings();
}

Trainer::Hyperparameters AdagradTrainer::hyperparameters() {
  return {{"epsilon", &epsilon, Hyperparameter::Range::Positive}};
}

void AdagradTrainer::update_values(Device& device, const update_rules::UpdateCall& call, float gscale) {
  launch_update(device, update_rules::Adagrad{learning_rate, epsilon, gscale}, call);
}

}  // namespace dynet
