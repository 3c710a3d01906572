// DyNet's API beyond the operators (issue 11), through DyNet's header names.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "dynet/dynet.h"
#include "dynet/except.h"
#include "dynet/expr.h"
#include "dynet/fast-lstm.h"
#include "dynet/globals.h"
#include "dynet/grad-check.h"
#include "dynet/lstm.h"
#include "dynet/mem.h"
#include "dynet/model.h"
#include "dynet/rand.h"
#include "dynet/rnn-state-machine.h"
#include "dynet/tensor.h"
#include "dynet/training.h"
#include "dynet_core/random_engine.h"
#include "trainers/learning_rate_schedule.h"

using namespace dynet;

TEST_CASE("autobatch_flag chooses the strategy of graphs made after it", "[dynet_api]") {
  const int before = autobatch_flag;
  autobatch_flag = 2;
  {
    ComputationGraph cg;
    CHECK(cg.autobatch() == 2);
  }
  autobatch_flag = 7;
  CHECK_THROWS_AS(ComputationGraph(), std::invalid_argument);
  autobatch_flag = before;
  Device* d = default_device;
  CHECK(d == default_device());
}

TEST_CASE("the host random helpers stay in their ranges", "[dynet_api]") {
  for (int i = 0; i < 200; ++i) {
    const float u = rand01();
    CHECK((u >= 0.f && u < 1.f));
    const int k = rand0n(3);
    CHECK((k >= 0 && k < 3));
  }
  CHECK_THROWS_AS(rand0n(0), std::invalid_argument);
}

TEST_CASE("stale expressions and gradients never computed throw runtime_error, as DyNet", "[dynet_api]") {
  Expression kept;
  {
    ComputationGraph cg;
    kept = input(cg, 2.f);
    Expression y = kept * 3.f;
    Expression unused = kept * 4.f;
    cg.forward(y);
    cg.backward(y);
    CHECK_THROWS_AS(unused.gradient(), std::runtime_error);
  }
  CHECK_THROWS_AS(kept.value(), std::runtime_error);
  CHECK_THROWS_AS(kept.dim(), std::runtime_error);
  CHECK(kept.is_stale());

  // On the heap, so that the sanitizer build reports any read of the freed graph.
  auto gone = std::make_unique<ComputationGraph>();
  Expression orphan = input(*gone, 1.f);
  gone.reset();
  CHECK(orphan.is_stale());
  CHECK_THROWS_AS(orphan * 2.f, std::runtime_error);
  CHECK_THROWS_AS(tanh(orphan), std::runtime_error);
  ParameterCollection m;
  CHECK_THROWS_AS(check_grad(m, orphan, 0), std::runtime_error);
}

TEST_CASE("DyNet's CPUAllocator gives zeroable memory aligned to 32 bytes", "[dynet_api]") {
  CPUAllocator a;
  CHECK(a.round_up_align(33) == 64);
  for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(4096)}) {
    char* mem = static_cast<char*>(a.malloc(n));
    CHECK(reinterpret_cast<std::uintptr_t>(mem) % 32 == 0);
    mem[0] = 99;
    mem[n - 1] = 98;
    a.zero(mem, n);
    CHECK(mem[0] == 0);
    CHECK(mem[n - 1] == 0);
    a.free(mem);
  }
}

TEST_CASE("TensorTools reads and writes single elements, refusing indices outside", "[dynet_api]") {
  ParameterCollection m;
  Parameter p = m.add_parameters({2, 3}, "W");
  CHECK(p.get_fullname() == "/W");
  CHECK(m.get_parameter_storage("/W") == p.p);
  CHECK(m.size() == 1);
  Tensor& t = *p.values();
  TensorTools::set_elements(t, {1, 2, 3, 4, 5, 6});
  CHECK(TensorTools::access_element(t, 4) == 5.f);
  CHECK(TensorTools::access_element(t, Dim({1, 2})) == 6.f);  // row 1, column 2, column-major
  CHECK(TensorTools::access_element(t, Dim({1, 1})) == 4.f);
  TensorTools::set_element(t, 0, -1.f);
  CHECK(as_vector(t)[0] == -1.f);
  // fewer values set the first elements, as DyNet's copy does; more would write past the tensor
  TensorTools::set_elements(t, {7, 8});
  CHECK(as_vector(t) == std::vector<float>{7, 8, 3, 4, 5, 6});
  CHECK_THROWS_WITH(TensorTools::set_elements(t, std::vector<float>(7, 0.f)), Catch::Contains("7 values"));
  CHECK(as_vector(t) == std::vector<float>{7, 8, 3, 4, 5, 6});
  CHECK_THROWS_AS(TensorTools::access_element(t, 6), std::out_of_range);
  LookupParameter l = m.add_lookup_parameters(4, {3});
  CHECK(l.get_storage().all_dim == Dim({3, 4}));
}

