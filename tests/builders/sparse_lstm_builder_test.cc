// SparseLSTMBuilder: the LSTM of VanillaLSTMBuilder over magnitude-pruned weights. Checked
// against a VanillaLSTMBuilder holding the same values with the pruned weights set to zero.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "builders/sparse_lstm_builder.h"
#include "builders/vanilla_lstm_builder.h"
#include "dynet_core/graph.h"
#include "dynet_core/io/savers_and_loaders.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/tensor_tools.h"
#include "support/gradient_check.h"
#include "support/temp_file.h"
#include "trainers/adam_trainer.h"
#include "trainers/simple_sgd_trainer.h"

using namespace dynet;
using test_support::TempFile;

namespace {

constexpr unsigned kLayers = 2, kInput = 3, kHidden = 4;
const std::vector<std::vector<unsigned>> kSteps = {{0}, {2}, {1}, {3}};

std::vector<float> values_of(Parameter p) { return as_vector(*p.values()); }

/// The outputs of a sequence over rows of `table`, flattened.
template <class Builder>
std::vector<float> outputs(Builder& rnn, const LookupParameter& table) {
  ComputationGraph cg;
  std::vector<float> all;
  for (const Expression& h : test_support::run_sequence(rnn, cg, table, kSteps))
    for (float v : as_vector(cg.forward(h))) all.push_back(v);
  return all;
}

/// Gives `vanilla` the values of `sparse`, with the weights its masks prune set to zero.
void copy_pruned(const SparseLSTMBuilder& sparse, VanillaLSTMBuilder& vanilla) {
  for (unsigned l = 0; l < kLayers; ++l)
    for (unsigned k = 0; k < 3; ++k) {
      std::vector<float> v = values_of(sparse.layer_parameters()[l][k]);
      if (k < 2) {
        const std::vector<float> mask = values_of(sparse.masks()[l][k]);
        for (std::size_t i = 0; i < v.size(); ++i) v[i] *= mask[i];
      }
      TensorTools::set_elements(*Parameter(vanilla.layer_parameters()[l][k]).values(), v);
    }
}

std::size_t zeros(const std::vector<float>& v) { return std::count(v.begin(), v.end(), 0.f); }

}  // namespace

TEST_CASE("a sparse LSTM is the vanilla LSTM over its pruned weights", "[builders][sparse]") {
  ParameterCollection model;
  SparseLSTMBuilder sparse(kLayers, kInput, kHidden, model);
  VanillaLSTMBuilder vanilla(kLayers, kInput, kHidden, model);
  const LookupParameter table = model.add_lookup_parameters(4, {kInput});
  const float sparsity = GENERATE(0.f, 0.3f, 0.75f, 1.f);
  INFO("sparsity " << sparsity);
  if (sparsity > 0.f) sparse.set_sparsity(sparsity);
  for (unsigned l = 0; l < kLayers; ++l)
    for (unsigned k = 0; k < 2; ++k) {
      const std::vector<float> w = values_of(sparse.layer_parameters()[l][k]);
      const std::vector<float> mask = values_of(sparse.masks()[l][k]);
      REQUIRE(zeros(mask) == static_cast<std::size_t>(double(sparsity) * double(w.size())));
      float largest_pruned = 0.f, smallest_kept = std::numeric_limits<float>::infinity();
      for (std::size_t i = 0; i < w.size(); ++i) {
        CHECK((mask[i] == 0.f || mask[i] == 1.f));
        if (mask[i] == 0.f)
          largest_pruned = std::max(largest_pruned, std::fabs(w[i]));
        else
          smallest_kept = std::min(smallest_kept, std::fabs(w[i]));
      }
      CHECK(largest_pruned <= smallest_kept);
    }
  copy_pruned(sparse, vanilla);
  CHECK(outputs(sparse, table) == outputs(vanilla, table));
}

TEST_CASE("a sparse LSTM's pruned weights get no gradient", "[builders][sparse][gradient]") {
  ParameterCollection model;
  SparseLSTMBuilder sparse(kLayers, kInput, kHidden, model, /*ln_lstm=*/GENERATE(false, true));
  const LookupParameter table = model.add_lookup_parameters(4, {kInput});
  sparse.set_sparsity(0.5f);
  ComputationGraph cg;
  const Expression loss = test_support::weighted_sum(cg, test_support::run_sequence(sparse, cg, table, kSteps), 3);
  model.reset_gradient();
  cg.forward(loss);
  cg.backward(loss);
  for (unsigned l = 0; l < kLayers; ++l)
    for (unsigned k = 0; k < 3; ++k) {
      auto& p = Parameter(sparse.layer_parameters()[l][k]).get_storage();
      const std::vector<float> analytic = as_vector(p.g);
      test_support::detail::check_values(p.name, p.values, analytic.data(), cg, loss);
      if (k == 2) continue;
      const std::vector<float> mask = values_of(sparse.masks()[l][k]);
      for (std::size_t i = 0; i < mask.size(); ++i)
        if (mask[i] == 0.f) CHECK(analytic[i] == 0.f);
      CHECK(zeros(analytic) < analytic.size());
    }
}

