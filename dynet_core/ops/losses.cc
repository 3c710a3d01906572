#include "dynet_core/ops/losses.h"

#include <algorithm>
#include <cmath>

#include "dynet_core/graph.h"
#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/called_as.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/class_targets.h"
#include "dynet_core/ops/dims.h"
#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/index_list.h"
#include "dynet_core/ops/leaves.h"
#include "dynet_core/ops/linalg.h"
#include "dynet_core/ops/reductions.h"
#include "dynet_core/ops/registry.h"
#include "dynet_core/ops/shape.h"

namespace dynet {

namespace {

Dim infer_hinge(const DimArgs& xs, const void* data) {
  return infer_class_targets(xs[0], static_cast<const HingeData*>(data)->list);
}

void hinge_check(const OpCall& c) {
  check_class_targets(
      c, [&](unsigned j) { return c.op_data<HingeData>(j).function; },
      [&](unsigned j) -> const IndexList& { return c.op_data<HingeData>(j).list; });
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
OpDef HingeOp = OpRow("hinge")
                    .arity(1)
                    .infer(infer_hinge)
                    .forward(hinge_forward)
                    .host_check(hinge_check)
                    .backward(hinge_backward)
                    .saves(kSavesInputs)
                    .batch(ConcatBatch().sig_bytes(sizeof(float)))
                    .check([](CheckCase& c) {
                      const unsigned n = c.uniform(2, 5), bd = c.batch();
                      const Expression x = c.input(Dim({n}, bd), -2, 2);
                      const float m = c.real(0.5f, 1.5f);
                      if (c.uniform(0, 1)) return hinge(x, c.uniform(0, n - 1), m);
                      std::vector<unsigned> v(bd);
                      for (unsigned& i : v) i = c.uniform(0, n - 1);
                      return hinge(x, v, m);
                    });

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
    for (unsigned e = 0; e < n; ++e) loss += log_loss_term(x[e], t[e]);
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
    for (unsigned e = 0; e < n; ++e) dx[e] += g * (i == 0 ? log_loss_dx(x[e], t[e]) : log_loss_dt(x[e]));
  }
}
OpDef BinaryLogLossOp = OpRow("binary_log_loss")
                            .arity(2)
                            .infer(infer_binary_log_loss)
                            .forward(binary_log_loss_forward)
                            .backward(binary_log_loss_backward)
                            .saves(kSavesInputs)
                            .batch(ConcatBatch().broadcasts_all())
                            .check([](CheckCase& c) {
                              const unsigned bd = c.batch();
                              const Dim d = c.shape(0, 2);
                              return binary_log_loss(c.input(d.with_batch(bd), 0.1f, 0.9f),
                                                     c.input(d.with_batch(c.uniform(0, 1) ? bd : 1), 0.f, 1.f));
                            });

Dim infer_poisson(const DimArgs& xs, const void*) {
  if (xs[0].batch_size() != 1) dims::fail("x must hold one value per batch element, got " + to_string(xs[0]));
  return xs[0];
}
void poisson_forward(const OpCall& c) {
  for_each_count(c, [&](unsigned b, float y) {
    const float x = c.xs[0].v[b];
    c.y.v[b] = std::exp(x) - y * x + std::lgamma(y + 1.f);
  });
}
void poisson_backward(const OpCall& c, unsigned) {
  for_each_count(c, [&](unsigned b, float y) { c.dx.v[b] += c.dy.v[b] * (std::exp(c.xs[0].v[b]) - y); });
}
OpDef PoissonLossOp =
    OpRow("poisson_loss")
        .arity(1)
        .infer(infer_poisson)
        .forward(poisson_forward)
        .backward(poisson_backward)
        .saves(kSavesInputs)
        .batch(ConcatBatch())
        .check([](CheckCase& c) { return poisson_loss(c.input(Dim({1}, c.batch()), -1.f, 2.f), c.uniform(0, 6)); });

Expression hinge_node(const char* function, const Expression& x, const IndexList& list, float m) {
  if (list.count == 0) throw std::invalid_argument(std::string(function) + ": no classes given");
  ComputationGraph& g = graph_of(x, function);
  return g.append(HingeOp, {x}, g.store(HingeData{m, list, function}));
}

}  // namespace

Expression hinge(const Expression& x, unsigned v, float m) {
  return hinge_node("hinge", x, stored_index(graph_of(x, "hinge").store(v)), m);
}
Expression hinge(const Expression& x, const std::vector<unsigned>& v, float m) {
  return hinge_node(
      "hinge", x, stored_indices(graph_of(x, "hinge").store_array(v.data(), v.size()), static_cast<unsigned>(v.size())),
      m);
}
Expression hinge(const Expression& x, const unsigned* pv, float m) {
  if (!pv) throw std::invalid_argument("hinge: null pointer");
  return hinge_node("hinge", x, caller_index(pv), m);
}
Expression hinge(const Expression& x, const std::vector<unsigned>* pv, float m) {
  if (!pv) throw std::invalid_argument("hinge: null pointer");
  return hinge_node("hinge", x, caller_indices(pv), m);
}

void set_hinge_indices(const Expression& x, const std::vector<unsigned>& v) {
  const Node& n = node_of(x, {&HingeOp}, "set_hinge_indices");
  HingeData& h = *static_cast<HingeData*>(const_cast<void*>(n.data));
  h.list.overwrite("set_hinge_indices", v, x.pg->node(n.arg(0)).dim.rows(), "the classes");
  x.pg->invalidate();
}

Expression binary_log_loss(const Expression& x, const Expression& t) {
  return graph_of(x, "binary_log_loss").append(BinaryLogLossOp, {x, t});
}

