#include "trainers/simple_sgd_trainer.h"

#include "trainers/update_rules.h"

namespace dynet {

SimpleSGDTrainer::SimpleSGDTrainer(ParameterCollection& model, float learning_rate) : Trainer(model, learning_rate) {
  check_settings();
}

void SimpleSGDTrainer::update_values(float* values, const float* grads, float* state, std::size_t stride, std::size_t n,
                                     float gscale) {
  update_rules::apply(update_rules::Sgd{learning_rate * gscale}, values, grads, state, stride, n);
}

}  // namespace dynet
