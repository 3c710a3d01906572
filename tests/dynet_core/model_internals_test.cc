// DyNet's model.h internals that trainers and low-level code reach (issue 11): the collection's
// storage, the storages' owner, accumulate_grad(s), initialize_lookups, the has_grad flag and its
// non_zero_grads rows, the Model deprecation message and one weight decay per collection.
#include <catch2/catch.hpp>

#include <iostream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "dynet/devices.h"
#include "dynet/dynet.h"
#include "dynet/expr.h"
#include "dynet/model.h"
#include "dynet/param-init.h"
#include "dynet/training.h"
#include "dynet_core/gradient_set.h"

using namespace dynet;

namespace {

float seen(const Parameter& p) {
  ComputationGraph cg;
  return as_scalar(cg.forward(parameter(cg, p)));
}

/// A tensor of `values` on the device of `s`, made as DyNet code makes one.
template <class Storage>
Tensor on_device_of(const Storage& s, std::vector<float>& values, const Dim& d) {
  return Tensor(d, values.data(), s.device, DeviceMempool::NONE);
}

}  // namespace

TEST_CASE("get_storage lists a collection's parameters, its subcollections' included, in creation order",
          "[dynet_api]") {
  ParameterCollection m;
  ParameterCollection sub = m.add_subcollection("sub");
  Parameter a = m.add_parameters({2});
  LookupParameter t = sub.add_lookup_parameters(3, {2});
  Parameter b = sub.add_parameters({1});
  const ParameterCollectionStorage& all = m.get_storage();
  REQUIRE(all.all_params.size() == 3);
  CHECK(all.all_params[0].get() == a.p.get());
  CHECK(all.all_params[1].get() == t.p.get());
  CHECK(all.all_params[2].get() == b.p.get());
  CHECK(all.params == std::vector<std::shared_ptr<ParameterStorage>>{a.p, b.p});
  CHECK(all.lookup_params == std::vector<std::shared_ptr<LookupParameterStorage>>{t.p});
  ParameterCollectionStorage& mine = sub.get_storage();
  CHECK(mine.params == std::vector<std::shared_ptr<ParameterStorage>>{b.p});
  CHECK(mine.all_params.size() == 2);
  CHECK(&m.get_storage().params == &m.parameters_list());

  std::vector<float> gb{3.f}, gt{4.f, 0.f}, ga{12.f, 0.f};
  b.get_storage().accumulate_grad(on_device_of(b.get_storage(), gb, {1}));
  t.get_storage().accumulate_grad(1, on_device_of(t.get_storage(), gt, {2}));
  a.get_storage().accumulate_grad(on_device_of(a.get_storage(), ga, {2}));
  CHECK(mine.gradient_l2_norm() == Approx(5.f));
  CHECK(all.gradient_l2_norm() == Approx(13.f));
}

TEST_CASE("every parameter's owner is its tree's root collection, and a copy of it keeps the tree alive",
          "[dynet_api]") {
  Parameter a, b;
  ParameterCollection kept;
  {
    ParameterCollection m;
    ParameterCollection sub = m.add_subcollection("sub");
    a = m.add_parameters({1}, ParameterInitConst(2.f));
    b = sub.add_parameters({1}, ParameterInitConst(3.f));
    ParameterCollection* owner = a.get_storage().owner;
    REQUIRE(owner != nullptr);
    CHECK(b.get_storage().owner == owner);
    CHECK(owner->get_fullname() == "/");
    CHECK(&owner->get_weight_decay() == &m.get_weight_decay());
    CHECK(&owner->get_storage() == &m.get_storage());
    kept = *owner;
  }
  CHECK(kept.parameters_list().size() == 2);
  CHECK(a.get_storage().owner != nullptr);
  kept.set_weight_decay_lambda(0.5f);
  SimpleSGDTrainer(kept, 1.f).update();
  CHECK(a.current_weight_decay() == 0.5f);
  kept = ParameterCollection();
  // The tree is gone: its parameters forget it and read their stored values.
  CHECK(a.get_storage().owner == nullptr);
  CHECK(b.get_storage().owner == nullptr);
  CHECK(a.current_weight_decay() == 1.f);
  CHECK(seen(a) == 2.f);
}

