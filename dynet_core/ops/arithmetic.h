#pragma once
// Binary elementwise ops with broadcasting (every dimension and the batch equal, or 1 on one
// side), and n-ary sums. Each binary op is a scalar rule, f(a, b), da(a, b, y) and db(a, b, y),
// written once for any kernel that includes it (see host_device.h).

#include <math.h>
#include <vector>

#include "dynet_core/expression.h"
#include "dynet_core/ops/host_device.h"

namespace dynet {

Expression operator+(const Expression& a, const Expression& b);  ///< y = a + b
Expression operator-(const Expression& a, const Expression& b);  ///< y = a - b
Expression cmult(const Expression& a, const Expression& b);      ///< y = a * b elementwise
Expression cdiv(const Expression& a, const Expression& b);       ///< y = a / b elementwise
Expression min(const Expression& a, const Expression& b);        ///< y = min(a, b) elementwise
Expression max(const Expression& a, const Expression& b);        ///< y = max(a, b) elementwise
Expression pow(const Expression& a, const Expression& b);        ///< y = a^b (a > 0)
/// y = x + bias for a matrix x {n, m} and a column bias {n}.
Expression colwise_add(const Expression& x, const Expression& bias);

/// y = sum of xs, all of one shape (batch sizes 1 or the same).
Expression sum(ExpressionSpan xs);
/// y = sum(xs) / |xs|
Expression average(ExpressionSpan xs);

namespace rules {

struct Add {
  DYBATCH_HD float f(float a, float b) const { return a + b; }
  DYBATCH_HD float da(float, float, float) const { return 1.f; }
  DYBATCH_HD float db(float, float, float) const { return 1.f; }
};
struct Subtract {
  DYBATCH_HD float f(float a, float b) const { return a - b; }
  DYBATCH_HD float da(float, float, float) const { return 1.f; }
  DYBATCH_HD float db(float, float, float) const { return -1.f; }
};
struct Multiply {
  DYBATCH_HD float f(float a, float b) const { return a * b; }
  DYBATCH_HD float da(float, float b, float) const { return b; }
  DYBATCH_HD float db(float a, float, float) const { return a; }
};
struct Divide {
  DYBATCH_HD float f(float a, float b) const { return a / b; }
  DYBATCH_HD float da(float, float b, float) const { return 1.f / b; }
  DYBATCH_HD float db(float, float b, float y) const { return -y / b; }
};
struct Min {
  DYBATCH_HD float f(float a, float b) const { return a < b ? a : b; }
  DYBATCH_HD float da(float a, float b, float) const { return a < b ? 1.f : 0.f; }
  DYBATCH_HD float db(float a, float b, float) const { return a < b ? 0.f : 1.f; }
};
struct Max {
  DYBATCH_HD float f(float a, float b) const { return a > b ? a : b; }
  DYBATCH_HD float da(float a, float b, float) const { return a > b ? 1.f : 0.f; }
  DYBATCH_HD float db(float a, float b, float) const { return a > b ? 0.f : 1.f; }
};
struct Pow {
  DYBATCH_HD float f(float a, float b) const { return powf(a, b); }
  DYBATCH_HD float da(float a, float b, float) const { return b * powf(a, b - 1.f); }
  DYBATCH_HD float db(float a, float, float y) const { return y * logf(a); }
};

}  // namespace rules
}  // namespace dynet