TEST_CASE("the cumulative moving average is the mean of the weights after each update", "[dynet_api][trainers]") {
  ParameterCollection m;
  Parameter p = m.add_parameters({1}, ParameterInitConst(0.f));
  SimpleSGDTrainer trainer(m, 1.f);
  trainer.clipping_enabled = false;
  trainer.cumulative_moving_average();
  std::vector<float> seen;
  for (int i = 0; i < 4; ++i) {
    ComputationGraph cg;
    Expression loss = parameter(cg, p) * -1.f;  // gradient -1: w grows by 1 per update
    cg.forward(loss);
    cg.backward(loss);
    trainer.update();
    seen.push_back(as_vector(*p.values())[0]);
  }
  trainer.swap_params_to_moving_average();
  CHECK(as_vector(*p.values())[0] == Approx(std::accumulate(seen.begin(), seen.end(), 0.f) / seen.size()));
  trainer.swap_params_to_weights();
  CHECK(as_vector(*p.values())[0] == seen.back());
  CHECK_THROWS_AS(trainer.exponential_moving_average(0.9f), std::runtime_error);
}

TEST_CASE("CyclicalSGDTrainer's rate follows DyNet's triangle", "[dynet_api][trainers]") {
  ParameterCollection m;
  Parameter p = m.add_parameters({1}, ParameterInitConst(0.f));
  CyclicalSGDTrainer trainer(m, 0.1f, 0.5f, 4.f, 1.f);
  // One update of gradient 1: the value moves by the rate the update used.
  auto step = [&] {
    ComputationGraph cg;
    Expression loss = parameter(cg, p) * 1.f;
    cg.forward(loss);
    cg.backward(loss);
    const float before = as_vector(*p.values())[0];
    trainer.update();
    return before - as_vector(*p.values())[0];
  };
  std::vector<float> used, after;
  for (int i = 0; i < 10; ++i) {
    used.push_back(step());
    after.push_back(trainer.learning_rate);
  }
  // Update 0 uses eta_min; after update it the rate is the triangle at it: up over 4, down over 4.
  const std::vector<float> triangle = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.4f, 0.3f, 0.2f, 0.1f, 0.2f};
  CHECK(used[0] == Approx(0.1f));
  for (int i = 0; i < 10; ++i) {
    CHECK(after[i] == Approx(triangle[i]));
    if (i > 0) CHECK(used[i] == Approx(triangle[i - 1]));
  }
  // As in DyNet: a rate the program sets is the next update's, and restart() keeps the cycle.
  trainer.learning_rate = 0.05f;
  CHECK(step() == Approx(0.05f));
  trainer.restart();
  CHECK(trainer.learning_rate == Approx(cyclical_rate(0.1f, 0.5f, 4.f, 1.f, 10)));
  trainer.restart(0.07f);
  CHECK(step() == Approx(0.07f));
  CHECK(trainer.learning_rate == Approx(cyclical_rate(0.1f, 0.5f, 4.f, 1.f, 11)));
  CHECK_THROWS_WITH(CyclicalSGDTrainer(m, 0.1f, 0.5f, 0.f), Catch::Contains("step_size"));
}

TEST_CASE("EGTrainer keeps each parameter a distribution and moves mass against the gradient",
          "[dynet_api][trainers]") {
  ParameterCollection m;
  Parameter p = m.add_parameters({3}, ParameterInitConst(1.f / 3));
  EGTrainer trainer(m, 0.5f, 0.f);
  ComputationGraph cg;
  Expression loss = dot_product(parameter(cg, p), input(cg, {3}, {1.f, 0.f, -1.f}));
  cg.forward(loss);
  cg.backward(loss);
  trainer.update();
  const std::vector<float> w = as_vector(*p.values());
  CHECK(w[0] + w[1] + w[2] == Approx(1.f));
  CHECK(w[0] < w[1]);
  CHECK(w[1] < w[2]);
  CHECK(w[2] / w[1] == Approx(std::exp(0.5f)));
}

