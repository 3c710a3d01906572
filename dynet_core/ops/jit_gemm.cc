#include "dynet_core/ops/jit_gemm.h"

#include <cstddef>

#include <Eigen/Core>

#ifdef DYBATCH_HAVE_XSMM
#include <libxsmm.h>
#endif

namespace dynet {

bool jit_gemm_available() {
#ifdef DYBATCH_HAVE_XSMM
  return true;
#else
  return false;
#endif
}

bool jit_gemm(unsigned m, unsigned n, unsigned k, const float* a, unsigned lda, const float* b, unsigned ldb,
              bool tb, float* c, unsigned ldc, bool accumulate) {
#ifdef DYBATCH_HAVE_XSMM
  // The kernels stream their operands without packing them: beyond a left operand of this many
  // floats (2048 x 2048, measured) Eigen's blocked GEMM is as fast, and past it faster.
  constexpr std::size_t kMaxLeftFloats = std::size_t(1) << 22;
  if (m == 0 || n == 0 || k == 0 || std::size_t(m) * k > kMaxLeftFloats) return false;
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
