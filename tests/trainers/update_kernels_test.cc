// Trainers update through the update kernels of the parameters' device (trainers/update_kernels.h),
// never by host loops of their own: what a kernel is given for dense and sparse updates.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/init.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"
#include "dynet_core/tensor.h"
#include "trainers/eg_trainer.h"
#include "trainers/simple_sgd_trainer.h"
#include "trainers/update_kernels.h"
#include "trainers/update_rules.h"

using namespace dynet;

namespace {

struct Launch {
  std::size_t n, blocks;
  std::vector<unsigned> rows;
  float factor;
  bool reached;  ///< given the rows a gradient reached (a dense update of a table)
  bool flush_denormals;
};
std::vector<Launch> launches;

template <class Rule>
UpdateKernel<Rule> original;

/// Notes the call, then runs the CPU kernel it stands in for.
template <class Rule>
void recording(Device& d, const Rule& rule, const update_rules::UpdateCall& c) {
  const std::vector<unsigned> rows =
      c.rows ? std::vector<unsigned>(c.rows, c.rows + c.blocks) : std::vector<unsigned>{};
  launches.push_back({c.n, c.blocks, rows, c.factor, c.reached != nullptr, c.flush_denormals});
  original<Rule>(d, rule, c);
}

/// Puts the recording kernel of Rule in the table of the default device's type while alive.
template <class Rule>
struct Recording {
  Recording() {
    launches.clear();
    UpdateKernel<Rule>& k = std::get<UpdateKernel<Rule>>(update_kernels(default_device()->type));
    original<Rule> = k;
    k = recording<Rule>;
  }
  ~Recording() { std::get<UpdateKernel<Rule>>(update_kernels(default_device()->type)) = original<Rule>; }
};

std::vector<unsigned> sorted(std::vector<unsigned> v) {
  std::sort(v.begin(), v.end());
  return v;
}

/// A step whose loss reads the parameter and rows 2 and 0 of the table.
void step(Trainer& trainer, Parameter& p, LookupParameter& table) {
  ComputationGraph cg;
  const Expression loss = sum_elems(parameter(cg, p)) + sum_elems(lookup(cg, table, 2u) + lookup(cg, table, 0u));
  cg.backward(loss);
  trainer.update();
}

}  // namespace

TEST_CASE("trainer updates launch the device's update kernel, with the rows of a sparse update", "[trainers]") {
  const Recording<update_rules::Sgd> recording;
  ParameterCollection model;
  Parameter p = model.add_parameters({3}, ParameterInitConst(1.f));
  LookupParameter table = model.add_lookup_parameters(4, {2}, ParameterInitConst(1.f));
  model.set_weight_decay_lambda(0.25f);
  SimpleSGDTrainer trainer(model, 0.5f);
  step(trainer, p, table);
  REQUIRE(launches.size() == 2);
  CHECK(launches[0].n == 3);
  CHECK(launches[0].blocks == 1);
  CHECK(launches[0].rows.empty());
  CHECK(launches[0].factor == 1.f);
  CHECK(launches[1].n == 2);
  CHECK(sorted(launches[1].rows) == std::vector<unsigned>{0, 2});
  // The kernel's work is the update: 1 - 0.5 * 1 where touched, 1 elsewhere; the weight decay
  // factor then shrinks to 0.75.
  CHECK(as_vector(*p.values()) == std::vector<float>(3, 0.5f));
  CHECK(as_vector(table.row_value(0)) == std::vector<float>(2, 0.5f));
  CHECK(as_vector(table.row_value(1)) == std::vector<float>(2, 1.f));

  trainer.sparse_updates_enabled = false;
  launches.clear();
  step(trainer, p, table);
  REQUIRE(launches.size() == 2);
  CHECK(launches[0].factor == 0.75f);
  CHECK(launches[1].n == 8);
  CHECK(launches[1].rows.empty());
  CHECK(!launches[0].reached);
  CHECK(launches[1].reached);
  // The rule runs on what expressions read (0.75 * 0.5) and stores the result over the factor.
  CHECK(as_vector(*p.values())[0] == Approx((0.75f * 0.5f - 0.5f) / 0.75f));
  CHECK(launches[0].flush_denormals);
  CHECK(launches[1].flush_denormals);

  trainer.flush_denormals = false;
  launches.clear();
  step(trainer, p, table);
  REQUIRE(launches.size() == 2);
  CHECK(!launches[0].flush_denormals);
  CHECK(!launches[1].flush_denormals);
}

