#include "common/gemm_peak.h"

#include <Eigen/Core>
#include <algorithm>
#include <chrono>

#include "dynet_core/gemm/gemm.h"

namespace bench {

namespace {

double gemm_gflops(int n) {
  Eigen::MatrixXf a = Eigen::MatrixXf::Random(n, n), b = Eigen::MatrixXf::Random(n, n), c(n, n);
  const dynet::Dim d({unsigned(n), unsigned(n)});
  const dynet::Tensor ta(d, a.data(), nullptr), tb(d, b.data(), nullptr), tc(d, c.data(), nullptr);
  const int reps = std::max(1, (1 << 28) / (n * n * n));
  double best = 0;
  for (int trial = 0; trial < 5; ++trial) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) dynet::gemm(tc, ta, false, tb, false, false);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, 2.0 * n * n * n * reps / s / 1e9);
  }
  return c.allFinite() ? best : 0.0;
}

}  // namespace

double gemm_gflops() {
  double best = 0;
  for (int n : {128, 192, 256, 384, 512}) best = std::max(best, gemm_gflops(n));
  return best;
}

}  // namespace bench
