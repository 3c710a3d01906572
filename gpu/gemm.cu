#include "gpu/gemm.h"

#include <algorithm>

#include "gpu/cuda_check.h"
#include "gpu/device_gpu.h"

namespace dynet {
namespace gpu {

namespace {

/// Batch element 0 of t as a column-major matrix: rows x (the product of the other dims).
struct Matrix {
  unsigned rows, cols;
  explicit Matrix(const Tensor& t) : rows(t.d.rows()), cols(unsigned(t.d.batch_size() / t.d.rows())) {}
};

cublasOperation_t op(bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; }

}  // namespace

void gemm(const Tensor& y, const Tensor& a, bool ta, const Tensor& b, bool tb, bool accumulate) {
  cublasHandle_t h = static_cast<Device_GPU*>(y.device)->cublas();
  const CublasLibrary& cublas = cublas_library();
  const Matrix am(a), bm(b);
  const int m = int(ta ? am.cols : am.rows), k = int(ta ? am.rows : am.cols), n = int(tb ? bm.rows : bm.cols);
  const float one = 1.f, beta = accumulate ? 1.f : 0.f;
  // A shared left operand times every batch element: one GEMM over the batch elements' columns
  // side by side (batch elements are outermost, so they are contiguous).
  if (a.d.bd == 1 && !tb && b.d.bd == y.d.bd) {
    const int columns = int(b.d.size() / b.d.rows());
    check_cublas(
        cublas.sgemm(h, op(ta), CUBLAS_OP_N, m, columns, k, &one, a.v, int(am.rows), b.v, int(bm.rows), &beta, y.v, m),
        "gemm (shared left operand)");
    return;
  }
  // The gradient of a shared weight: the sum over the batch of dy_b x_b^T is one GEMM whose inner
  // dimension runs over every batch element.
  if (y.d.bd == 1 && !ta && tb && a.d.bd == b.d.bd) {
    const int inner = int(a.d.size() / a.d.rows());
    check_cublas(cublas.sgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, m, n, inner, &one, a.v, int(am.rows), b.v, int(bm.rows),
                              &beta, y.v, m),
                 "gemm (summed over the batch)");
    return;
  }
  const unsigned batches = std::max({a.d.bd, b.d.bd, y.d.bd});
  const long long sa = a.d.bd == 1 ? 0 : (long long)a.d.batch_size(),
                  sb = b.d.bd == 1 ? 0 : (long long)b.d.batch_size();
  if (y.d.bd == 1 && batches > 1) {
    // Summed into one y: one product after another on the stream, each adding to the last.
    for (unsigned bi = 0; bi < batches; ++bi) {
      const float beta_i = bi == 0 && !accumulate ? 0.f : 1.f;
      check_cublas(cublas.sgemm(h, op(ta), op(tb), m, n, k, &one, a.v + bi * sa, int(am.rows), b.v + bi * sb,
                                int(bm.rows), &beta_i, y.v, m),
                   "gemm (batch summed)");
    }
    return;
  }
  check_cublas(cublas.sgemm_strided_batched(h, op(ta), op(tb), m, n, k, &one, a.v, int(am.rows), sa, b.v, int(bm.rows),
                                            sb, &beta, y.v, m, (long long)y.d.batch_size(), int(batches)),
               "gemm (strided batched)");
}

}  // namespace gpu
}  // namespace dynet
