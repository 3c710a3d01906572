#include "trainers/rmsprop_trainer.h"

#include "trainers/update_kernels.h"

namespace dynet {

RMSPropTrainer::RMSPropTrainer(ParameterCollection& model, float learning_rate, float eps, float rho)
    : Trainer(model, learning_rate), epsilon(eps), rho(rho) {
  check_settings();
}

Trainer::Hyperparameters RMSPropTrainer::hyperparameters() {
  return {{"epsilon", &epsilon, Hyperparameter::Range::Positive}, {"rho", &rho, Hyperparameter::Range::UnitInterval}};
}

void RMSPropTrainer::update_values(Device& device, const update_rules::UpdateCall& call, float gscale) {
  launch_update(device, update_rules::RMSProp{rho, learning_rate, epsilon, gscale}, call);
}

}  // namespace dynet
