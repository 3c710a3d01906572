#include "trainers/cyclical_sgd_trainer.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "trainers/learning_rate_schedule.h"

namespace dynet {

CyclicalSGDTrainer::CyclicalSGDTrainer(ParameterCollection& m, float learning_rate_min, float learning_rate_max,
                                       float step_size, float gamma, float)
    : SimpleSGDTrainer(m, learning_rate_min),
      e_min(learning_rate_min),
      e_max(learning_rate_max),
      step_size(step_size),
      gamma(gamma) {
  // The rate divides by the step size: 0 would make every later rate a NaN.
  if (!(step_size > 0.f) || !std::isfinite(step_size))
    throw std::invalid_argument("CyclicalSGDTrainer: step_size = " + std::to_string(step_size) +
                                " must be finite and > 0");
}

void CyclicalSGDTrainer::updated() { learning_rate = cyclical_rate(e_min, e_max, step_size, gamma, updates - 1); }

}  // namespace dynet
