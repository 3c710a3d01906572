// Each update rule against a few steps computed independently, in double precision, from the
// published formula, on f(w) = 0.5 |w - target|^2 (gradient w - target). Non-default constants
// make every step large enough that a wrong term shows.

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <memory>
#include <vector>

#include "dynet_core/param_collection.h"
#include "trainers/training.h"

using namespace dynet;

namespace {

const std::vector<double> kStart{0.5, -1.0, 2.0};
const std::vector<double> kTarget{1.0, 2.0, -1.0};
constexpr int kSteps = 4;

using Trajectory = std::vector<std::vector<double>>;
/// Updates one value w from its gradient g at step t (1-based), with its state (zero at first).
using ReferenceRule = std::function<void(double& w, double g, std::vector<double>& state, int t)>;
using MakeTrainer = std::function<std::unique_ptr<Trainer>(ParameterCollection&)>;

Trajectory run_trainer(const MakeTrainer& make) {
  ParameterCollection m;
  Parameter w = m.add_parameters({3}, ParameterInitFromVector(std::vector<float>(kStart.begin(), kStart.end())));
  std::unique_ptr<Trainer> trainer = make(m);
  trainer->clipping_enabled = false;
  Trajectory out;
  for (int s = 0; s < kSteps; ++s) {
    std::vector<float> g = as_vector(*w.values());
    for (unsigned k = 0; k < 3; ++k) g[k] = static_cast<float>(g[k] - kTarget[k]);
    set_from_host(*w.gradients(), g.data());
    trainer->update();
    const std::vector<float> v = as_vector(*w.values());
    out.emplace_back(v.begin(), v.end());
  }
  return out;
}

Trajectory run_reference(const ReferenceRule& rule, unsigned state_size) {
  std::vector<double> w = kStart;
  std::vector<std::vector<double>> state(w.size(), std::vector<double>(state_size, 0.0));
  Trajectory out;
  for (int t = 1; t <= kSteps; ++t) {
    for (std::size_t k = 0; k < w.size(); ++k) rule(w[k], w[k] - kTarget[k], state[k], t);
    out.push_back(w);
  }
  return out;
}

void check_same_trajectory(const Trajectory& actual, const Trajectory& expected) {
  for (int s = 0; s < kSteps; ++s)
    for (std::size_t k = 0; k < kStart.size(); ++k) {
      INFO("step " << s + 1 << ", value " << k);
      CHECK(actual[s][k] == Approx(expected[s][k]).epsilon(2e-5));
    }
}

}  // namespace

TEST_CASE("SimpleSGDTrainer: w_t - target = (1 - eta)^t (w_0 - target)", "[trainers]") {
  const double eta = 0.3;
  const Trajectory actual =
      run_trainer([&](ParameterCollection& m) { return std::make_unique<SimpleSGDTrainer>(m, eta); });
  Trajectory closed_form;
  for (int t = 1; t <= kSteps; ++t) {
    std::vector<double> w;
    for (std::size_t k = 0; k < kStart.size(); ++k)
      w.push_back(kTarget[k] + std::pow(1 - eta, t) * (kStart[k] - kTarget[k]));
    closed_form.push_back(w);
  }
  check_same_trajectory(actual, closed_form);
}

TEST_CASE("MomentumSGDTrainer: v = mu v - eta g, w += v", "[trainers]") {
  const double eta = 0.2, mu = 0.7;
  check_same_trajectory(
      run_trainer([&](ParameterCollection& m) { return std::make_unique<MomentumSGDTrainer>(m, eta, mu); }),
      run_reference(
          [&](double& w, double g, std::vector<double>& s, int) {
            s[0] = mu * s[0] - eta * g;
            w += s[0];
          },
          1));
}

TEST_CASE("AdagradTrainer: h += g^2, w -= eta g / sqrt(h + eps)", "[trainers]") {
  const double eta = 0.4, eps = 0.01;
  check_same_trajectory(
      run_trainer([&](ParameterCollection& m) { return std::make_unique<AdagradTrainer>(m, eta, eps); }),
      run_reference(
          [&](double& w, double g, std::vector<double>& s, int) {
            s[0] += g * g;
            w -= eta * g / std::sqrt(s[0] + eps);
          },
          1));
}

