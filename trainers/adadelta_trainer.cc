#include "trainers/adadelta_trainer.h"

#include "trainers/update_kernels.h"

namespace dynet {

// DyNet gives AdaDelta the learning rate 1, which its rule never reads.
AdadeltaTrainer::AdadeltaTrainer(ParameterCollection& model, float eps, float rho)
    : Trainer(model, 1.f), epsilon(eps), rho(rho) {
  check_settings();
}

Trainer::Hyperparameters AdadeltaTrainer::hyperparameters() {
  return {{"epsilon", &epsilon, Hyperparameter::Range::Positive}, {"rho", &rho, Hyperparameter::Range::UnitInterval}};
}

void AdadeltaTrainer::update_values(Device& device, const update_rules::UpdateCall& call, float gscale) {
  launch_update(device, update_rules::Adadelta{rho, epsilon, gscale}, call);
}

}  // namespace dynet
