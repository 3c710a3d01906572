#include "dynet_core/ops/arithmetic.h"

#include <cstring>

#include "dynet_core/graph.h"
#include "dynet_core/ops/accumulate.h"
#include "dynet_core/ops/broadcast.h"
#include "dynet_core/ops/called_as.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/dims.h"
#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/registry.h"

namespace dynet {

namespace {

Dim infer_broadcast(const DimArgs& xs, const void*) { return dims::broadcast(xs[0], xs[1]); }
// DyNet's Pow::dim_forward drops trailing dimensions of 1 (x {3, 1} to the power y gives {3}).
Dim infer_pow(const DimArgs& xs, const void*) { return dims::broadcast(xs[0], xs[1]).truncate(); }

// The row's ElementwiseRule runs: both arguments the size of y. Plain loops over restrict
// pointers, which the compiler vectorizes.
template <class R>
void binary_run(const void*, const float* const* xs, unsigned, float* y, std::size_t n) {
  const R r{};
  const float* __restrict a = xs[0];
  const float* __restrict b = xs[1];
  float* __restrict out = y;
  for (std::size_t e = 0; e < n; ++e) out[e] = r.f(a[e], b[e]);
}

template <class R>
void binary_run_gradient(const void*, unsigned i, const float* const* xs, unsigned, const float* y, const float* dy,
                         float* dx, std::size_t n, bool overwrite) {
  const R r{};
  const float* __restrict a = xs[0];
  const float* __restrict b = xs[1];
  if (i == 0)
    write_gradient(dx, n, overwrite, [&](std::size_t e) { return dy[e] * r.da(a[e], b[e], y[e]); });
  else
    write_gradient(dx, n, overwrite, [&](std::size_t e) { return dy[e] * r.db(a[e], b[e], y[e]); });
}

bool same_size_arguments(const OpCall& c) {
  const unsigned n = c.y.d.size();
  return c.xs[0].d.size() == n && c.xs[1].d.size() == n;
}

template <class R>
void binary_forward(const OpCall& c) {
  const float* xs[2] = {c.xs[0].v, c.xs[1].v};
  if (same_size_arguments(c)) return binary_run<R>(nullptr, xs, 2, c.y.v, c.y.d.size());
  const R r{};
  float* y = c.y.v;
  broadcast_each(c.y.d, c.xs[0].d, c.xs[1].d,
                 [&](unsigned iy, unsigned ia, unsigned ib) { y[iy] = r.f(xs[0][ia], xs[1][ib]); });
}

template <class R>
void binary_backward(const OpCall& c, unsigned i) {
  const float* xs[2] = {c.xs[0].v, c.xs[1].v};
  if (same_size_arguments(c))
    return binary_run_gradient<R>(nullptr, i, xs, 2, c.y.v, c.dy.v, c.dx.v, c.y.d.size(), c.overwrite);
  const R r{};
  const float* __restrict a = xs[0];
  const float* __restrict b = xs[1];
  const float* __restrict y = c.y.v;
  const float* __restrict dy = c.dy.v;
  float* __restrict dx = c.dx.v;
  if (c.overwrite) std::memset(dx, 0, c.dx.d.size() * sizeof(float));  // broadcast: sums into dx
  if (i == 0)
    broadcast_each(c.y.d, c.xs[0].d, c.xs[1].d,
                   [&](unsigned iy, unsigned ia, unsigned ib) { dx[ia] += dy[iy] * r.da(a[ia], b[ib], y[iy]); });
  else
    broadcast_each(c.y.d, c.xs[0].d, c.xs[1].d,
                   [&](unsigned iy, unsigned ia, unsigned ib) { dx[ib] += dy[iy] * r.db(a[ia], b[ib], y[iy]); });
}

template <class R>
constexpr OpDef binary_op(ElementwiseOp op, Saves saves, Expression (*check)(CheckCase&),
                          Dim (*infer)(const DimArgs&, const void*) = infer_broadcast) {
  return OpRow(elementwise_op_name(op))
      .arity(2)
      .infer(infer)
      .forward(binary_forward<R>)
      .backward(binary_backward<R>)
      .saves(saves)
      .batch(ConcatBatch().broadcasts_all())
      .check(check)
      .backward_overwrites()
      .elementwise(ElementwiseRule(op, binary_run<R>, binary_run_gradient<R>));
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

OpDef AddOp = binary_op<rules::Add>(ElementwiseOp::add, kSavesNothing, [](CheckCase& c) {
  auto p = broadcast_pair(c);
  return p.first + p.second;
});
OpDef SubtractOp = binary_op<rules::Subtract>(ElementwiseOp::subtract, kSavesNothing, [](CheckCase& c) {
  auto p = broadcast_pair(c);
  return p.first - p.second;
});
OpDef MultiplyOp = binary_op<rules::Multiply>(ElementwiseOp::cmult, kSavesInputs, [](CheckCase& c) {
  auto p = broadcast_pair(c);
  return cmult(p.first, p.second);
});
OpDef DivideOp = binary_op<rules::Divide>(ElementwiseOp::cdiv, kSavesBoth, [](CheckCase& c) {
  auto p = broadcast_pair(c, -1.5f, 1.5f, 0.5f, 2.f);
  return cdiv(p.first, p.second);
});
OpDef MinOp = binary_op<rules::Min>(ElementwiseOp::min, kSavesInputs, [](CheckCase& c) {
  auto p = broadcast_pair(c);
  return min(p.first, p.second);
});
OpDef MaxOp = binary_op<rules::Max>(ElementwiseOp::max, kSavesInputs, [](CheckCase& c) {
  auto p = broadcast_pair(c);
  return max(p.first, p.second);
});
OpDef PowOp = binary_op<rules::Pow>(
    ElementwiseOp::pow, kSavesBoth,
    [](CheckCase& c) {
      auto p = broadcast_pair(c, 0.5f, 2.f, -1.5f, 1.5f);
      return pow(p.first, p.second);
    },
    infer_pow);

Dim infer_sum(const DimArgs& xs, const void*) { return dims::same_shape(xs); }

/// y += x, or y = x; the batch of x broadcasts when it has one element.
void accumulate_batches(const Tensor& y, const Tensor& x, bool overwrite) {
  const unsigned per_batch = y.d.batch_size();
  const unsigned runs = x.d.bd == y.d.bd ? 1 : y.d.bd, run = x.d.bd == y.d.bd ? y.d.size() : per_batch;
  for (unsigned k = 0; k < runs; ++k) accumulate(y.v + std::size_t(k) * run, x.v, run, overwrite);
}

// The row's ElementwiseRule runs, every argument the size of y.
void sum_run(const void*, const float* const* xs, unsigned nargs, float* y, std::size_t n) {
  for (unsigned k = 0; k < nargs; ++k) accumulate(y, xs[k], n, k == 0);
}
void sum_run_gradient(const void*, unsigned, const float* const*, unsigned, const float*, const float* dy, float* dx,
                      std::size_t n, bool overwrite) {
  accumulate(dx, dy, n, overwrite);
}

void sum_forward(const OpCall& c) {
  for (unsigned k = 0; k < c.nargs; ++k) accumulate_batches(c.y, c.xs[k], k == 0);
}

void sum_backward(const OpCall& c, unsigned) {
  // dx += dy, summed over the batch when x was broadcast.
  if (c.dx.d.bd == c.dy.d.bd) {
    accumulate_batches(c.dx, c.dy, c.overwrite);
    return;
  }
  const unsigned per_batch = c.dx.d.size();
  if (c.overwrite) std::memset(c.dx.v, 0, per_batch * sizeof(float));
  for (unsigned bi = 0; bi < c.dy.d.bd; ++bi) accumulate(c.dx.v, c.dy.v + std::size_t(bi) * per_batch, per_batch);
}

OpDef SumOp = OpRow(elementwise_op_name(ElementwiseOp::sum))
                  .arity(-1)
                  .infer(infer_sum)
                  .forward(sum_forward)
                  .backward(sum_backward)
                  .saves(kSavesNothing)
                  .batch(ConcatBatch().broadcasts_all())
                  .check([](CheckCase& c) {
                    const unsigned bd = c.batch();
                    const Dim d = c.shape(0, 3);
                    std::vector<Expression> xs(c.uniform(2, 4));
                    for (Expression& x : xs) x = c.input(d.with_batch(c.uniform(0, 1) ? bd : 1));
                    return sum(xs);
                  })
                  .backward_overwrites()
                  .elementwise(ElementwiseRule(ElementwiseOp::sum, sum_run, sum_run_gradient));

}  // namespace

Expression operator+(const Expression& a, const Expression& b) {
  return called_as("operator+", [&] { return binary(AddOp, a, b); });
}
Expression operator-(const Expression& a, const Expression& b) {
  return called_as("operator-", [&] { return binary(SubtractOp, a, b); });
}
Expression cmult(const Expression& a, const Expression& b) { return binary(MultiplyOp, a, b); }
Expression cdiv(const Expression& a, const Expression& b) { return binary(DivideOp, a, b); }
Expression min(const Expression& a, const Expression& b) { return binary(MinOp, a, b); }
Expression max(const Expression& a, const Expression& b) { return binary(MaxOp, a, b); }
Expression pow(const Expression& a, const Expression& b) { return binary(PowOp, a, b); }

Expression colwise_add(const Expression& x, const Expression& bias) {
  return called_as("colwise_add", [&] {
    const Dim& b = bias.dim();
    if (b.ndims() > 1 && b.cols() != 1)
      throw std::invalid_argument("colwise_add: the bias must be a column vector, got " + to_string(b));
    if (b.rows() != x.dim().rows())
      throw std::invalid_argument("colwise_add: the bias has " + std::to_string(b.rows()) + " rows, x has dim " +
                                  to_string(x.dim()));
    return x + bias;
  });
}

Expression sum(ExpressionSpan xs) {
  if (xs.empty()) throw std::invalid_argument("sum: needs at least one expression");
  if (xs.size() == 1) return xs[0];
  return graph_of(xs[0], "sum").append(SumOp, xs.data(), static_cast<unsigned>(xs.size()), nullptr);
}

Expression average(ExpressionSpan xs) {
  if (xs.empty()) throw std::invalid_argument("average: needs at least one expression");
  return called_as("average", [&] { return sum(xs) * (1.f / static_cast<float>(xs.size())); });
}

void register_arithmetic_ops() {
#define DYBATCH_ROW(op, row) &row,
  register_ops({DYBATCH_ARITHMETIC_ELEMENTWISE_OPS(DYBATCH_ROW)});
#undef DYBATCH_ROW
}

}  // namespace dynet
