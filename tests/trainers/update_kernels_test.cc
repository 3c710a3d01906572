// Trainers update through the update kernels of the parameters' device (trainers/update_kernels.h),
// never by host loops of their own: what a kernel is given for dense and sparse updates.

#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "dynet_core/expr.h"
#include "dynet_core/graph.h"
#include "dynet_core/param_collection.h"
#include "dynet_core/tensor.h"
#include "trainers/eg_trainer.h"
#include "trainers/simple_sgd_trainer.h"
#include "trainers/update_kernels.h"

using namespace dynet;

namespace {

struct Launch {
  std::size_t n, blocks;
  std::vector<unsigned> rows;
  float factor;
};
std::vector<Launch> launches;

template <class Rule>
UpdateKernel<Rule> original;

/// Notes the call, then runs the CPU kernel it stands in for.
template <class Rule>
void recording(Device& d, const Rule& rule, const update_rules::UpdateCall& c) {
  const std::vector<unsigned> rows = c.rows ? std::vector<unsigned>(c.rows, c.rows + c.blocks) : std::vector<unsigned>{};
  launches.push_back({c.n, c.blocks, rows, c.factor});
  original<Rule>(d, rule, c);
}

/// Puts the recording kernel of Rule in the CPU table while alive.
template <class Rule>
struct Recording {
  Recording() {
    launches.clear();
    UpdateKernel<Rule>& k = std::get<UpdateKernel<Rule>>(update_kernels(DeviceType::CPU));
    original<Rule> = k;
    k = recording<Rule>;
  }
  ~Recording() { std::get<UpdateKernel<Rule>>(update_kernels(DeviceType::CPU)) = original<Rule>; }
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
  // The rule runs on what expressions read (0.75 * 0.5) and stores the result over the factor.
  CHECK(as_vector(*p.values())[0] == Approx((0.75f * 0.5f - 0.5f) / 0.75f));
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