TEST_CASE("has_grad says a gradient was accumulated since the last zeroing, even one of zeros", "[dynet_api]") {
  ParameterCollection m;
  Parameter p = m.add_parameters({2}, ParameterInitFromVector({1.f, -1.f}));
  LookupParameter t = m.add_lookup_parameters(4, {1}, ParameterInitConst(1.f));
  ParameterStorage& ps = p.get_storage();
  LookupParameterStorage& ts = t.get_storage();
  CHECK_FALSE(ps.has_grad());
  CHECK_FALSE(ts.has_grad());
  {
    ComputationGraph cg;
    // The gradient of p is 0 * ... = 0, and of the rows 0 too: accumulated all the same.
    Expression zero = input(cg, 0.f);
    Expression rows = lookup(cg, t, std::vector<unsigned>{3, 1, 3});
    cg.backward(zero * sum_elems(parameter(cg, p)) + zero * sum_batches(sum_elems(rows)));
  }
  CHECK(ps.has_grad());
  CHECK(ps.nonzero_grad);
  CHECK(as_vector(ps.g) == std::vector<float>{0.f, 0.f});
  CHECK(ts.has_grad());
  CHECK(ts.non_zero_grads.size() == 2);
  CHECK(ts.non_zero_grads.count(3) == 1);
  CHECK(ts.non_zero_grads.count(1) == 1);
  CHECK(ts.non_zero_grads.count(0) == 0);
  CHECK_FALSE(ts.all_updated);

  SimpleSGDTrainer sgd(m);
  sgd.update();
  CHECK_FALSE(ps.has_grad());
  CHECK_FALSE(ts.has_grad());
  CHECK(ts.non_zero_grads.empty());

  {
    ComputationGraph cg;
    cg.backward(sum_elems(parameter(cg, t)));
  }
  CHECK(ts.has_grad());
  CHECK(ts.all_updated);
  m.reset_gradient();
  CHECK_FALSE(ts.has_grad());
  CHECK_FALSE(ts.all_updated);

  // A pass that collects its gradients apart marks them when they are added in.
  GradientSet set;
  {
    const GradientSet::Scope scope(&set);
    ComputationGraph cg;
    cg.backward(sum_elems(parameter(cg, p)) + lookup(cg, t, 2u));
  }
  CHECK_FALSE(ps.has_grad());
  CHECK_FALSE(ts.has_grad());
  set.add_to_parameters();
  CHECK(ps.has_grad());
  CHECK(ts.has_grad());
  CHECK(ts.non_zero_grads.rows() == std::vector<unsigned>{2});
  ps.clear();
  ts.clear();
  CHECK_FALSE(ps.has_grad());
  CHECK_FALSE(ts.has_grad());
}

TEST_CASE("accumulate_grad and accumulate_grads add to the gradients that trainers apply", "[dynet_api]") {
  ParameterCollection m;
  Parameter p = m.add_parameters({2}, ParameterInitFromVector({1.f, 2.f}));
  LookupParameter t = m.add_lookup_parameters(3, {2}, ParameterInitConst(0.f));
  ParameterStorage& ps = p.get_storage();
  LookupParameterStorage& ts = t.get_storage();

  std::vector<float> d{0.5f, -1.f};
  ps.accumulate_grad(on_device_of(ps, d, {2}));
  ps.accumulate_grad(on_device_of(ps, d, {2}));
  CHECK(as_vector(ps.g) == std::vector<float>{1.f, -2.f});
  CHECK(ps.has_grad());

  std::vector<float> row{1.f, 2.f};
  ts.accumulate_grad(2, on_device_of(ts, row, {2}));
  std::vector<float> rows{10.f, 20.f, 30.f, 40.f};
  const std::vector<unsigned> ids{0, 2};
  ts.accumulate_grads(2, ids.data(), nullptr, rows.data());
  CHECK(as_vector(ts.grads[0]) == std::vector<float>{10.f, 20.f});
  CHECK(as_vector(ts.grads[1]) == std::vector<float>{0.f, 0.f});
  CHECK(as_vector(ts.grads[2]) == std::vector<float>{31.f, 42.f});
  CHECK(ts.non_zero_grads.rows() == std::vector<unsigned>{2, 0});
  CHECK_FALSE(ts.all_updated);
  CHECK(ts.has_grad());

  SimpleSGDTrainer sgd(m, 1.f);
  sgd.clipping_enabled = false;
  sgd.update();
  CHECK(as_vector(*p.values()) == std::vector<float>{0.f, 4.f});
  CHECK(as_vector(ts.values[0]) == std::vector<float>{-10.f, -20.f});
  CHECK(as_vector(ts.values[2]) == std::vector<float>{-31.f, -42.f});

  std::vector<float> table(6, 1.f);
  ts.accumulate_grad(on_device_of(ts, table, {2, 3}));
  CHECK(ts.all_updated);
  CHECK(as_vector(ts.all_grads) == table);

  std::vector<float> three{1.f, 2.f, 3.f};
  CHECK_THROWS_WITH(ps.accumulate_grad(on_device_of(ps, three, {3})),
                    Catch::Contains("ParameterStorage::accumulate_grad") && Catch::Contains("3"));
  Device_CPU other(MemorySizes{1 << 16, 1 << 16, 1 << 16, 1 << 16}, false);
  CHECK_THROWS_AS(ps.accumulate_grad(Tensor(Dim({2}), d.data(), &other)), std::invalid_argument);
  CHECK_THROWS_WITH(ts.accumulate_grad(3, on_device_of(ts, row, {2})), Catch::Contains("index 3 is out of range"));
  const std::vector<float> before = as_vector(ts.all_grads);
  const std::vector<unsigned> bad{1, 5};
  CHECK_THROWS_AS(ts.accumulate_grads(2, bad.data(), nullptr, rows.data()), std::invalid_argument);
  CHECK(as_vector(ts.all_grads) == before);
  CHECK_THROWS_AS(ts.non_zero_grads.insert(3), std::invalid_argument);
}

