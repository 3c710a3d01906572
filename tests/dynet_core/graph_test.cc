#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>
#include <thread>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/init.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"

using namespace dynet;

TEST_CASE("forward, incremental_forward and values", "[graph]") {
  ComputationGraph cg;
  Expression a = input(cg, Dim({2}), {1.f, 2.f});
  Expression b = input(cg, Dim({2}), {10.f, 20.f});
  Expression c = a + b;
  Expression s = sum_elems(c);
  CHECK(as_vector(cg.incremental_forward(c)) == std::vector<float>{11.f, 22.f});
  CHECK(as_scalar(cg.forward(s)) == 33.f);
  CHECK(as_scalar(s.value()) == 33.f);
  CHECK(cg.size() == 4);
  CHECK(c.dim() == Dim({2}));
}

TEST_CASE("inputs given by pointer are read again by forward", "[graph]") {
  ComputationGraph cg;
  float x = 2.f;
  std::vector<float> v{1.f, 2.f, 3.f};
  Expression y = input(cg, &x) * 3.f;
  Expression z = sum_elems(input(cg, Dim({3}), &v));
  CHECK(as_scalar(cg.forward(y)) == 6.f);
  x = 5.f;
  CHECK(as_scalar(cg.forward(y)) == 15.f);
  v[0] = 10.f;
  CHECK(as_scalar(cg.forward(z)) == 15.f);
  v.push_back(4.f);
  CHECK_THROWS_WITH(cg.forward(z), Catch::Contains("input") && Catch::Contains("4 values"));
}

TEST_CASE("backward accumulates parameter gradients, get_gradient", "[graph]") {
  ParameterCollection m;
  Parameter p = m.add_parameters({2}, ParameterInitFromVector({1.f, 2.f}));
  ComputationGraph cg;
  Expression w = parameter(cg, p);
  Expression x = input(cg, Dim({2}), {3.f, 4.f});
  Expression loss = dot_product(w, x);
  CHECK(as_scalar(cg.forward(loss)) == 11.f);
  cg.backward(loss);
  CHECK(as_vector(p.get_storage().g) == std::vector<float>{3.f, 4.f});
  cg.backward(loss);  // gradients accumulate until a trainer (or reset_gradient) clears them
  CHECK(as_vector(p.get_storage().g) == std::vector<float>{6.f, 8.f});
  CHECK_THROWS_WITH(cg.get_gradient(x), Catch::Contains("no gradient"));
  cg.backward(loss, true);
  CHECK(as_vector(cg.get_gradient(x)) == std::vector<float>{1.f, 2.f});
  m.reset_gradient();
  CHECK(as_vector(p.get_storage().g) == std::vector<float>{0.f, 0.f});
}

TEST_CASE("backward sums a batch of losses and rejects non-scalars", "[graph][errors]") {
  ParameterCollection m;
  Parameter p = m.add_parameters({1}, ParameterInitConst(2.f));
  ComputationGraph cg;
  Expression x = input(cg, Dim({1}, 3), {1.f, 2.f, 3.f});
  Expression l = cmult(parameter(cg, p), x);
  cg.backward(l);
  CHECK(as_vector(p.get_storage().g)[0] == 6.f);
  Expression v = input(cg, Dim({2}), {1.f, 2.f});
  CHECK_THROWS_WITH(cg.backward(v), Catch::Contains("backward") && Catch::Contains("{2}"));
  CHECK_THROWS_WITH(cg.backward(v, std::vector<float>{1.f}), Catch::Contains("output gradient"));
}

TEST_CASE("a --dynet-vertex mode other than 0 to 2 is refused and leaves the graph's mode", "[graph][errors]") {
  ComputationGraph cg;
  cg.set_vertex(2);
  CHECK_THROWS_WITH(cg.set_vertex(3), Catch::Contains("set_vertex") && Catch::Contains("3"));
  CHECK_THROWS_WITH(cg.set_vertex(-1), Catch::Contains("set_vertex") && Catch::Contains("-1"));
  CHECK(cg.vertex() == 2);
}

