// Trainer::update over a subset (DyNet's update(updated_params, updated_lookup_params), Python's
// update_subset): the listed parameters step as in a full update, the others keep their gradients.

#include <catch2/catch.hpp>

#include <cstring>
#include <stdexcept>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"
#include "trainers/all_trainers.h"

using namespace dynet;

namespace {

struct Model {
  ParameterCollection pc;
  Parameter w = pc.add_parameters({3}, ParameterInitFromVector({0.5f, -1.f, 2.f}));
  Parameter u = pc.add_parameters({3}, ParameterInitFromVector({1.5f, 0.25f, -0.75f}));
  LookupParameter table = pc.add_lookup_parameters(4, {3}, ParameterInitFromVector(std::vector<float>(12, 0.5f)));
  SimpleSGDTrainer trainer{pc, 0.1f};

  void backward() {
    ComputationGraph cg;
    Expression x = lookup(cg, table, 2u);
    cg.backward(squared_norm(cmult(parameter(cg, w), x) + parameter(cg, u)));
  }
  std::vector<std::vector<float>> values() const {
    return {as_vector(w.get_storage().values), as_vector(u.get_storage().values),
            as_vector(table.get_storage().all_values)};
  }
  std::vector<std::vector<float>> gradients() const {
    return {as_vector(w.get_storage().g), as_vector(u.get_storage().g), as_vector(table.get_storage().all_grads)};
  }
};

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("an update of a subset steps what it lists as a full update does and keeps the others' gradients",
          "[trainers]") {
  Model subset, full;
  subset.backward();
  full.backward();
  const auto start = subset.values();
  const auto gradients = subset.gradients();
  subset.trainer.update({0}, {0});
  full.trainer.update();
  const auto after = subset.values(), stepped = full.values();
  CHECK(same_bits(after[0], stepped[0]));
  CHECK(same_bits(after[2], stepped[2]));
  CHECK(same_bits(after[1], start[1]));
  CHECK(!same_bits(stepped[1], start[1]));
  const auto kept = subset.gradients();
  CHECK(same_bits(kept[1], gradients[1]));
  CHECK(as_vector(subset.w.get_storage().g) == std::vector<float>(3, 0.f));
  // Plain SGD steps nothing on a zero gradient: the later full update brings u where one full
  // update does, from the gradient u kept.
  subset.trainer.update();
  const auto caught_up = subset.values();
  for (unsigned k = 0; k < 3; ++k) CHECK(same_bits(caught_up[k], stepped[k]));
}

TEST_CASE("an update of a subset refuses positions past the end or given twice, changing nothing",
          "[trainers][errors]") {
  Model m;
  m.backward();
  const auto values = m.values(), gradients = m.gradients();
  CHECK_THROWS_WITH(m.trainer.update({0, 2}, {}), Catch::Contains("parameter 2 does not exist"));
  CHECK_THROWS_WITH(m.trainer.update({1, 1}, {}), Catch::Contains("parameter 1 is listed twice"));
  CHECK_THROWS_WITH(m.trainer.update({0}, {1}), Catch::Contains("lookup parameter 1 does not exist"));
  for (unsigned k = 0; k < 3; ++k) {
    CHECK(same_bits(m.values()[k], values[k]));
    CHECK(same_bits(m.gradients()[k], gradients[k]));
  }
  CHECK(m.trainer.updates == 0);
}
