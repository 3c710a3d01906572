#include "trainers/trainer.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "dynet_core/device.h"

namespace dynet {

Trainer::Trainer(ParameterCollection& model, float lr) : learning_rate(lr), model_(model) {
  if (!(lr > 0.f))
    throw std::invalid_argument("Trainer: the learning rate " + std::to_string(lr) + " must be > 0");
}

Trainer::~Trainer() = default;

void Trainer::allocate_state() {
  const unsigned k = state_per_value();
  auto block = [&](Device* dev, std::size_t n) {
    float* p = k ? dev->allocate_parameter_floats(k * n) : nullptr;
    if (p) std::memset(p, 0, k * n * sizeof(float));
    return StateBlock{p, n};
  };
  const auto& params = model_.parameters_list();
  for (std::size_t i = param_state_.size(); i < params.size(); ++i)
    param_state_.push_back(block(params[i]->device, params[i]->size()));
  const auto& tables = model_.lookup_parameters_list();
  for (std::size_t i = lookup_state_.size(); i < tables.size(); ++i)
    lookup_state_.push_back(block(tables[i]->device, tables[i]->all_values.d.size()));
}

float Trainer::gradient_scale() const {
  if (!clipping_enabled) return 1.f;
  const float norm = model_.gradient_l2_norm();
  if (!std::isfinite(norm))
    throw std::runtime_error("Trainer::update: the gradient norm is " + std::to_string(norm) +
                             "; a NaN or infinity reached the gradients (lower the learning rate or "
                             "check the model); the parameters were not changed");
  return norm > clip_threshold ? clip_threshold / norm : 1.f;
}

void Trainer::update() {
  allocate_state();
  const float gscale = gradient_scale();
  const auto& params = model_.parameters_list();
  for (std::size_t i = 0; i < params.size(); ++i) {
    ParameterStorage& p = *params[i];
    if (p.updated) update_values(p.values.v, p.g.v, param_state_[i].data, param_state_[i].stride, p.size(), gscale);
    p.zero_grad();
  }
  const auto& tables = model_.lookup_parameters_list();
  for (std::size_t i = 0; i < tables.size(); ++i) {
    LookupParameterStorage& t = *tables[i];
    const StateBlock& s = lookup_state_[i];
    if (t.updated) {
      if (sparse_updates_enabled && !t.all_touched) {
        const std::size_t row = t.row_size();
        for (unsigned r : t.touched)
          update_values(t.row(r), t.grad_row(r), s.data ? s.data + r * row : nullptr, s.stride, row, gscale);
      } else {
        update_values(t.all_values.v, t.all_grads.v, s.data, s.stride, t.all_values.d.size(), gscale);
      }
    }
    t.zero_grad();
  }
  ++updates;
}

void Trainer::restart() {
  const unsigned k = state_per_value();
  for (const StateBlock& s : param_state_)
    if (s.data) std::memset(s.data, 0, k * s.stride * sizeof(float));
  for (const StateBlock& s : lookup_state_)
    if (s.data) std::memset(s.data, 0, k * s.stride * sizeof(float));
  updates = 0;
}

void Trainer::restart(float lr) {
  if (!(lr > 0.f))
    throw std::invalid_argument("Trainer::restart: the learning rate " + std::to_string(lr) + " must be > 0");
  learning_rate = lr;
  restart();
}

}  // namespace dynet
