#pragma once
// Losses that need a dedicated kernel (others compose: squared_distance, pickneglogsoftmax...).

#include <math.h>

#include <vector>

#include "dynet_core/expression.h"
#include "dynet_core/ops/class_targets.h"
#include "dynet_core/ops/host_device.h"
#include "dynet_core/ops/index_list.h"

namespace dynet {

/// Multiclass hinge: y_b = sum over i != v of max(0, m - x_b[v] + x_b[i]); x a column vector.
Expression hinge(const Expression& x, unsigned v, float m = 1.f);
Expression hinge(const Expression& x, const std::vector<unsigned>& v, float m = 1.f);
Expression hinge(const Expression& x, const unsigned* pv, float m = 1.f);
Expression hinge(const Expression& x, const std::vector<unsigned>* pv, float m = 1.f);
/// Hinge losses of each column (d = 0) or row (d = 1) of a matrix x, one correct index per column
/// (row): y {columns} (or {rows}). Batched x takes one index vector per batch element.
Expression hinge_dim(const Expression& x, const std::vector<unsigned>& indices, unsigned d = 0, float m = 1.f);
Expression hinge_dim(const Expression& x, const std::vector<unsigned>* pindices, unsigned d = 0, float m = 1.f);
Expression hinge_dim(const Expression& x, const std::vector<std::vector<unsigned>>& indices, unsigned d = 0,
                     float m = 1.f);
/// The same with the indices read from *pindices at every forward.
Expression hinge_dim(const Expression& x, const std::vector<std::vector<unsigned>>* pindices, unsigned d = 0,
                     float m = 1.f);
/// y_b = sum |x_b - y_b| over the elements.
Expression l1_distance(const Expression& x, const Expression& y);
/// y_b = sum of L_c(x_b - y_b) over the elements: a^2 / 2 for |a| <= c, c |a| - c^2 / 2 beyond.
Expression huber_distance(const Expression& x, const Expression& y, float c = 1.345f);
/// DyNet's reusable graphs (its Python module's `set_index`): new classes of a hinge node built
/// from copied classes, as many as it was built with and each in range; the graph's values are
/// invalidated. Throws std::invalid_argument naming what was wrong.
void set_hinge_indices(const Expression& x, const std::vector<unsigned>& v);
/// y = max(0, m - x + y) elementwise, for row vectors x and y.
Expression pairwise_rank_loss(const Expression& x, const Expression& y, float m = 1.f);
/// The negative log-likelihood of the count y under a Poisson distribution of rate exp(x), x a
/// scalar per batch element: y = exp(x) - y x + lgamma(y + 1).
Expression poisson_loss(const Expression& x, unsigned y);
/// The same with the count read from *py at every forward.
Expression poisson_loss(const Expression& x, const unsigned* py);
/// y_b = -sum(t log x + (1 - t) log(1 - x)) over the elements of x_b, t_b, with DyNet's edge
/// cases at x = 0 and 1 (log_loss_term below).
Expression binary_log_loss(const Expression& x, const Expression& t);

/// The op data of hinge and poisson_loss, and the host-side walks over a call's targets that every
/// device's kernels share; they read indices unchecked, as the rows' host_check ran before.
struct HingeData {
  float margin;  // first: the signature bytes
  IndexList list;
  const char* function;  // hinge or hinge_dim, named by errors at forward
};

/// Calls f(batch element, class, margin) for every output of a group.
template <class F>
void for_each_hinge(const OpCall& c, F&& f) {
  for_each_class_target(
      c, [&](unsigned j) -> const IndexList& { return c.op_data<HingeData>(j).list; },
      [&](unsigned j, unsigned b, unsigned v) { f(b, v, c.op_data<HingeData>(j).margin); });
}

/// binary_log_loss's terms, DyNet's scalar rules with their edge cases, for every device. The loss
/// of prediction x against target t: x of 0 or 1 against another target costs -log(FLT_MIN), and
/// x = t = 0 costs exactly 0 (log1p).
DYBATCH_HD float log_loss_term(float x, float t) {
  constexpr float kMinLoss = 87.33654475f;  // -log(FLT_MIN), DyNet's DYNET_DEVICE_MIN
  if (t == 1.f) return x == 0.f ? kMinLoss : -logf(x);
  if (t == 0.f) return x == 1.f ? kMinLoss : -log1pf(-x);
  if (x == 0.f || x == 1.f) return kMinLoss;
  return -(t * logf(x) + (1.f - t) * log1pf(-x));
}
/// x where the derivatives read it: 0 as FLT_MIN and 1 as 0.9999999f, as DyNet's backward does.
DYBATCH_HD float log_loss_inner(float x) { return x == 0.f ? 1.17549435e-38f : x == 1.f ? 0.9999999f : x; }
/// The derivative in x: 0 where x = t (DyNet's rule).
DYBATCH_HD float log_loss_dx(float x, float t) {
  if (x == t) return 0.f;
  x = log_loss_inner(x);
  return (1.f - t) / (1.f - x) - t / x;
}
/// The derivative in t (DyNet has none): log(1 - x) - log(x).
DYBATCH_HD float log_loss_dt(float x) {
  x = log_loss_inner(x);
  return log1pf(-x) - logf(x);
}

struct PoissonData {
  IndexList count;
};

/// Calls f(batch element, count) for every batch element of every node of the group.
template <class F>
void for_each_count(const OpCall& c, F&& f) {
  const unsigned run = c.y.d.bd / c.nodes;
  for (unsigned j = 0; j < c.nodes; ++j) {
    const float count = static_cast<float>(*c.op_data<PoissonData>(j).count.values());
    for (unsigned b = j * run; b < (j + 1) * run; ++b) f(b, count);
  }
}

}  // namespace dynet
