// The trainers' update rules give the same values and state on the GPU as on the CPU.

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "gpu/device_gpu.h"
#include "gpu/trainer_updates.h"

using namespace dynet;

namespace {

template <class Rule>
void check_rule(const Rule& rule, unsigned slots, const char* name) {
  constexpr std::size_t n = 1000;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-1.f, 1.f), positive(0.01f, 1.f);
  std::vector<float> w(n), g(n), s(n * slots);
  for (float& x : w) x = value(rng);
  for (float& x : g) x = value(rng);
  for (float& x : s) x = positive(rng);  // squared averages: never negative

  Device_GPU gpu(0, MemorySizes{1 << 20, 1 << 20, 1 << 20, 1 << 20});
  float* dw = gpu.allocate_parameter_floats(n);
  float* dg = gpu.allocate_parameter_floats(n);
  float* ds = gpu.allocate_parameter_floats(s.size());
  gpu.to_device(dw, w.data(), n);
  gpu.to_device(dg, g.data(), n);
  gpu.to_device(ds, s.data(), s.size());
  for (int step = 0; step < 3; ++step) {
    update_rules::apply(rule, w.data(), g.data(), s.data(), n, n);
    gpu::update(rule, dw, dg, ds, n, n, gpu.stream());
  }
  std::vector<float> gw(n), gs(s.size());
  gpu.to_host(gw.data(), dw, n);
  gpu.to_host(gs.data(), ds, s.size());
  for (std::size_t i = 0; i < n; ++i) {
    INFO(name << ": value " << i);
    REQUIRE(gw[i] == Approx(w[i]).epsilon(1e-5).margin(1e-6));
  }
  for (std::size_t i = 0; i < s.size(); ++i) {
    INFO(name << ": state " << i);
    REQUIRE(gs[i] == Approx(s[i]).epsilon(1e-5).margin(1e-6));
  }
}

}  // namespace

TEST_CASE("every update rule gives the CPU's values and state on the GPU", "[gpu][trainers]") {
  check_rule(update_rules::Sgd{0.1f}, 0, "sgd");
  check_rule(update_rules::Momentum{0.9f, 0.1f}, 1, "momentum");
  check_rule(update_rules::Adagrad{0.1f, 1e-8f, 0.5f}, 1, "adagrad");
  check_rule(update_rules::Adadelta{0.95f, 1e-6f, 0.5f}, 2, "adadelta");
  check_rule(update_rules::RMSProp{0.9f, 0.1f, 1e-8f, 0.5f}, 1, "rmsprop");
  check_rule(update_rules::Adam{0.9f, 0.999f, 1e-8f, 0.01f, 0.5f, false}, 2, "adam");
  check_rule(update_rules::Adam{0.9f, 0.999f, 1e-8f, 0.01f, 0.5f, true}, 3, "amsgrad");
}
