#include "trainers/amsgrad_trainer.h"

#include "trainers/update_kernels.h"

namespace dynet {

void AmsgradTrainer::update_values(Device& device, const update_rules::UpdateCall& call, float gscale) {
  launch_update(device, update_rules::Adam{beta_1, beta_2, epsilon, bias_corrected_rate(), gscale, true}, call);
}

}  // namespace dynet
