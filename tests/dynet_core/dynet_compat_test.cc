// DyNet 2.1 signatures that DyNet programs call with their trailing or optional arguments (issue 11).
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "dynet/devices.h"
#include "dynet/dynet.h"
#include "dynet/expr.h"
#include "dynet/model.h"
#include "dynet/tensor.h"
#include "dynet/training.h"
#include "dynet/weight-decay.h"

using namespace dynet;

TEST_CASE("inputs take DyNet's trailing Device*: the default is accepted, another device refused", "[dynet_api]") {
  ComputationGraph cg;
  const std::vector<float> data{1, 2, 3};
  float s = 4;
  CHECK(as_scalar(input(cg, 2.f, default_device).value()) == 2.f);
  CHECK(as_scalar(input(cg, &s, default_device).value()) == 4.f);
  CHECK(as_vector(input(cg, Dim({3}), data, default_device).value()) == data);
  CHECK(as_vector(input(cg, Dim({3}), &data, default_device).value()) == data);
  CHECK(as_vector(input(cg, Dim({3}), {1u}, {5.f}, 0.f, default_device).value()) == std::vector<float>{0, 5, 0});
  CHECK(as_vector(one_hot(cg, 3, 2, default_device).value()) == std::vector<float>{0, 0, 1});
  CHECK(as_vector(one_hot(cg, 2, {1u, 0u}, default_device).value()) == std::vector<float>{0, 1, 1, 0});

  Device_CPU other(MemorySizes{1 << 16, 1 << 16, 1 << 16, 1 << 16}, false);
  CHECK_THROWS_WITH(input(cg, 2.f, &other), Catch::Contains("input: the graph runs on device"));
  CHECK_THROWS_AS(input(cg, &s, &other), std::invalid_argument);
  CHECK_THROWS_AS(input(cg, Dim({3}), data, &other), std::invalid_argument);
  CHECK_THROWS_AS(input(cg, Dim({3}), &data, &other), std::invalid_argument);
  CHECK_THROWS_AS(input(cg, Dim({3}), {1u}, {5.f}, 0.f, &other), std::invalid_argument);
  CHECK_THROWS_WITH(one_hot(cg, 3, 2, &other), Catch::Contains("one_hot: the graph runs on device"));
  CHECK_THROWS_AS(one_hot(cg, 2, {1u, 0u}, &other), std::invalid_argument);

  const Expression x = input(cg, 1.f);
  CHECK_THROWS_WITH(to_device(x, default_device), Catch::Contains("to_device: x is already on device"));
  CHECK_THROWS_WITH(to_device(x, &other), Catch::Contains("to_device: x's graph runs on device"));

  ComputationGraph on_other(&other);
  CHECK(as_scalar(input(on_other, 3.f, &other).value()) == 3.f);
}

TEST_CASE("add_parameters takes DyNet's trailing Device*", "[dynet_api]") {
  ParameterCollection m;
  Parameter p = m.add_parameters({2}, ParameterInitConst(0.5f), "p", default_device);
  Parameter q = m.add_parameters({2}, 0.1f, "q", default_device);
  LookupParameter l = m.add_lookup_parameters(3, {2}, ParameterInitConst(1.f), "l", default_device);
  CHECK(p.get_storage().device == default_device());
  CHECK(q.get_storage().device == default_device());
  CHECK(l.get_storage().device == default_device());
  Device_CPU other(MemorySizes{1 << 16, 1 << 16, 1 << 16, 1 << 16}, false);
  ParameterCollection there;
  CHECK(there.add_parameters({2}, ParameterInitConst(0.5f), "p", &other).get_storage().device == &other);
}

