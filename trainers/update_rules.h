#pragma once
// The per-value update of each elementwise trainer as a scalar rule, written once for any device
// (see dynet_core/ops/host_device.h): rule(w, grad, state, i, stride) updates value w, whose raw
// gradient is grad, and its state slots state[i + k stride]. A rule is made for each update with
// the trainer's settings and the gradient scale of that update folded in. EGTrainer normalizes over
// all values and has no such rule.

#include <math.h>

#include <cstddef>

#include "dynet_core/ops/host_device.h"

namespace dynet {
namespace update_rules {

/// w -= step grad (step: the learning rate times the gradient scale).
struct Sgd {
  float step;
  DYBATCH_HD void operator()(float& w, float grad, float*, std::size_t, std::size_t) const { w -= step * grad; }
};

/// v = momentum v - step grad; w += v.
struct Momentum {
  float momentum, step;
  DYBATCH_HD void operator()(float& w, float grad, float* s, std::size_t i, std::size_t) const {
    s[i] = momentum * s[i] - step * grad;
    w += s[i];
  }
};

/// G += g^2; w -= rate g / sqrt(G + epsilon).
struct Adagrad {
  float rate, epsilon, gscale;
  DYBATCH_HD void operator()(float& w, float grad, float* s, std::size_t i, std::size_t) const {
    const float g = gscale * grad;
    s[i] += g * g;
    w -= rate * g / sqrtf(s[i] + epsilon);
  }
};

/// Running averages of g^2 and of the squared steps, Zeiler's rule.
struct Adadelta {
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

/// Applies `rule` to n values on the host.
template <class Rule>
void apply(const Rule& rule, float* __restrict values, const float* __restrict grads, float* __restrict state,
           std::size_t stride, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) rule(values[i], grads[i], state, i, stride);
}

}  // namespace update_rules
}  // namespace dynet
