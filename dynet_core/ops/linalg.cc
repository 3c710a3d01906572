#include "dynet_core/ops/linalg.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "dynet_core/gemm/gemm.h"
#include "dynet_core/graph.h"
#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/called_as.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/dims.h"
#include "dynet_core/ops/leaves.h"
#include "dynet_core/ops/reductions.h"
#include "dynet_core/ops/registry.h"
#include "dynet_core/ops/shape.h"
#include "dynet_core/tensor_eigen.h"

namespace dynet {

namespace {

void require_matrix(const Dim& d, const char* which) {
  if (d.ndims() > 2) dims::fail(std::string(which) + " must be a vector or matrix");
}

// Set field by field into the caller's object rather than through Dim's checked constructor and a
// copy: a copy read back right after its fields were written stalls on the store buffer. A single
// column is a vector (nd 1) or a matrix of one column (nd 2), as DyNet's rules say (below).
Dim matrix_dim(unsigned rows, unsigned cols, unsigned batch, unsigned vector_nd) {
  Dim y;
  y.d[0] = rows;
  y.d[1] = cols;
  y.nd = cols == 1 ? vector_nd : 2;
  y.bd = batch;
  return y;
}

Dim product_dim(const Dim& a, const Dim& b) {
  require_matrix(a, "the left operand");
  require_matrix(b, "the right operand");
  if (a.cols() != b.rows())
    dims::fail("the left operand has " + std::to_string(a.cols()) + " columns but the right one has " +
               std::to_string(b.rows()) + " rows");
  if (a.bd != b.bd && a.bd != 1 && b.bd != 1) dims::fail_batch(a.bd, b.bd);
  // DyNet's MatrixMultiply: a vector when b is one, else a matrix, of one column too.
  return matrix_dim(a.rows(), b.cols(), std::max(a.bd, b.bd), b.ndims() == 1 ? 1 : 2);
}

Dim infer_matmul(const DimArgs& xs, const void*) { return product_dim(xs[0], xs[1]); }

void matmul_forward(const OpCall& c) { gemm(c.y, c.xs[0], false, c.xs[1], false, false); }

void matmul_backward(const OpCall& c, unsigned i) {
  if (i == 0)
    gemm(c.dx, c.dy, false, c.xs[1], true, !c.overwrite);
  else
    gemm(c.dx, c.xs[0], true, c.dy, false, !c.overwrite, c.transposes);
}

Expression check_matmul(CheckCase& c) {
  const unsigned n = c.uniform(1, 4), k = c.uniform(1, 4), m = c.uniform(1, 3), bd = c.batch();
  const unsigned which = c.uniform(0, 2);  // batch on the left, the right, or both
  return c.input(Dim({n, k}, which == 1 ? 1 : bd)) * c.input(Dim({k, m}, which == 0 ? 1 : bd));
}

OpDef MatMulOp = OpRow("matmul")
                     .arity(2)
                     .infer(infer_matmul)
                     .forward(matmul_forward)
                     .backward(matmul_backward)
                     .saves(kSavesInputs)
                     .batch(ConcatBatch().shared(1u).broadcasts_all())
                     .check(check_matmul)
                     .backward_overwrites();

Dim infer_affine(const DimArgs& xs, const void*) {
  if (xs.size() % 2 == 0)
    dims::fail("expects an odd number of arguments {b, W1, x1, W2, x2, ...}, got " + std::to_string(xs.size()));
  const Dim& b = xs[0];
  require_matrix(b, "the bias");
  const unsigned batch = dims::batch(xs);
  if (xs.size() == 1) return b.with_batch(batch);
  unsigned cols = b.cols();
  for (unsigned k = 1; k < xs.size(); k += 2) {
    const Dim p = product_dim(xs[k], xs[k + 1]);
    if (p.rows() != b.rows() || (b.cols() != p.cols() && b.cols() != 1))
      dims::fail("product " + std::to_string(k / 2 + 1) + " has dim " + to_string(p.single_batch()) +
                 ", which does not fit the bias " + to_string(b.single_batch()));
    if (k == 1 || p.cols() > cols) cols = p.cols();
  }
  // DyNet's AffineTransform has the bias's shape (here a bias of one column may also broadcast).
  return matrix_dim(b.rows(), cols, batch, b.ndims() == 1 ? 1 : 2);
}

void affine_forward(const OpCall& c) {
  const Tensor& b = c.xs[0];
  const unsigned rows = c.y.d.rows(), cols = c.y.d.cols();
  for (unsigned bi = 0; bi < c.y.d.bd; ++bi) {
    eig::Matrix y = eig::mat(c.y, bi);
    if (b.d.cols() == cols)
      y = eig::mat(b, bi);
    else
      y = eig::Vector(b.batch_ptr(bi), rows).replicate(1, cols);
  }
  for (unsigned k = 1; k < c.nargs; k += 2) gemm(c.y, c.xs[k], false, c.xs[k + 1], false, true);
}

void affine_backward(const OpCall& c, unsigned i) {
  if (i == 0) {
    const Tensor& b = c.dx;
    if (c.overwrite) std::fill(b.v, b.v + b.d.size(), 0.f);
    if (b.d.bd == 1 && b.d.cols() == 1) {  // one bias column for every column of every batch element
      eig::vec(b) += eig::colbatch(c.dy).rowwise().sum();
      return;
    }
    for (unsigned bi = 0; bi < c.y.d.bd; ++bi) {
      eig::Matrix db = eig::mat(b, bi);
      if (b.d.cols() == c.y.d.cols())
        db += eig::mat(c.dy, bi);
      else
        db += eig::mat(c.dy, bi).rowwise().sum();
    }
  } else if (i % 2 == 1) {
    gemm(c.dx, c.dy, false, c.xs[i + 1], true, !c.overwrite);
  } else {
    gemm(c.dx, c.xs[i - 1], true, c.dy, false, !c.overwrite, c.transposes);
  }
}

Expression check_affine(CheckCase& c) {
  const unsigned n = c.uniform(1, 4), m = c.uniform(1, 2), bd = c.batch();
  std::vector<Expression> xs{c.input(Dim({n, c.uniform(0, 1) ? m : 1}, c.uniform(0, 1) ? bd : 1))};
  for (unsigned pairs = c.uniform(1, 2); pairs-- > 0;) {
    const unsigned k = c.uniform(1, 4);
    xs.push_back(c.input(Dim({n, k})));
    xs.push_back(c.input(Dim({k, m}, bd)));
  }
  return affine_transform(xs);
}

OpDef AffineTransformOp = OpRow("affine_transform")
                              .arity(-1)
                              .infer(infer_affine)
                              .forward(affine_forward)
                              .backward(affine_backward)
                              .saves(kSavesInputs)
                              .batch(ConcatBatch().shared_odd().broadcasts_all())
                              .check(check_affine)
                              .backward_overwrites()
                              .sum_of_products();

Dim infer_transpose(const DimArgs& xs, const void* data) {
  const Permutation& p = *static_cast<const Permutation*>(data);
  const Dim& x = xs[0];
  // As DyNet's Transpose, a longer permutation only for x of one dimension other than 1 (a vector
  // laid along any dimension), and a shorter one there (the default {1, 0} of a {3, 1, 1}); a
  // shorter one leaves out only dimensions of 1, where DyNet would drop x's values.
  bool leaves_out_ones = true;
  for (unsigned k = p.n; k < x.ndims(); ++k) leaves_out_ones &= x[k] == 1;
  if (!leaves_out_ones || (p.n > dims::dynet_nd(x) && x.num_nonone_dims() != 1))
    dims::fail("the permutation has " + std::to_string(p.n) + " entries; x has " + std::to_string(dims::dynet_nd(x)) +
               " dimensions");
  Dim y;
  for (unsigned k = 0; k < p.n; ++k) y.set(k, x[p.perm[k]]);
  y.bd = x.bd;
  return y;
}

/// Calls f(iy, ix) for every element of y = x with permuted dimensions.
template <class F>
void for_each_permuted(const Dim& y, const Dim& x, const Permutation& p, F&& f) {
  unsigned xstride[Dim::kMaxDims];
  unsigned s = 1;
  for (unsigned k = 0; k < Dim::kMaxDims; ++k) {
    xstride[k] = s;
    s *= x[k];
  }
  const unsigned per_batch = y.batch_size();
  unsigned idx[Dim::kMaxDims] = {};
  for (unsigned e = 0; e < per_batch; ++e) {
    unsigned off = 0;
    for (unsigned k = 0; k < p.n; ++k) off += idx[k] * xstride[p.perm[k]];
    for (unsigned bi = 0; bi < y.bd; ++bi) f(bi * per_batch + e, bi * per_batch + off);
    for (unsigned k = 0; k < p.n && ++idx[k] == y[k]; ++k) idx[k] = 0;
  }
}

bool is_matrix_transpose(const Permutation& p) { return p.n == 2 && p.perm[0] == 1; }

void transpose_forward(const OpCall& c) {
  const Permutation& p = c.op_data<Permutation>();
  if (is_matrix_transpose(p)) {
    for (unsigned bi = 0; bi < c.y.d.bd; ++bi) eig::mat(c.y, bi) = eig::mat(c.xs[0], bi).transpose();
    return;
  }
  const float* x = c.xs[0].v;
  float* y = c.y.v;
  for_each_permuted(c.y.d, c.xs[0].d, p, [&](unsigned iy, unsigned ix) { y[iy] = x[ix]; });
}

void transpose_backward(const OpCall& c, unsigned) {
  const Permutation& p = c.op_data<Permutation>();
  if (is_matrix_transpose(p)) {
    for (unsigned bi = 0; bi < c.y.d.bd; ++bi) eig::mat(c.dx, bi) += eig::mat(c.dy, bi).transpose();
    return;
  }
  const float* dy = c.dy.v;
  float* dx = c.dx.v;
  for_each_permuted(c.y.d, c.xs[0].d, p, [&](unsigned iy, unsigned ix) { dx[ix] += dy[iy]; });
}

Expression check_transpose(CheckCase& c) {
  if (c.uniform(0, 1)) {
    Dim d = c.shape(1, 2, c.batch());
    if (d.ndims() == 1) d.set(0, c.uniform(2, 4));  // as DyNet, a {1} has no transpose
    return transpose(c.input(d));
  }
  const Dim d = c.shape(1, 3, c.batch());
  std::vector<unsigned> perm(d.ndims());
  std::iota(perm.begin(), perm.end(), 0u);
  std::shuffle(perm.begin(), perm.end(), std::mt19937(c.uniform(0, 1000)));
  return transpose(c.input(d), perm);
}

OpDef TransposeOp = OpRow("transpose")
                        .arity(1)
                        .infer(infer_transpose)
                        .forward(transpose_forward)
                        .backward(transpose_backward)
                        .saves(kSavesNothing)
                        .batch(ConcatBatch().sig_bytes(sizeof(Permutation)))
                        .check(check_transpose);

Dim infer_square(const DimArgs& xs, const void*) {
  if (xs[0].ndims() > 2 || xs[0].rows() != xs[0].cols())
    dims::fail("x must be a square matrix, got " + to_string(xs[0].single_batch()));
  return xs[0];
}

/// out = x^-1 for the n x n matrix x, through scratch.
void invert(const OpCall& c, const float* x, unsigned n, float* out) {
  float* lu = c.scratch_floats(std::size_t(n) * n);
  unsigned* perm = c.scratch->allocate_array<unsigned>(n);
  std::copy(x, x + std::size_t(n) * n, lu);
  lu_factor(lu, n, perm);
  lu_invert(lu, perm, n, out);
}

void inverse_forward(const OpCall& c) {
  const unsigned n = c.y.d.rows();
  for (unsigned b = 0; b < c.y.d.bd; ++b) invert(c, c.xs[0].batch_ptr(b), n, c.y.batch_ptr(b));
}
void inverse_backward(const OpCall& c, unsigned) {
  // dX = -Y^T dY Y^T, Y = X^-1.
  const unsigned n = c.y.d.rows();
  for (unsigned b = 0; b < c.y.d.bd; ++b) {
    const eig::Matrix y(c.y.batch_ptr(b), n, n), dy(c.dy.batch_ptr(b), n, n);
    eig::Matrix(c.dx.batch_ptr(b), n, n).noalias() -= y.transpose() * dy * y.transpose();
  }
}

/// A well-conditioned square input with a positive determinant: a small random part plus 2 I.
/// 2 I has the batch of the random part: broadcast, each instance's sum would have a signature of
/// its own (a broadcast argument is identified by its node) and never batch with the others.
Expression dominant_input(CheckCase& c) {
  const unsigned n = c.uniform(1, 4), bd = c.batch();
  std::vector<float> diagonal(std::size_t(n) * n * bd, 0.f);
  for (unsigned b = 0; b < bd; ++b)
    for (unsigned i = 0; i < n; ++i) diagonal[std::size_t(b) * n * n + i + n * i] = 2.f;
  return c.input(Dim({n, n}, bd), -0.5f, 0.5f) + input(c.cg, Dim({n, n}, bd), diagonal);
}

OpDef InverseOp = OpRow("inverse")
                      .arity(1)
                      .infer(infer_square)
                      .forward(inverse_forward)
                      .backward(inverse_backward)
                      .saves(kSavesOutput)
                      .batch(ConcatBatch())
                      .check([](CheckCase& c) { return inverse(dominant_input(c)); });

Dim infer_logdet(const DimArgs& xs, const void* data) {
  infer_square(xs, data);
  return Dim({1}, xs[0].bd);
}
void logdet_forward(const OpCall& c) {
  const unsigned n = c.xs[0].d.rows();
  float* lu = c.scratch_floats(std::size_t(n) * n);
  unsigned* perm = c.scratch->allocate_array<unsigned>(n);
  for (unsigned b = 0; b < c.y.d.bd; ++b) {
    const float* x = c.xs[0].batch_ptr(b);
    std::copy(x, x + std::size_t(n) * n, lu);
    lu_factor(lu, n, perm);
    float sum = 0.f;
    for (unsigned i = 0; i < n; ++i) sum += std::log(std::fabs(lu[i + n * i]));
    c.y.v[b] = sum;
  }
}
void logdet_backward(const OpCall& c, unsigned) {
  // d log |det X| / dX = X^-T, whatever the sign of the determinant.
  const unsigned n = c.xs[0].d.rows();
  float* inv = c.scratch_floats(std::size_t(n) * n);
  for (unsigned b = 0; b < c.y.d.bd; ++b) {
    invert(c, c.xs[0].batch_ptr(b), n, inv);
    eig::Matrix(c.dx.batch_ptr(b), n, n) += c.dy.v[b] * eig::Matrix(inv, n, n).transpose();
  }
}
OpDef LogDetOp = OpRow("logdet")
                     .arity(1)
                     .infer(infer_logdet)
                     .forward(logdet_forward)
                     .backward(logdet_backward)
                     .saves(kSavesInputs)
                     .batch(ConcatBatch())
                     .check([](CheckCase& c) { return logdet(dominant_input(c)); });

}  // namespace

Expression inverse(const Expression& x) { return graph_of(x, "inverse").append(InverseOp, {x}); }
Expression logdet(const Expression& x) { return graph_of(x, "logdet").append(LogDetOp, {x}); }
Expression trace_of_product(const Expression& x, const Expression& y) {
  return called_as("trace_of_product", [&] {
    if (!x.dim().same_shape(y.dim()) || x.dim().ndims() > 2)
      throw std::invalid_argument("trace_of_product: x " + to_string(x.dim()) + " and y " + to_string(y.dim()) +
                                  " must be matrices of one shape");
    return dot_product(x, y);
  });
}

Expression contract3d_1d(const Expression& x, const Expression& y) {
  return called_as("contract3d_1d", [&] {
    const Dim xd = x.dim(), yd = y.dim();
    if (xd.ndims() != 3 || yd.ndims() != 1 || yd.rows() != xd[2])
      throw std::invalid_argument("contract3d_1d: x must be {I, J, K} and y {K}, got x " + to_string(xd) + " and y " +
                                  to_string(yd));
    return reshape(reshape(x, Dim({xd[0] * xd[1], xd[2]})) * y, Dim({xd[0], xd[1]}));
  });
}
Expression contract3d_1d(const Expression& x, const Expression& y, const Expression& b) {
  return called_as("contract3d_1d", [&] { return contract3d_1d(x, y) + b; });
}
Expression contract3d_1d_1d(const Expression& x, const Expression& y, const Expression& z) {
  return called_as("contract3d_1d_1d", [&] { return contract3d_1d(x, y) * z; });
}
Expression contract3d_1d_1d(const Expression& x, const Expression& y, const Expression& z, const Expression& b) {
  return called_as("contract3d_1d_1d", [&] { return contract3d_1d_1d(x, y, z) + b; });
}

Expression operator*(const Expression& a, const Expression& b) {
  return called_as("operator*", [&] { return graph_of(a, "operator*").append(MatMulOp, {a, b}); });
}

Expression affine_transform(ExpressionSpan xs) {
  if (xs.empty()) throw std::invalid_argument("affine_transform: needs at least the bias");
  if (xs.size() == 1) return xs[0];
  return graph_of(xs[0], "affine_transform")
      .append(AffineTransformOp, xs.data(), static_cast<unsigned>(xs.size()), nullptr);
}

Expression transpose(const Expression& x, const std::vector<unsigned>& dims) {
  if (dims.empty() || dims.size() > Dim::kMaxDims)
    throw std::invalid_argument("transpose: the permutation must have 1 to " + std::to_string(Dim::kMaxDims) +
                                " entries");
  Permutation p{static_cast<unsigned>(dims.size()), {}};
  std::vector<bool> seen(dims.size(), false);
  for (unsigned k = 0; k < dims.size(); ++k) {
    if (dims[k] >= dims.size() || seen[dims[k]])
      throw std::invalid_argument("transpose: entry " + std::to_string(k) + " (" + std::to_string(dims[k]) +
                                  ") makes the list no permutation of 0.." + std::to_string(dims.size() - 1));
    seen[dims[k]] = true;
    p.perm[k] = dims[k];
  }
  ComputationGraph& g = graph_of(x, "transpose");
  return g.append(TransposeOp, {x}, g.store(p));
}

void register_linalg_ops() { register_ops({&MatMulOp, &AffineTransformOp, &TransposeOp, &InverseOp, &LogDetOp}); }

}  // namespace dynet
