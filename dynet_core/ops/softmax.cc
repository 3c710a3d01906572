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

namespace dynet {

namespace {

Dim infer_along(const DimArgs& xs, const void* data) {
  dims::require_dim_index(*static_cast<const unsigned*>(data));
  return xs[0];
}

void softmax_forward(const OpCall& c) {
  const AlongDim a(c.xs[0].d, c.op_data<unsigned>());
  const float* x = c.xs[0].v;
  float* y = c.y.v;
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
  const AlongDim a(c.xs[0].d, 0);
  const float* x = c.xs[0].v;
  for (unsigned k = 0; k < a.post; ++k) {
    const float* xk = x + a.len * k;
    const float m = *std::max_element(xk, xk + a.len);
    float s = 0;
    for (unsigned j = 0; j < a.len; ++j) s += std::exp(xk[j] - m);
    const float log_z = m + std::log(s);
    for (unsigned j = 0; j < a.len; ++j) c.y.v[a.len * k + j] = xk[j] - log_z;
  }
}
void log_softmax_backward(const OpCall& c, unsigned) {
  const AlongDim a(c.y.d, 0);
  for (unsigned k = 0; k < a.post; ++k) {
    const float* dy = c.dy.v + a.len * k;
    const float* y = c.y.v + a.len * k;
    float total = 0;
    for (unsigned j = 0; j < a.len; ++j) total += dy[j];
    for (unsigned j = 0; j < a.len; ++j) c.dx.v[a.len * k + j] += dy[j] - std::exp(y[j]) * total;
  }
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
  for_each_target(c, [&](unsigned b, unsigned v) {
    const float* x = c.xs[0].v + std::size_t(b) * n;
    const float m = *std::max_element(x, x + n);
    float s = 0;
    for (unsigned j = 0; j < n; ++j) s += std::exp(x[j] - m);
    c.y.v[b] = m + std::log(s) - x[v];
  });
}
void pnls_backward(const OpCall& c, unsigned) {
  const unsigned n = c.xs[0].d.rows();
  for_each_target(c, [&](unsigned b, unsigned v) {
    const float* x = c.xs[0].v + std::size_t(b) * n;
    float* dx = c.dx.v + std::size_t(b) * n;
    const float log_z = c.y.v[b] + x[v], g = c.dy.v[b];
    for (unsigned j = 0; j < n; ++j) dx[j] += g * std::exp(x[j] - log_z);
    dx[v] -= g;
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