TEST_CASE("a default-constructed builder works once assigned, and says so before", "[dynet_api][builders]") {
  ParameterCollection m;
  VanillaLSTMBuilder lstm;
  ComputationGraph cg;
  CHECK_THROWS_AS(lstm.new_graph(cg), std::invalid_argument);
  lstm = VanillaLSTMBuilder(1, 2, 3, m);
  CHECK(lstm.params.size() == 1);
  CHECK(lstm.params[0].size() == 3);
  lstm.new_graph(cg);
  lstm.start_new_sequence();
  CHECK(lstm.add_input(input(cg, {2}, {1.f, 2.f})).dim() == Dim({3}));
}

TEST_CASE(
    "set_immediate_compute computes nodes as they are added, set_check_validity then refuses NaN and Inf, as DyNet",
    "[dynet_api]") {
  float x = 2.f;
  {
    ComputationGraph cg;
    Expression y = input(cg, &x) * 3.f;
    x = 5.f;
    CHECK(as_scalar(y.value()) == 15.f);  // computed when asked: reads x as it is then
  }
  x = 2.f;
  {
    ComputationGraph cg;
    cg.set_immediate_compute(true);
    Expression y = input(cg, &x) * 3.f;
    x = 5.f;
    CHECK(as_scalar(y.value()) == 6.f);   // computed when added
    CHECK_NOTHROW(log(input(cg, -1.f)));  // NaN, unchecked
    cg.set_check_validity(true);
    CHECK_THROWS_WITH(log(input(cg, -1.f)), Catch::Contains("log: NaN or Inf detected"));
    CHECK_THROWS_AS(input(cg, 0.f) + log(input(cg, 0.f)), std::runtime_error);
    CHECK_NOTHROW(exp(input(cg, 1.f)));
  }
  {
    ComputationGraph cg;
    cg.set_check_validity(true);  // DyNet checks only values computed as nodes are added
    CHECK_NOTHROW(log(input(cg, -1.f)));
  }
}

TEST_CASE("get_id numbers graphs in the order they are made", "[dynet_api]") {
  unsigned first;
  {
    ComputationGraph cg;
    first = cg.get_id();
  }
  ComputationGraph a;
  ComputationGraph b;
  CHECK(a.get_id() > first);
  CHECK(b.get_id() > a.get_id());
}

TEST_CASE("tensor helpers and errors of DyNet's kinds", "[dynet_api]") {
  ComputationGraph cg;
  // identity sets every batch element (it read past the values of one before), and refuses a
  // matrix that is not square with std::runtime_error, as DyNet's.
  std::vector<float> values(12, 7.f);
  Tensor batch(Dim({2, 2}, 3), values.data(), nullptr);
  TensorTools::identity(batch);
  CHECK(values == std::vector<float>{1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1});
  std::vector<float> wide(6);
  Tensor not_square(Dim({2, 3}), wide.data(), nullptr);
  CHECK_THROWS_AS(TensorTools::identity(not_square), std::runtime_error);
  CHECK(batch.batch_elems() == 3);
  CHECK(batch.batch_elem(2).v == values.data() + 8);
  CHECK(batch.batch_elem(2).d == Dim({2, 2}));
  CHECK_THROWS_AS(batch.batch_elem(3), std::invalid_argument);
  std::ostringstream printed;
  printed << Tensor(Dim({2, 2}), values.data(), nullptr);
  CHECK(printed.str() == "1 0\n0 1");
  // as_scalar of more than one value and an empty Expression: std::runtime_error, as DyNet's.
  Expression v = input(cg, {3}, {1.f, 2.f, 3.f});
  CHECK_THROWS_AS(as_scalar(v.value()), std::runtime_error);
  Expression empty;
  CHECK_THROWS_AS(empty.value(), std::runtime_error);
  CHECK_THROWS_AS(tanh(empty), std::runtime_error);
  CHECK(cg.get_dimension(v.i) == Dim({3}));
  CHECK_THROWS_AS(cg.get_dimension(9), std::invalid_argument);
  CHECK(v.get_device_name() == "CPU");
}

