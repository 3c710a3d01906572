// Device agreement on shapes the random checks never reach, which take the kernels' other paths:
// a thread block per long column (a 10,000-word softmax), reductions split into pieces and a second
// pass (sums over hundreds of thousands of floats), and LU factorisations of large matrices.

#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "dynet_core/ops/all_ops.h"
#include "gpu/device_agreement.h"
#include "gpu/device_gpu.h"
#include "gpu/kernel_table.h"

using namespace dynet;

namespace {

/// A matrix of `n` x `n` values in [-1, 1], plus `diagonal` on its diagonal, `batch` of them.
Expression matrix(CheckCase& c, unsigned n, unsigned batch, float diagonal) {
  std::vector<float> v(std::size_t(n) * n * batch);
  std::mt19937 rng(n);
  std::uniform_real_distribution<float> unit(-1.f, 1.f);
  for (std::size_t e = 0; e < v.size(); ++e) v[e] = unit(rng) + ((e % (n * n)) % (n + 1) == 0 ? diagonal : 0.f);
  return input(c.cg, Dim({n, n}, batch), v);
}

}  // namespace

TEST_CASE("long columns and long reductions agree with the CPU", "[gpu][agreement]") {
  static Device_GPU gpu(0, MemorySizes{1 << 24, 1 << 24, 1 << 24, 1 << 24});
  gpu::install_cuda_kernels();
  using device_agreement::check_instance;
  check_instance(gpu, "softmax of 10,000", [](CheckCase& c) { return softmax(c.input(Dim({10000}, 3), -3, 3)); });
  check_instance(gpu, "softmax along dim 1", [](CheckCase& c) { return softmax(c.input(Dim({3, 700}, 2), -3, 3), 1); });
  check_instance(gpu, "log_softmax of 10,000",
                 [](CheckCase& c) { return log_softmax(c.input(Dim({10000}, 2), -3, 3)); });
  check_instance(gpu, "pickneglogsoftmax of 10,000", [](CheckCase& c) {
    static const std::vector<unsigned> targets{7, 9999, 0};
    return pickneglogsoftmax(c.input(Dim({10000}, 3), -3, 3), targets);
  });
  check_instance(gpu, "restricted log_softmax of 700 of 2,000", [](CheckCase& c) {
    std::vector<unsigned> ids;
    for (unsigned k = 0; k < 700; ++k) ids.push_back((k * 37) % 2000);
    return log_softmax(c.input(Dim({2000}, 2), -3, 3), ids);
  });
  check_instance(gpu, "sum_elems of 300,000",
                 [](CheckCase& c) { return sum_elems(c.input(Dim({300000}, 2), 0.5f, 1.f)); });
  check_instance(gpu, "squared_norm of 300,000", [](CheckCase& c) {
    return squared_norm(c.input(Dim({1000, 300}), -1, 1));
  });
  check_instance(gpu, "sum_batches of 20,000", [](CheckCase& c) {
    return sum_batches(c.input(Dim({5, 3}, 20000), 0.5f, 1.f));
  });
  check_instance(gpu, "sum_dim over 3,000", [](CheckCase& c) {
    return sum_dim(c.input(Dim({7, 3000, 2}, 2), 0.5f, 1.f), {1});
  });
  check_instance(gpu, "moment_dim over 5,000", [](CheckCase& c) {
    return moment_dim(c.input(Dim({9, 5000}, 2), 0.5f, 1.f), {1}, 2);
  });
  check_instance(gpu, "dot_product of 100,000", [](CheckCase& c) {
    return dot_product(c.input(Dim({100000}, 2), 0.5f, 1.f), c.input(Dim({100000}, 1), 0.5f, 1.f));
  });
  check_instance(gpu, "logsumexp_dim of 3,000", [](CheckCase& c) {
    return logsumexp_dim(c.input(Dim({3000, 4}, 2), -3, 3), 0);
  });
  check_instance(gpu, "max_dim of 3,000", [](CheckCase& c) { return max_dim(c.distinct_input(Dim({3000, 4}, 2)), 0); });
  check_instance(gpu, "binary_log_loss of 50,000", [](CheckCase& c) {
    return binary_log_loss(c.input(Dim({50000}, 2), 0.1f, 0.9f), c.input(Dim({50000}, 2), 0.f, 1.f));
  });
  check_instance(gpu, "inverse of 60 x 60", [](CheckCase& c) { return inverse(matrix(c, 60, 2, 8.f)); });
  check_instance(gpu, "logdet of 70 x 70", [](CheckCase& c) { return logdet(matrix(c, 70, 1, 0.f)); });
}
