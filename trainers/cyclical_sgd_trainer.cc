#include "trainers/cyclical_sgd_trainer.h"

namespace dynet {

CyclicalSGDTrainer::CyclicalSGDTrainer(ParameterCollection& m, float learning_rate_min, float learning_rate_max,
                                       float step_size, float gamma, float)
    : SimpleSGDTrainer(m, learning_rate_min) {
  learning_rate_schedule = triangular_cyclical(learning_rate_min, learning_rate_max, step_size, gamma);
}

}  // namespace dynet