TEST_CASE("EGTrainer launches its kernel, which normalizes every row of a sparse update", "[trainers]") {
  const Recording<update_rules::ExponentiatedGradient> recording;
  ParameterCollection model;
  Parameter p = model.add_parameters({3}, ParameterInitConst(0.5f));
  LookupParameter table = model.add_lookup_parameters(4, {2}, ParameterInitConst(0.5f));
  EGTrainer trainer(model, 0.1f);
  step(trainer, p, table);
  REQUIRE(launches.size() == 2);
  CHECK(sorted(launches[1].rows) == std::vector<unsigned>{0, 2});
  for (const std::vector<float>& v : {as_vector(*p.values()), as_vector(table.row_value(2))}) {
    float s = 0;
    for (float x : v) s += x;
    CHECK(s == Approx(1.f));
  }
}

namespace {

/// Calls check(rule) with a rule of every elementwise kind, AMSGrad's Adam too.
template <class Check>
void for_each_rule(const Check& check) {
  check(update_rules::Sgd{0.1f});
  check(update_rules::Momentum{0.9f, 0.1f});
  check(update_rules::Adagrad{0.1f, 1e-6f, 0.5f});
  check(update_rules::Adadelta{0.95f, 1e-6f, 0.5f});
  check(update_rules::RMSProp{0.9f, 0.1f, 1e-6f, 0.5f});
  check(update_rules::Adam{0.9f, 0.999f, 1e-8f, 0.01f, 0.5f, false});
  check(update_rules::Adam{0.9f, 0.999f, 1e-8f, 0.01f, 0.5f, true});
}

/// The CPU kernel of `rule` over rows {4, 0, 2} of a table of 5 rows of 37 values (37: whole
/// vector iterations and a remainder) must equal the rule applied value by value.
template <class Rule>
void expect_kernel_is_the_rule(const Rule& rule, float factor) {
  constexpr std::size_t n = 37, rows = 5, slots = 3;
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> u(0.1f, 1.f);
  std::vector<float> values(n * rows), grads(n * rows), state(slots * n * rows);
  for (float& x : values) x = u(gen);
  for (float& x : grads) x = u(gen) - 0.5f;
  for (float& x : state) x = u(gen);
  std::vector<float> want_values = values, want_state = state;
  const std::vector<unsigned> picked{4, 0, 2};
  update_rules::UpdateCall expected{want_values.data(), grads.data(), want_state.data(), n * rows, n, picked.data(),
                                    picked.size(),      factor};
  for (std::size_t k = 0; k < expected.blocks; ++k)
    for (std::size_t e = 0; e < n; ++e) update_rules::apply_index(rule, expected, expected.at(k, e));
  update_rules::UpdateCall call = expected;
  call.values = values.data();
  call.state = state.data();
  Device_CPU device(MemorySizes{1 << 16, 1 << 16, 1 << 16, 1 << 16}, false, 1);
  std::get<UpdateKernel<Rule>>(update_kernels(DeviceType::CPU))(device, rule, call);
  for (std::size_t i = 0; i < values.size(); ++i) CHECK(values[i] == Approx(want_values[i]).epsilon(1e-6));
  for (std::size_t i = 0; i < state.size(); ++i) CHECK(state[i] == Approx(want_state[i]).epsilon(1e-6));
}

}  // namespace

TEST_CASE("each CPU update kernel equals its rule applied value by value, over rows of a table", "[trainers]") {
  for (float factor : {1.f, 0.8f}) {
    INFO("weight-decay factor " << factor);
    for_each_rule([&](const auto& rule) { expect_kernel_is_the_rule(rule, factor); });
  }
}

