// The trainers' moving average of the weights (trainer.h): swapping it in and out, and its update.
#include <cmath>
#include <stdexcept>
#include <string>

#include "dynet_core/device/device.h"
#include "trainers/trainer.h"

namespace dynet {

namespace {

void choose_moving_average(const char* who, unsigned updates, unsigned update_freq) {
  if (updates > 0)
    throw std::runtime_error(std::string(who) + ": choose the moving average before the first update (" +
                             std::to_string(updates) + " done)");
  if (update_freq == 0) throw std::runtime_error(std::string(who) + ": update_freq must be at least 1, got 0");
}

}  // namespace

std::vector<Trainer::Weights> Trainer::weights() const {
  std::vector<Weights> all;
  for (const auto& p : model_.parameters_list()) all.push_back({p->values.v, p->size(), p->device});
  for (const auto& t : model_.lookup_parameters_list())
    all.push_back({t->all_values.v, t->all_values.d.size(), t->device});
  return all;
}

void Trainer::allocate_copies(std::vector<float*>& blocks) const {
  const auto all = weights();
  for (std::size_t i = blocks.size(); i < all.size(); ++i) {
    float* b = all[i].device->allocate_parameter_floats(all[i].size);
    all[i].device->zero(b, all[i].size);
    blocks.push_back(b);
  }
}

void Trainer::exponential_moving_average(float beta, unsigned update_freq) {
  choose_moving_average("exponential_moving_average", updates, update_freq);
  if (!(beta >= 0.f && beta < 1.f))
    throw std::invalid_argument("exponential_moving_average: beta = " + std::to_string(beta) + " must be in [0, 1)");
  ema_beta_ = beta;
  ma_update_freq_ = update_freq;
  ma_mode_ = MovingAverage::Exponential;
}

void Trainer::cumulative_moving_average(unsigned update_freq) {
  choose_moving_average("cumulative_moving_average", updates, update_freq);
  ma_update_freq_ = update_freq;
  ma_mode_ = MovingAverage::Cumulative;
}

void Trainer::update_moving_average() {
  allocate_copies(ma_values_);
  const auto all = weights();
  // The cumulative average after n updates, (n * ma + w) / (n + 1), as a weighted sum.
  const float n = static_cast<float>(ma_updates_);
  const float keep = ma_mode_ == MovingAverage::Cumulative ? n / (n + 1.f) : ema_beta_;
  const float take = ma_mode_ == MovingAverage::Cumulative ? 1.f / (n + 1.f) : 1.f - ema_beta_;
  for (std::size_t k = 0; k < all.size(); ++k)
    all[k].device->scaled_sum(ma_values_[k], keep, all[k].values, take, all[k].size);
  ++ma_updates_;
}

void Trainer::swap_params_to_moving_average(bool save_weights, bool bias_correction) {
  if (ma_mode_ == MovingAverage::None)
    throw std::runtime_error("swap_params_to_moving_average: no moving average was chosen "
                             "(call exponential_moving_average or cumulative_moving_average first)");
  if (ma_updates_ == 0)
    throw std::runtime_error("swap_params_to_moving_average: the moving average has no value before the "
                             "first update");
  if (ma_swapped_) return;
  allocate_copies(ma_values_);
  if (save_weights) allocate_copies(ma_kept_weights_);
  const float scale = ma_mode_ == MovingAverage::Exponential && bias_correction
                          ? 1.f / (1.f - std::pow(ema_beta_, static_cast<float>(ma_updates_)))
                          : 1.f;
  const auto all = weights();
  for (const Weights& w : all) {
    const std::size_t k = &w - all.data();
    if (save_weights) w.device->copy(ma_kept_weights_[k], w.values, w.size);
    w.device->copy(w.values, ma_values_[k], w.size);
    if (scale != 1.f) w.device->scale(w.values, scale, w.size);
  }
  ma_swapped_ = true;
  ma_saved_ = save_weights;
}

void Trainer::swap_params_to_weights() {
  if (!ma_swapped_) return;
  if (!ma_saved_)
    throw std::runtime_error("swap_params_to_weights: the weights were not kept "
                             "(swap_params_to_moving_average was called with save_weights = false)");
  const auto all = weights();
  for (std::size_t k = 0; k < ma_kept_weights_.size(); ++k)
    all[k].device->copy(all[k].values, ma_kept_weights_[k], all[k].size);
  ma_swapped_ = false;
}

}  // namespace dynet
