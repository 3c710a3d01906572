// Zero-gradient steps a CPU update kernel defers (trainers/deferred_rows.h): over a run of dense
// updates of a table, the values must be at every step, and the state once the steps are run, the
// bits of updates that read every gradient, whatever changes between the steps.

#include <catch2/catch.hpp>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"
#include "trainers/adam_trainer.h"
#include "trainers/deferred_rows.h"
#include "trainers/update_kernels.h"
#include "trainers/update_rules.h"

using namespace dynet;

namespace {

constexpr std::size_t kRowSize = 40, kRows = 2000, kSize = kRowSize * kRows;

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

/// One update of the run: which rows a gradient reaches, and how the call differs from a plain
/// dense one.
struct Step {
  float beta_2 = 0.999f;
  float factor = 1.f;
  bool flush = true;
  bool sparse = false;
  bool two_threads = false;
};

struct Table {
  std::vector<float> values, state;
};

}  // namespace

TEST_CASE("deferred zero-gradient steps of Adam give the bits of dense updates that read every gradient",
          "[trainers][threads]") {
  // beta_1 = 0 makes m +0 one zero-gradient step after a gradient, so rows start and stop being
  // deferred all through the run; with 0.9, only rows no gradient ever reached are.
  for (float beta_1 : {0.f, 0.9f}) {
    INFO("beta_1 " << beta_1);
    std::mt19937 gen(5);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    Table table{std::vector<float>(kSize), std::vector<float>(2 * kSize, 0.f)};
    for (float& x : table.values) x = u(gen);
    // As rows a gradient last reached long ago: m +0, v small (some of them denormal).
    for (std::size_t i = kSize; i < 2 * kSize; ++i) table.state[i] = std::ldexp(std::fabs(u(gen)), -int(gen() % 140));
    // And v that decays below FLT_MIN in steps 33-37, counted while flushed: run in the IEEE mode
    // of the last steps, they would be denormals instead of 0.
    for (std::size_t r = 0; r < kRows; r += 13)
      for (std::size_t e = 0; e < kRowSize; ++e)
        table.state[kSize + r * kRowSize + e] = FLT_MIN * (1.f + 1e-4f * e) / (std::pow(0.999f, 32.f) * 0.99f);
    table.values[7 * kRowSize + 3] = -0.f;
    table.state[kSize + 11 * kRowSize + 5] = std::nanf("");  // a NaN v: that row is never deferred
    Table deferring = table, reading = table;
    DeferredRows deferred;
    deferred.steps.assign(kRows, 0);
    deferred.row_size = kRowSize;

    std::vector<Step> steps(40);
    steps[9].beta_2 = 0.99f;  // counted steps run with the beta_2 they were counted under
    steps[14].factor = 0.8f;  // weight decay: every step runs
    steps[18].sparse = true;  // a sparse update runs the counted steps of every row
    for (std::size_t k = 37; k < 40; ++k) steps[k].flush = false;  // and the denormal mode they were counted under
    for (std::size_t k = 27; k < 33; ++k) steps[k].two_threads = true;

    const MemorySizes sizes{1 << 16, 1 << 16, 1 << 16, 1 << 16};
    Device_CPU one(sizes, false, 1), two(sizes, false, 2);
    REQUIRE(two.thread_pool() != nullptr);
    const auto kernel = std::get<UpdateKernel<update_rules::Adam>>(update_kernels(DeviceType::CPU));
    for (std::size_t k = 0; k < steps.size(); ++k) {
      const Step& s = steps[k];
      INFO("step " << k);
      const update_rules::Adam rule{beta_1, s.beta_2, 1e-8f, 0.01f, 0.5f, false};
      std::vector<float> grads(kSize, 0.f);
      std::vector<std::uint8_t> reached(kRows, 0);
      std::vector<unsigned> rows;
      for (unsigned r = 0; r < kRows; ++r)
        if (r == 11 || gen() % 50 == 0) {
          reached[r] = 1;
          rows.push_back(r);
          for (std::size_t e = 0; e < kRowSize; ++e) grads[r * kRowSize + e] = gen() % 7 == 0 ? -0.f : u(gen);
        }
      Device& device = s.two_threads ? static_cast<Device&>(two) : one;
      auto call_on = [&](Table& t) {
        update_rules::UpdateCall c{t.values.data(), grads.data(), t.state.data(), kSize, kSize, nullptr, 1, s.factor};
        if (s.sparse) {
          c.n = kRowSize;
          c.rows = rows.data();
          c.blocks = rows.size();
        }
        c.flush_denormals = s.flush;
        return c;
      };
      // Every gradient read, zeros included (or only the rows listed, for a sparse update).
      kernel(one, rule, call_on(reading));
      update_rules::UpdateCall counted = call_on(deferring);
      if (!s.sparse) {
        counted.reached = reached.data();
        counted.row_size = kRowSize;
      }
      counted.deferred = &deferred;
      kernel(device, rule, counted);
      CHECK(same_bits(deferring.values, reading.values));
    }
    std::size_t counted_rows = 0;
    for (std::uint32_t n : deferred.steps) counted_rows += n != 0;
    CHECK(counted_rows > kRows / 4);
    CHECK(deferred.steps[11] == 0);
    CHECK(!same_bits(deferring.state, reading.state));

    update_rules::UpdateCall settle{
        deferring.values.data(), nullptr, deferring.state.data(), kSize, kSize, nullptr, 1, 1.f};
    settle.deferred = &deferred;
    settle.settle_only = true;
    const std::vector<float> values_before = deferring.values;
    kernel(one, update_rules::Adam{beta_1, 0.5f, 1e-8f, 0.01f, 0.5f, false}, settle);
    CHECK(same_bits(deferring.state, reading.state));
    CHECK(same_bits(deferring.values, values_before));
    CHECK(!deferred.any);
    for (std::uint32_t n : deferred.steps) REQUIRE(n == 0);
  }
}

