#include "dynet_core/ops/losses.h"

#include <algorithm>
#include <cmath>

#include "dynet_core/graph.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/class_targets.h"
#include "dynet_core/ops/dims.h"
#include "dynet_core/ops/index_list.h"
#include "dynet_core/ops/registry.h"

namespace dynet {

namespace {

struct HingeData {
  float margin;  // first: the signature bytes
  IndexList list;
};

Dim infer_hinge(const DimArgs& xs, const void* data) {
  return infer_class_targets(xs[0], static_cast<const HingeData*>(data)->list);
}

template <class F>
void for_each_hinge(const OpCall& c, F&& f) {
  for_each_class_target(
      c, "hinge", [&](unsigned j) -> const IndexList& { return c.op_data<HingeData>(j).list; },
      [&](unsigned j, unsigned b, unsigned v) { f(b, v, c.op_data<HingeData>(j).margin); });
}

void hinge_forward(const OpCall& c) {
  const unsigned n = c.xs[0].d.rows();
  for_each_hinge(c, [&](unsigned b, unsigned v, float m) {
    const float* x = c.xs[0].v + std::size_t(b) * n;
    float loss = 0;
    for (unsigned i = 0; i < n; ++i)
      if (i != v) loss += std::max(0.f, m - x[v] + x[i]);
    c.y.v[b] = loss;
  });
}
void hinge_backward(const OpCall& c, unsigned) {
  const unsigned n = c.xs[0].d.rows();
  for_each_hinge(c, [&](unsigned b, unsigned v, float m) {
    const float* x = c.xs[0].v + std::size_t(b) * n;
    float* dx = c.dx.v + std::size_t(b) * n;
    const float g = c.dy.v[b];
    for (unsigned i = 0; i < n; ++i)
      if (i != v && m - x[v] + x[i] > 0) {
        dx[i] += g;
        dx[v] -= g;
      }
  });
}
OpDef HingeOp{"hinge", 1, infer_hinge, hinge_forward, hinge_backward, kSavesInputs,
              {BatchRule::Concat, 0, false, sizeof(float)},
              {[](CheckCase& c) {
                const unsigned n = c.uniform(2, 5), bd = c.batch();
                const Expression x = c.input(Dim({n}, bd), -2, 2);
                const float m = c.real(0.5f, 1.5f);
                if (c.uniform(0, 1)) return hinge(x, c.uniform(0, n - 1), m);
                std::vector<unsigned> v(bd);
                for (unsigned& i : v) i = c.uniform(0, n - 1);
                return hinge(x, v, m);
              }}};

constexpr float kClamp = 1e-7f;

Dim infer_binary_log_loss(const DimArgs& xs, const void*) {
  dims::same_shape(xs);
  return Dim({1}, dims::batch(xs));
}
void binary_log_loss_forward(const OpCall& c) {
  const unsigned n = c.xs[0].d.batch_size();
  for (unsigned bi = 0; bi < c.y.d.bd; ++bi) {
    const float* x = c.xs[0].batch_ptr(bi);
    const float* t = c.xs[1].batch_ptr(bi);
    float loss = 0;
    for (unsigned e = 0; e < n; ++e) {
      const float p = std::min(1.f - kClamp, std::max(kClamp, x[e]));
      loss -= t[e] * std::log(p) + (1.f - t[e]) * std::log(1.f - p);
    }
    c.y.v[bi] = loss;
  }
}
void binary_log_loss_backward(const OpCall& c, unsigned i) {
  const unsigned n = c.xs[0].d.batch_size();
  for (unsigned bi = 0; bi < c.y.d.bd; ++bi) {
    const float* x = c.xs[0].batch_ptr(bi);
    const float* t = c.xs[1].batch_ptr(bi);
    float* dx = c.dx.batch_ptr(bi);
    const float g = c.dy.v[bi];
    for (unsigned e = 0; e < n; ++e) {
      const float p = std::min(1.f - kClamp, std::max(kClamp, x[e]));
      if (i == 0)
        dx[e] += g * ((1.f - t[e]) / (1.f - p) - t[e] / p);
      else
        dx[e] += g * (std::log(1.f - p) - std::log(p));
    }
  }
}
OpDef BinaryLogLossOp{"binary_log_loss", 2, infer_binary_log_loss, binary_log_loss_forward,
                      binary_log_loss_backward, kSavesInputs,
                      {BatchRule::Concat, 0, false, 0, BatchTraits::kAllArguments},
                      {[](CheckCase& c) {
                        const unsigned bd = c.batch();
                        const Dim d = c.shape(0, 2);
                        return binary_log_loss(c.input(d.with_batch(bd), 0.1f, 0.9f),
                                               c.input(d.with_batch(c.uniform(0, 1) ? bd : 1), 0.f, 1.f));
                      }}};

Expression hinge_node(const Expression& x, const IndexList& list, float m) {
  if (list.count == 0) throw std::invalid_argument("hinge: no classes given");
  ComputationGraph& g = graph_of(x, "hinge");
  return g.append(HingeOp, {x}, g.store(HingeData{m, list}));
}

}  // namespace

Expression hinge(const Expression& x, unsigned v, float m) {
  return hinge_node(x, stored_indices(graph_of(x, "hinge").store(v), 1), m);
}
Expression hinge(const Expression& x, const std::vector<unsigned>& v, float m) {
  return hinge_node(x, stored_indices(graph_of(x, "hinge").store_array(v.data(), v.size()), static_cast<unsigned>(v.size())),
                    m);
}
Expression hinge(const Expression& x, const unsigned* pv, float m) {
  if (!pv) throw std::invalid_argument("hinge: null pointer");
  return hinge_node(x, caller_index(pv), m);
}
Expression hinge(const Expression& x, const std::vector<unsigned>* pv, float m) {
  if (!pv) throw std::invalid_argument("hinge: null pointer");
  return hinge_node(x, caller_indices(pv), m);
}

Expression binary_log_loss(const Expression& x, const Expression& t) {
  return graph_of(x, "binary_log_loss").append(BinaryLogLossOp, {x, t});
}

void register_loss_ops() { register_ops({&HingeOp, &BinaryLogLossOp}); }

}  // namespace dynet