TEST_CASE("AdadeltaTrainer: step sqrt(hd + eps) / sqrt(hg + eps) with decaying averages", "[trainers]") {
  const double eps = 0.01, rho = 0.8;
  check_same_trajectory(
      run_trainer([&](ParameterCollection& m) { return std::make_unique<AdadeltaTrainer>(m, eps, rho); }),
      run_reference(
          [&](double& w, double g, std::vector<double>& s, int) {
            s[0] = rho * s[0] + (1 - rho) * g * g;
            const double d = -g * std::sqrt(s[1] + eps) / std::sqrt(s[0] + eps);
            s[1] = rho * s[1] + (1 - rho) * d * d;
            w += d;
          },
          2));
}

TEST_CASE("RMSPropTrainer: h = rho h + (1 - rho) g^2, w -= eta g / sqrt(h + eps)", "[trainers]") {
  const double eta = 0.1, eps = 0.01, rho = 0.9;
  check_same_trajectory(
      run_trainer([&](ParameterCollection& m) { return std::make_unique<RMSPropTrainer>(m, eta, eps, rho); }),
      run_reference(
          [&](double& w, double g, std::vector<double>& s, int) {
            s[0] = rho * s[0] + (1 - rho) * g * g;
            w -= eta * g / std::sqrt(s[0] + eps);
          },
          1));
}

namespace {
// Adam's moments and DyNet's bias-corrected step size at step t.
double adam_rate(double eta, double b1, double b2, int t) {
  return eta * std::sqrt(1 - std::pow(b2, t)) / (1 - std::pow(b1, t));
}
}  // namespace

TEST_CASE("AdamTrainer: bias-corrected m / (sqrt(v) + eps)", "[trainers]") {
  const double eta = 0.2, b1 = 0.8, b2 = 0.9, eps = 0.01;
  check_same_trajectory(
      run_trainer([&](ParameterCollection& m) { return std::make_unique<AdamTrainer>(m, eta, b1, b2, eps); }),
      run_reference(
          [&](double& w, double g, std::vector<double>& s, int t) {
            s[0] = b1 * s[0] + (1 - b1) * g;
            s[1] = b2 * s[1] + (1 - b2) * g * g;
            w -= adam_rate(eta, b1, b2, t) * s[0] / (std::sqrt(s[1]) + eps);
          },
          2));
}

TEST_CASE("AmsgradTrainer: divides by the largest second moment so far", "[trainers]") {
  // Large steps overshoot the target, so gradients and v shrink and the maximum takes over.
  const double eta = 1.0, b1 = 0.5, b2 = 0.5, eps = 0.01;
  int steps_with_max_above_v = 0;
  const Trajectory expected = run_reference(
      [&](double& w, double g, std::vector<double>& s, int t) {
        s[0] = b1 * s[0] + (1 - b1) * g;
        s[1] = b2 * s[1] + (1 - b2) * g * g;
        s[2] = std::max(s[2], s[1]);
        if (s[2] > s[1]) ++steps_with_max_above_v;
        w -= adam_rate(eta, b1, b2, t) * s[0] / (std::sqrt(s[2]) + eps);
      },
      3);
  REQUIRE(steps_with_max_above_v > 0);
  check_same_trajectory(
      run_trainer([&](ParameterCollection& m) { return std::make_unique<AmsgradTrainer>(m, eta, b1, b2, eps); }),
      expected);
}

TEST_CASE("trainer defaults are DyNet's", "[trainers]") {
  ParameterCollection m;
  SimpleSGDTrainer sgd(m);
  CHECK(sgd.learning_rate == 0.1f);
  CHECK(sgd.clipping_enabled);
  CHECK(sgd.clip_threshold == 5.f);
  CHECK(sgd.sparse_updates_enabled);
  MomentumSGDTrainer momentum(m);
  CHECK(momentum.learning_rate == 0.01f);
  CHECK(momentum.momentum == 0.9f);
  AdagradTrainer adagrad(m);
  CHECK(adagrad.learning_rate == 0.1f);
  CHECK(adagrad.epsilon == 1e-20f);
  AdadeltaTrainer adadelta(m);
  CHECK(adadelta.epsilon == 1e-6f);
  CHECK(adadelta.rho == 0.95f);
  RMSPropTrainer rmsprop(m);
  CHECK(rmsprop.learning_rate == 0.1f);
  CHECK(rmsprop.epsilon == 1e-20f);
  CHECK(rmsprop.rho == 0.95f);
  AdamTrainer adam(m);
  AmsgradTrainer amsgrad(m);
  for (const AdamTrainer* t : {static_cast<const AdamTrainer*>(&adam), static_cast<const AdamTrainer*>(&amsgrad)}) {
    CHECK(t->learning_rate == 0.001f);
    CHECK(t->beta_1 == 0.9f);
    CHECK(t->beta_2 == 0.999f);
    CHECK(t->epsilon == 1e-8f);
  }
}