TEST_CASE("shape errors name the op and the dims and leave the graph unchanged", "[graph][errors]") {
  ComputationGraph cg;
  Expression a = input(cg, Dim({3, 4}), std::vector<float>(12));
  Expression b = input(cg, Dim({5}), std::vector<float>(5));
  const unsigned before = cg.size();
  CHECK_THROWS_WITH(a * b, Catch::StartsWith("operator*: ") && Catch::Contains("{3,4}") && Catch::Contains("{5}"));
  CHECK_THROWS_WITH(a + b, Catch::StartsWith("operator+: ") && Catch::Contains("{3,4}") && Catch::Contains("{5}"));
  CHECK_THROWS_AS(cmult(a, b), std::invalid_argument);
  CHECK_THROWS_WITH(affine_transform({b, a, a}), Catch::Contains("affine_transform"));
  CHECK_THROWS_WITH(concatenate({a, b}), Catch::Contains("concatenate"));
  CHECK_THROWS_WITH(pick(b, 5u), Catch::Contains("pick") && Catch::Contains("index 5"));
  CHECK_THROWS_WITH(pickneglogsoftmax(a, 1u), Catch::Contains("column vector"));
  CHECK_THROWS_WITH(reshape(a, Dim({5})), Catch::Contains("reshape") && Catch::Contains("{5}"));
  CHECK_THROWS_WITH(input(cg, Dim({2}), {1.f}), Catch::Contains("input") && Catch::Contains("{2}"));
  CHECK_THROWS_AS(dropout(a, 1.5f), std::invalid_argument);
  Expression batched = input(cg, Dim({2}, 3), std::vector<float>(6));
  Expression other = input(cg, Dim({2}, 2), std::vector<float>(4));
  CHECK_THROWS_WITH(batched + other, Catch::Contains("batch sizes 3 and 2"));
  CHECK(cg.size() == before + 2);
  CHECK(as_vector(cg.forward(a)).size() == 12);
}

TEST_CASE("a shape error where a new chunk of node records starts leaves the graph unchanged", "[graph][errors]") {
  // append() writes the shape into the next record before checking it and counts the record only
  // once it holds: the failed node must not be counted, nor leave its shape to the next one.
  ComputationGraph cg;
  Expression wide = input(cg, Dim({3, 4}), std::vector<float>(12));
  Expression x = input(cg, Dim({2}), {1.f, 2.f});
  float added = 0.f;
  for (; cg.size() < (1u << ComputationGraph::kChunkBits); added += 1.f) x = x + 1.f;
  const unsigned before = cg.size();
  CHECK_THROWS_AS(wide * x, std::invalid_argument);
  CHECK_THROWS_AS(x + wide, std::invalid_argument);
  CHECK(cg.size() == before);
  Expression y = 2.f * x;
  CHECK(y.i == before);
  CHECK(y.dim() == Dim({2}));
  CHECK(as_vector(cg.forward(y)) == std::vector<float>{2.f * (1.f + added), 2.f * (2.f + added)});
}

TEST_CASE("lookups reject out-of-range indices, also when read by pointer", "[graph][errors]") {
  ParameterCollection m;
  LookupParameter table = m.add_lookup_parameters(4, {3});
  ComputationGraph cg;
  CHECK_THROWS_WITH(lookup(cg, table, 4u), Catch::Contains("index 4") && Catch::Contains("4 rows"));
  CHECK_THROWS_WITH(lookup(cg, table, std::vector<unsigned>{1, 9}), Catch::Contains("index 9"));
  CHECK(cg.size() == 0);
  unsigned index = 2;
  Expression e = lookup(cg, table, &index);
  CHECK(as_vector(cg.forward(e)) == as_vector(table.row_value(2)));
  index = 7;
  CHECK_THROWS_WITH(cg.forward(e), Catch::Contains("index 7"));
  index = 1;
  CHECK(as_vector(cg.forward(e)) == as_vector(table.row_value(1)));
}

