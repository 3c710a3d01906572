#include "dynet_core/ops/gemm.h"

#include "dynet_core/tensor_eigen.h"

namespace dynet {

namespace {

template <class A, class B>
void product(eig::Matrix y, const A& a, const B& b, bool accumulate) {
  if (accumulate)
    y.noalias() += a * b;
  else
    y.noalias() = a * b;
}

template <class B>
void product_op_a(eig::Matrix y, const eig::Matrix& a, bool ta, const B& b, bool accumulate) {
  if (ta)
    product(y, a.transpose(), b, accumulate);
  else
    product(y, a, b, accumulate);
}

void product_ops(eig::Matrix y, const eig::Matrix& a, bool ta, const eig::Matrix& b, bool tb,
                 bool accumulate) {
  if (tb)
    product_op_a(y, a, ta, b.transpose(), accumulate);
  else
    product_op_a(y, a, ta, b, accumulate);
}

}  // namespace

void gemm(const Tensor& y, const Tensor& a, bool ta, const Tensor& b, bool tb, bool accumulate) {
  // A shared left operand times every batch element: one GEMM over all columns.
  if (a.d.bd == 1 && !tb && b.d.bd == y.d.bd) {
    product_op_a(eig::colbatch(y), eig::mat(a), ta, eig::colbatch(b), accumulate);
    return;
  }
  // Gradient of a shared weight: sum over the batch of dy_b * x_b^T is one GEMM.
  if (y.d.bd == 1 && !ta && tb && a.d.bd == b.d.bd) {
    product(eig::mat(y), eig::colbatch(a), eig::colbatch(b).transpose(), accumulate);
    return;
  }
  const unsigned batches = a.d.bd > b.d.bd ? a.d.bd : b.d.bd;
  const bool sum_batches = y.d.bd == 1 && batches > 1;
  if (sum_batches && !accumulate) eig::mat(y).setZero();
  for (unsigned k = 0; k < batches; ++k)
    product_ops(eig::mat(y, k), eig::mat(a, k), ta, eig::mat(b, k), tb, accumulate || sum_batches);
}

}  // namespace dynet