TEST_CASE("raising a sparse LSTM's sparsity keeps pruned weights pruned", "[builders][sparse]") {
  ParameterCollection model;
  SparseLSTMBuilder sparse(1, kInput, kHidden, model);
  sparse.set_sparsity(0.25f);
  const std::vector<float> before = values_of(sparse.masks()[0][1]);
  // Training may move pruned weights (momentum) past kept ones: they still read as zero.
  Parameter w_h = sparse.layer_parameters()[0][1];
  std::vector<float> w = values_of(w_h);
  for (std::size_t i = 0; i < w.size(); ++i)
    if (before[i] == 0.f) w[i] = 10.f;
  TensorTools::set_elements(*w_h.values(), w);
  sparse.set_sparsity(0.5f);
  const std::vector<float> after = values_of(sparse.masks()[0][1]);
  CHECK(zeros(after) == w.size() / 2);
  for (std::size_t i = 0; i < w.size(); ++i)
    if (before[i] == 0.f) CHECK(after[i] == 0.f);
  // A weight that is NaN (a diverged step) ranks as the largest: the order stays one, and it is kept.
  const std::size_t kept = std::find(after.begin(), after.end(), 1.f) - after.begin();
  const float was = w[kept];
  w[kept] = std::numeric_limits<float>::quiet_NaN();
  TensorTools::set_elements(*w_h.values(), w);
  sparse.set_sparsity(0.5f);
  CHECK(values_of(sparse.masks()[0][1]) == after);
  w[kept] = was;
  TensorTools::set_elements(*w_h.values(), w);
  // Lowering it restores the largest pruned weights first.
  sparse.set_sparsity(0.25f);
  const std::vector<float> lowered = values_of(sparse.masks()[0][1]);
  for (std::size_t i = 0; i < w.size(); ++i)
    if (before[i] == 0.f) CHECK(lowered[i] == 1.f);
}

TEST_CASE("a sparse LSTM's masks are kept by trainers and by model files", "[builders][sparse][persistence]") {
  TempFile file("sparse-lstm.model", "");
  ParameterCollection model;
  SparseLSTMBuilder sparse(kLayers, kInput, kHidden, model);
  const LookupParameter table = model.add_lookup_parameters(4, {kInput});
  sparse.set_sparsity(0.6f);
  AdamTrainer trainer(model, 0.1f);
  for (int step = 0; step < 3; ++step) {
    ComputationGraph cg;
    const Expression loss = test_support::weighted_sum(cg, test_support::run_sequence(sparse, cg, table, kSteps), 5);
    cg.forward(loss);
    cg.backward(loss);
    trainer.update();
  }
  CHECK(zeros(values_of(sparse.masks()[1][0])) == static_cast<std::size_t>(0.6 * kHidden * 4 * kHidden));
  TextFileSaver(file.path()).save(model);

  ParameterCollection loaded_model;
  SparseLSTMBuilder loaded(kLayers, kInput, kHidden, loaded_model);
  const LookupParameter loaded_table = loaded_model.add_lookup_parameters(4, {kInput});
  TextFileLoader(file.path()).populate(loaded_model);
  for (unsigned l = 0; l < kLayers; ++l)
    for (unsigned k = 0; k < 2; ++k) CHECK(values_of(loaded.masks()[l][k]) == values_of(sparse.masks()[l][k]));
  CHECK(outputs(loaded, loaded_table) == outputs(sparse, table));
}

TEST_CASE("a sparse LSTM's masks read as 0 and 1 under weight decay", "[builders][sparse]") {
  ParameterCollection model;
  model.set_weight_decay_lambda(0.25f);
  SparseLSTMBuilder sparse(kLayers, kInput, kHidden, model);
  VanillaLSTMBuilder vanilla(kLayers, kInput, kHidden, model);
  const LookupParameter table = model.add_lookup_parameters(4, {kInput});
  sparse.set_sparsity(0.5f);
  copy_pruned(sparse, vanilla);
  SimpleSGDTrainer trainer(model, 0.1f);
  {
    ComputationGraph cg;
    const Expression loss = sum_elems(parameter(cg, table));  // a step that leaves the builders alone
    cg.forward(loss);
    cg.backward(loss);
    trainer.update();
  }
  REQUIRE(sparse.masks()[0][0].current_weight_decay() != 1.f);
  CHECK(outputs(sparse, table) == outputs(vanilla, table));
}

TEST_CASE("a sparse LSTM refuses a sparsity outside [0, 1]", "[builders][sparse][messages]") {
  ParameterCollection model;
  SparseLSTMBuilder sparse(1, kInput, kHidden, model);
  sparse.set_sparsity(0.5f);
  const std::vector<float> before = values_of(sparse.masks()[0][0]);
  for (float bad : {-0.1f, 1.5f, std::numeric_limits<float>::quiet_NaN()})
    CHECK_THROWS_WITH(sparse.set_sparsity(bad),
                      Catch::Contains("SparseLSTMBuilder::set_sparsity") && Catch::Contains("in [0, 1]"));
  CHECK(values_of(sparse.masks()[0][0]) == before);
  SparseLSTMBuilder empty;
  CHECK_THROWS_WITH(empty.set_sparsity(0.5f), Catch::Contains("default-constructed"));
}