TEST_CASE("hinge_dim reads a batch's vectors of indices through DyNet's pointer at every forward", "[dynet_api]") {
  const std::vector<float> scores{0.5f, 1.f, 2.f, 0.f, 3.f, 1.f, 1.f, 0.2f, 0.9f, 2.f, 0.f, 0.4f};
  std::vector<std::vector<unsigned>> correct{{0, 2}, {1, 1}};
  ComputationGraph cg;
  const Expression x = input(cg, Dim({3, 2}, 2), scores);
  const Expression by_pointer = hinge_dim(x, &correct, 0, 0.5f);
  CHECK(by_pointer.dim() == Dim({2}, 2));
  CHECK(as_vector(cg.forward(by_pointer)) == as_vector(cg.forward(hinge_dim(x, correct, 0, 0.5f))));

  correct = {{2, 0}, {0, 2}};
  const std::vector<float> now = as_vector(cg.forward(by_pointer));
  CHECK(now == as_vector(cg.forward(hinge_dim(x, std::vector<std::vector<unsigned>>{{2, 0}, {0, 2}}, 0, 0.5f))));
  CHECK(now != as_vector(cg.forward(hinge_dim(x, std::vector<std::vector<unsigned>>{{0, 2}, {1, 1}}, 0, 0.5f))));

  correct[1] = {0, 3};
  CHECK_THROWS_WITH(cg.forward(by_pointer), Catch::Contains("hinge_dim") && Catch::Contains("index 3"));
  correct[1] = {0};
  CHECK_THROWS_WITH(cg.forward(by_pointer), Catch::Contains("hinge_dim") && Catch::Contains("now holds 3"));
  CHECK_THROWS_AS(hinge_dim(x, static_cast<const std::vector<std::vector<unsigned>>*>(nullptr)), std::invalid_argument);
}

TEST_CASE("TensorTools::argmax returns an IndexTensor of its own, per line along a dimension", "[dynet_api]") {
  ComputationGraph cg;
  // Two batch elements of a 3x2 matrix: columns (1,5,5) (7,0,2) | (0,0,-1) (3,9,4).
  const Expression x = input(cg, Dim({3, 2}, 2), {1, 5, 5, 7, 0, 2, 0, 0, -1, 3, 9, 4});
  IndexTensor by_rows;
  {
    const IndexTensor ids = TensorTools::argmax(x.value());
    CHECK(ids.d == Dim({1, 2}, 2));
    CHECK(as_vector(ids) == std::vector<std::ptrdiff_t>{1, 0, 0, 1});
    by_rows = TensorTools::argmax(x.value(), 1);
  }
  CHECK(by_rows.d == Dim({3, 1}, 2));
  CHECK(as_vector(by_rows) == std::vector<std::ptrdiff_t>{1, 0, 0, 1, 1, 1});
  const IndexTensor copy = by_rows;
  CHECK(copy.v == by_rows.v);
  // num > 1 (beyond DyNet): the num largest of each line, largest first, the lower index among equals.
  const IndexTensor top2 = TensorTools::argmax(x.value(), 0, 2);
  CHECK(top2.d == Dim({2, 2}, 2));
  CHECK(as_vector(top2) == std::vector<std::ptrdiff_t>{1, 2, 0, 2, 0, 1, 1, 2});
  const IndexTensor both_columns = TensorTools::argmax(x.value(), 1, 2);
  CHECK(both_columns.d == Dim({3, 2}, 2));
  CHECK(as_vector(both_columns) == std::vector<std::ptrdiff_t>{1, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0});
  CHECK_THROWS_WITH(TensorTools::argmax(x.value(), 1, 3), Catch::Contains("num = 3"));
  CHECK_THROWS_AS(TensorTools::argmax(x.value(), 0, 0), std::invalid_argument);
  CHECK_THROWS_AS(TensorTools::categorical_sample_log_prob(x.value(), 0, 2), std::runtime_error);
}

