#include "dynet_core/ops/softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "dynet_core/graph.h"
#include "dynet_core/ops/broadcast.h"
#include "dynet_core/ops/called_as.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/class_targets.h"
#include "dynet_core/ops/dims.h"
#include "dynet_core/ops/fixed_blocks.h"
#include "dynet_core/ops/index_list.h"
#include "dynet_core/ops/registry.h"
#include "dynet_core/ops/shape.h"
#include "dynet_core/tensor_eigen.h"

namespace dynet {

namespace {

Dim infer_softmax(const DimArgs& xs, const void* data) {
  // As DyNet's Softmax: the dimension normalized is one of x's.
  dims::require_has_dim(xs[0], *static_cast<const unsigned*>(data));
  return xs[0];
}

// Along dimension 0 every column is contiguous: plain loops over columns, exps over the whole
// block at once, each column's max as Eigen's reduction and its sums in vector lanes
// (fixed_blocks.h: a loop of scalar adds waits on each add, and a 10,000-class column took 10
// times as long); other dimensions take the strided scalar loops.
using ConstFlat = Eigen::Map<const Eigen::ArrayXf, Eigen::Unaligned>;

/// tmp[i, b] = exp(x[i, b] - shift[b]) over an n x cols block. The exps run over the block as one
/// flat array: column-wise Eigen forms vectorize along a column, which for a handful of classes
/// (a sentiment or tag set) left exp scalar.
void exp_shifted(const float* x, unsigned n, unsigned cols, const float* shift, float* tmp) {
  for (unsigned b = 0; b < cols; ++b)
    for (unsigned i = 0; i < n; ++i) tmp[std::size_t(b) * n + i] = x[std::size_t(b) * n + i] - shift[b];
  map_in_blocks(tmp, tmp, std::size_t(n) * cols, [](const auto& v) { return v.exp(); });
}

/// lse[b] = log sum_i exp(x[i, b]) for every column of the n x cols block x, stable.
void column_log_sum_exp(const OpCall& c, const float* x, unsigned n, unsigned cols, float* lse) {
  for (unsigned b = 0; b < cols; ++b) lse[b] = ConstFlat(x + std::size_t(b) * n, n).maxCoeff();
  float* e = c.scratch_floats(std::size_t(n) * cols);
  exp_shifted(x, n, cols, lse, e);
  float* sums = c.scratch_floats(cols);
  for (unsigned b = 0; b < cols; ++b) {
    const float* column = e + std::size_t(b) * n;
    sums[b] = ordered_sum(n, [column](std::size_t i) { return column[i]; });
  }
  map_in_blocks(sums, sums, cols, [](const auto& v) { return v.log(); });
  for (unsigned b = 0; b < cols; ++b) lse[b] += sums[b];
}

void softmax_forward(const OpCall& c) {
  const AlongDim a(c.xs[0].d, c.op_data<unsigned>());
  const float* x = c.xs[0].v;
  float* y = c.y.v;
  if (a.pre == 1) {
    float* lse = c.scratch_floats(a.post);
    column_log_sum_exp(c, x, a.len, a.post, lse);
    exp_shifted(x, a.len, a.post, lse, y);
    return;
  }
  for (unsigned k = 0; k < a.post; ++k)
    for (unsigned i = 0; i < a.pre; ++i) {
      float m = x[a.at(i, 0, k)];
      for (unsigned j = 1; j < a.len; ++j) m = std::max(m, x[a.at(i, j, k)]);
      float s = 0;
      for (unsigned j = 0; j < a.len; ++j) s += y[a.at(i, j, k)] = std::exp(x[a.at(i, j, k)] - m);
      const float inv = 1.f / s;
      for (unsigned j = 0; j < a.len; ++j) y[a.at(i, j, k)] *= inv;
    }
}
void softmax_backward(const OpCall& c, unsigned) {
  const AlongDim a(c.y.d, c.op_data<unsigned>());
  const float* y = c.y.v;
  const float* dy = c.dy.v;
  if (a.pre == 1) {
    for (unsigned k = 0; k < a.post; ++k) {
      const std::size_t base = std::size_t(k) * a.len;
      const float dot = ordered_sum(a.len, [&](std::size_t j) { return dy[base + j] * y[base + j]; });
      for (unsigned j = 0; j < a.len; ++j) c.dx.v[base + j] += y[base + j] * (dy[base + j] - dot);
    }
    return;
  }
  for (unsigned k = 0; k < a.post; ++k)
    for (unsigned i = 0; i < a.pre; ++i) {
      float dot = 0;
      for (unsigned j = 0; j < a.len; ++j) dot += dy[a.at(i, j, k)] * y[a.at(i, j, k)];
      for (unsigned j = 0; j < a.len; ++j) {
        const unsigned e = a.at(i, j, k);
        c.dx.v[e] += y[e] * (dy[e] - dot);
      }
    }
}
OpDef SoftmaxOp = OpRow("softmax")
                      .arity(1)
                      .infer(infer_softmax)
                      .forward(softmax_forward)
                      .backward(softmax_backward)
                      .saves(kSavesOutput)
                      .batch(ConcatBatch().sig_bytes(sizeof(unsigned)))
                      .check([](CheckCase& c) {
                        const Dim d = c.shape(1, 3, c.batch());
                        return softmax(c.input(d, -2, 2), c.uniform(0, d.ndims() - 1));
                      });

void log_softmax_forward(const OpCall& c) {
  const unsigned n = c.xs[0].d.rows(), cols = c.xs[0].d.size() / n;
  const float* x = c.xs[0].v;
  float* lse = c.scratch_floats(cols);
  column_log_sum_exp(c, x, n, cols, lse);
  for (unsigned b = 0; b < cols; ++b)
    for (unsigned i = 0; i < n; ++i) c.y.v[std::size_t(b) * n + i] = x[std::size_t(b) * n + i] - lse[b];
}
void log_softmax_backward(const OpCall& c, unsigned) {
  const unsigned n = c.y.d.rows(), cols = c.y.d.size() / n;
  const std::size_t size = std::size_t(n) * cols;
  float* p = c.scratch_floats(size);
  map_in_blocks(c.y.v, p, size, [](const auto& v) { return v.exp(); });
  const float* dy = c.dy.v;
  for (unsigned b = 0; b < cols; ++b) {
    const std::size_t base = std::size_t(b) * n;
    const float total = ordered_sum(n, [&](std::size_t i) { return dy[base + i]; });
    for (unsigned i = 0; i < n; ++i) c.dx.v[base + i] += dy[base + i] - p[base + i] * total;
  }
}
OpDef LogSoftmaxOp = OpRow("log_softmax")
                         .arity(1)
                         .infer(first_argument_shape)
                         .forward(log_softmax_forward)
                         .backward(log_softmax_backward)
                         .saves(kSavesOutput)
                         .batch(ConcatBatch())
                         .check([](CheckCase& c) { return log_softmax(c.input(c.shape(1, 2, c.batch()), -2, 2)); });

Dim infer_pnls(const DimArgs& xs, const void* data) {
  return infer_class_targets(xs[0], *static_cast<const IndexList*>(data));
}

const IndexList& node_list(const OpCall& c, unsigned j) { return c.op_data<IndexList>(j); }
void pnls_check(const OpCall& c) {
  check_class_targets(
      c, [](unsigned) { return "pickneglogsoftmax"; }, [&](unsigned j) -> const IndexList& { return node_list(c, j); });
}
template <class F>
void for_each_target(const OpCall& c, F&& f) {
  for_each_class_target(
      c, [&](unsigned j) -> const IndexList& { return node_list(c, j); },
      [&](unsigned, unsigned b, unsigned v) { f(b, v); });
}

void pnls_forward(const OpCall& c) {
  const unsigned n = c.xs[0].d.rows(), cols = c.y.d.bd;
  const float* x = c.xs[0].v;
  float* log_z = c.scratch_floats(cols);
  column_log_sum_exp(c, x, n, cols, log_z);
  for_each_target(c, [&](unsigned b, unsigned v) { c.y.v[b] = log_z[b] - x[std::size_t(b) * n + v]; });
}
void pnls_backward(const OpCall& c, unsigned) {
  // d/dx = softmax(x) - onehot(v), and log Z = y + x[v] recovers the softmax without storing it.
  const unsigned n = c.xs[0].d.rows(), cols = c.y.d.bd;
  const float* x = c.xs[0].v;
  float* log_z = c.scratch_floats(cols);
  for_each_target(c, [&](unsigned b, unsigned v) { log_z[b] = c.y.v[b] + x[std::size_t(b) * n + v]; });
  float* p = c.scratch_floats(std::size_t(n) * cols);
  exp_shifted(x, n, cols, log_z, p);
  for (unsigned b = 0; b < cols; ++b)
    for (unsigned i = 0; i < n; ++i) c.dx.v[std::size_t(b) * n + i] += c.dy.v[b] * p[std::size_t(b) * n + i];
  for_each_target(c, [&](unsigned b, unsigned v) { c.dx.v[std::size_t(b) * n + v] -= c.dy.v[b]; });
}
OpDef PickNegLogSoftmaxOp = OpRow("pickneglogsoftmax")
                                .arity(1)
                                .infer(infer_pnls)
                                .forward(pnls_forward)
                                .host_check(pnls_check)
                                .backward(pnls_backward)
                                .saves(kSavesBoth)
                                .batch(ConcatBatch())
                                .check([](CheckCase& c) {
                                  const unsigned n = c.uniform(1, 5), bd = c.batch();
                                  const Expression x = c.input(Dim({n}, bd), -2, 2);
                                  if (c.uniform(0, 1)) return pickneglogsoftmax(x, c.uniform(0, n - 1));
                                  std::vector<unsigned> v(bd);
                                  for (unsigned& i : v) i = c.uniform(0, n - 1);
                                  return pickneglogsoftmax(x, v);
                                });

Expression pnls_node(const Expression& x, const IndexList& list) {
  if (list.count == 0) throw std::invalid_argument("pickneglogsoftmax: no classes given");
  ComputationGraph& g = graph_of(x, "pickneglogsoftmax");
  return g.append(PickNegLogSoftmaxOp, {x}, g.store(list));
}

Dim infer_column(const DimArgs& xs, const void*) {
  if (xs[0].ndims() != 1) dims::fail("x must be a column vector, got " + to_string(xs[0].single_batch()));
  return xs[0];
}

/// The host-side check before a launch: every node's indices are rows of x.
template <const char* Op>
void check_lists(const OpCall& c) {
  for (unsigned j = 0; j < c.nodes; ++j) node_list(c, j).check_caller(Op, c.xs[0].d.rows(), "x's rows");
}
constexpr char kLogSoftmax[] = "log_softmax", kSparsemaxLoss[] = "sparsemax_loss";

/// Calls f(batch element, indices) for every batch element of every node of a group.
template <class F>
void for_each_list(const OpCall& c, F&& f) {
  const unsigned run = c.y.d.bd / c.nodes;
  for (unsigned j = 0; j < c.nodes; ++j) {
    const IndexList& l = node_list(c, j);
    for (unsigned b = j * run; b < (j + 1) * run; ++b) f(b, l.values(), l.count);
  }
}

void restricted_forward(const OpCall& c) {
  const unsigned n = c.y.d.rows();
  for_each_list(c, [&](unsigned b, const unsigned* ids, unsigned count) {
    const float* x = c.xs[0].v + std::size_t(b) * n;
    float* y = c.y.v + std::size_t(b) * n;
    std::fill(y, y + n, -std::numeric_limits<float>::infinity());
    float m = x[ids[0]];
    for (unsigned k = 1; k < count; ++k) m = std::max(m, x[ids[k]]);
    float s = 0;
    for (unsigned k = 0; k < count; ++k) s += std::exp(x[ids[k]] - m);
    const float lse = m + std::log(s);
    for (unsigned k = 0; k < count; ++k) y[ids[k]] = x[ids[k]] - lse;
  });
}
void restricted_backward(const OpCall& c, unsigned) {
  const unsigned n = c.y.d.rows();
  for_each_list(c, [&](unsigned b, const unsigned* ids, unsigned count) {
    const float* y = c.y.v + std::size_t(b) * n;
    const float* dy = c.dy.v + std::size_t(b) * n;
    float* dx = c.dx.v + std::size_t(b) * n;
    float total = 0;
    for (unsigned k = 0; k < count; ++k) total += dy[ids[k]];
    for (unsigned k = 0; k < count; ++k) dx[ids[k]] += dy[ids[k]] - std::exp(y[ids[k]]) * total;
  });
}
OpDef RestrictedLogSoftmaxOp = OpRow("restricted_log_softmax")
                                   .arity(1)
                                   .infer(infer_column)
                                   .forward(restricted_forward)
                                   .host_check(check_lists<kLogSoftmax>)
                                   .backward(restricted_backward)
                                   .saves(kSavesOutput)
                                   .batch(ConcatBatch())
                                   .check([](CheckCase& c) {
                                     // Every element restricted, in a random order: a left-out element is
                                     // -infinity, which no finite difference can weigh (its own test covers it).
                                     const unsigned n = c.uniform(1, 5);
                                     std::vector<unsigned> all(n);
                                     for (unsigned k = 0; k < n; ++k) {
                                       const unsigned j = c.uniform(0, k);
                                       all[k] = all[j];
                                       all[j] = k;
                                     }
                                     return log_softmax(c.input(Dim({n}, c.batch()), -2, 2), all);
                                   });

/// tau of sparsemax for the n values x: sum over the support of (x - tau) is 1. `sorted` is
/// scratch for n floats.
float sparsemax_threshold(const float* x, unsigned n, float* sorted) {
  std::copy(x, x + n, sorted);
  std::sort(sorted, sorted + n, [](float a, float b) { return a > b; });
  return sparsemax_threshold_of_sorted(sorted, n);
}

void sparsemax_forward(const OpCall& c) {
  const unsigned n = c.y.d.rows();
  float* sorted = c.scratch_floats(n);
  for (unsigned b = 0; b < c.y.d.bd; ++b) {
    const float* x = c.xs[0].v + std::size_t(b) * n;
    const float tau = sparsemax_threshold(x, n, sorted);
    for (unsigned i = 0; i < n; ++i) c.y.v[std::size_t(b) * n + i] = std::max(0.f, x[i] - tau);
  }
}
void sparsemax_backward(const OpCall& c, unsigned) {
  const unsigned n = c.y.d.rows();
  for (unsigned b = 0; b < c.y.d.bd; ++b) {
    const float* y = c.y.v + std::size_t(b) * n;
    const float* dy = c.dy.v + std::size_t(b) * n;
    float mean = 0;
    unsigned support = 0;
    for (unsigned i = 0; i < n; ++i)
      if (y[i] > 0.f) {
        mean += dy[i];
        ++support;
      }
    mean /= static_cast<float>(support);
    for (unsigned i = 0; i < n; ++i)
      if (y[i] > 0.f) c.dx.v[std::size_t(b) * n + i] += dy[i] - mean;
  }
}
OpDef SparsemaxOp =
    OpRow("sparsemax")
        .arity(1)
        .infer(infer_column)
        .forward(sparsemax_forward)
        .backward(sparsemax_backward)
        .saves(kSavesOutput)
        .batch(ConcatBatch())
        .check([](CheckCase& c) { return sparsemax(c.distinct_input(Dim({c.uniform(1, 5)}, c.batch()))); });

Dim infer_sparsemax_loss(const DimArgs& xs, const void*) {
  infer_column(xs, nullptr);
  return Dim({1}, xs[0].bd);
}
/// Calls f(batch element, x column, tau, support weight q, indices, count).
template <class F>
void for_each_sparsemax_loss(const OpCall& c, F&& f) {
  const unsigned n = c.xs[0].d.rows();
  float* sorted = c.scratch_floats(n);
  for_each_list(c, [&](unsigned b, const unsigned* ids, unsigned count) {
    const float* x = c.xs[0].v + std::size_t(b) * n;
    f(b, x, sparsemax_threshold(x, n, sorted), 1.f / static_cast<float>(count), ids, count);
  });
}
void sparsemax_loss_forward(const OpCall& c) {
  const unsigned n = c.xs[0].d.rows();
  for_each_sparsemax_loss(c, [&](unsigned b, const float* x, float tau, float q, const unsigned* ids, unsigned count) {
    float loss = 0.5f * q * q * static_cast<float>(count);
    for (unsigned i = 0; i < n; ++i)
      if (x[i] > tau) loss += 0.5f * (x[i] * x[i] - tau * tau);
    for (unsigned k = 0; k < count; ++k) loss -= q * x[ids[k]];
    c.y.v[b] = loss;
  });
}
void sparsemax_loss_backward(const OpCall& c, unsigned) {
  // d/dx = sparsemax(x) - q.
  const unsigned n = c.xs[0].d.rows();
  for_each_sparsemax_loss(c, [&](unsigned b, const float* x, float tau, float q, const unsigned* ids, unsigned count) {
    float* dx = c.dx.v + std::size_t(b) * n;
    const float g = c.dy.v[b];
    for (unsigned i = 0; i < n; ++i) dx[i] += g * std::max(0.f, x[i] - tau);
    for (unsigned k = 0; k < count; ++k) dx[ids[k]] -= g * q;
  });
}
OpDef SparsemaxLossOp = OpRow("sparsemax_loss")
                            .arity(1)
                            .infer(infer_sparsemax_loss)
                            .forward(sparsemax_loss_forward)
                            .host_check(check_lists<kSparsemaxLoss>)
                            .backward(sparsemax_loss_backward)
                            .saves(kSavesInputs)
                            .batch(ConcatBatch())
                            .check([](CheckCase& c) {
                              const unsigned n = c.uniform(1, 5);
                              std::vector<unsigned> support{c.uniform(0, n - 1)};
                              if (n > 1 && c.uniform(0, 1)) support.push_back((support[0] + 1) % n);
                              return sparsemax_loss(c.distinct_input(Dim({n}, c.batch())), support);
                            });

Dim infer_constrained_softmax(const DimArgs& xs, const void*) {
  infer_column(xs, nullptr);
  if (xs[1].single_batch() != xs[0].single_batch())
    dims::fail("the bounds y must have x's shape " + to_string(xs[0].single_batch()) + ", got " +
               to_string(xs[1].single_batch()));
  return xs[0].with_batch(dims::batch(xs));
}

/// Each column b of the call: x's, the bounds' (one for all columns or one each) and y's.
template <class F>
void for_each_bounded_column(const OpCall& c, F&& f) {
  const unsigned n = c.y.d.rows();
  for (unsigned b = 0; b < c.y.d.bd; ++b) f(c.xs[0].batch_ptr(b), c.xs[1].batch_ptr(b), std::size_t(b) * n, n);
}

void constrained_softmax_forward(const OpCall& c) {
  float* q = c.scratch_floats(c.y.d.rows());
  for_each_bounded_column(c, [&](const float* x, const float* u, std::size_t at, unsigned n) {
    constrained_softmax_column(x, u, n, q, c.y.v + at);
  });
}

void constrained_softmax_backward(const OpCall& c, unsigned i) {
  // The held set and mass come from the forward rule run again: telling them from y (y == u)
  // would count a free element that lands exactly on its bound as held.
  float* q = c.scratch_floats(c.y.d.rows());
  float* p = c.scratch_floats(c.y.d.rows());
  for_each_bounded_column(c, [&](const float* x, const float* u, std::size_t at, unsigned n) {
    const float mass = constrained_softmax_column(x, u, n, q, p);
    const float* y = c.y.v + at;
    const float* dy = c.dy.v + at;
    float dhat = 0.f;
    for (unsigned k = 0; k < n; ++k)
      if (q[k] >= 0.f) dhat += y[k] * dy[k];
    dhat /= 1.f - mass;
    float* dx = c.dx.v + (c.dx.d.bd == 1 ? 0 : at);  // an argument broadcast along the batch sums
    for (unsigned k = 0; k < n; ++k) {
      const bool free = q[k] >= 0.f;
      if (i == 0 && free) dx[k] += y[k] * (dy[k] - dhat);
      if (i == 1 && !free) dx[k] += dy[k] - dhat;
    }
  });
}

OpDef ConstrainedSoftmaxOp =
    OpRow("constrained_softmax")
        .arity(2)
        .infer(infer_constrained_softmax)
        .forward(constrained_softmax_forward)
        .backward(constrained_softmax_backward)
        .saves(kSavesBoth)
        .batch(ConcatBatch())
        .check([](CheckCase& c) {
          // Held bounds far below and free ones far above every probability, so that no element
          // changes sides within a numeric-gradient step.
          const unsigned n = c.uniform(2, 5), held = c.uniform(1, n - 1), bd = c.batch();
          const unsigned bounds_bd = c.uniform(0, 1) ? bd : 1;  // bounds shared by the batch, or one each
          const Expression bounds = concatenate(
              {c.input(Dim({held}, bounds_bd), 0.005f, 0.01f), c.input(Dim({n - held}, bounds_bd), 1.5f, 2.f)});
          return constrained_softmax(c.input(Dim({n}, bd), -1.f, 1.f), bounds);
        });

/// A node of `op` over x and the indices v, for the public function `name`, which errors name.
Expression list_node(const OpDef& op, const char* name, const Expression& x, const std::vector<unsigned>& v) {
  return called_as(name, [&] {
    ComputationGraph& g = graph_of(x, name);
    if (v.empty()) throw std::invalid_argument(std::string(name) + ": no indices given");
    const Dim xd = x.dim();
    if (xd.ndims() != 1)
      throw std::invalid_argument(std::string(name) + ": x must be a column vector, got " + to_string(xd));
    for (unsigned i : v)
      if (i >= xd.rows())
        throw std::invalid_argument(std::string(name) + ": index " + std::to_string(i) + " is out of range for x " +
                                    to_string(xd) + " of " + std::to_string(xd.rows()) + " rows");
    return g.append(op, {x},
                    g.store(stored_indices(g.store_array(v.data(), v.size()), static_cast<unsigned>(v.size()))));
  });
}

}  // namespace

Expression log_softmax(const Expression& x, const std::vector<unsigned>& restriction) {
  return list_node(RestrictedLogSoftmaxOp, "log_softmax", x, restriction);
}
Expression sparsemax(const Expression& x) { return graph_of(x, "sparsemax").append(SparsemaxOp, {x}); }
Expression constrained_softmax(const Expression& x, const Expression& y) {
  return graph_of(x, "constrained_softmax").append(ConstrainedSoftmaxOp, {x, y});
}
Expression sparsemax_loss(const Expression& x, const std::vector<unsigned>& target_support) {
  return list_node(SparsemaxLossOp, "sparsemax_loss", x, target_support);
}
Expression sparsemax_loss(const Expression& x, const std::vector<unsigned>* ptarget_support) {
  if (!ptarget_support || ptarget_support->empty())
    throw std::invalid_argument("sparsemax_loss: a null or empty target support");
  ComputationGraph& g = graph_of(x, "sparsemax_loss");
  return g.append(SparsemaxLossOp, {x}, g.store(caller_indices(ptarget_support)));
}

Expression softmax(const Expression& x, unsigned d) {
  ComputationGraph& g = graph_of(x, "softmax");
  return g.append(SoftmaxOp, {x}, g.store(d));
}
Expression log_softmax(const Expression& x) { return graph_of(x, "log_softmax").append(LogSoftmaxOp, {x}); }

Expression pickneglogsoftmax(const Expression& x, unsigned v) {
  return pnls_node(x, stored_index(graph_of(x, "pickneglogsoftmax").store(v)));
}
Expression pickneglogsoftmax(const Expression& x, const std::vector<unsigned>& v) {
  return pnls_node(x, stored_indices(graph_of(x, "pickneglogsoftmax").store_array(v.data(), v.size()),
                                     static_cast<unsigned>(v.size())));
}
Expression pickneglogsoftmax(const Expression& x, const unsigned* pv) {
  if (!pv) throw std::invalid_argument("pickneglogsoftmax: null pointer");
  return pnls_node(x, caller_index(pv));
}
Expression pickneglogsoftmax(const Expression& x, const std::vector<unsigned>* pv) {
  if (!pv) throw std::invalid_argument("pickneglogsoftmax: null pointer");
  return pnls_node(x, caller_indices(pv));
}

void register_softmax_ops() {
  register_ops({&SoftmaxOp, &LogSoftmaxOp, &PickNegLogSoftmaxOp, &RestrictedLogSoftmaxOp, &SparsemaxOp,
                &SparsemaxLossOp, &ConstrainedSoftmaxOp});
}

}  // namespace dynet