TEST_CASE("an Adam trainer's dense updates keep the values and its checkpoints the state of updates that read "
          "every gradient and populate forgets the steps counted before it",
          "[trainers]") {
  // The same training twice, with beta_1 = 0 so that rows are deferred one step after their
  // gradient; b's loss also reads its whole table, times 0: its gradients are the same, and its
  // dense update, of a table used as a whole, reads every one of them and defers nothing.
  auto make = [](ParameterCollection& model) {
    return model.add_lookup_parameters(500, {16}, ParameterInitConst(0.25f));
  };
  ParameterCollection model_a, model_b;
  LookupParameter table_a = make(model_a), table_b = make(model_b);
  AdamTrainer a(model_a, 0.01f, 0.f), b(model_b, 0.01f, 0.f);
  a.sparse_updates_enabled = b.sparse_updates_enabled = false;
  auto step = [](AdamTrainer& trainer, LookupParameter& table, unsigned k, bool whole) {
    ComputationGraph cg;
    const Expression x = lookup(cg, table, (k * 37) % 500) + lookup(cg, table, (k * 11) % 500);
    Expression loss = sum_elems(cmult(x, x));
    if (whole) loss = loss + 0.f * sum_elems(parameter(cg, table));
    cg.backward(loss);
    trainer.update();
  };
  auto checkpoint = [](AdamTrainer& trainer) {
    std::ostringstream os;
    trainer.save(os);
    return os.str();
  };
  for (unsigned k = 0; k < 30; ++k) {
    step(a, table_a, k, false);
    step(b, table_b, k, true);
    REQUIRE(same_bits(as_vector(table_a.get_storage().all_values), as_vector(table_b.get_storage().all_values)));
    if (k % 10 == 9) CHECK(checkpoint(a) == checkpoint(b));
  }
  const std::string saved = checkpoint(a);
  for (unsigned k = 30; k < 40; ++k) step(a, table_a, k, false);
  std::istringstream is(saved);
  a.populate(is);
  CHECK(checkpoint(a) == saved);
}
