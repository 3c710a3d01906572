// gemm() split over a thread pool gives the products computed on one thread.

#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "dynet_core/device.h"
#include "dynet_core/ops/gemm.h"
#include "dynet_core/thread_pool.h"

using namespace dynet;

namespace {

struct Operand {
  Operand(const Dim& d, Device* dev, std::mt19937& rng) : v(d.size()), t(d, nullptr, dev) {
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (float& x : v) x = u(rng);
    t.v = v.data();
  }
  std::vector<float> v;
  Tensor t;
};

std::vector<float> product(Device* dev, const Dim& yd, const Dim& ad, bool ta, const Dim& bd, bool tb) {
  std::mt19937 rng(7);
  Operand a(ad, dev, rng), b(bd, dev, rng), y(yd, dev, rng);
  gemm(y.t, a.t, ta, b.t, tb, true);
  return y.v;
}

}  // namespace

TEST_CASE("gemm split over threads equals gemm on one thread", "[ops][threads]") {
  const MemorySizes sizes{1 << 20, 1 << 20, 1 << 20, 1 << 20};
  Device_CPU one(sizes, false, 1), two(sizes, false, 2);
  REQUIRE(two.thread_pool() != nullptr);
  struct Case {
    Dim y, a;
    bool ta;
    Dim b;
    bool tb;
  };
  const std::vector<Case> cases = {
      {Dim({200, 150}, 4), Dim({200, 120}), false, Dim({120, 150}, 4), false},  // shared weight, split columns
      {Dim({120, 150}, 4), Dim({200, 120}), true, Dim({200, 150}, 4), false},   // transposed weight
      {Dim({200, 120}), Dim({200, 150}, 4), false, Dim({120, 150}, 4), true},   // weight gradient, split rows
      {Dim({90, 80}, 6), Dim({90, 100}, 6), false, Dim({100, 80}, 6), false},   // batched on both sides
  };
  for (const Case& c : cases) {
    const std::vector<float> serial = product(&one, c.y, c.a, c.ta, c.b, c.tb);
    const std::vector<float> parallel = product(&two, c.y, c.a, c.ta, c.b, c.tb);
    REQUIRE(serial.size() == parallel.size());
    for (std::size_t k = 0; k < serial.size(); ++k) REQUIRE(parallel[k] == Approx(serial[k]).epsilon(1e-5).margin(1e-4));
  }
}

TEST_CASE("a thread pool runs every part once", "[threads]") {
  ThreadPool pool(3);
  std::vector<int> hits(pool.threads(), 0);
  for (int round = 0; round < 100; ++round) {
    auto part = [&](unsigned p) { ++hits[p]; };
    pool.run(part);
  }
  for (int h : hits) CHECK(h == 100);
}