TEST_CASE("TensorTools::topk gives the largest values with argmax's indices in memory the indices own",
          "[dynet_api]") {
  // DyNet's test-tensor case: two batch elements of 3
  {
    Tensor values;
    ComputationGraph cg;
    const Expression x = input(cg, Dim({3}, 2), {1.1f, 2.6f, 3.3f, 4.0f, 5.1f, 6.6f});
    const std::pair<Tensor, IndexTensor> top = TensorTools::topk(x.value());
    CHECK(as_vector(top.second) == std::vector<std::ptrdiff_t>{2, 2});
    CHECK(as_vector(top.first) == std::vector<float>{3.3f, 6.6f});
    // along columns of a matrix, two of each row, the copy of the indices keeping the values
    const Expression m = input(cg, Dim({3, 2}, 2), {1, 5, 5, 7, 0, 2, 0, 0, -1, 3, 9, 4});
    const std::pair<Tensor, IndexTensor> rows = TensorTools::topk(m.value(), 1, 2);
    CHECK(rows.first.d == Dim({3, 2}, 2));
    CHECK(as_vector(rows.second) == std::vector<std::ptrdiff_t>{1, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0});
    CHECK(as_vector(rows.first) == std::vector<float>{7, 5, 5, 1, 0, 2, 3, 9, 4, 0, 0, -1});
    CHECK_THROWS_AS(TensorTools::topk(m.value(), 0, 4), std::invalid_argument);
    const IndexTensor keep = rows.second;
    values = rows.first;
    cg.clear();
    CHECK(as_vector(values) == std::vector<float>{7, 5, 5, 1, 0, 2, 3, 9, 4, 0, 0, -1});  // the graph's memory is gone
  }
}

TEST_CASE("TensorTools::categorical_sample_log_prob draws each class as often as its probability", "[dynet_api]") {
  ComputationGraph cg;
  const Expression logp = input(cg, Dim({3}, 2),
                                {std::log(0.2f), std::log(0.5f), std::log(0.3f),  //
                                 -1e30f, 0.f, -1e30f});
  std::vector<unsigned> counts(3, 0);
  const unsigned draws = 4000;
  for (unsigned k = 0; k < draws; ++k) {
    const IndexTensor ids = TensorTools::categorical_sample_log_prob(logp.value());
    REQUIRE(ids.d == Dim({1}, 2));
    ++counts[ids.v[0]];
    CHECK(ids.v[1] == 1);
  }
  CHECK(counts[0] / double(draws) == Approx(0.2).margin(0.03));
  CHECK(counts[1] / double(draws) == Approx(0.5).margin(0.03));
  CHECK(counts[2] / double(draws) == Approx(0.3).margin(0.03));
}

TEST_CASE("L2WeightDecay tracks DyNet's factor (1 - lambda)^updates and refuses a negative lambda", "[dynet_api]") {
  L2WeightDecay wd(0.1f);
  CHECK(wd.current_weight_decay() == 1.f);
  wd.update_weight_decay();
  CHECK(wd.current_weight_decay() == Approx(0.9f));
  wd.update_weight_decay(0);
  CHECK(wd.current_weight_decay() == Approx(0.9f));
  wd.update_weight_decay(13);
  CHECK(wd.current_weight_decay() == Approx(std::pow(0.9f, 14.f)));
  CHECK(wd.parameters_need_rescaled());
  wd.reset_weight_decay();
  CHECK(wd.current_weight_decay() == 1.f);
  CHECK_FALSE(wd.parameters_need_rescaled());
  CHECK_THROWS_AS(wd.set_lambda(-0.5f), std::domain_error);
  CHECK_THROWS_AS(L2WeightDecay(-1.f), std::domain_error);
}

