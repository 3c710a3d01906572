#include "trainers/trainer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "dynet_core/device/device.h"
#include "dynet_core/init.h"
#include "dynet_core/profiler.h"

namespace dynet {

namespace {

using Range = Trainer::Hyperparameter::Range;

void check_setting(const char* trainer, std::string_view setting, float v, Range range) {
  if (const char* why = Trainer::Hyperparameter::violation(v, range))
    throw std::invalid_argument(std::string(trainer) + ": " + std::string(setting) + " = " + std::to_string(v) + " " +
                                why);
}

}  // namespace

const char* Trainer::Hyperparameter::violation(float v, Range range) {
  switch (range) {
    case Range::Positive:
      // A denormal constant is 0 where denormals are flushed (the default): 0 / (sqrt(0) + eps) is NaN.
      return v >= std::numeric_limits<float>::min() && std::isfinite(v)
                 ? nullptr
                 : "must be finite and at least the smallest normal float, 1.17549e-38";
    case Range::NonNegative:
      return v >= 0.f && std::isfinite(v) ? nullptr : "must be finite and >= 0";
    case Range::Fraction:
      return v >= 0.f && v < 1.f ? nullptr : "must be in [0, 1)";
    case Range::UnitInterval:
      return v >= 0.f && v <= 1.f ? nullptr : "must be in [0, 1]";
  }
  return "has an unknown range";
}

Trainer::Trainer(ParameterCollection& model, float lr) : learning_rate(lr), model_(model) {
  check_setting("Trainer", "learning_rate", lr, Range::NonNegative);
}

Trainer::~Trainer() = default;

Trainer::Hyperparameters::Hyperparameters(std::initializer_list<Hyperparameter> items) {
  for (const Hyperparameter& h : items) push_back(h);
}

void Trainer::Hyperparameters::push_back(const Hyperparameter& h) {
  if (size_ == kCapacity)
    throw std::logic_error(std::string("Trainer::Hyperparameters: no room for '") + h.name + "' past " +
                           std::to_string(kCapacity) + " settings");
  items_[size_++] = h;
}

Trainer::Hyperparameters Trainer::settings() {
  Hyperparameters all{{"learning_rate", &learning_rate, Range::NonNegative},
                      {"clip_threshold", &clip_threshold, Range::NonNegative}};
  for (const Hyperparameter& h : hyperparameters()) all.push_back(h);
  return all;
}

void Trainer::check_settings() {
  for (const Hyperparameter& h : settings()) check_setting(name(), h.name, *h.value, h.range);
  // DyNet's Python set_clip_threshold(0) turns clipping off with a threshold of 0: only a trainer
  // that clips needs one above 0.
  if (clipping_enabled)
    check_setting(name(), "clip_threshold (with clipping_enabled)", clip_threshold, Range::Positive);
}

void Trainer::allocate_state() {
  const unsigned k = state_per_value();
  auto block = [&](Device* dev, std::size_t n) {
    float* p = k ? dev->allocate_parameter_floats(k * n) : nullptr;
    if (p) dev->zero(p, k * n);
    return StateBlock{p, n};
  };
  const auto& params = model_.parameters_list();
  const auto& tables = model_.lookup_parameters_list();
  const bool grown = param_state_.size() < params.size() || lookup_state_.size() < tables.size();
  for (std::size_t i = param_state_.size(); i < params.size(); ++i)
    param_state_.push_back(block(params[i]->device, params[i]->size()));
  for (std::size_t i = lookup_state_.size(); i < tables.size(); ++i) {
    lookup_state_.push_back(block(tables[i]->device, tables[i]->all_values.d.size()));
    deferred_.emplace_back();
    if (k && tables[i]->device->type == DeviceType::CPU && tables[i]->row_size() > 0) {
      deferred_.back().steps.assign(tables[i]->n, 0);
      deferred_.back().row_size = tables[i]->row_size();
    }
  }
  aux_allocated = static_cast<unsigned>(param_state_.size());
  aux_allocated_lookup = static_cast<unsigned>(lookup_state_.size());
  if (grown) state_allocated();
}

float Trainer::gradient_scale(const char* who) {
  if (!clipping_enabled) return 1.f;
  const float norm = model_.gradient_l2_norm();
  if (!std::isfinite(norm))
    throw std::runtime_error(std::string(name()) + "::" + who + ": the gradient norm is " + std::to_string(norm) +
                             "; a NaN or infinity reached the gradients (lower the learning rate or "
                             "check the model); the parameters were not changed");
  if (norm <= clip_threshold) return 1.f;
  ++clips;
  ++clips_since_status;
  return clip_threshold / norm;
}

float Trainer::clip_gradients() { return gradient_scale("clip_gradients"); }

void Trainer::update_epoch(float) {
  std::cerr << "Trainer::update_epoch has been deprecated and does nothing; set the trainer's learning_rate "
               "directly (or a learning_rate_schedule)\n";
}

namespace {

/// Calls f(i) for each position of `subset`, or for every position below n without one.
template <class F>
void for_each_position(const std::vector<unsigned>* subset, std::size_t n, F&& f) {
  if (!subset) {
    for (std::size_t i = 0; i < n; ++i) f(i);
    return;
  }
  for (const unsigned i : *subset) f(i);
}

void check_subset(const std::vector<unsigned>& subset, std::size_t n, const char* what) {
  std::vector<bool> seen(n);
  for (const unsigned i : subset) {
    if (i >= n)
      throw std::invalid_argument(std::string("Trainer::update: ") + what + " " + std::to_string(i) +
                                  " does not exist (the model has " + std::to_string(n) + ")");
    if (seen[i])
      throw std::invalid_argument(std::string("Trainer::update: ") + what + " " + std::to_string(i) +
                                  " is listed twice");
    seen[i] = true;
  }
}

}  // namespace

void Trainer::update() { update_parameters(nullptr, nullptr); }

void Trainer::update(const std::vector<unsigned>& updated_params, const std::vector<unsigned>& updated_lookup_params) {
  check_subset(updated_params, model_.parameters_list().size(), "parameter");
  check_subset(updated_lookup_params, model_.lookup_parameters_list().size(), "lookup parameter");
  update_parameters(&updated_params, &updated_lookup_params);
}

void Trainer::update_parameters(const std::vector<unsigned>* subset_params,
                                const std::vector<unsigned>* subset_tables) {
  const bool profiling = profile::enabled();
  if (profiling) profile::touch_step();  // each timed phase lies within its step
  const std::uint64_t start = profiling ? profile::now_ns() : 0;
  if (learning_rate_schedule) {
    const float lr = learning_rate_schedule(updates);
    // Its name is built only for the error: the schedule runs at every update.
    if (Hyperparameter::violation(lr, Range::NonNegative))
      check_setting(name(), "the learning rate the schedule gives after " + std::to_string(updates) + " updates", lr,
                    Range::NonNegative);
    learning_rate = lr;
  }
  check_settings();
  allocate_state();
  // Training goes on from the weights, not from averages swapped in for an evaluation (from the
  // averages only when the weights were not kept).
  if (ma_swapped_ && ma_saved_) swap_params_to_weights();
  ma_swapped_ = false;
  const float gscale = gradient_scale("update");
  L2WeightDecay& decay = model_.get_weight_decay();
  const float factor = decay.current_weight_decay();
  auto launch = [&](Device& device, update_rules::UpdateCall call, DeferredRows* deferred = nullptr) {
    call.flush_denormals = flush_denormals;
    call.deferred = deferred;
    update_values(device, call, gscale);
  };
  const auto& params = model_.parameters_list();
  for_each_position(subset_params, params.size(), [&](std::size_t i) {
    ParameterStorage& p = *params[i];
    const StateBlock& s = param_state_[i];
    if (p.updated) launch(*p.device, {p.values.v, p.g.v, s.data, s.stride, p.size(), nullptr, 1, factor});
    p.zero_grad();
  });
  const auto& tables = model_.lookup_parameters_list();
  for_each_position(subset_tables, tables.size(), [&](std::size_t i) {
    LookupParameterStorage& t = *tables[i];
    const StateBlock& s = lookup_state_[i];
    DeferredRows* deferred = deferred_[i].steps.empty() ? nullptr : &deferred_[i];
    if (t.updated) {
      if (sparse_updates_enabled && !t.all_updated)
        launch(*t.device,
               {t.all_values.v, t.all_grads.v, s.data, s.stride, t.row_size(), t.non_zero_grads.data(),
                t.non_zero_grads.size(), factor},
               deferred);
      else
        launch(*t.device,
               {t.all_values.v, t.all_grads.v, s.data, s.stride, t.all_values.d.size(), nullptr, 1, factor,
                t.all_updated ? nullptr : t.non_zero_grads.mask(), t.row_size()},
               deferred);
    }
    t.zero_grad();
  });
  if (ma_mode_ != MovingAverage::None && updates % ma_update_freq_ == 0) update_moving_average();
  ++updates;
  ++updates_since_status;
  decay.update_weight_decay();
  if (decay.parameters_need_rescaled()) rescale_and_reset_weight_decay();
  updated();
  if (profiling) {
    profile::add_time(profile::Phase::Update, profile::now_ns() - start);
    profile::end_step(params.empty() ? default_device() : params[0]->device);
  }
}

void Trainer::settle_deferred_steps() {
  const auto& tables = model_.lookup_parameters_list();
  for (std::size_t i = 0; i < deferred_.size(); ++i) {
    if (!deferred_[i].any) continue;
    LookupParameterStorage& t = *tables[i];
    update_rules::UpdateCall call{t.all_values.v,
                                  t.all_grads.v,
                                  lookup_state_[i].data,
                                  lookup_state_[i].stride,
                                  t.all_values.d.size(),
                                  nullptr,
                                  1,
                                  1.f};
    call.deferred = &deferred_[i];
    call.settle_only = true;
    update_values(*t.device, call, 1.f);
  }
}

void Trainer::forget_deferred_steps() {
  for (DeferredRows& d : deferred_) {
    std::fill(d.steps.begin(), d.steps.end(), 0u);
    d.any = false;
  }
}

void Trainer::restart() {
  forget_deferred_steps();
  const unsigned k = state_per_value();
  const auto& params = model_.parameters_list();
  const auto& tables = model_.lookup_parameters_list();
  for (std::size_t i = 0; i < param_state_.size(); ++i)
    if (param_state_[i].data) params[i]->device->zero(param_state_[i].data, k * param_state_[i].stride);
  for (std::size_t i = 0; i < lookup_state_.size(); ++i)
    if (lookup_state_[i].data) tables[i]->device->zero(lookup_state_[i].data, k * lookup_state_[i].stride);
  updates = 0;
}

void Trainer::status() {
  std::cerr << "[lr=" << learning_rate << " clips=" << clips_since_status << " updates=" << updates_since_status
            << "] ";
  clips_since_status = updates_since_status = 0;
}

void Trainer::restart(float lr) {
  check_setting(name(), "restart: learning_rate", lr, Range::NonNegative);
  learning_rate = lr;
  restart();
}

}  // namespace dynet
