#include "dynet_core/ops/softmax.h"

#include <algorithm>
#include <cmath>

#include "dynet_core/graph.h"
#include "dynet_core/ops/broadcast.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/class_targets.h"
#include "dynet_core/ops/dims.h"
#include "dynet_core/ops/index_list.h"
#include "dynet_core/ops/registry.h"
#include "dynet_core/tensor_eigen.h"

namespace dynet {

namespace {

Dim infer_along(const DimArgs& xs, const void* data) {
  dims::require_dim_index(*static_cast<const unsigned*>(data));
  return xs[0];
}

// Along dimension 0 every column is contiguous: plain loops over columns, exps over the whole
// block at once; other dimensions take the strided scalar loops.
using Flat = Eigen::Map<Eigen::ArrayXf, Eigen::Unaligned>;

/// tmp[i, b] = exp(x[i, b] - shift[b]) over an n x cols block. The exps run over the block as one
/// flat array: column-wise Eigen forms vectorize along a column, which for a handful of classes
/// (a sentiment or tag set) left exp scalar.
void exp_shifted(const float* x, unsigned n, unsigned cols, const float* shift, float* tmp) {
  for (unsigned b = 0; b < cols; ++b)
    for (unsigned i = 0; i < n; ++i) tmp[std::size_t(b) * n + i] = x[std::size_t(b) * n + i] - shift[b];
  Flat e(tmp, std::size_t(n) * cols);
  e = e.exp();
}

/// lse[b] = log sum_i exp(x[i, b]) for every column of the n x cols block x, stable.
void column_log_sum_exp(const OpCall& c, const float* x, unsigned n, unsigned cols, float* lse) {
  for (unsigned b = 0; b < cols; ++b) lse[b] = *std::max_element(x + std::size_t(b) * n, x + std::size_t(b + 1) * n);
  float* e = c.scratch_floats(std::size_t(n) * cols);
  exp_shifted(x, n, cols, lse, e);
  float* sums = c.scratch_floats(cols);
  for (unsigned b = 0; b < cols; ++b) {
    float s = 0;
    for (unsigned i = 0; i < n; ++i) s += e[std::size_t(b) * n + i];
    sums[b] = s;
  }
  Flat(lse, cols) += Flat(sums, cols).log();
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
      float dot = 0;
      for (unsigned j = 0; j < a.len; ++j) dot += dy[base + j] * y[base + j];
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
OpDef SoftmaxOp{"softmax", 1, infer_along, softmax_forward, softmax_backward, kSavesOutput,
                {BatchRule::Concat, 0, false, sizeof(unsigned)},
                {[](CheckCase& c) {
                  const Dim d = c.shape(1, 3, c.batch());
                  return softmax(c.input(d, -2, 2), c.uniform(0, d.ndims() - 1));
                }}};

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
  Flat(p, size) = Eigen::Map<const Eigen::ArrayXf, Eigen::Unaligned>(c.y.v, size).exp();
  const float* dy = c.dy.v;
  for (unsigned b = 0; b < cols; ++b) {
    const std::size_t base = std::size_t(b) * n;
    float total = 0;
    for (unsigned i = 0; i < n; ++i) total += dy[base + i];
    for (unsigned i = 0; i < n; ++i) c.dx.v[base + i] += dy[base + i] - p[base + i] * total;
  }
}
Dim same_dim(const DimArgs& xs, const void*) { return xs[0]; }
OpDef LogSoftmaxOp{"log_softmax", 1, same_dim, log_softmax_forward, log_softmax_backward, kSavesOutput,
                   {BatchRule::Concat}, {[](CheckCase& c) { return log_softmax(c.input(c.shape(1, 2, c.batch()), -2, 2)); }}};

Dim infer_pnls(const DimArgs& xs, const void* data) {
  return infer_class_targets(xs[0], *static_cast<const IndexList*>(data));
}

template <class F>
void for_each_target(const OpCall& c, F&& f) {
  for_each_class_target(
      c, "pickneglogsoftmax", [&](unsigned j) -> const IndexList& { return c.op_data<IndexList>(j); },
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
OpDef PickNegLogSoftmaxOp{"pickneglogsoftmax", 1, infer_pnls, pnls_forward, pnls_backward, kSavesBoth,
                          {BatchRule::Concat},
                          {[](CheckCase& c) {
                            const unsigned n = c.uniform(1, 5), bd = c.batch();
                            const Expression x = c.input(Dim({n}, bd), -2, 2);
                            if (c.uniform(0, 1)) return pickneglogsoftmax(x, c.uniform(0, n - 1));
                            std::vector<unsigned> v(bd);
                            for (unsigned& i : v) i = c.uniform(0, n - 1);
                            return pickneglogsoftmax(x, v);
                          }}};

Expression pnls_node(const Expression& x, const IndexList& list) {
  if (list.count == 0) throw std::invalid_argument("pickneglogsoftmax: no classes given");
  ComputationGraph& g = graph_of(x, "pickneglogsoftmax");
  return g.append(PickNegLogSoftmaxOp, {x}, g.store(list));
}

}  // namespace

Expression softmax(const Expression& x, unsigned d) {
  ComputationGraph& g = graph_of(x, "softmax");
  return g.append(SoftmaxOp, {x}, g.store(d));
}
Expression log_softmax(const Expression& x) { return graph_of(x, "log_softmax").append(LogSoftmaxOp, {x}); }

Expression pickneglogsoftmax(const Expression& x, unsigned v) {
  return pnls_node(x, stored_indices(graph_of(x, "pickneglogsoftmax").store(v), 1));
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

void register_softmax_ops() { register_ops({&SoftmaxOp, &LogSoftmaxOp, &PickNegLogSoftmaxOp}); }

}  // namespace dynet