namespace {

/// x with the scores of each column (d = 0) or row (d = 1) as one batch element each:
/// {scores} x (lines * batch).
Expression lines_as_batch(const Expression& x, unsigned d) {
  const Dim xd = x.dim();
  if (xd.ndims() > 2 || d > 1)
    throw std::invalid_argument("hinge_dim: x must be a matrix and d 0 or 1, got x " + to_string(xd) + " and d " +
                                std::to_string(d));
  const Expression scores = d == 0 ? x : transpose(x);
  const Dim sd = scores.dim();
  return reshape(scores, Dim({sd.rows()}, sd.cols() * sd.bd));
}
Expression per_line(const Expression& losses, const Expression& x, unsigned d) {
  const Dim xd = x.dim();
  return reshape(losses, Dim({d == 0 ? xd.cols() : xd.rows()}, xd.bd));
}
void require_count(std::size_t given, const Expression& lines, const char* what) {
  if (given != lines.dim().bd)
    throw std::invalid_argument(std::string("hinge_dim: ") + std::to_string(given) + " " + what + " given for " +
                                std::to_string(lines.dim().bd) + " lines of scores");
}

}  // namespace

Expression hinge_dim(const Expression& x, const std::vector<unsigned>& indices, unsigned d, float m) {
  return called_as("hinge_dim", [&] {
    const Expression lines = lines_as_batch(x, d);
    std::vector<unsigned> all;
    for (unsigned b = 0; b < x.dim().bd; ++b) all.insert(all.end(), indices.begin(), indices.end());
    require_count(all.size(), lines, "indices (repeated for every batch element)");
    return per_line(hinge(lines, all, m), x, d);
  });
}
Expression hinge_dim(const Expression& x, const std::vector<unsigned>* pindices, unsigned d, float m) {
  if (!pindices) throw std::invalid_argument("hinge_dim: null pointer");
  return called_as("hinge_dim", [&] {
    const Expression lines = lines_as_batch(x, d);
    require_count(pindices->size(), lines, "indices (x must not be batched)");
    return per_line(hinge_node("hinge_dim", lines, caller_indices(pindices), m), x, d);
  });
}
Expression hinge_dim(const Expression& x, const std::vector<std::vector<unsigned>>& indices, unsigned d, float m) {
  return called_as("hinge_dim", [&] {
    const Expression lines = lines_as_batch(x, d);
    std::vector<unsigned> all;
    for (const auto& v : indices) all.insert(all.end(), v.begin(), v.end());
    require_count(all.size(), lines, "indices (one vector per batch element)");
    return per_line(hinge(lines, all, m), x, d);
  });
}
Expression hinge_dim(const Expression& x, const std::vector<std::vector<unsigned>>* pindices, unsigned d, float m) {
  if (!pindices) throw std::invalid_argument("hinge_dim: null pointer");
  return called_as("hinge_dim", [&] {
    const Expression lines = lines_as_batch(x, d);
    std::size_t total = 0;
    for (const auto& v : *pindices) total += v.size();
    require_count(total, lines, "indices (one vector per batch element)");
    const auto count = static_cast<unsigned>(total);
    unsigned* flat = graph_of(x, "hinge_dim").arena_array<unsigned>(count);
    return per_line(hinge_node("hinge_dim", lines, caller_nested_indices(pindices, flat, count), m), x, d);
  });
}

namespace {
/// Checks that x and y have one shape (their batch sizes 1 or the same).
void require_same_shape(const char* op, const Expression& x, const Expression& y) {
  const Dim a = x.dim(), b = y.dim();
  if (!a.same_shape(b) || (a.bd != b.bd && a.bd != 1 && b.bd != 1))
    throw std::invalid_argument(std::string(op) + ": x " + to_string(a) + " and y " + to_string(b) +
                                " must have one shape, with batch sizes 1 or the same");
}
}  // namespace

Expression l1_distance(const Expression& x, const Expression& y) {
  return called_as("l1_distance", [&] {
    require_same_shape("l1_distance", x, y);
    return sum_elems(abs(x - y));
  });
}
Expression huber_distance(const Expression& x, const Expression& y, float c) {
  return called_as("huber_distance", [&] {
    require_same_shape("huber_distance", x, y);
    if (!(c > 0.f)) throw std::invalid_argument("huber_distance: c " + std::to_string(c) + " must be > 0");
    // DyNet's (FHuberForward): a^2 below c and c (2a - c) from c on, twice the textbook loss; with
    // a = |x - y| and m = min(a, c) that is m (2a - m).
    const Expression a = abs(x - y);
    const Expression m = min(a, constant(*x.pg, a.dim(), c));
    return sum_elems(cmult(m, 2.f * a - m));
  });
}
Expression pairwise_rank_loss(const Expression& x, const Expression& y, float m) {
  return called_as("pairwise_rank_loss", [&] {
    require_same_shape("pairwise_rank_loss", x, y);
    if (x.dim().rows() != 1 || x.dim().ndims() > 2)
      throw std::invalid_argument("pairwise_rank_loss: x and y must be row vectors {1, n}, got " + to_string(x.dim()));
    return rectify(m - x + y);
  });
}
Expression poisson_loss(const Expression& x, unsigned y) {
  ComputationGraph& g = graph_of(x, "poisson_loss");
  return g.append(PoissonLossOp, {x}, g.store(PoissonData{stored_index(g.store(y))}));
}
Expression poisson_loss(const Expression& x, const unsigned* py) {
  if (!py) throw std::invalid_argument("poisson_loss: null pointer");
  ComputationGraph& g = graph_of(x, "poisson_loss");
  return g.append(PoissonLossOp, {x}, g.store(PoissonData{caller_index(py)}));
}

void register_loss_ops() { register_ops({&HingeOp, &BinaryLogLossOp, &PoissonLossOp}); }

}  // namespace dynet
