#include "trainers/simple_sgd_trainer.h"

#include "trainers/update_kernels.h"

namespace dynet {

SimpleSGDTrainer::SimpleSGDTrainer(ParameterCollection& model, float learning_rate) : Trainer(model, learning_rate) {
  check_settings();
}

void SimpleSGDTrainer::update_values(Device& device, const update_rules::UpdateCall& call, float gscale) {
  launch_update(device, update_rules::Sgd{learning_rate * gscale}, call);
}

}  // namespace dynet
