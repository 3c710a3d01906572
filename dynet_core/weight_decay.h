#pragma once
// DyNet's L2WeightDecay: the running factor (1 - lambda)^updates that DyNet keeps per parameter
// collection to apply weight decay lazily. dybatch's collections decay their values at each update
// instead (ParameterCollection::set_weight_decay_lambda); this is the same bookkeeping for code
// that tracks the factor itself.

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

 private:
  float weight_decay = 1.f;
  float lambda = 0.f;
};

}  // namespace dynet