TEST_CASE("print_graphviz writes a node per expression and an edge per argument", "[dynet_api]") {
  ComputationGraph cg;
  Expression a = input(cg, 1.f), b = input(cg, 2.f);
  Expression c = a + b;
  (void)c;
  std::ostringstream os;
  cg.print_graphviz(os);
  const std::string dot = os.str();
  CHECK(dot.rfind("digraph G {", 0) == 0);
  CHECK(dot.find("N0 -> N2;") != std::string::npos);
  CHECK(dot.find("N1 -> N2;") != std::string::npos);
  // A label names the node's arguments, as DyNet's do.
  CHECK(dot.find("N2 [label=\"v2 = add(v0, v1) {1}\"];") != std::string::npos);
}

TEST_CASE("dump writes each node with its value and gradient, or only those holding NaN or Inf", "[dynet_api]") {
  ComputationGraph cg;
  Expression x = input(cg, {2}, {1.f, 2.f});
  Expression y = log(x - 1.f);
  Expression loss = sum_elems(y);
  cg.forward(loss);
  const std::string path =
      std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/dybatch_dump_test.txt";
  auto read = [&] {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  cg.dump(path, true, true, false);
  std::string text = read();
  CHECK(text.find("v2 = log(v1) {2}\n  value: -inf 0\n") != std::string::npos);
  CHECK(text.find("gradient") == std::string::npos);  // before backward
  cg.backward(loss, true);
  cg.dump(path, false, true, false);
  text = read();
  CHECK(text.find("value") == std::string::npos);
  CHECK(text.find("v1 = ") != std::string::npos);
  CHECK(text.find("  gradient: inf 1\n") != std::string::npos);
  cg.dump(path, true, false, true);
  text = read();
  CHECK(text.find("v0 = ") == std::string::npos);
  CHECK(text.find("v1 = ") == std::string::npos);
  CHECK(text.find("gradient") == std::string::npos);
  CHECK(text.find("v2 = log(v1) {2}\n  value: NaN or Inf\nv3 = ") != std::string::npos);
  cg.dump(path, true, true, true);
  text = read();
  CHECK(text.find("v0 = input() {2}\n  gradient: NaN or Inf\n") != std::string::npos);
  CHECK(text.find("v2 = log(v1) {2}\n  value: NaN or Inf\nv3 = ") != std::string::npos);  // its gradient is ones
  std::remove(path.c_str());
  CHECK_THROWS_AS(cg.dump("/nonexistent-directory/graph.txt", true, true, false), std::runtime_error);
}

TEST_CASE("shadow parameters are zeroed tensors of each parameter's shape", "[dynet_api][trainers]") {
  ParameterCollection m;
  m.add_parameters({2, 2});
  m.add_lookup_parameters(3, {2});
  std::vector<ShadowParameters> sp = allocate_shadow_parameters(m);
  std::vector<ShadowLookupParameters> sl = allocate_shadow_lookup_parameters(m);
  REQUIRE(sp.size() == 1);
  REQUIRE(sl.size() == 1);
  CHECK(as_vector(sp[0].h) == std::vector<float>(4, 0.f));
  CHECK(sl[0].h.size() == 3);
  CHECK(sl[0].h[2].v == sl[0].all_h.v + 4);
}

TEST_CASE("LSTMBuilder is DyNet 2's VanillaLSTMBuilder, with its params and ln_params split", "[dynet_api][builders]") {
  static_assert(std::is_same<LSTMBuilder, VanillaLSTMBuilder>::value,
                "DyNet 2: typedef VanillaLSTMBuilder LSTMBuilder");
  ParameterCollection m;
  VanillaLSTMBuilder ln(2, 3, 4, m, true);
  REQUIRE(ln.params.size() == 2);
  REQUIRE(ln.ln_params.size() == 2);
  CHECK(ln.params[1].size() == 3);
  CHECK(ln.ln_params[1].size() == 6);
  CHECK(ln.params[0][0].dim() == Dim({16, 3}));
  CHECK(ln.ln_params[0][4].dim() == Dim({4}));  // the gain of c
  CHECK(ln.ln_params[0][0].p == ln.layer_parameters()[0][3].p);
}

TEST_CASE("MomentumSGDTrainer::vp holds the velocities, as DyNet exposes them", "[dynet_api][trainers]") {
  ParameterCollection m;
  Parameter p = m.add_parameters({2}, ParameterInitConst(0.f));
  MomentumSGDTrainer trainer(m, 0.5f, 0.9f);
  CHECK(trainer.vp.empty());
  for (int step = 0; step < 2; ++step) {
    ComputationGraph cg;
    Expression loss = dot_product(parameter(cg, p), input(cg, {2}, {1.f, -2.f}));
    cg.forward(loss);
    cg.backward(loss);
    trainer.update();
  }
  REQUIRE(trainer.vp.size() == 1);
  // v1 = -0.5 g, v2 = 0.9 v1 - 0.5 g = -0.95 g
  CHECK(as_vector(trainer.vp[0].h)[0] == Approx(-0.95f));
  CHECK(as_vector(trainer.vp[0].h)[1] == Approx(1.9f));
  CHECK(as_vector(*p.values())[1] == Approx(1.f + 1.9f));
}

TEST_CASE("aux_allocated counts the parameters and tables with optimizer state, from the first update on",
          "[dynet_api][trainers]") {
  ParameterCollection m;
  Parameter p = m.add_parameters({2}, ParameterInitConst(0.f));
  LookupParameter table = m.add_lookup_parameters(3, {2});
  AdamTrainer trainer(m);
  auto step = [&] {
    ComputationGraph cg;
    Expression loss = dot_product(parameter(cg, p), lookup(cg, table, 1u));
    cg.forward(loss);
    cg.backward(loss);
    trainer.update();
  };
  CHECK(trainer.aux_allocated == 0);
  CHECK(trainer.aux_allocated_lookup == 0);
  step();
  CHECK(trainer.aux_allocated == 1);
  CHECK(trainer.aux_allocated_lookup == 1);
  m.add_parameters({4});
  m.add_lookup_parameters(2, {3});
  m.add_lookup_parameters(2, {3});
  CHECK(trainer.aux_allocated == 1);
  step();
  CHECK(trainer.aux_allocated == 2);
  CHECK(trainer.aux_allocated_lookup == 3);
}

TEST_CASE("DyNet's error macros throw the types DyNet's do, with the streamed message", "[dynet_api]") {
  const int n = 3;
  CHECK_THROWS_WITH([&] { DYNET_RUNTIME_ERR("bad size " << n); }(), "bad size 3");
  CHECK_THROWS_AS([&] { DYNET_RUNTIME_ERR("x"); }(), std::runtime_error);
  CHECK_THROWS_AS([&] { DYNET_INVALID_ARG_CHECK(n > 2, "n = " << n); }(), std::invalid_argument);
  CHECK_NOTHROW([&] { DYNET_ASSERT(n == 3, "never"); }());
  CHECK_THROWS_AS(throw out_of_memory("pool"), std::runtime_error);
}

TEST_CASE("check_grad passes true gradients and catches a gradient that is off", "[dynet_api]") {
  ParameterCollection m;
  Parameter p = m.add_parameters({3});
  LookupParameter l = m.add_lookup_parameters(4, {3});
  ComputationGraph cg;
  Expression e = lookup(cg, l, 2u);
  Expression right = sum_elems(cmult(tanh(parameter(cg, p)), e));
  CHECK(check_grad(m, right, 0));
  CHECK(l.get_storage().non_zero_grads.rows() == std::vector<unsigned>{2});
  // scale_gradient halves what backward reports: the check must see it.
  Expression off = sum_elems(cmult(scale_gradient(tanh(parameter(cg, p)), 0.5f), e));
  CHECK_FALSE(check_grad(m, off, 0));
}

// Not tagged [builders]: 24 checks of every parameter element would outlast the guarded device's suites,
// and the case tests check_grad, not device memory.
TEST_CASE("check_grad passes DyNet's layer-normalised LSTM case at every seed, though its loss curves sharply",
          "[dynet_api][gradient]") {
  // DyNet's own suite case (vanilla_lstm_ln_gradient). At about one seed in six a gate's layer norm
  // spreads its rows so little that the ±5e-3 central difference is off by 3%, on gradients that
  // smaller steps confirm.
  unsigned failed = 0;
  for (unsigned seed = 1; seed <= 24; ++seed) {
    random_engine().seed(seed);
    ParameterCollection m;
    VanillaLSTMBuilder lstm(2, 3, 10, m, true);
    ComputationGraph cg;
    lstm.new_graph(cg);
    lstm.start_new_sequence();
    for (unsigned t = 0; t < 4; ++t) lstm.add_input(input(cg, Dim({3}), std::vector<float>{1.f, 1.f, 1.f}));
    Expression z = squared_norm(lstm.final_h()[1]);
    if (!check_grad(m, z, 0)) ++failed;
  }
  CHECK(failed == 0);
}

TEST_CASE("FastLSTMBuilder is the coupled LSTM with no peepholes, with DyNet's eleven parameters",
          "[dynet_api][builders]") {
  ParameterCollection m;
  FastLSTMBuilder fast(2, 3, 4, m);
  CoupledLSTMBuilder coupled(2, 3, 4, m);
  REQUIRE(fast.params[1].size() == 11);
  CHECK(fast.params[1][2].dim() == Dim({4, 1}));  // W_ci, read by no gate
  for (unsigned l = 0; l < 2; ++l)
    for (unsigned k = 0; k < 11; ++k) {
      Parameter c = coupled.params[l][k];
      if (k == 2 || k == 6) {
        c.zero();  // the peepholes
        continue;
      }
      c.set_value(as_vector(*fast.params[l][k].values()));
    }
  ComputationGraph cg;
  fast.new_graph(cg);
  coupled.new_graph(cg);
  fast.start_new_sequence();
  coupled.start_new_sequence();
  for (float v : {0.5f, -1.f, 2.f}) {
    Expression x = input(cg, {3}, {v, 1.f - v, v * v});
    const std::vector<float> a = as_vector(cg.forward(fast.add_input(x)));
    const std::vector<float> b = as_vector(cg.forward(coupled.add_input(x)));
    for (unsigned i = 0; i < a.size(); ++i) CHECK(a[i] == Approx(b[i]).margin(1e-6));
  }
}

TEST_CASE("DyNet's tutorial spelling: Model, per-row lookup views and storage helpers", "[dynet_api]") {
  Model mod;
  SimpleSGDTrainer sgd(mod);
  Parameter w = mod.add_parameters({1, 3});
  LookupParameter e = mod.add_lookup_parameters(3, {2}, ParameterInitConst(1.f));
  CHECK(mod.size() == 1);
  std::vector<Tensor>& rows = *e.values();
  REQUIRE(rows.size() == 3);
  TensorTools::set_element(rows[2], 1, 5.f);
  CHECK(as_vector(e.get_storage().all_values) == std::vector<float>{1, 1, 1, 1, 1, 5});
  CHECK(e.get_storage().grads[1].v == e.get_storage().grad_row(1));
  w.get_storage().scale_parameters(0.f);
  CHECK(as_vector(*w.values()) == std::vector<float>(3, 0.f));
}

TEST_CASE("RNNStateMachine allows DyNet's transitions and refuses the others, staying where it was", "[dynet_api]") {
  RNNStateMachine sm;
  CHECK(sm.state() == CREATED);
  CHECK_THROWS_WITH(sm.transition(add_input), Catch::Contains("add_input is not allowed in state CREATED"));
  CHECK_THROWS_AS(sm.transition(start_new_sequence), std::runtime_error);
  CHECK(sm.state() == CREATED);
  sm.transition(new_graph);
  CHECK(sm.state() == GRAPH_READY);
  sm.transition(new_graph);
  CHECK(sm.state() == GRAPH_READY);
  CHECK_THROWS_WITH(sm.transition(add_input), Catch::Contains("call start_new_sequence first"));
  CHECK(sm.state() == GRAPH_READY);
  sm.transition(start_new_sequence);
  CHECK(sm.state() == READING_INPUT);
  sm.transition(add_input);
  sm.transition(start_new_sequence);
  CHECK(sm.state() == READING_INPUT);
  sm.transition(new_graph);
  CHECK(sm.state() == GRAPH_READY);
}

TEST_CASE("the node backward starts from has gradient 1, whatever it depends on, as DyNet", "[dynet_api]") {
  for (int strategy : {0, 1, 2}) {
    INFO("--dynet-autobatch " << strategy);
    ComputationGraph cg;
    cg.set_autobatch(strategy);
    const Expression loss = zeroes(cg, {1});
    cg.backward(loss);
    CHECK(as_vector(loss.gradient()) == std::vector<float>{1.f});
    const Expression scaled = input(cg, 2.f) * 3.f;
    cg.backward(scaled);
    CHECK(as_vector(scaled.gradient()) == std::vector<float>{1.f});
  }
}