TEST_CASE("class and pick indices are checked when built, and again at forward when read by pointer",
          "[graph][errors]") {
  ComputationGraph cg;
  Expression x = input(cg, Dim({5}), {0.1f, 0.2f, 0.3f, 0.4f, 0.5f});
  CHECK_THROWS_WITH(pickneglogsoftmax(x, 5u), Catch::Contains("pickneglogsoftmax") && Catch::Contains("index 5"));
  unsigned target = 4;
  Expression loss = pickneglogsoftmax(x, &target);
  const float l4 = as_scalar(cg.forward(loss));
  target = 6;
  CHECK_THROWS_WITH(cg.forward(loss), Catch::Contains("pickneglogsoftmax") && Catch::Contains("index 6"));
  target = 0;
  CHECK(as_scalar(cg.forward(loss)) == Approx(l4 + 0.4f));

  // Each on a graph of its own: forward computes every node before the one asked for.
  const std::vector<float> values{0.1f, 0.2f, 0.3f, 0.4f, 0.5f};
  unsigned row = 1;
  ComputationGraph pick_graph, hinge_graph, rows_graph;
  Expression picked = pick(input(pick_graph, Dim({5}), values), &row);
  Expression margin = hinge(input(hinge_graph, Dim({5}), values), &row);
  CHECK(as_scalar(pick_graph.forward(picked)) == Approx(0.2f));
  row = 5;
  CHECK_THROWS_WITH(pick_graph.forward(picked), Catch::Contains("pick") && Catch::Contains("index 5"));
  CHECK_THROWS_WITH(hinge_graph.forward(margin), Catch::Contains("hinge") && Catch::Contains("index 5"));
  std::vector<unsigned> rows{0, 2};
  Expression picked_rows = pick(input(rows_graph, Dim({5}), values), &rows);
  CHECK(as_vector(rows_graph.forward(picked_rows)) == std::vector<float>{0.1f, 0.3f});
  rows[1] = 9;
  CHECK_THROWS_WITH(rows_graph.forward(picked_rows), Catch::Contains("index 9"));
}

