#include "trainers/amsgrad_trainer.h"

#include <algorithm>
#include <cmath>

namespace dynet {

void AmsgradTrainer::update_values(float* values, const float* grads, float* state, std::size_t stride,
                                   std::size_t n, float gscale) {
  const float rate = bias_corrected_rate();
  float* m = state;
  float* v = state + stride;
  float* v_max = state + 2 * stride;
  for (std::size_t i = 0; i < n; ++i) {
    update_moments(m[i], v[i], gscale * grads[i]);
    v_max[i] = std::max(v_max[i], v[i]);
    values[i] -= rate * m[i] / (std::sqrt(v_max[i]) + epsilon);
  }
}

}  // namespace dynet
