#include "dynet_core/ops/arithmetic.h"

#include <cstring>

#include "dynet_core/graph.h"
#include "dynet_core/ops/broadcast.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/dims.h"
#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/registry.h"

namespace dynet {

namespace {

Dim infer_broadcast(const DimArgs& xs, const void*) { return dims::broadcast(xs[0], xs[1]); }

template <class R>
void binary_forward(const OpCall& c) {
  const R r{};
  const float* a = c.xs[0].v;
  const float* b = c.xs[1].v;
  float* y = c.y.v;
  broadcast_each(c.y.d, c.xs[0].d, c.xs[1].d,
                 [&](unsigned iy, unsigned ia, unsigned ib) { y[iy] = r.f(a[ia], b[ib]); });
}

template <class R>
void binary_backward(const OpCall& c, unsigned i) {
  const R r{};
  const float* a = c.xs[0].v;
  const float* b = c.xs[1].v;
  const float* y = c.y.v;
  const float* dy = c.dy.v;
  float* dx = c.dx.v;
  if (i == 0)
    broadcast_each(c.y.d, c.xs[0].d, c.xs[1].d, [&](unsigned iy, unsigned ia, unsigned ib) {
      dx[ia] += dy[iy] * r.da(a[ia], b[ib], y[iy]);
    });
  else
    broadcast_each(c.y.d, c.xs[0].d, c.xs[1].d, [&](unsigned iy, unsigned ia, unsigned ib) {
      dx[ib] += dy[iy] * r.db(a[ia], b[ib], y[iy]);
    });
}

template <class R>
OpDef binary_op(const char* name, Saves saves, Expression (*check)(CheckCase&)) {
  return OpDef{name, 2, infer_broadcast, binary_forward<R>, binary_backward<R>, saves,
               {BatchRule::Concat}, {check}};
}

Expression binary(const OpDef& op, const Expression& a, const Expression& b) {
  return graph_of(a, op.name).append(op, {a, b});
}

/// Two inputs that broadcast against each other: some dimensions (or the batch) are 1 on one side.
std::pair<Expression, Expression> broadcast_pair(CheckCase& c, float lo_a = -1.5f, float hi_a = 1.5f,
                                                 float lo_b = -1.5f, float hi_b = 1.5f) {
  const unsigned bd = c.batch();
  Dim a = c.shape(1, 3, bd), b = a;
  for (unsigned k = 0; k < a.ndims(); ++k)
    if (c.uniform(0, 3) == 0) (c.uniform(0, 1) ? a : b).d[k] = 1;
  if (bd > 1 && c.uniform(0, 2) == 0) (c.uniform(0, 1) ? a : b).bd = 1;
  return {c.input(a, lo_a, hi_a), c.input(b, lo_b, hi_b)};
}

OpDef AddOp = binary_op<rules::Add>("add", kSavesNothing, [](CheckCase& c) {
  auto p = broadcast_pair(c);
  return p.first + p.second;
});
OpDef SubtractOp = binary_op<rules::Subtract>("subtract", kSavesNothing, [](CheckCase& c) {
  auto p = broadcast_pair(c);
  return p.first - p.second;
});
OpDef MultiplyOp = binary_op<rules::Multiply>("cmult", kSavesInputs, [](CheckCase& c) {
  auto p = broadcast_pair(c);
  return cmult(p.first, p.second);
});
OpDef DivideOp = binary_op<rules::Divide>("cdiv", kSavesBoth, [](CheckCase& c) {
  auto p = broadcast_pair(c, -1.5f, 1.5f, 0.5f, 2.f);
  return cdiv(p.first, p.second);
});
OpDef MinOp = binary_op<rules::Min>("min", kSavesInputs, [](CheckCase& c) {
  auto p = broadcast_pair(c);
  return min(p.first, p.second);
});
OpDef MaxOp = binary_op<rules::Max>("max", kSavesInputs, [](CheckCase& c) {
  auto p = broadcast_pair(c);
  return max(p.first, p.second);
});
OpDef PowOp = binary_op<rules::Pow>("pow", kSavesBoth, [](CheckCase& c) {
  auto p = broadcast_pair(c, 0.5f, 2.f, -1.5f, 1.5f);
  return pow(p.first, p.second);
});

Dim infer_sum(const DimArgs& xs, const void*) { return dims::same_shape(xs); }

void sum_forward(const OpCall& c) {
  const unsigned per_batch = c.y.d.batch_size();
  for (unsigned bi = 0; bi < c.y.d.bd; ++bi) {
    float* y = c.y.v + bi * per_batch;
    std::memcpy(y, c.xs[0].batch_ptr(bi), per_batch * sizeof(float));
    for (unsigned k = 1; k < c.nargs; ++k) {
      const float* x = c.xs[k].batch_ptr(bi);
      for (unsigned e = 0; e < per_batch; ++e) y[e] += x[e];
    }
  }
}

void sum_backward(const OpCall& c, unsigned) {
  const unsigned per_batch = c.y.d.batch_size();
  for (unsigned bi = 0; bi < c.y.d.bd; ++bi) {
    const float* dy = c.dy.v + bi * per_batch;
    float* dx = c.dx.batch_ptr(bi);
    for (unsigned e = 0; e < per_batch; ++e) dx[e] += dy[e];
  }
}

OpDef SumOp{"sum", -1, infer_sum, sum_forward, sum_backward, kSavesNothing, {BatchRule::Concat},
            {[](CheckCase& c) {
              const unsigned bd = c.batch();
              const Dim d = c.shape(0, 3);
              std::vector<Expression> xs(c.uniform(2, 4));
              for (Expression& x : xs) x = c.input(d.with_batch(c.uniform(0, 1) ? bd : 1));
              return sum(xs);
            }}};

}  // namespace

Expression operator+(const Expression& a, const Expression& b) { return binary(AddOp, a, b); }
Expression operator-(const Expression& a, const Expression& b) { return binary(SubtractOp, a, b); }
Expression cmult(const Expression& a, const Expression& b) { return binary(MultiplyOp, a, b); }
Expression cdiv(const Expression& a, const Expression& b) { return binary(DivideOp, a, b); }
Expression min(const Expression& a, const Expression& b) { return binary(MinOp, a, b); }
Expression max(const Expression& a, const Expression& b) { return binary(MaxOp, a, b); }
Expression pow(const Expression& a, const Expression& b) { return binary(PowOp, a, b); }

Expression colwise_add(const Expression& x, const Expression& bias) {
  const Dim& b = bias.dim();
  if (b.ndims() > 1 && b.cols() != 1)
    throw std::invalid_argument("colwise_add: the bias must be a column vector, got " + to_string(b));
  if (b.rows() != x.dim().rows())
    throw std::invalid_argument("colwise_add: the bias has " + std::to_string(b.rows()) +
                                " rows, x has dim " + to_string(x.dim()));
  return x + bias;
}

Expression sum(ExpressionSpan xs) {
  if (xs.empty()) throw std::invalid_argument("sum: needs at least one expression");
  if (xs.size() == 1) return xs[0];
  return graph_of(xs[0], "sum").append(SumOp, xs.data(), static_cast<unsigned>(xs.size()), nullptr);
}

Expression average(ExpressionSpan xs) {
  if (xs.empty()) throw std::invalid_argument("average: needs at least one expression");
  return sum(xs) * (1.f / static_cast<float>(xs.size()));
}

void register_arithmetic_ops() {
  register_ops({&AddOp, &SubtractOp, &MultiplyOp, &DivideOp, &MinOp, &MaxOp, &PowOp, &SumOp});
}

}  // namespace dynet
