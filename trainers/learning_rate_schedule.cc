#include "trainers/learning_rate_schedule.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace dynet {

namespace {

void check_initial_rate(const char* schedule, float eta_0) {
  if (!(eta_0 > 0.f) || !std::isfinite(eta_0))
    throw std::invalid_argument(std::string(schedule) + ": the initial learning rate " + std::to_string(eta_0) +
                                " must be finite and > 0");
}

}  // namespace

LearningRateSchedule inverse_time_decay(float eta_0, float decay) {
  check_initial_rate("inverse_time_decay", eta_0);
  if (!(decay >= 0.f) || !std::isfinite(decay))
    throw std::invalid_argument("inverse_time_decay: the decay " + std::to_string(decay) + " must be finite and >= 0");
  return [eta_0, decay](unsigned t) { return static_cast<float>(eta_0 / (1.0 + double(decay) * t)); };
}

LearningRateSchedule step_decay(float eta_0, float factor, unsigned every) {
  check_initial_rate("step_decay", eta_0);
  if (!(factor > 0.f && factor <= 1.f))
    throw std::invalid_argument("step_decay: the factor " + std::to_string(factor) + " must be in (0, 1]");
  if (every == 0) throw std::invalid_argument("step_decay: the rate must change every 1 or more updates, got 0");
  return [eta_0, factor, every](unsigned t) {
    return static_cast<float>(eta_0 * std::pow(double(factor), double(t / every)));
  };
}

}  // namespace dynet
