#include "dynet_core/ops/reductions.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "dynet_core/graph.h"
#include "dynet_core/ops/accumulate.h"
#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/broadcast.h"
#include "dynet_core/ops/called_as.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/dims.h"
#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/registry.h"
#include "dynet_core/ops/shape.h"
#include "dynet_core/tensor_eigen.h"

namespace dynet {

namespace {

Expression any_input(CheckCase& c) { return c.input(c.shape(0, 3, c.batch())); }

Dim scalar_per_batch(const DimArgs& xs, const void*) { return Dim({1}, dims::batch(xs)); }

void sum_elems_forward(const OpCall& c) { eig::vec(c.y) = eig::batch_cols(c.xs[0]).colwise().sum().transpose(); }
void sum_elems_backward(const OpCall& c, unsigned) { eig::batch_cols(c.dx).rowwise() += eig::vec(c.dy).transpose(); }
OpDef SumElemsOp = OpRow("sum_elems")
                       .arity(1)
                       .infer(scalar_per_batch)
                       .forward(sum_elems_forward)
                       .backward(sum_elems_backward)
                       .saves(kSavesNothing)
                       .batch(ConcatBatch())
                       .check([](CheckCase& c) { return sum_elems(any_input(c)); });

// A group of n nodes reduces n runs of batch elements: y_j = sum of x over run j.
Dim infer_sum_batches(const DimArgs& xs, const void*) { return xs[0].with_batch(1); }
void sum_batches_forward(const OpCall& c) {
  const unsigned run = c.xs[0].d.bd / c.y.d.bd, n = c.y.d.batch_size();
  for (unsigned j = 0; j < c.y.d.bd; ++j)
    eig::Vector(c.y.v + j * n, n) = eig::Matrix(c.xs[0].v + j * n * run, n, run).rowwise().sum();
}
void sum_batches_backward(const OpCall& c, unsigned) {
  const unsigned run = c.xs[0].d.bd / c.y.d.bd, n = c.y.d.batch_size();
  for (unsigned j = 0; j < c.y.d.bd; ++j)
    eig::Matrix(c.dx.v + j * n * run, n, run).colwise() += eig::Vector(c.dy.v + j * n, n);
}
OpDef SumBatchesOp = OpRow("sum_batches")
                         .arity(1)
                         .infer(infer_sum_batches)
                         .forward(sum_batches_forward)
                         .backward(sum_batches_backward)
                         .saves(kSavesNothing)
                         .batch(ConcatBatch())
                         .check([](CheckCase& c) { return sum_batches(c.input(c.shape(0, 3, c.uniform(1, 4)))); });

Dim infer_sum_dim(const DimArgs& xs, const void* data) {
  const SumDimData& s = *static_cast<const SumDimData*>(data);
  // As DyNet's SumDimension and MomentDimension (Dim::delete_dims): every dimension summed is x's.
  Dim y = xs[0];
  for (unsigned k = Dim::kMaxDims; k-- > 0;)
    if ((s.mask >> k) & 1u) {
      dims::require_has_dim(xs[0], k);
      y.delete_dim(k);
    }
  if (s.batch) y.bd = 1;
  return y;
}

/// Calls f(ix, iy) for every element of x, iy being the element of y it sums into. A group of
/// nodes that sums over the batch maps run j of batch elements to y's batch element j.
template <class F>
void for_each_summed(const Dim& x, const Dim& y, unsigned mask, F&& f) {
  unsigned ystride[Dim::kMaxDims];
  unsigned s = 1;
  for (unsigned k = 0; k < Dim::kMaxDims; ++k) {
    ystride[k] = ((mask >> k) & 1u) ? 0 : s;
    if (!((mask >> k) & 1u)) s *= x[k];
  }
  const unsigned per_batch = x.batch_size(), run = x.bd / y.bd;
  unsigned idx[Dim::kMaxDims] = {};
  unsigned off = 0;
  for (unsigned e = 0; e < per_batch; ++e) {
    for (unsigned bi = 0; bi < x.bd; ++bi) f(bi * per_batch + e, (bi / run) * y.batch_size() + off);
    for (unsigned k = 0; k < Dim::kMaxDims; ++k) {
      off += ystride[k];
      if (++idx[k] < x[k]) break;
      off -= ystride[k] * x[k];
      idx[k] = 0;
    }
  }
}

void sum_dim_forward(const OpCall& c) {
  const float* x = c.xs[0].v;
  float* y = c.y.v;
  std::memset(y, 0, c.y.d.size() * sizeof(float));
  for_each_summed(c.xs[0].d, c.y.d, c.op_data<SumDimData>().mask, [&](unsigned ix, unsigned iy) { y[iy] += x[ix]; });
}
void sum_dim_backward(const OpCall& c, unsigned) {
  const float* dy = c.dy.v;
  float* dx = c.dx.v;
  for_each_summed(c.xs[0].d, c.y.d, c.op_data<SumDimData>().mask, [&](unsigned ix, unsigned iy) { dx[ix] += dy[iy]; });
}
OpDef SumDimOp = OpRow("sum_dim")
                     .arity(1)
                     .infer(infer_sum_dim)
                     .forward(sum_dim_forward)
                     .backward(sum_dim_backward)
                     .saves(kSavesNothing)
                     .batch(ConcatBatch().sig_bytes(sizeof(SumDimData)))
                     .check([](CheckCase& c) {
                       const Dim d = c.shape(2, 3, c.batch());
                       std::vector<unsigned> dims{c.uniform(0, 1)};
                       if (d.ndims() == 3 && c.uniform(0, 1)) dims.push_back(2);
                       return sum_dim(c.input(d), dims, c.uniform(0, 1) == 1);
                     });

Dim infer_moment(const DimArgs& xs, const void* data) {
  const MomentData& m = *static_cast<const MomentData*>(data);
  if (m.r < 1) dims::fail("the order of the moment must be at least 1, got " + std::to_string(m.r));
  return infer_sum_dim(xs, &m.sum);
}

void moment_forward(const OpCall& c) {
  const MomentData& m = c.op_data<MomentData>();
  const float s = moment_scale(c.xs[0].d, c.y.d, m);
  const float* x = c.xs[0].v;
  float* y = c.y.v;
  std::memset(y, 0, c.y.d.size() * sizeof(float));
  for_each_summed(c.xs[0].d, c.y.d, m.sum.mask, [&](unsigned ix, unsigned iy) { y[iy] += s * power(x[ix], m.r); });
}
void moment_backward(const OpCall& c, unsigned) {
  const MomentData& m = c.op_data<MomentData>();
  if (m.r == 0) return;
  const float s = m.r * moment_scale(c.xs[0].d, c.y.d, m);
  const float* x = c.xs[0].v;
  const float* dy = c.dy.v;
  float* dx = c.dx.v;
  for_each_summed(c.xs[0].d, c.y.d, m.sum.mask,
                  [&](unsigned ix, unsigned iy) { dx[ix] += s * dy[iy] * power(x[ix], m.r - 1); });
}
OpDef MomentDimOp =
    OpRow("moment_dim")
        .arity(1)
        .infer(infer_moment)
        .forward(moment_forward)
        .backward(moment_backward)
        .saves(kSavesInputs)
        .batch(ConcatBatch().sig_bytes(sizeof(MomentData)))
        .check([](CheckCase& c) {
          const Dim d = c.shape(1, 3, c.batch());
          std::vector<unsigned> dims;  // any subset, the empty one too
          for (unsigned k = 0; k < d.ndims(); ++k)
            if (c.uniform(0, 1)) dims.push_back(k);
          return moment_dim(c.input(d), dims, c.uniform(1, 3), c.uniform(0, 1) == 1, c.uniform(0, 1) * 5);
        });

void cumsum_forward(const OpCall& c) {
  const AlongDim a(c.xs[0].d, c.op_data<unsigned>());
  const float* x = c.xs[0].v;
  for (unsigned k = 0; k < a.post; ++k)
    for (unsigned i = 0; i < a.pre; ++i) {
      float s = 0;
      for (unsigned j = 0; j < a.len; ++j) c.y.v[a.at(i, j, k)] = s += x[a.at(i, j, k)];
    }
}
void cumsum_backward(const OpCall& c, unsigned) {
  const AlongDim a(c.y.d, c.op_data<unsigned>());
  for (unsigned k = 0; k < a.post; ++k)
    for (unsigned i = 0; i < a.pre; ++i) {
      float s = 0;
      for (unsigned j = a.len; j-- > 0;) c.dx.v[a.at(i, j, k)] += s += c.dy.v[a.at(i, j, k)];
    }
}
Dim infer_cumsum(const DimArgs& xs, const void* data) {
  const unsigned d = *static_cast<const unsigned*>(data);
  dims::require_dim_index(d);
  // As DyNet's CumulativeSum: d may be one past x's dimensions, a dimension of size 1.
  if (d > dims::dynet_nd(xs[0]))
    dims::fail("dimension " + std::to_string(d) + " is past the input's " + std::to_string(dims::dynet_nd(xs[0])) +
               " dimensions (input " + to_string(xs[0]) + ")");
  return xs[0];
}
OpDef CumsumOp = OpRow("cumsum")
                     .arity(1)
                     .infer(infer_cumsum)
                     .forward(cumsum_forward)
                     .backward(cumsum_backward)
                     .saves(kSavesNothing)
                     .batch(ConcatBatch().sig_bytes(sizeof(unsigned)))
                     .check([](CheckCase& c) {
                       const Dim d = c.shape(1, 3, c.batch());
                       return cumsum(c.input(d), c.uniform(0, d.ndims()));
                     });

void squared_norm_forward(const OpCall& c) {
  eig::vec(c.y) = eig::batch_cols(c.xs[0]).colwise().squaredNorm().transpose();
}
void squared_norm_backward(const OpCall& c, unsigned) {
  eig::Matrix dx = eig::batch_cols(c.dx);
  dx += 2.f * (eig::batch_cols(c.xs[0]).array().rowwise() * eig::vec(c.dy).transpose().array()).matrix();
}
OpDef SquaredNormOp = OpRow("squared_norm")
                          .arity(1)
                          .infer(scalar_per_batch)
                          .forward(squared_norm_forward)
                          .backward(squared_norm_backward)
                          .saves(kSavesInputs)
                          .batch(ConcatBatch())
                          .check([](CheckCase& c) { return squared_norm(any_input(c)); });

Dim infer_dot(const DimArgs& xs, const void*) {
  dims::same_shape(xs);
  return Dim({1}, dims::batch(xs));
}
void dot_forward(const OpCall& c) {
  for (unsigned bi = 0; bi < c.y.d.bd; ++bi)
    c.y.v[bi] = eig::Vector(c.xs[0].batch_ptr(bi), c.xs[0].d.batch_size())
                    .dot(eig::Vector(c.xs[1].batch_ptr(bi), c.xs[1].d.batch_size()));
}
void dot_backward(const OpCall& c, unsigned i) {
  const Tensor& other = c.xs[1 - i];
  const unsigned n = other.d.batch_size();
  for (unsigned bi = 0; bi < c.y.d.bd; ++bi)
    eig::Vector(c.dx.batch_ptr(bi), n) += c.dy.v[bi] * eig::Vector(other.batch_ptr(bi), n);
}
OpDef DotProductOp =
    OpRow("dot_product")
        .arity(2)
        .infer(infer_dot)
        .forward(dot_forward)
        .backward(dot_backward)
        .saves(kSavesInputs)
        .batch(ConcatBatch().broadcasts_all())
        .check([](CheckCase& c) {
          const unsigned bd = c.batch();
          const Dim d = c.shape(1, 2);
          return dot_product(c.input(d.with_batch(bd)), c.input(d.with_batch(c.uniform(0, 1) ? bd : 1)));
        });

// DyNet's LogSumExp::dim_forward drops trailing dimensions of 1.
Dim infer_logsumexp(const DimArgs& xs, const void*) { return dims::same_shape(xs).truncate(); }
// The row's ElementwiseRule runs; the kernels run them per batch element, where an argument of
// one batch element is broadcast.
void logsumexp_run(const void*, const float* const* xs, unsigned nargs, float* y, std::size_t n) {
  for (std::size_t e = 0; e < n; ++e) y[e] = logsumexp_of(nargs, [&](unsigned k) { return xs[k][e]; });
}
void logsumexp_run_gradient(const void*, unsigned i, const float* const* xs, unsigned, const float* y, const float* dy,
                            float* dx, std::size_t n, bool overwrite) {
  const float* x = xs[i];
  write_gradient(dx, n, overwrite, [&](std::size_t e) { return dy[e] * std::exp(x[e] - y[e]); });
}
/// The arguments' batch element bi (their only one when broadcast).
void batch_pointers(const OpCall& c, unsigned bi, const float** xs) {
  for (unsigned k = 0; k < c.nargs; ++k) xs[k] = c.xs[k].batch_ptr(bi);
}
void logsumexp_forward(const OpCall& c) {
  const unsigned n = c.y.d.batch_size();
  const float** xs = c.scratch->allocate_array<const float*>(c.nargs);
  for (unsigned bi = 0; bi < c.y.d.bd; ++bi) {
    batch_pointers(c, bi, xs);
    logsumexp_run(nullptr, xs, c.nargs, c.y.v + bi * n, n);
  }
}
void logsumexp_backward(const OpCall& c, unsigned i) {
  const unsigned n = c.y.d.batch_size();
  const float** xs = c.scratch->allocate_array<const float*>(c.nargs);
  for (unsigned bi = 0; bi < c.y.d.bd; ++bi) {
    batch_pointers(c, bi, xs);
    logsumexp_run_gradient(nullptr, i, xs, c.nargs, c.y.v + bi * n, c.dy.v + bi * n, c.dx.batch_ptr(bi), n, false);
  }
}
OpDef LogSumExpOp = OpRow(elementwise_op_name(ElementwiseOp::logsumexp))
                        .arity(-1)
                        .infer(infer_logsumexp)
                        .forward(logsumexp_forward)
                        .backward(logsumexp_backward)
                        .saves(kSavesBoth)
                        .batch(ConcatBatch().broadcasts_all())
                        .check([](CheckCase& c) {
                          const unsigned bd = c.batch();
                          const Dim d = c.shape(0, 2);
                          std::vector<Expression> xs(c.uniform(2, 3));
                          for (Expression& x : xs) x = c.input(d.with_batch(c.uniform(0, 1) ? bd : 1), -3, 3);
                          return logsumexp(xs);
                        })
                        .elementwise(ElementwiseRule(ElementwiseOp::logsumexp, logsumexp_run, logsumexp_run_gradient));

Dim remove_dim(const DimArgs& xs, const void* data) {
  const unsigned d = *static_cast<const unsigned*>(data);
  // As DyNet's max_dim, min_dim and logsumexp_dim: the input has the dimension reduced.
  dims::require_has_dim(xs[0], d);
  Dim y = xs[0];
  y.delete_dim(d);
  return y;
}

void logsumexp_dim_forward(const OpCall& c) {
  const AlongDim a(c.xs[0].d, c.op_data<unsigned>());
  const float* x = c.xs[0].v;
  for (unsigned k = 0; k < a.post; ++k)
    for (unsigned i = 0; i < a.pre; ++i)
      c.y.v[i + a.pre * k] = logsumexp_of(a.len, [&](unsigned j) { return x[a.at(i, j, k)]; });
}
void logsumexp_dim_backward(const OpCall& c, unsigned) {
  const AlongDim a(c.xs[0].d, c.op_data<unsigned>());
  const float* x = c.xs[0].v;
  for (unsigned k = 0; k < a.post; ++k)
    for (unsigned i = 0; i < a.pre; ++i) {
      const unsigned iy = i + a.pre * k;
      for (unsigned j = 0; j < a.len; ++j) c.dx.v[a.at(i, j, k)] += c.dy.v[iy] * std::exp(x[a.at(i, j, k)] - c.y.v[iy]);
    }
}
OpDef LogSumExpDimOp = OpRow("logsumexp_dim")
                           .arity(1)
                           .infer(remove_dim)
                           .forward(logsumexp_dim_forward)
                           .backward(logsumexp_dim_backward)
                           .saves(kSavesBoth)
                           .batch(ConcatBatch().sig_bytes(sizeof(unsigned)))
                           .check([](CheckCase& c) {
                             const Dim d = c.shape(1, 3, c.batch());
                             return logsumexp_dim(c.input(d, -3, 3), c.uniform(0, d.ndims() - 1));
                           });

/// The index along the reduced dimension of the first element equal to the output.
template <class Better>
unsigned extreme_index(const float* x, const AlongDim& a, unsigned i, unsigned k, Better better) {
  unsigned best = 0;
  for (unsigned j = 1; j < a.len; ++j)
    if (better(x[a.at(i, j, k)], x[a.at(i, best, k)])) best = j;
  return best;
}

template <class Better>
void extreme_forward(const OpCall& c) {
  const AlongDim a(c.xs[0].d, c.op_data<unsigned>());
  for (unsigned k = 0; k < a.post; ++k)
    for (unsigned i = 0; i < a.pre; ++i)
      c.y.v[i + a.pre * k] = c.xs[0].v[a.at(i, extreme_index(c.xs[0].v, a, i, k, Better()), k)];
}
template <class Better>
void extreme_backward(const OpCall& c, unsigned) {
  const AlongDim a(c.xs[0].d, c.op_data<unsigned>());
  for (unsigned k = 0; k < a.post; ++k)
    for (unsigned i = 0; i < a.pre; ++i)
      c.dx.v[a.at(i, extreme_index(c.xs[0].v, a, i, k, Better()), k)] += c.dy.v[i + a.pre * k];
}
struct Greater {
  bool operator()(float a, float b) const { return a > b; }
};
struct Less {
  bool operator()(float a, float b) const { return a < b; }
};
OpDef MaxDimOp = OpRow("max_dim")
                     .arity(1)
                     .infer(remove_dim)
                     .forward(extreme_forward<Greater>)
                     .backward(extreme_backward<Greater>)
                     .saves(kSavesInputs)
                     .batch(ConcatBatch().sig_bytes(sizeof(unsigned)))
                     .check([](CheckCase& c) {
                       const Dim d = c.shape(1, 3, c.batch());
                       return max_dim(c.input(d), c.uniform(0, d.ndims() - 1));
                     });
OpDef MinDimOp = OpRow("min_dim")
                     .arity(1)
                     .infer(remove_dim)
                     .forward(extreme_forward<Less>)
                     .backward(extreme_backward<Less>)
                     .saves(kSavesInputs)
                     .batch(ConcatBatch().sig_bytes(sizeof(unsigned)))
                     .check([](CheckCase& c) {
                       const Dim d = c.shape(1, 3, c.batch());
                       return min_dim(c.input(d), c.uniform(0, d.ndims() - 1));
                     });

Expression unary(const OpDef& op, const Expression& x) { return graph_of(x, op.name).append(op, {x}); }
Expression along_dim(const OpDef& op, const Expression& x, unsigned d) {
  ComputationGraph& g = graph_of(x, op.name);
  return g.append(op, {x}, g.store(d));
}

}  // namespace

Expression sum_elems(const Expression& x) { return unary(SumElemsOp, x); }
Expression mean_elems(const Expression& x) {
  return called_as("mean_elems", [&] { return sum_elems(x) * (1.f / static_cast<float>(x.dim().batch_size())); });
}
Expression sum_batches(const Expression& x) { return unary(SumBatchesOp, x); }
Expression mean_batches(const Expression& x) {
  return called_as("mean_batches", [&] { return sum_batches(x) * (1.f / static_cast<float>(x.dim().bd)); });
}

Expression sum_dim(const Expression& x, const std::vector<unsigned>& dims, bool include_batch_dim) {
  SumDimData s{0, include_batch_dim};
  for (unsigned d : dims) {
    if (d >= Dim::kMaxDims)
      throw std::invalid_argument("sum_dim: dimension index " + std::to_string(d) + " is out of range");
    s.mask |= 1u << d;
  }
  ComputationGraph& g = graph_of(x, "sum_dim");
  return g.append(SumDimOp, {x}, g.store(s));
}

Expression sum_rows(const Expression& x) {
  return called_as("sum_rows", [&] { return sum_dim(x, {0}); });
}
Expression sum_cols(const Expression& x) {
  return called_as("sum_cols", [&] { return sum_dim(x, {1}); });
}

Expression moment_dim(const Expression& x, const std::vector<unsigned>& dims, unsigned r, bool b, unsigned n) {
  MomentData m;
  std::memset(&m, 0, sizeof m);  // the padding after SumDimData::batch is signature bytes too
  m.sum.batch = b;
  m.r = r;
  m.n = n;
  for (unsigned d : dims) {
    if (d >= Dim::kMaxDims)
      throw std::invalid_argument("moment_dim: dimension index " + std::to_string(d) + " is out of range");
    m.sum.mask |= 1u << d;
  }
  ComputationGraph& g = graph_of(x, "moment_dim");
  return g.append(MomentDimOp, {x}, g.store(m));
}

namespace {
Expression standard_deviation(const Expression& x, const std::vector<unsigned>& dims, bool b, unsigned n) {
  // The mean keeps the reduced dimensions as size 1, so that it broadcasts against x.
  const Expression mean = moment_dim(x, dims, 1, b, n);
  Dim kept = x.dim().single_batch();
  for (unsigned d : dims) kept.set(d, 1);
  const Expression centered = x - reshape(mean, kept.with_batch(b ? 1 : x.dim().bd));
  return sqrt(moment_dim(centered, dims, 2, b, n));
}
std::vector<unsigned> every_dim(const Expression& x) {
  std::vector<unsigned> dims(x.dim().ndims());
  for (unsigned k = 0; k < dims.size(); ++k) dims[k] = k;
  return dims;
}
}  // namespace

Expression mean_dim(const Expression& x, const std::vector<unsigned>& dims, bool b, unsigned n) {
  return called_as("mean_dim", [&] { return moment_dim(x, dims, 1, b, n); });
}
Expression std_dim(const Expression& x, const std::vector<unsigned>& dims, bool b, unsigned n) {
  return called_as("std_dim", [&] { return standard_deviation(x, dims, b, n); });
}
Expression moment_elems(const Expression& x, unsigned r) {
  return called_as("moment_elems", [&] { return moment_dim(x, every_dim(x), r); });
}
Expression std_elems(const Expression& x) {
  return called_as("std_elems", [&] { return standard_deviation(x, every_dim(x), false, 0); });
}
Expression moment_batches(const Expression& x, unsigned r) {
  return called_as("moment_batches", [&] { return moment_dim(x, {}, r, true); });
}
Expression std_batches(const Expression& x) {
  return called_as("std_batches", [&] { return standard_deviation(x, {}, true, 0); });
}
Expression average_cols(const Expression& x) {
  // DyNet's AverageColumns takes a vector too, as one column: moment_dim refuses a dimension x lacks.
  return called_as("average_cols", [&] {
    return x.dim().ndims() > 1 ? moment_dim(x, {1}, 1) : moment_dim(x, std::vector<unsigned>{}, 1);
  });
}
Expression cumsum(const Expression& x, unsigned d) { return along_dim(CumsumOp, x, d); }

Expression squared_norm(const Expression& x) { return unary(SquaredNormOp, x); }
Expression l2_norm(const Expression& x) {
  return called_as("l2_norm", [&] { return sqrt(squared_norm(x)); });
}
Expression dot_product(const Expression& a, const Expression& b) {
  return graph_of(a, "dot_product").append(DotProductOp, {a, b});
}
Expression squared_distance(const Expression& a, const Expression& b) {
  return called_as("squared_distance", [&] { return squared_norm(a - b); });
}

Expression logsumexp(ExpressionSpan xs) {
  if (xs.empty()) throw std::invalid_argument("logsumexp: needs at least one expression");
  return graph_of(xs[0], "logsumexp").append(LogSumExpOp, xs.data(), static_cast<unsigned>(xs.size()), nullptr);
}
Expression logsumexp_dim(const Expression& x, unsigned d) { return along_dim(LogSumExpDimOp, x, d); }
Expression max_dim(const Expression& x, unsigned d) { return along_dim(MaxDimOp, x, d); }
Expression min_dim(const Expression& x, unsigned d) { return along_dim(MinDimOp, x, d); }

void register_reduction_ops() {
  register_ops({&SumElemsOp, &SumBatchesOp, &SumDimOp, &SquaredNormOp, &DotProductOp, &LogSumExpOp, &LogSumExpDimOp,
                &MaxDimOp, &MinDimOp, &MomentDimOp, &CumsumOp});
}

}  // namespace dynet
