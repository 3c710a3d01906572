#pragma once
// Softmax and its log, and the negative log-likelihood of a class under a softmax.

#include <cmath>
#include <vector>

#include "dynet_core/expression.h"
#include "dynet_core/ops/host_device.h"

namespace dynet {

/// y = exp(x) / sum exp(x) along dimension d (0: each column).
Expression softmax(const Expression& x, unsigned d = 0);
/// y = x - log sum exp(x) over each column.
Expression log_softmax(const Expression& x);
/// The log softmax over the listed elements of a column vector x; the others are -infinity.
Expression log_softmax(const Expression& x, const std::vector<unsigned>& restriction);
/// Sparsemax (Martins and Astudillo, 2016) of a column vector x: the Euclidean projection of x
/// onto the probability simplex, y = max(0, x - tau).
Expression sparsemax(const Expression& x);
/// The sparsemax loss of x against the uniform distribution q over target_support:
/// y = sum over the support S of sparsemax(x) of (x_j^2 - tau^2) / 2 + |q|^2 / 2 - q . x.
Expression sparsemax_loss(const Expression& x, const std::vector<unsigned>& target_support);
/// The same with the support read from *ptarget_support at every forward.
Expression sparsemax_loss(const Expression& x, const std::vector<unsigned>* ptarget_support);
/// The constrained softmax (Martins and Kreutzer, 2017) of a column vector x under the upper
/// bounds y (a column of x's size, one per batch element or one for all): the distribution closest
/// to softmax(x) with no element above its bound; the elements held at their bound are y's, the
/// others softmax(x) scaled to the remaining mass. As DyNet's.
Expression constrained_softmax(const Expression& x, const Expression& y);
/// y_b = -log softmax(x_b)[v]: x a column vector per batch element, one class for all of them.
Expression pickneglogsoftmax(const Expression& x, unsigned v);
/// One class per batch element.
Expression pickneglogsoftmax(const Expression& x, const std::vector<unsigned>& v);
Expression pickneglogsoftmax(const Expression& x, const unsigned* pv);
Expression pickneglogsoftmax(const Expression& x, const std::vector<unsigned>* pv);

/// The sparsemax threshold tau of a column whose n values are given sorted in descending order:
/// sparsemax(x) = max(0, x - tau). Every device's kernel sorts, then calls this.
DYBATCH_HD float sparsemax_threshold_of_sorted(const float* sorted, unsigned n) {
  float sum = 0;
  unsigned k = 0;
  for (; k < n; ++k) {
    if (1.f + (k + 1) * sorted[k] <= sum + sorted[k]) break;
    sum += sorted[k];
  }
  return (sum - 1.f) / static_cast<float>(k);
}

/// One column of constrained_softmax: p from the n log-potentials x under the bounds u, as DyNet
/// computes it (softmax over the free elements, then every element above its bound held at it,
/// until none is), with q (n floats of scratch) left holding -1 at the held elements. Returns the
/// mass held. Every device's kernel calls it; backward calls it again for the held set.
DYBATCH_HD float constrained_softmax_column(const float* x, const float* u, unsigned n, float* q, float* p) {
  float top = x[0];
  for (unsigned k = 1; k < n; ++k) top = x[k] > top ? x[k] : top;
  for (unsigned k = 0; k < n; ++k) q[k] = expf(x[k] - top);
  float mass = 0.f;
  for (bool held = true; held;) {
    float sum = 0.f;
    for (unsigned k = 0; k < n; ++k)
      if (q[k] >= 0.f) sum += q[k];
    // In double, as DyNet's (1.0 - mass) makes it.
    for (unsigned k = 0; k < n; ++k)
      if (q[k] >= 0.f) p[k] = static_cast<float>(q[k] * (1.0 - mass) / sum);
    held = false;
    for (unsigned k = 0; k < n; ++k)
      if (q[k] >= 0.f && p[k] > u[k]) {
        p[k] = u[k];
        mass += u[k];
        q[k] = -1.f;
        held = true;
      }
  }
  return mass;
}

}  // namespace dynet