namespace {

/// Rule over a dense call on a table of 700 rows of 100 values (more than one thread's share),
/// with and without a mask of reached rows, on one and two threads, and sparse over the reached
/// rows on one and two threads: every way must give the bits of the one-thread call that reads
/// every gradient. With the mask, the other rows' gradients are NaN: the CPU kernel must not read
/// them.
template <class Rule>
void expect_reached_rows_and_threads_change_no_bits(const Rule& rule, float factor) {
  constexpr std::size_t n = 100, rows = 700, slots = 3;
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> u(0.1f, 1.f);
  std::vector<float> values(n * rows), grads(n * rows, 0.f), state(slots * n * rows);
  for (float& x : values) x = u(gen);
  for (float& x : state) x = u(gen);
  // States a zero-gradient step may shortcut (Adam's rows whose first moment is +0), and, for Adam,
  // those that must keep it from doing so, in some chunks of a row and not others: a first moment
  // of -0 (a gradient of -0 leaves one) and a NaN second moment. Other rules never hold -0 or NaN
  // with finite values in their state.
  for (unsigned r = 0; r < rows; ++r) {
    float* first = &state[r * n];
    float* second = first + n * rows;
    switch (r % 5) {
      case 1:
        std::fill(first, first + n, 0.f);
        break;
      case 2:
        std::fill(first, first + n, 0.f);
        std::fill(second, second + n, 0.f);
        break;
      case 3:
        std::fill(first, first + n, 0.f);
        values[r * n + (r + 70) % n] = -0.f;
        if (!std::is_same<Rule, update_rules::Adam>::value) break;
        first[r % n] = -0.f;
        second[(r + 40) % n] = std::nanf("");
        break;
      default:
        break;
    }
  }
  std::vector<std::uint8_t> reached(rows, 0);
  std::vector<unsigned> reached_rows;
  for (unsigned r = 0; r < rows; ++r)
    if (r == 0 || r == 1 || r == rows - 1 || gen() % 16 == 0) {
      reached[r] = 1;
      reached_rows.push_back(r);
      for (std::size_t e = 0; e < n; ++e) grads[r * n + e] = u(gen) - 0.5f;
    }
  std::vector<float> poisoned = grads;
  for (unsigned r = 0; r < rows; ++r)
    if (!reached[r]) std::fill(poisoned.begin() + r * n, poisoned.begin() + (r + 1) * n, std::nanf(""));
  const MemorySizes sizes{1 << 16, 1 << 16, 1 << 16, 1 << 16};
  Device_CPU one(sizes, false, 1), two(sizes, false, 2);
  REQUIRE(two.thread_pool() != nullptr);
  struct Way {
    const char* name;
    Device* device;
    bool mask, sparse;
  };
  auto run = [&](const Way& way) {
    std::vector<float> v = values, s = state;
    update_rules::UpdateCall c{v.data(),
                               way.mask ? poisoned.data() : grads.data(),
                               s.data(),
                               n * rows,
                               way.sparse ? n : n * rows,
                               way.sparse ? reached_rows.data() : nullptr,
                               way.sparse ? reached_rows.size() : 1,
                               factor};
    if (way.mask) {
      c.reached = reached.data();
      c.row_size = n;
    }
    std::get<UpdateKernel<Rule>>(update_kernels(DeviceType::CPU))(*way.device, rule, c);
    v.insert(v.end(), s.begin(), s.end());
    return v;
  };
  const std::vector<float> every_gradient = run({"", &one, false, false});
  for (const Way& way :
       {Way{"reached rows, one thread", &one, true, false}, Way{"reached rows, two threads", &two, true, false},
        Way{"every gradient, two threads", &two, false, false}}) {
    INFO(way.name);
    CHECK(std::memcmp(run(way).data(), every_gradient.data(), every_gradient.size() * sizeof(float)) == 0);
  }
  const std::vector<float> sparse = run({"", &one, false, true});
  CHECK(std::memcmp(run({"", &two, false, true}).data(), sparse.data(), sparse.size() * sizeof(float)) == 0);
}

}  // namespace

TEST_CASE("a dense update of a table skips the zero gradients of rows none reached and splits over threads, to "
          "the same bits",
          "[trainers][threads]") {
  for (float factor : {1.f, 0.8f}) {
    INFO("weight-decay factor " << factor);
    for_each_rule([&](const auto& rule) { expect_reached_rows_and_threads_change_no_bits(rule, factor); });
  }
}

TEST_CASE("CPU update kernels flush denormals to zero on every thread when asked, and leave the caller's mode as "
          "it was",
          "[trainers][threads]") {
  // Adam's zero-gradient step decays a first moment of FLT_MIN to 0.9 FLT_MIN, a denormal, over a
  // dense call large enough to be split over two threads.
  constexpr std::size_t n = 70000;
  const update_rules::Adam adam{0.9f, 0.999f, 1e-8f, 0.01f, 1.f, false};
  volatile float beta_1 = adam.beta_1, smallest = FLT_MIN;
  const float decayed = beta_1 * smallest;
  REQUIRE(decayed != 0.f);
  REQUIRE(std::fpclassify(decayed) == FP_SUBNORMAL);
  const MemorySizes sizes{1 << 16, 1 << 16, 1 << 16, 1 << 16};
  Device_CPU one(sizes, false, 1), two(sizes, false, 2);
  REQUIRE(two.thread_pool() != nullptr);
  for (Device* device : {static_cast<Device*>(&one), static_cast<Device*>(&two)}) {
    for (bool flush : {true, false}) {
      INFO((device == &one ? "one thread" : "two threads") << (flush ? ", flushed" : ", IEEE"));
      std::vector<float> values(n, 0.5f), grads(n, 0.f), state(2 * n, 1e-6f);
      std::fill(state.begin(), state.begin() + n, FLT_MIN);
      update_rules::UpdateCall c{values.data(), grads.data(), state.data(), n, n, nullptr, 1, 1.f};
      c.flush_denormals = flush;
      std::get<UpdateKernel<update_rules::Adam>>(update_kernels(DeviceType::CPU))(*device, adam, c);
      const float want = flush ? 0.f : decayed;
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < n; ++i) wrong += std::memcmp(&state[i], &want, sizeof want) != 0;
      CHECK(wrong == 0);
      CHECK(values[0] == 0.5f);
      // The caller's arithmetic keeps its gradual underflow.
      CHECK(beta_1 * smallest == decayed);
    }
  }
}