TEST_CASE("Trainer::clip_gradients gives DyNet's scale and counts the clip, update_epoch does nothing", "[dynet_api]") {
  ParameterCollection m;
  Parameter p = m.add_parameters({2});
  SimpleSGDTrainer trainer(m, 0.1f);
  trainer.clip_threshold = 1.f;
  auto set_gradient = [&](float a, float b) {
    ComputationGraph cg;
    Expression loss = dot_product(parameter(cg, p), input(cg, Dim({2}), {a, b}));
    cg.forward(loss);
    cg.backward(loss);
  };
  set_gradient(3.f, 4.f);
  CHECK(trainer.clip_gradients() == Approx(0.2f));
  CHECK(trainer.clips == 1.f);
  m.reset_gradient();
  set_gradient(0.3f, 0.4f);
  CHECK(trainer.clip_gradients() == 1.f);
  CHECK(trainer.clips == 1.f);
  trainer.clipping_enabled = false;
  set_gradient(30.f, 40.f);
  CHECK(trainer.clip_gradients() == 1.f);
  trainer.clipping_enabled = true;
  set_gradient(std::nanf(""), 0.f);
  CHECK_THROWS_WITH(trainer.clip_gradients(),
                    Catch::Contains("SimpleSGDTrainer::clip_gradients: the gradient norm is"));

  const std::vector<float> before = as_vector(p.get_storage().values);
  trainer.update_epoch();
  trainer.rescale_and_reset_weight_decay();
  CHECK(as_vector(p.get_storage().values) == before);
}

TEST_CASE("DyNet's storage interface: the base class list, norms, has_grad, zero, updated flags", "[dynet_api]") {
  ParameterCollection m;
  Parameter p = m.add_parameters({2}, ParameterInitFromVector({3.f, 4.f}));
  LookupParameter t = m.add_lookup_parameters(2, {1}, ParameterInitFromVector({1.f, 2.f}));
  Parameter q = m.add_parameters({1}, ParameterInitConst(5.f));
  const std::vector<std::shared_ptr<ParameterStorageBase>> all = m.get_parameter_storages_base();
  REQUIRE(all.size() == 3);
  CHECK(all[0].get() == p.p.get());
  CHECK(all[1].get() == t.p.get());
  CHECK(all[2].get() == q.p.get());
  float sq = 0;
  all[0]->squared_l2norm(&sq);
  CHECK(sq == 25.f);
  all[1]->squared_l2norm(&sq);
  CHECK(sq == 5.f);
  CHECK(all[1]->size() == 2);
  CHECK_FALSE(all[0]->has_grad());
  {
    ComputationGraph cg;
    cg.backward(dot_product(parameter(cg, p), input(cg, Dim({2}), {1.f, 2.f})));
  }
  CHECK(all[0]->has_grad());
  all[0]->g_squared_l2norm(&sq);
  CHECK(sq == 5.f);
  all[0]->scale_gradient(2.f);
  CHECK(as_vector(*p.gradients()) == std::vector<float>{2.f, 4.f});
  p.zero();  // values and gradient, as DyNet's
  CHECK(as_vector(*p.values()) == std::vector<float>{0.f, 0.f});
  CHECK_FALSE(all[0]->has_grad());
  t.scale(3.f);
  CHECK(as_vector(t.get_storage().all_values) == std::vector<float>{3.f, 6.f});
  const LookupParameter& ct = t;
  ct.initialize(1, {7.f});
  CHECK(as_vector(t.get_storage().values[1]) == std::vector<float>{7.f});
  m.set_updated_param(&q, false);
  CHECK_FALSE(m.is_updated_param(&q));
  CHECK_FALSE(all[2]->is_updated());
  m.set_updated_lookup_param(&t, false);
  CHECK_FALSE(m.is_updated_lookup_param(&t));
  CHECK_THROWS_WITH(p.get_storage().set_value({1.f}),
                    Catch::Contains("ParameterStorage::set_value") && Catch::Contains("holds 2"));
}

TEST_CASE("Trainer::populate(is, lr) restores a checkpoint with DyNet's new learning rate", "[dynet_api]") {
  ParameterCollection m;
  m.add_parameters({1});
  SimpleSGDTrainer saved(m, 0.5f);
  std::stringstream checkpoint;
  saved.save(checkpoint);
  SimpleSGDTrainer restored(m, 0.1f);
  std::stringstream again(checkpoint.str());
  CHECK_THROWS_AS(restored.populate(again, -1.f), std::invalid_argument);
  CHECK(restored.learning_rate == 0.1f);
  restored.populate(checkpoint, 0.25f);
  CHECK(restored.learning_rate == 0.25f);
}
