#pragma once
// The trainer loop shared by every update rule: gradient clipping by global norm, sparse updates
// of lookup tables, per-value optimizer state, and zeroing gradients after an update.

#include <cstddef>
#include <vector>

#include "dynet_core/param_collection.h"

namespace dynet {

class Trainer {
 public:
  Trainer(ParameterCollection& model, float learning_rate);
  virtual ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  /// Applies the accumulated gradients to every updated parameter, then zeroes the gradients.
  void update();
  /// Forgets the optimizer state (moments, step counts); optionally sets a new learning rate.
  void restart();
  void restart(float lr);

  float learning_rate;
  bool clipping_enabled = true;
  float clip_threshold = 5.f;       ///< gradients are rescaled when their global L2 norm exceeds it
  bool sparse_updates_enabled = true;  ///< update only lookup rows touched since the last update
  unsigned updates = 0;             ///< number of update() calls since the last restart

 protected:
  /// Floats of optimizer state per parameter value.
  virtual unsigned state_per_value() const = 0;
  /// Updates n values in place from their gradients (times gscale). State component c of value i
  /// is state[c * stride + i], zero before the first update.
  virtual void update_values(float* values, const float* grads, float* state, std::size_t stride,
                             std::size_t n, float gscale) = 0;

  ParameterCollection model_;

 private:
  struct StateBlock {
    float* data;
    std::size_t stride;
  };
  void allocate_state();
  float gradient_scale() const;

  std::vector<StateBlock> param_state_;
  std::vector<StateBlock> lookup_state_;
};

}  // namespace dynet
