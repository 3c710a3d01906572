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

// Along dimension 0 every column is contiguous, and the column-wise Eigen forms below run
// vectorized (exp included); other dimensions take the strided scalar loops.
using ConstArray2 = Eigen::Map<const Eigen::ArrayXXf, Eigen::Unaligned>;
using Array2 = Eigen::Map<Eigen::ArrayXXf, Eigen::Unaligned>;

/// log sum exp of every column of x, stable.
Eigen::ArrayXXf column_log_sum_exp(const ConstArray2& x) {
  const Eigen::ArrayXXf m = x.colwise().maxCoeff();
  return m + (x.rowwise() - m.row(0)).exp().colwise().sum().log();
}

void softmax_forward(const OpCall& c) {
  const AlongDim a(c.xs[0].d, c.op_data<unsigned>());
  const float* x = c.xs[0].v;
  float* y = c.y.v;
  if (a.pre == 1) {
    const ConstArray2 xa(x, a.len, a.post);
    Array2 ya(y, a.len, a.post);
    ya = (xa.rowwise() - column_log_sum_exp(xa).row(0)).exp();
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
    const ConstArray2 ya(y, a.len, a.post), dya(dy, a.len, a.post);
    Array2 dxa(c.dx.v, a.len, a.post);
    const Eigen::ArrayXXf dot = (dya * ya).colwise().sum();
    dxa += ya * (dya.rowwise() - dot.row(0));
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
  const ConstArray2 x(c.xs[0].v, n, cols);
  Array2(c.y.v, n, cols) = x.rowwise() - column_log_sum_exp(x).row(0);
}
void log_softmax_backward(const OpCall& c, unsigned) {
  const unsigned n = c.y.d.rows(), cols = c.y.d.size() / n;
  const ConstArray2 y(c.y.v, n, cols), dy(c.dy.v, n, cols);
  Array2(c.dx.v, n, cols) += dy - y.exp().rowwise() * dy.colwise().sum().row(0);
}
Dim same_dim(const DimArgs& xs, const void*) { return xs[0]; }
OpDef LogSoftmaxOp{"log_softmax", 1, same_dim, log_softmax_forward, log_softmax_backward, kSavesOutput,
                   {BatchRule::Concat}, {[](CheckCase& c) { return log_softmax(c.input(c.shape(1, 2, c.batch()), -2, 2)); }}};

Dim infer_pnls(const DimArgs& xs, const void* data) {
  return infer_class_targets(xs[0], *static_cast<const IndexList*>(data), "pickneglogsoftmax");
}

template <class F>
void for_each_target(const OpCall& c, F&& f) {
  for_each_class_target(
      c, "pickneglogsoftmax", [&](unsigned j) -> const IndexList& { return c.op_data<IndexList>(j); },
      [&](unsigned, unsigned b, unsigned v) { f(b, v); });
}

void pnls_forward(const OpCall& c) {
  const unsigned n = c.xs[0].d.rows();
  const ConstArray2 x(c.xs[0].v, n, c.y.d.bd);
  const Eigen::ArrayXXf log_z = column_log_sum_exp(x);
  for_each_target(c, [&](unsigned b, unsigned v) { c.y.v[b] = log_z(0, b) - x(v, b); });
}
void pnls_backward(const OpCall& c, unsigned) {
  // d/dx = softmax(x) - onehot(v), and log Z = y + x[v] recovers the softmax without storing it.
  const unsigned n = c.xs[0].d.rows();
  const ConstArray2 x(c.xs[0].v, n, c.y.d.bd);
  Array2 dx(c.dx.v, n, c.y.d.bd);
  for_each_target(c, [&](unsigned b, unsigned v) {
    const float log_z = c.y.v[b] + x(v, b), g = c.dy.v[b];
    dx.col(b) += g * (x.col(b) - log_z).exp();
    dx(v, b) -= g;
  });
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

Expression pnls_node(const Expression& x, const unsigned* indices, unsigned count,
                     const std::vector<unsigned>* pindices) {
  if (count == 0) throw std::invalid_argument("pickneglogsoftmax: no classes given");
  ComputationGraph& g = graph_of(x, "pickneglogsoftmax");
  return g.append(PickNegLogSoftmaxOp, {x}, g.store(IndexList{indices, count, pindices}));
}

}  // namespace

Expression softmax(const Expression& x, unsigned d) {
  ComputationGraph& g = graph_of(x, "softmax");
  return g.append(SoftmaxOp, {x}, g.store(d));
}
Expression log_softmax(const Expression& x) { return graph_of(x, "log_softmax").append(LogSoftmaxOp, {x}); }

Expression pickneglogsoftmax(const Expression& x, unsigned v) {
  return pnls_node(x, graph_of(x, "pickneglogsoftmax").store(v), 1, nullptr);
}
Expression pickneglogsoftmax(const Expression& x, const std::vector<unsigned>& v) {
  return pnls_node(x, graph_of(x, "pickneglogsoftmax").store_array(v.data(), v.size()),
                   static_cast<unsigned>(v.size()), nullptr);
}
Expression pickneglogsoftmax(const Expression& x, const unsigned* pv) {
  if (!pv) throw std::invalid_argument("pickneglogsoftmax: null pointer");
  return pnls_node(x, pv, 1, nullptr);
}
Expression pickneglogsoftmax(const Expression& x, const std::vector<unsigned>* pv) {
  if (!pv) throw std::invalid_argument("pickneglogsoftmax: null pointer");
  return pnls_node(x, pv->data(), static_cast<unsigned>(pv->size()), pv);
}

void register_softmax_ops() { register_ops({&SoftmaxOp, &LogSoftmaxOp, &PickNegLogSoftmaxOp}); }

}  // namespace dynet
