#pragma once
// The per-value update of each elementwise trainer as a scalar rule, written once for any device
// (see dynet_core/ops/host_device.h): rule(w, grad, state, i, stride) updates value w, whose raw
// gradient is grad, and its state slots state[i + k stride]. A rule is made for each update with
// the trainer's settings and the gradient scale of that update folded in. EGTrainer normalizes each
// updated block of values, so its rule gives the unnormalized log value and the device kernels
// normalize. A device runs them through its update kernels (trainers/update_kernels.h).

#include <math.h>

#include <cstddef>
#include <cstdint>

#include "dynet_core/ops/host_device.h"

namespace dynet {

struct DeferredRows;

namespace update_rules {

/// w -= step grad (step: the learning rate times the gradient scale).
struct Sgd {
  /// A zero gradient leaves the value as it is (w - 0 = w), so a dense update may skip the rows no
  /// gradient reached when no weight-decay factor scales them.
  static constexpr bool kZeroGradientChangesNothing = true;
  float step;
  DYBATCH_HD void operator()(float& w, float grad, float*, std::size_t, std::size_t) const { w -= step * grad; }
};

/// v = momentum v - step grad; w += v.
struct Momentum {
  static constexpr bool kZeroGradientChangesNothing = false;
  float momentum, step;
  DYBATCH_HD void operator()(float& w, float grad, float* s, std::size_t i, std::size_t) const {
    s[i] = momentum * s[i] - step * grad;
    w += s[i];
  }
};

/// G += g^2; w -= rate g / sqrt(G + epsilon).
struct Adagrad {
  /// G + 0 = G and w - 0 / sqrt(G + epsilon) = w (epsilon > 0; a NaN in G is in w already).
  static constexpr bool kZeroGradientChangesNothing = true;
  float rate, epsilon, gscale;
  DYBATCH_HD void operator()(float& w, float grad, float* s, std::size_t i, std::size_t) const {
    const float g = gscale * grad;
    s[i] += g * g;
    w -= rate * g / sqrtf(s[i] + epsilon);
  }
};

/// Running averages of g^2 and of the squared steps, Zeiler's rule.
struct Adadelta {
  static constexpr bool kZeroGradientChangesNothing = false;
  float rho, epsilon, gscale;
  DYBATCH_HD void operator()(float& w, float grad, float* s, std::size_t i, std::size_t stride) const {
    const float g = gscale * grad;
    float& hg = s[i];
    float& hd = s[i + stride];
    hg = rho * hg + (1.f - rho) * g * g;
    const float d = -g * sqrtf(hd + epsilon) / sqrtf(hg + epsilon);
    hd = rho * hd + (1.f - rho) * d * d;
    w += d;
  }
};

/// G = rho G + (1 - rho) g^2; w -= rate g / sqrt(G + epsilon).
struct RMSProp {
  static constexpr bool kZeroGradientChangesNothing = false;
  float rho, rate, epsilon, gscale;
  DYBATCH_HD void operator()(float& w, float grad, float* s, std::size_t i, std::size_t) const {
    const float g = gscale * grad;
    s[i] = rho * s[i] + (1.f - rho) * g * g;
    w -= rate * g / sqrtf(s[i] + epsilon);
  }
};

/// Adam's moments m, v after gradient g.
DYBATCH_HD void adam_moments(float beta_1, float beta_2, float& m, float& v, float g) {
  m = beta_1 * m + (1.f - beta_1) * g;
  v = beta_2 * v + (1.f - beta_2) * g * g;
}

/// Adam, the bias correction folded into rate; with `amsgrad`, the largest v so far (a third slot)
/// divides instead of v.
struct Adam {
  static constexpr bool kZeroGradientChangesNothing = false;
  float beta_1, beta_2, epsilon, rate, gscale;
  bool amsgrad;
  DYBATCH_HD void operator()(float& w, float grad, float* s, std::size_t i, std::size_t stride) const {
    float& m = s[i];
    float& v = s[i + stride];
    adam_moments(beta_1, beta_2, m, v, gscale * grad);
    float denominator = v;
    if (amsgrad) {
      float& v_max = s[i + 2 * stride];
      v_max = fmaxf(v_max, v);
      denominator = v_max;
    }
    w -= rate * m / (sqrtf(denominator) + epsilon);
  }
};

/// EG's momentum step of value w, returning w's log value before the block is normalized.
struct ExponentiatedGradient {
  float momentum, step;
  DYBATCH_HD float operator()(float w, float grad, float* s, std::size_t i) const {
    s[i] = momentum * s[i] - step * grad;
    return logf(w) + s[i];
  }
};

/// The values one update touches: `blocks` blocks of n values each, all of a parameter (one block
/// at 0) or rows of a lookup table (block k is row rows[k], at rows[k] n). Values, gradients and
/// state slots are indexed alike. Expressions read `factor` times the stored values (DyNet's lazy
/// weight decay) and the gradients are theirs, so the rule runs on factor * value and the result
/// is stored divided by `factor`, as DyNet divides its step by it. `rows` is in the memory of the
/// kernel that reads it: the host for a CPU kernel.
///
/// `reached`, given with a dense update of a lookup table (one block of all its rows), says which
/// rows of `row_size` values a gradient reached; every other row's gradient is zero (zeroing after an
/// update visits only the rows reached), so a kernel may step those rows with a zero gradient
/// without reading it. It is host memory; a kernel that reads every gradient instead computes the
/// same values.
struct UpdateCall {
  float* values;
  const float* grads;
  float* state;
  std::size_t stride;
  std::size_t n;
  const unsigned* rows;
  std::size_t blocks;
  float factor;
  const std::uint8_t* reached = nullptr;
  std::size_t row_size = 0;
  /// Trainer::flush_denormals: a CPU kernel of an elementwise rule runs with denormals flushed to
  /// zero (dynet_core/device/flush_denormals.h). A GPU computes denormals at full speed and keeps
  /// IEEE's gradual underflow.
  bool flush_denormals = false;
  /// A CPU table's deferred zero-gradient steps (trainers/deferred_rows.h), host memory, or null.
  /// With `settle_only` the kernel runs the steps counted there and nothing else.
  DeferredRows* deferred = nullptr;
  bool settle_only = false;
  /// Set by the CPU kernel that defers: deferred->steps, from the first row of this call.
  std::uint32_t* deferred_steps = nullptr;

  DYBATCH_HD std::size_t size() const { return n * blocks; }
  /// The index of value e of block k.
  DYBATCH_HD std::size_t at(std::size_t k, std::size_t e) const { return (rows ? rows[k] * n : 0) + e; }
};

/// Applies an elementwise rule to value i of the call; kScaled: through the factor (false only
/// when it is 1); kZeroGradient: with a gradient known to be zero, not read.
template <bool kScaled = true, bool kZeroGradient = false, class Rule>
DYBATCH_HD void apply_index(const Rule& rule, const UpdateCall& c, std::size_t i) {
  if constexpr (kScaled) c.values[i] *= c.factor;
  rule(c.values[i], kZeroGradient ? 0.f : c.grads[i], c.state, i, c.stride);
  if constexpr (kScaled) c.values[i] /= c.factor;
}

/// Applies an elementwise rule to the k-th value of the call (k < size()).
template <class Rule>
DYBATCH_HD void apply_at(const Rule& rule, const UpdateCall& c, std::size_t k) {
  apply_index(rule, c, c.at(k / c.n, k % c.n));
}

}  // namespace update_rules
}  // namespace dynet
