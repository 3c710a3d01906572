#include "trainers/eg_trainer.h"

#include "trainers/update_kernels.h"

namespace dynet {

EGTrainer::EGTrainer(ParameterCollection& mod, float learning_rate, float mom, float)
    : Trainer(mod, learning_rate), momentum(mom) {
  check_settings();
}

void EGTrainer::enableCyclicalLR(float learning_rate_min, float learning_rate_max, float step_size, float gamma) {
  learning_rate_schedule = triangular_cyclical(learning_rate_min, learning_rate_max, step_size, gamma);
}

Trainer::Hyperparameters EGTrainer::hyperparameters() {
  return {{"momentum", &momentum, Hyperparameter::Range::UnitInterval}};
}

void EGTrainer::update_values(Device& device, const update_rules::UpdateCall& call, float gscale) {
  launch_update(device, update_rules::ExponentiatedGradient{momentum, learning_rate * gscale}, call);
}

}  // namespace dynet