TEST_CASE("values behind a pointer are read first at forward: a placeholder may be filled after the node is built",
          "[graph][dynet_api]") {
  // DyNet's nlm example builds `-pick(ydist, &ytrue)` before it ever sets ytrue.
  ParameterCollection m;
  LookupParameter table = m.add_lookup_parameters(4, {3});
  ComputationGraph cg;
  unsigned row = 1000, target = 1000, picked = 1000, margin_class = 1000;
  std::vector<unsigned> rows(2, 1000), columns(1, 1000);
  std::vector<float> values;  // empty until forward
  Expression looked_up = lookup(cg, table, &row);
  Expression looked_up_rows = lookup(cg, table, &rows);
  Expression x = input(cg, Dim({5}), &values);
  Expression loss = pickneglogsoftmax(x, &target);
  Expression element = pick(x, &picked);
  Expression margin = hinge(x, &margin_class);
  Expression chosen = select_rows(x, &columns);
  unsigned element_of_batch = 1000;
  std::vector<unsigned> elements_of_batch(2, 1000);
  Expression batch = input(cg, Dim({2}, 3), {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  Expression one_element = pick_batch_elem(batch, &element_of_batch);
  Expression two_elements = pick_batch_elems(batch, &elements_of_batch);
  row = 3;
  rows = {2, 0};
  values = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f};
  target = 4;
  picked = 2;
  margin_class = 0;
  columns = {1};
  CHECK(as_vector(cg.forward(looked_up)) == as_vector(table.row_value(3)));
  std::vector<float> both = as_vector(table.row_value(2)), first = as_vector(table.row_value(0));
  both.insert(both.end(), first.begin(), first.end());
  CHECK(as_vector(cg.forward(looked_up_rows)) == both);
  float log_z = 0.f;
  for (float v : values) log_z += std::exp(v);
  CHECK(as_scalar(cg.forward(loss)) == Approx(std::log(log_z) - 0.5f));
  CHECK(as_scalar(cg.forward(element)) == Approx(0.3f));
  CHECK(as_scalar(cg.forward(margin)) == Approx(4.f * 1.f + 0.2f + 0.3f + 0.4f + 0.5f - 4.f * 0.1f));
  CHECK(as_vector(cg.forward(chosen)) == std::vector<float>{0.2f});
  element_of_batch = 2;
  elements_of_batch = {1, 0};
  CHECK(as_vector(cg.forward(one_element)) == std::vector<float>{5.f, 6.f});
  CHECK(as_vector(cg.forward(two_elements)) == std::vector<float>{3.f, 4.f, 1.f, 2.f});
  element_of_batch = 3;
  CHECK_THROWS_WITH(cg.forward(one_element), Catch::Contains("pick_batch_elems") && Catch::Contains("index 3"));
}

TEST_CASE("lookup gradients mark the touched rows", "[graph][parameters]") {
  ParameterCollection m;
  LookupParameter table = m.add_lookup_parameters(5, {2});
  ComputationGraph cg;
  Expression loss = sum_elems(lookup(cg, table, std::vector<unsigned>{3, 1, 3}));
  cg.backward(sum_batches(loss));
  LookupParameterStorage& s = table.get_storage();
  CHECK(s.non_zero_grads.size() == 2);
  CHECK(as_vector(Tensor(Dim({2}), s.grad_row(3), nullptr)) == std::vector<float>{2.f, 2.f});
  CHECK(s.grad_row(0)[0] == 0.f);
  CHECK(m.gradient_l2_norm() == Approx(std::sqrt(2.f * 2 * 2 + 2 * 1)));
  s.zero_grad();
  CHECK(s.non_zero_grads.empty());
  CHECK(s.grad_row(3)[0] == 0.f);
}

TEST_CASE("stale expressions are reported, never silently reused", "[graph][errors]") {
  ComputationGraph cg;
  Expression a = input(cg, 1.f);
  cg.clear();
  CHECK(a.is_stale());
  CHECK_THROWS_WITH(tanh(a), Catch::Contains("tanh") && Catch::Contains("stale"));
  CHECK_THROWS_WITH(cg.forward(a), Catch::Contains("stale"));

  Expression empty;
  CHECK_THROWS_WITH(tanh(empty), Catch::Contains("empty Expression"));

  ComputationGraph other;
  Expression b = input(other, 2.f);
  Expression c = input(cg, 3.f);
  CHECK_THROWS_WITH(b + c, Catch::Contains("another ComputationGraph"));

  // A graph per loop iteration usually reuses the same address: the id still tells them apart.
  Expression kept;
  for (int iter = 0; iter < 2; ++iter) {
    ComputationGraph g;
    if (iter == 0) {
      kept = input(g, 1.f);
    } else {
      input(g, 5.f);
      CHECK_THROWS_WITH(kept + input(g, 1.f), Catch::Contains("stale"));
    }
  }
}

TEST_CASE("checkpoint and revert", "[graph]") {
  ComputationGraph cg;
  Expression a = input(cg, 2.f);
  Expression b = a * 3.f;
  cg.checkpoint();
  Expression c = b + 1.f;
  CHECK(as_scalar(cg.forward(c)) == 7.f);
  cg.revert();
  CHECK(cg.size() == 2);
  CHECK(c.is_stale());
  CHECK_FALSE(b.is_stale());
  CHECK_THROWS_WITH(exp(c), Catch::Contains("reverted"));
  Expression d = b * 2.f;  // takes c's old index
  CHECK(d.i == c.i);
  CHECK(c.is_stale());
  CHECK(as_scalar(cg.forward(d)) == 12.f);
  CHECK(as_scalar(cg.incremental_forward(b)) == 6.f);
  // No checkpoint is left: as in DyNet, a revert changes nothing.
  const auto size_before = cg.size();
  cg.revert();
  CHECK(cg.size() == size_before);
  CHECK_FALSE(d.is_stale());
  CHECK(as_scalar(cg.incremental_forward(d)) == 12.f);

  // Nested checkpoints, and values computed after a checkpoint for nodes that survive.
  cg.checkpoint();
  Expression e = d + 1.f;
  cg.checkpoint();
  Expression f = e * 2.f;
  CHECK(as_scalar(cg.incremental_forward(f)) == 26.f);
  cg.revert();
  CHECK(as_scalar(cg.incremental_forward(e)) == 13.f);
  cg.revert();
  CHECK(cg.size() == 3);
  CHECK(as_scalar(cg.incremental_forward(d)) == 12.f);
}

TEST_CASE("several graphs live at once, also on several threads", "[graph][threads]") {
  ComputationGraph g1, g2;
  Expression a = input(g1, 1.f) + 1.f;
  Expression b = input(g2, 10.f) * 2.f;
  Expression a2 = a * 5.f;
  CHECK(as_scalar(g2.forward(b)) == 20.f);
  CHECK(as_scalar(g1.forward(a2)) == 10.f);
  CHECK(as_scalar(b.value()) == 20.f);

  ParameterCollection m;
  Parameter w = m.add_parameters({8, 8}, ParameterInitIdentity());
  std::vector<float> results(4);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < results.size(); ++t)
    threads.emplace_back([&, t] {
      float total = 0;
      for (int iter = 0; iter < 200; ++iter) {
        ComputationGraph g;
        Expression x = input(g, Dim({8}), std::vector<float>(8, float(t)));
        Expression y = sum_elems(tanh(const_parameter(g, w) * x));
        total += as_scalar(g.forward(y));
      }
      results[t] = total;
    });
  for (auto& th : threads) th.join();
  for (unsigned t = 0; t < results.size(); ++t) CHECK(results[t] == Approx(200 * 8 * std::tanh(float(t))));
}

