#pragma once
// DyNet's L2WeightDecay: weight decay kept as one factor s = (1 - lambda)^updates instead of
// shrinking every value at every update. Every parameter collection owns one; the stored values v
// of a root collection's parameters stay as the trainer left them, expressions read s v (s of the
// root), and the trainer divides its steps by s so that s v moves as the update rule says. When s
// falls below 1/4 a trainer folds it into the values and starts again from 1
// (Trainer::rescale_and_reset_weight_decay).

#include <cmath>
#include <stdexcept>
#include <string>

namespace dynet {

struct L2WeightDecay {
  explicit L2WeightDecay(float lambda = 1e-6f) { set_lambda(lambda); }
  /// Throws std::domain_error for a negative lambda, as DyNet does.
  void set_lambda(float lam) {
    if (!(lam >= 0.f))
      throw std::domain_error("L2WeightDecay::set_lambda: lambda must be >= 0, got " + std::to_string(lam));
    lambda = lam;
  }
  float get_lambda() const { return lambda; }
  void update_weight_decay(unsigned num_updates = 1) {
    if (num_updates == 1)
      weight_decay -= weight_decay * lambda;
    else if (num_updates > 1)
      weight_decay *= std::pow(1.f - lambda, static_cast<float>(num_updates));
  }
  float current_weight_decay() const { return weight_decay; }
  /// DyNet's threshold for folding the factor into the values.
  bool parameters_need_rescaled() const { return weight_decay < 0.25f; }
  void reset_weight_decay() { weight_decay = 1.f; }
  /// Sets the factor itself (a trainer checkpoint restores it); throws std::domain_error outside (0, 1].
  void set_current_weight_decay(float w) {
    if (!(w > 0.f && w <= 1.f))
      throw std::domain_error("L2WeightDecay::set_current_weight_decay: the factor must be in (0, 1], got " +
                              std::to_string(w));
    weight_decay = w;
  }

 private:
  float weight_decay = 1.f;
  float lambda = 0.f;
};

}  // namespace dynet
