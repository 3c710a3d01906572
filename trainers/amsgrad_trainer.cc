#include "trainers/amsgrad_trainer.h"

#include "trainers/update_rules.h"

namespace dynet {

void AmsgradTrainer::update_values(float* values, const float* grads, float* state, std::size_t stride,
                                   std::size_t n, float gscale) {
  update_rules::apply(update_rules::Adam{beta_1, beta_2, epsilon, bias_corrected_rate(), gscale, true}, values, grads,
                      state, stride, n);
}

}  // namespace dynet
