#pragma once
// Softmax and its log, and the negative log-likelihood of a class under a softmax.

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

}  // namespace dynet
