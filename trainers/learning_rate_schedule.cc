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

LearningRateSchedule triangular_cyclical(float eta_min, float eta_max, float step_size, float gamma) {
  check_initial_rate("triangular_cyclical", eta_min);
  if (!(eta_max >= eta_min) || !std::isfinite(eta_max))
    throw std::invalid_argument("triangular_cyclical: the upper rate " + std::to_string(eta_max) +
                                " must be finite and >= the lower rate " + std::to_string(eta_min));
  if (!(step_size > 0.f))
    throw std::invalid_argument("triangular_cyclical: the step size " + std::to_string(step_size) + " must be > 0");
  return [=](unsigned t) { return t == 0 ? eta_min : cyclical_rate(eta_min, eta_max, step_size, gamma, t - 1); };
}

float cyclical_rate(float eta_min, float eta_max, float step_size, float gamma, unsigned it) {
  const double cycle = std::floor(1 + double(it) / (2 * step_size));
  const double x = std::abs(double(it) / step_size - 2 * cycle + 1);
  return static_cast<float>(eta_min + (1 - x > 0 ? (eta_max - eta_min) * (1 - x) * std::pow(double(gamma), it) : 0));
}

}  // namespace dynet
