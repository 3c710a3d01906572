#pragma once
// Learning-rate schedules for Trainer::learning_rate_schedule: the learning rate of the next
// update as a function of the number of updates done since the trainer's last restart().

#include <functional>

namespace dynet {

/// Must return a finite value > 0 (update() refuses anything else, changing nothing).
using LearningRateSchedule = std::function<float(unsigned updates)>;

/// eta_t = eta_0 / (1 + decay * t): the rule of DyNet's former `eta_decay` trainer argument.
LearningRateSchedule inverse_time_decay(float eta_0, float decay);

/// eta_t = eta_0 * factor^floor(t / every): the rate is multiplied by `factor` every `every` updates.
LearningRateSchedule step_decay(float eta_0, float factor, unsigned every);

/// DyNet's cyclical rate after update `it` (from 0): eta_min + (eta_max - eta_min) max(0, 1 - x)
/// gamma^it, with cycle = floor(1 + it / (2 step_size)) and x = |it / step_size - 2 cycle + 1|.
float cyclical_rate(float eta_min, float eta_max, float step_size, float gamma, unsigned it);

/// eta_min for the first update, then after update it = t - 1 cyclical_rate(..., it).
LearningRateSchedule triangular_cyclical(float eta_min, float eta_max, float step_size, float gamma);

}  // namespace dynet
