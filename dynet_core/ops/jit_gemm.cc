#include "dynet_core/ops/jit_gemm.h"

#include <cstddef>

#include <Eigen/Core>

#ifdef DYBATCH_HAVE_XSMM
#include <unistd.h>

#include <libxsmm.h>
#endif

namespace dynet {

#ifdef DYBATCH_HAVE_XSMM
namespace {

// The kernels stream the left operand without packing it, so it must stay in L2 beside the
// columns: half of L2 (measured on a core with 512 KiB: a left operand of 256 x 256 runs 1.0-1.4x
// Eigen's speed, 512 x 256 0.8-0.9x, 10,000 x 256 0.4-0.7x).
std::size_t max_left_floats() {
  static const std::size_t floats = [] {
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return std::size_t(l2 > 0 ? l2 : 512 * 1024) / 2 / sizeof(float);
  }();
  return floats;
}

}  // namespace
#endif

bool jit_gemm_serves(unsigned m, unsigned n, unsigned k) {
#ifdef DYBATCH_HAVE_XSMM
  // One column is a matrix-vector product, where Eigen's GEMV is 1.3-2x faster.
  return m > 0 && n > 1 && k > 0 && std::size_t(m) * k <= max_left_floats();
#else
  (void)m, (void)n, (void)k;
  return false;
#endif
}

bool jit_gemm(unsigned m, unsigned n, unsigned k, const float* a, unsigned lda, const float* b, unsigned ldb,
              bool tb, float* c, unsigned ldc, bool accumulate) {
#ifdef DYBATCH_HAVE_XSMM
  if (!jit_gemm_serves(m, n, k)) return false;
  const libxsmm_blasint mm = m, nn = n, kk = k, la = lda, lb = ldb, lc = ldc;
  const float alpha = 1.f, beta = accumulate ? 1.f : 0.f;
  const int flags = tb ? LIBXSMM_GEMM_FLAG_TRANS_B : LIBXSMM_GEMM_FLAG_NONE;
  const libxsmm_smmfunction kernel = libxsmm_smmdispatch(mm, nn, kk, &la, &lb, &lc, &alpha, &beta, &flags, nullptr);
  if (!kernel) return false;
  kernel(a, b, c);
  return true;
#else
  (void)m, (void)n, (void)k, (void)a, (void)lda, (void)b, (void)ldb, (void)tb, (void)c, (void)ldc, (void)accumulate;
  return false;
#endif
}

void transpose_matrix(const float* a, unsigned rows, unsigned cols, float* t) {
#ifdef DYBATCH_HAVE_XSMM
  libxsmm_otrans(t, a, sizeof(float), rows, cols, rows, cols);
#else
  using Map = Eigen::Map<Eigen::MatrixXf, Eigen::Unaligned>;
  using ConstMap = Eigen::Map<const Eigen::MatrixXf, Eigen::Unaligned>;
  Map(t, cols, rows) = ConstMap(a, rows, cols).transpose();
#endif
}

}  // namespace dynet
