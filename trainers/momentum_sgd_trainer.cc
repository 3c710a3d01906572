#include "trainers/momentum_sgd_trainer.h"

#include "trainers/update_kernels.h"

namespace dynet {

MomentumSGDTrainer::MomentumSGDTrainer(ParameterCollection& model, float learning_rate, float mom)
    : Trainer(model, learning_rate), momentum(mom) {
  check_settings();
}

Trainer::Hyperparameters MomentumSGDTrainer::hyperparameters() {
  return {{"momentum", &momentum, Hyperparameter::Range::UnitInterval}};
}

void MomentumSGDTrainer::update_values(Device& device, const update_rules::UpdateCall& call, float gscale) {
  launch_update(device, update_rules::Momentum{momentum, learning_rate * gscale}, call);
}

void MomentumSGDTrainer::state_allocated() {
  const auto& params = model_.parameters_list();
  for (std::size_t i = vp.size(); i < params.size(); ++i) vp.emplace_back(*params[i], parameter_state(i));
  const auto& tables = model_.lookup_parameters_list();
  for (std::size_t i = vlp.size(); i < tables.size(); ++i) vlp.emplace_back(*tables[i], lookup_parameter_state(i));
}

}  // namespace dynet
