#pragma once
// Reductions: over elements, over the batch, along dimensions.

#include <math.h>

#include <vector>

#include "dynet_core/expression.h"
#include "dynet_core/ops/host_device.h"

namespace dynet {

Expression sum_elems(const Expression& x);     ///< y_b = sum of the elements of x_b (one per batch element)
Expression mean_elems(const Expression& x);    ///< y_b = sum_elems(x)_b / |x_b|
Expression sum_batches(const Expression& x);   ///< y = sum over b of x_b (batch size 1)
Expression mean_batches(const Expression& x);  ///< y = sum_batches(x) / bd
/// Sums over the listed dimensions, which are removed; with include_batch_dim also over the batch.
Expression sum_dim(const Expression& x, const std::vector<unsigned>& dims, bool include_batch_dim = false);
/// sum_dim({0}) and sum_dim({1}), DyNet's older names.
Expression sum_rows(const Expression& x);
Expression sum_cols(const Expression& x);
/// y = (1 / n) sum x^r over the listed dimensions (and the batch with b), which are removed; n is
/// the number of summed elements, or the given n when it is > 0 (for masked sums).
Expression moment_dim(const Expression& x, const std::vector<unsigned>& dims, unsigned r, bool b = false,
                      unsigned n = 0);
/// moment_dim with r = 1.
Expression mean_dim(const Expression& x, const std::vector<unsigned>& dims, bool b = false, unsigned n = 0);
/// y = sqrt(moment_dim(x - mean, dims, 2, b, n)), the population standard deviation.
Expression std_dim(const Expression& x, const std::vector<unsigned>& dims, bool b = false, unsigned n = 0);
Expression moment_elems(const Expression& x, unsigned r);    ///< moment over the elements of each batch element
Expression std_elems(const Expression& x);                   ///< std over the elements of each batch element
Expression moment_batches(const Expression& x, unsigned r);  ///< moment over the batch
Expression std_batches(const Expression& x);                 ///< std over the batch
/// y = the mean of the columns of a matrix x {rows, cols}: a column {rows} per batch element.
Expression average_cols(const Expression& x);
/// y[.., j, ..] = sum over j' <= j of x[.., j', ..] along dimension d.
Expression cumsum(const Expression& x, unsigned d);
Expression squared_norm(const Expression& x);                           ///< y_b = sum of x_b^2
Expression l2_norm(const Expression& x);                                ///< y_b = sqrt(squared_norm(x)_b)
Expression dot_product(const Expression& a, const Expression& b);       ///< y_b = sum of a_b * b_b
Expression squared_distance(const Expression& a, const Expression& b);  ///< y_b = |a_b - b_b|^2
/// Elementwise y = log sum_k exp(x_k) over expressions of one shape (stable).
Expression logsumexp(ExpressionSpan xs);
/// y = log sum_j exp(x[.., j, ..]) along dimension d, which is removed.
Expression logsumexp_dim(const Expression& x, unsigned d = 0);
/// Largest / smallest element along dimension d, which is removed (gradient to the first arg max).
Expression max_dim(const Expression& x, unsigned d = 0);
Expression min_dim(const Expression& x, unsigned d = 0);

/// The op data of sum_dim and moment_dim, read by every device's kernels.
struct SumDimData {
  unsigned mask;  // bit k: dimension k is summed
  bool batch;
};
struct MomentData {
  SumDimData sum;
  unsigned r;
  unsigned n;  // 0: the number of summed elements
};

/// x^e for the small integer powers of moment_dim.
DYBATCH_HD float power(float x, unsigned e) {
  float p = 1.f;
  for (unsigned k = 0; k < e; ++k) p *= x;
  return p;
}
/// logsumexp's scalar rule at one element: log(sum of exp(x_k)) over the n arguments, shifted by
/// the largest; x(k) reads argument k there. Its derivative by argument k is exp(x_k - y).
template <class Argument>
DYBATCH_HD float logsumexp_of(unsigned n, const Argument& x) {
  float m = x(0);
  for (unsigned k = 1; k < n; ++k) m = m < x(k) ? x(k) : m;
  float s = 0.f;
  for (unsigned k = 0; k < n; ++k) s += expf(x(k) - m);
  return m + logf(s);
}
/// 1 / the number of elements moment_dim averages over (m.n when given) for x and output y.
inline float moment_scale(const Dim& x, const Dim& y, const MomentData& m) {
  if (m.n > 0) return 1.f / static_cast<float>(m.n);
  unsigned count = m.sum.batch ? x.bd / y.bd : 1;
  for (unsigned k = 0; k < Dim::kMaxDims; ++k)
    if ((m.sum.mask >> k) & 1u) count *= x[k];
  return 1.f / static_cast<float>(count);
}

}  // namespace dynet