TEST_CASE("initialize_lookups rebuilds the per-row views from all_values and all_grads", "[dynet_api]") {
  ParameterCollection m;
  LookupParameter t = m.add_lookup_parameters(3, {2}, ParameterInitFromVector({1, 2, 3, 4, 5, 6}));
  LookupParameterStorage& s = t.get_storage();
  s.non_zero_grads.insert(1);
  s.values.clear();
  s.grads.clear();
  s.dim = Dim({6});
  s.initialize_lookups();
  CHECK(s.dim == Dim({2}));
  REQUIRE(s.values.size() == 3);
  REQUIRE(s.grads.size() == 3);
  CHECK(as_vector(s.values[2]) == std::vector<float>{5.f, 6.f});
  CHECK(s.grads[1].v == s.grad_row(1));
  CHECK(s.non_zero_grads.rows() == std::vector<unsigned>{1});
}

TEST_CASE("Model says, as DyNet does, that its name is deprecated", "[dynet_api]") {
  std::ostringstream captured;
  std::streambuf* const old = std::cerr.rdbuf(captured.rdbuf());
  {
    Model model;
    model.add_parameters({1});
  }
  std::cerr.rdbuf(old);
  CHECK(captured.str() == "The name dynet::Model has been deprecated and replaced by dynet::ParameterCollection.\n"
                          "Please replace references to dynet::Model with references to dynet::ParameterCollection.\n");
}

TEST_CASE("each collection has its own weight decay, and expressions read the root one, as in DyNet", "[dynet_api]") {
  ParameterCollection m;
  ParameterCollection sub = m.add_subcollection("sub");
  Parameter a = sub.add_parameters({1}, ParameterInitConst(4.f));
  Parameter b = m.add_parameters({1}, ParameterInitConst(2.f));
  CHECK(&sub.get_weight_decay() != &m.get_weight_decay());
  CHECK(&sub.get_weight_decay() == &sub.get_storage().weight_decay);
  sub.set_weight_decay_lambda(0.5f);
  CHECK(m.weight_decay_lambda() == 0.f);
  CHECK(sub.weight_decay_lambda() == 0.5f);

  // A trainer of the root decays the whole tree through the root's factor.
  m.set_weight_decay_lambda(0.5f);
  SimpleSGDTrainer root_sgd(m, 1.f);
  root_sgd.update();
  CHECK(a.current_weight_decay() == 0.5f);
  CHECK(seen(a) == 2.f);
  CHECK(seen(b) == 1.f);
  CHECK(sub.get_weight_decay().current_weight_decay() == 1.f);
  m.rescale_and_reset_weight_decay();
  CHECK(as_vector(*a.values()) == std::vector<float>{2.f});

  // A trainer of the subcollection divides its steps by the subcollection's factor and folds it into
  // the subcollection's values below 1/4, while expressions read the root's (DyNet's rules).
  m.set_weight_decay_lambda(0.f);
  SimpleSGDTrainer sub_sgd(sub, 1.f);
  auto step = [&] {
    ComputationGraph cg;
    cg.backward(parameter(cg, a) + parameter(cg, b));
    sub_sgd.update();
  };
  step();  // v = 2 - 1, then s = 0.5
  CHECK(as_vector(*a.values()) == std::vector<float>{1.f});
  step();  // v = 1 - 1 / 0.5, then s = 0.25
  CHECK(as_vector(*a.values()) == std::vector<float>{-1.f});
  CHECK(sub.get_weight_decay().current_weight_decay() == 0.25f);
  CHECK(seen(a) == -1.f);
  step();  // v = -1 - 1 / 0.25 = -5, then s = 0.125: folded in
  CHECK(as_vector(*a.values()) == std::vector<float>{-0.625f});
  CHECK(sub.get_weight_decay().current_weight_decay() == 1.f);
  CHECK(as_vector(*b.values()) == std::vector<float>{1.f});
  CHECK(m.get_weight_decay().current_weight_decay() == 1.f);
}
