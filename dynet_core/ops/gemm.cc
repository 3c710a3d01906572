#include "dynet_core/ops/gemm.h"

#include "dynet_core/device.h"
#include "dynet_core/tensor_eigen.h"
#include "dynet_core/thread_pool.h"

namespace dynet {

namespace {

// Below this many floating-point operations a product runs on one thread: waking another costs
// about as much as it saves.
constexpr double kParallelFlops = 4e6;

template <class Y, class A, class B>
void product(Y&& y, const A& a, const B& b, bool accumulate) {
  if (accumulate)
    y.noalias() += a * b;
  else
    y.noalias() = a * b;
}

template <class Y, class B>
void product_op_a(Y&& y, const eig::Matrix& a, bool ta, const B& b, bool accumulate) {
  if (ta)
    product(y, a.transpose(), b, accumulate);
  else
    product(y, a, b, accumulate);
}

void product_ops(eig::Matrix y, const eig::Matrix& a, bool ta, const eig::Matrix& b, bool tb, bool accumulate) {
  if (tb)
    product_op_a(y, a, ta, b.transpose(), accumulate);
  else
    product_op_a(y, a, ta, b, accumulate);
}

/// The pool to split a product of `flops` over, or null to run it here.
ThreadPool* pool_for(const Tensor& y, double flops) {
  if (flops < kParallelFlops || !y.device || ThreadPool::in_task()) return nullptr;
  ThreadPool* pool = y.device->thread_pool();
  return pool && pool->threads() > 1 ? pool : nullptr;
}

/// [begin, end) of part p of n items split into `parts` nearly equal ranges.
inline Eigen::Index part_begin(Eigen::Index n, unsigned p, unsigned parts) { return n * p / parts; }

}  // namespace

void gemm(const Tensor& y, const Tensor& a, bool ta, const Tensor& b, bool tb, bool accumulate) {
  // A shared left operand times every batch element: one GEMM over all columns, split by columns.
  if (a.d.bd == 1 && !tb && b.d.bd == y.d.bd) {
    eig::Matrix yc = eig::colbatch(y), am = eig::mat(a), bc = eig::colbatch(b);
    ThreadPool* pool = pool_for(y, 2.0 * yc.rows() * yc.cols() * bc.rows());
    if (!pool) {
      product_op_a(yc, am, ta, bc, accumulate);
      return;
    }
    auto part = [&](unsigned p) {
      const Eigen::Index c0 = part_begin(yc.cols(), p, pool->threads()), c1 = part_begin(yc.cols(), p + 1, pool->threads());
      product_op_a(yc.middleCols(c0, c1 - c0), am, ta, bc.middleCols(c0, c1 - c0), accumulate);
    };
    pool->run(part);
    return;
  }
  // Gradient of a shared weight: sum over the batch of dy_b * x_b^T is one GEMM, split by rows.
  if (y.d.bd == 1 && !ta && tb && a.d.bd == b.d.bd) {
    eig::Matrix ym = eig::mat(y), ac = eig::colbatch(a), bc = eig::colbatch(b);
    ThreadPool* pool = pool_for(y, 2.0 * ym.rows() * ym.cols() * ac.cols());
    if (!pool) {
      product(ym, ac, bc.transpose(), accumulate);
      return;
    }
    auto part = [&](unsigned p) {
      const Eigen::Index r0 = part_begin(ym.rows(), p, pool->threads()), r1 = part_begin(ym.rows(), p + 1, pool->threads());
      product(ym.middleRows(r0, r1 - r0), ac.middleRows(r0, r1 - r0), bc.transpose(), accumulate);
    };
    pool->run(part);
    return;
  }
  const unsigned batches = a.d.bd > b.d.bd ? a.d.bd : b.d.bd;
  const bool sum_batches = y.d.bd == 1 && batches > 1;
  if (sum_batches && !accumulate) eig::mat(y).setZero();
  const eig::Matrix y0 = eig::mat(y);
  const double flops = 2.0 * y0.rows() * y0.cols() * (ta ? a.d.rows() : a.d.cols()) * batches;
  // Batch elements are independent unless they are summed into one y.
  ThreadPool* pool = sum_batches ? nullptr : pool_for(y, flops);
  const unsigned parts = pool ? pool->threads() : 1;
  auto part = [&](unsigned p) {
    for (unsigned k = p; k < batches; k += parts)
      product_ops(eig::mat(y, k), eig::mat(a, k), ta, eig::mat(b, k), tb, accumulate || sum_batches);
  };
  if (pool)
    pool->run(part);
  else
    part(0);
}

}  // namespace dynet
