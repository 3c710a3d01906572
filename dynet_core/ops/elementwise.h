#pragma once
// Unary elementwise ops. Each is a scalar rule, written once for any kernel that includes it (see
// host_device.h): f(x) and df(x, y), where y = f(x) so that rules like tanh reuse the output.

#include <math.h>

#include <type_traits>

#include "dynet_core/expression.h"
#include "dynet_core/op_def.h"
#include "dynet_core/ops/gradient_mode.h"
#include "dynet_core/ops/host_device.h"

namespace dynet {

Expression operator-(const Expression& x);               ///< y = -x
Expression tanh(const Expression& x);                    ///< y = tanh x
Expression logistic(const Expression& x);                ///< y = 1 / (1 + e^-x)
Expression rectify(const Expression& x);                 ///< y = max(0, x)
Expression elu(const Expression& x, float alpha = 1.f);  ///< y = x > 0 ? x : alpha (e^x - 1)
Expression selu(const Expression& x);                    ///< y = lambda elu(x, alpha), Klambauer et al.'s constants
Expression silu(const Expression& x, float beta = 1.f);  ///< y = x logistic(beta x)
Expression softsign(const Expression& x);                ///< y = x / (1 + |x|)
Expression exp(const Expression& x);                     ///< y = e^x
Expression log(const Expression& x);                     ///< y = ln x
Expression log_sigmoid(const Expression& x);             ///< y = ln logistic(x)
Expression square(const Expression& x);                  ///< y = x^2
Expression cube(const Expression& x);                    ///< y = x^3
Expression sqrt(const Expression& x);                    ///< y = sqrt x
Expression abs(const Expression& x);                     ///< y = |x|
Expression sin(const Expression& x);                     ///< y = sin x
Expression cos(const Expression& x);                     ///< y = cos x
Expression erf(const Expression& x);                     ///< y = erf x
Expression tan(const Expression& x);                     ///< y = tan x; dy/dx = 1 + y^2
Expression asin(const Expression& x);                    ///< y = asin x (|x| < 1)
Expression acos(const Expression& x);                    ///< y = acos x (|x| < 1)
Expression atan(const Expression& x);                    ///< y = atan x
Expression sinh(const Expression& x);                    ///< y = sinh x
Expression cosh(const Expression& x);                    ///< y = cosh x
Expression asinh(const Expression& x);                   ///< y = asinh x
Expression acosh(const Expression& x);                   ///< y = acosh x (x > 1)
Expression atanh(const Expression& x);                   ///< y = atanh x (|x| < 1)
Expression lgamma(const Expression& x);                  ///< y = ln |Gamma(x)|; dy/dx = digamma(x)
/// y = round(x) (halves away from zero), ceil(x), floor(x); the gradient is zero, or passed
/// through unchanged with straight_through_gradient.
Expression round(const Expression& x, GradientMode gradient_mode);
Expression ceil(const Expression& x, GradientMode gradient_mode);
Expression floor(const Expression& x, GradientMode gradient_mode);

Expression operator+(const Expression& x, float c);  ///< y = x + c
Expression operator+(float c, const Expression& x);
Expression operator-(const Expression& x, float c);
Expression operator-(float c, const Expression& x);  ///< y = c - x
Expression operator*(const Expression& x, float c);  ///< y = c x
Expression operator*(float c, const Expression& x);
Expression operator/(const Expression& x, float c);

namespace rules {

struct Negate {
  DYBATCH_HD float f(float x) const { return -x; }
  DYBATCH_HD float df(float, float) const { return -1.f; }
};
struct Tanh {
  DYBATCH_HD float f(float x) const { return tanhf(x); }
  DYBATCH_HD float df(float, float y) const { return 1.f - y * y; }
};
struct Logistic {
  DYBATCH_HD float f(float x) const {
    if (x >= 0) return 1.f / (1.f + expf(-x));
    const float e = expf(x);
    return e / (1.f + e);
  }
  DYBATCH_HD float df(float, float y) const { return y * (1.f - y); }
};
struct Rectify {
  DYBATCH_HD float f(float x) const { return x > 0.f ? x : 0.f; }
  DYBATCH_HD float df(float x, float) const { return x > 0.f ? 1.f : 0.f; }
};
struct Elu {
  float alpha;
  DYBATCH_HD float f(float x) const { return x > 0.f ? x : alpha * expm1f(x); }
  DYBATCH_HD float df(float x, float y) const { return x > 0.f ? 1.f : y + alpha; }
};
struct Selu {
  static constexpr float kLambda = 1.0507009873554804934f;
  static constexpr float kAlpha = 1.6732632423543772848f;
  DYBATCH_HD float f(float x) const { return kLambda * (x > 0.f ? x : kAlpha * expm1f(x)); }
  DYBATCH_HD float df(float x, float y) const { return x > 0.f ? kLambda : y + kLambda * kAlpha; }
};
struct Silu {
  float beta;
  DYBATCH_HD float f(float x) const { return x * Logistic().f(beta * x); }
  DYBATCH_HD float df(float x, float) const {
    const float s = Logistic().f(beta * x);
    return s + beta * x * s * (1.f - s);
  }
};
struct Softsign {
  DYBATCH_HD float f(float x) const { return x / (1.f + fabsf(x)); }
  DYBATCH_HD float df(float x, float) const {
    const float d = 1.f + fabsf(x);
    return 1.f / (d * d);
  }
};
struct Exp {
  DYBATCH_HD float f(float x) const { return expf(x); }
  DYBATCH_HD float df(float, float y) const { return y; }
};
struct Log {
  DYBATCH_HD float f(float x) const { return logf(x); }
  DYBATCH_HD float df(float x, float) const { return 1.f / x; }
};
struct LogSigmoid {
  DYBATCH_HD float f(float x) const { return x >= 0.f ? -log1pf(expf(-x)) : x - log1pf(expf(x)); }
  DYBATCH_HD float df(float, float y) const { return 1.f - expf(y); }
};
struct Square {
  DYBATCH_HD float f(float x) const { return x * x; }
  DYBATCH_HD float df(float x, float) const { return 2.f * x; }
};
struct Cube {
  DYBATCH_HD float f(float x) const { return x * x * x; }
  DYBATCH_HD float df(float x, float) const { return 3.f * x * x; }
};
struct Sqrt {
  DYBATCH_HD float f(float x) const { return sqrtf(x); }
  DYBATCH_HD float df(float, float y) const { return 0.5f / y; }
};
struct Abs {
  DYBATCH_HD float f(float x) const { return fabsf(x); }
  DYBATCH_HD float df(float x, float) const { return x > 0.f ? 1.f : (x < 0.f ? -1.f : 0.f); }
};
struct Sin {
  DYBATCH_HD float f(float x) const { return sinf(x); }
  DYBATCH_HD float df(float x, float) const { return cosf(x); }
};
struct Cos {
  DYBATCH_HD float f(float x) const { return cosf(x); }
  DYBATCH_HD float df(float x, float) const { return -sinf(x); }
};
struct Erf {
  DYBATCH_HD float f(float x) const { return erff(x); }
  DYBATCH_HD float df(float x, float) const { return 1.1283791670955126f * expf(-x * x); }
};
struct Tan {
  DYBATCH_HD float f(float x) const { return tanf(x); }
  DYBATCH_HD float df(float, float y) const { return 1.f + y * y; }
};
struct Asin {
  DYBATCH_HD float f(float x) const { return asinf(x); }
  DYBATCH_HD float df(float x, float) const { return 1.f / sqrtf(1.f - x * x); }
};
struct Acos {
  DYBATCH_HD float f(float x) const { return acosf(x); }
  DYBATCH_HD float df(float x, float) const { return -1.f / sqrtf(1.f - x * x); }
};
struct Atan {
  DYBATCH_HD float f(float x) const { return atanf(x); }
  DYBATCH_HD float df(float x, float) const { return 1.f / (1.f + x * x); }
};
struct Sinh {
  DYBATCH_HD float f(float x) const { return sinhf(x); }
  DYBATCH_HD float df(float x, float) const { return coshf(x); }
};
struct Cosh {
  DYBATCH_HD float f(float x) const { return coshf(x); }
  DYBATCH_HD float df(float x, float) const { return sinhf(x); }
};
struct Asinh {
  DYBATCH_HD float f(float x) const { return asinhf(x); }
  DYBATCH_HD float df(float x, float) const { return 1.f / sqrtf(x * x + 1.f); }
};
struct Acosh {
  DYBATCH_HD float f(float x) const { return acoshf(x); }
  DYBATCH_HD float df(float x, float) const { return 1.f / sqrtf(x * x - 1.f); }
};
struct Atanh {
  DYBATCH_HD float f(float x) const { return atanhf(x); }
  DYBATCH_HD float df(float x, float) const { return 1.f / (1.f - x * x); }
};
/// The digamma function: reflection for x <= 0, the recurrence up to 6, then the asymptotic series.
DYBATCH_HD float digamma(float x) {
  float r = 0.f;
  if (x <= 0.f) {
    r = -3.14159265358979f / tanf(3.14159265358979f * x);
    x = 1.f - x;
  }
  for (; x < 6.f; x += 1.f) r -= 1.f / x;
  const float f = 1.f / (x * x);
  return r + logf(x) - 0.5f / x -
         f * (1.f / 12 - f * (1.f / 120 - f * (1.f / 252 - f * (1.f / 240 - f * (1.f / 132)))));
}
struct Lgamma {
  DYBATCH_HD float f(float x) const { return lgammaf(x); }
  DYBATCH_HD float df(float x, float) const { return digamma(x); }
};
/// round, ceil and floor; the gradient is `through`: 1 passes it straight through, 0 stops it.
struct Rounding {
  enum Kind : unsigned { kRound, kCeil, kFloor };
  unsigned kind;
  float through;
  DYBATCH_HD float f(float x) const { return kind == kRound ? roundf(x) : kind == kCeil ? ceilf(x) : floorf(x); }
  DYBATCH_HD float df(float, float) const { return through; }
};
struct AddConst {
  float c;
  DYBATCH_HD float f(float x) const { return x + c; }
  DYBATCH_HD float df(float, float) const { return 1.f; }
};
struct ConstMinus {
  float c;
  DYBATCH_HD float f(float x) const { return c - x; }
  DYBATCH_HD float df(float, float) const { return -1.f; }
};
struct MulConst {
  float c;
  DYBATCH_HD float f(float x) const { return c * x; }
  DYBATCH_HD float df(float, float) const { return c; }
};

/// The rule a node runs: a rule with fields (alpha, a constant) is the node's op data.
template <class R>
DYBATCH_HD R rule_of(const void* data) {
  if constexpr (std::is_empty<R>::value)
    return R{};
  else
    return *static_cast<const R*>(data);
}
template <class R>
R rule_of(const OpCall& c) {
  return rule_of<R>(c.data[0]);
}

}  // namespace rules
}  // namespace dynet