TEST_CASE("reference values of common ops", "[ops][values]") {
  ComputationGraph cg;
  Expression x = input(cg, Dim({3}), {1.f, 2.f, 3.f});
  const std::vector<float> sm = as_vector(cg.forward(softmax(x)));
  const float z = std::exp(1.f) + std::exp(2.f) + std::exp(3.f);
  CHECK(sm[0] == Approx(std::exp(1.f) / z));
  CHECK(as_scalar(cg.forward(pickneglogsoftmax(x, 1u))) == Approx(std::log(z) - 2.f));
  CHECK(as_vector(cg.forward(log_softmax(x)))[2] == Approx(3.f - std::log(z)));
  Expression m = input(cg, Dim({2, 3}), {1, 2, 3, 4, 5, 6});  // column-major: [[1,3,5],[2,4,6]]
  CHECK(as_vector(cg.forward(m * x)) == std::vector<float>{22.f, 28.f});
  CHECK(as_vector(cg.forward(transpose(m))) == std::vector<float>{1, 3, 5, 2, 4, 6});
  CHECK(as_vector(cg.forward(sum_dim(m, {1}))) == std::vector<float>{9.f, 12.f});
  CHECK(as_vector(cg.forward(sum_dim(m, {0}))) == std::vector<float>{3.f, 7.f, 11.f});
  CHECK(as_vector(cg.forward(pick(m, 1u, 1))) == std::vector<float>{3.f, 4.f});
  CHECK(as_vector(cg.forward(select_cols(m, {2, 0}))) == std::vector<float>{5, 6, 1, 2});
  CHECK(as_vector(cg.forward(pick_range(x, 1, 3))) == std::vector<float>{2.f, 3.f});
  CHECK(as_vector(cg.forward(concatenate({x, x}))) == std::vector<float>{1, 2, 3, 1, 2, 3});
  CHECK(as_vector(cg.forward(max_dim(m, 1))) == std::vector<float>{5.f, 6.f});
  CHECK(as_scalar(cg.forward(hinge(x, 0u, 1.f))) == Approx(2.f + 3.f));
  Expression batch = input(cg, Dim({2}, 2), {1, 2, 3, 4});
  CHECK(as_vector(cg.forward(sum_batches(batch))) == std::vector<float>{4.f, 6.f});
  CHECK(as_vector(cg.forward(pick_batch_elem(batch, 1))) == std::vector<float>{3.f, 4.f});
  CHECK(cg.forward(concatenate_to_batch({batch, batch})).d == Dim({2}, 4));
  Expression w = input(cg, Dim({2, 3}), {1, 0, 0, 1, 1, 1});
  Expression b = input(cg, Dim({2}), {10, 20});
  CHECK(as_vector(cg.forward(affine_transform({b, w, x}))) == std::vector<float>{14, 25});
}

TEST_CASE("gradient control: nobackprop and flip_gradient", "[ops]") {
  ParameterCollection m;
  Parameter p = m.add_parameters({2}, ParameterInitConst(1.f));
  ComputationGraph cg;
  Expression w = parameter(cg, p);
  cg.backward(sum_elems(nobackprop(w) * 3.f + flip_gradient(w) * 2.f));
  CHECK(as_vector(p.get_storage().g) == std::vector<float>{-2.f, -2.f});
}

TEST_CASE("runs are reproducible with --dynet-seed", "[seed]") {
  auto run = [](unsigned seed) {
    DynetParams params = current_params();
    params.random_seed = seed;
    initialize(params);
    ParameterCollection m;
    Parameter p = m.add_parameters({4});
    ComputationGraph cg;
    std::vector<float> out = as_vector(cg.forward(dropout(input(cg, Dim({16}), std::vector<float>(16, 1.f)), 0.5f)));
    const std::vector<float> values = as_vector(*p.values());
    out.insert(out.end(), values.begin(), values.end());
    return out;
  };
  const std::vector<float> a = run(7), b = run(7), c = run(8);
  CHECK(a == b);
  CHECK(a != c);
  DynetParams restore = current_params();
  restore.random_seed = 1234;
  initialize(restore);
}
