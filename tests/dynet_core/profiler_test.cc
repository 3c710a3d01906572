#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "dybatch.h"
#include "dynet_core/device/device.h"
#include "dynet_core/op_def.h"
#include "dynet_core/ops/registry.h"
#include "scratch_folder.h"
#include "support/json.h"

using namespace dynet;
using dynet_test::Json;
using dynet_test::parse_json;

namespace {

/// Turns profiling on for one test and off again afterwards.
struct ProfilingOn {
  explicit ProfilingOn(int level) {
    DynetParams p = current_params();
    p.profiling = level;
    initialize(p);
    profile::reset();
  }
  ~ProfilingOn() {
    DynetParams p = current_params();
    p.profiling = 0;
    initialize(p);
    profile::reset();
  }
};

struct Steps {
  std::uint64_t nodes = 0, batches = 0, scheduling_ns = 0;
};

/// Three training steps of a small tree-shaped model under the agenda engine.
Steps run_steps(ParameterCollection& pc) {
  LookupParameter emb = pc.add_lookup_parameters(20, {8});
  Parameter W = pc.add_parameters({8, 16}), out = pc.add_parameters({3, 8});
  SimpleSGDTrainer trainer(pc, 0.05f);
  Steps s;
  for (unsigned step = 0; step < 3; ++step) {
    ComputationGraph cg;
    cg.set_autobatch(1);
    std::vector<Expression> losses;
    for (unsigned tree = 0; tree < 4; ++tree) {
      Expression l = lookup(cg, emb, tree), r = lookup(cg, emb, tree + 5);
      Expression h = tanh(parameter(cg, W) * concatenate({l, r}));
      losses.push_back(pickneglogsoftmax(parameter(cg, out) * h, tree % 3));
    }
    Expression loss = sum(losses);
    cg.forward(loss);
    cg.backward(loss);
    trainer.update();
    s.nodes += cg.engine().stats().nodes;
    s.batches += cg.engine().stats().batches;
    s.scheduling_ns += cg.engine().stats().scheduling_ns;
    cg.engine().reset_stats();
  }
  return s;
}

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("phases outside a graph's construction lie within their steps", "[profile]") {
  ProfilingOn on(1);
  ParameterCollection pc;
  Parameter W = pc.add_parameters({4, 4});
  SimpleSGDTrainer trainer(pc, 0.1f);
  trainer.update();  // a step of its own: an update with no graph
  ComputationGraph cg;
  const Expression loss = sum_elems(tanh(parameter(cg, W) * input(cg, {4}, {1.f, 2.f, 3.f, 4.f})));
  cg.backward(loss);
  trainer.update();
  cg.forward(loss);  // the graph is read again after the step it opened has ended
  cg.backward(loss);
  trainer.update();
  const profile::Snapshot snap = profile::snapshot();
  REQUIRE(snap.steps == 3);
  const profile::Phases& t = snap.total;
  CHECK(t.construction_ns + t.forward_ns + t.backward_ns + t.update_ns <= t.step_ns);
  CHECK(t.forward_ns > 0);
  CHECK(t.update_ns > 0);
}

TEST_CASE("with data parallelism a step runs from the caller's shard to the update", "[profile][threads]") {
  ProfilingOn on(1);
  ParameterCollection pc;
  Parameter W = pc.add_parameters({4, 4});
  SimpleSGDTrainer trainer(pc, 0.1f);
  DataParallel dp(2);
  for (int round = 0; round < 3; ++round) {
    dp.backward(4, [&](ComputationGraph& cg, unsigned k) {
      return sum_elems(tanh(parameter(cg, W) * input(cg, {4}, {1.f, 2.f, float(k), 4.f})));
    });
    trainer.update();
  }
  const profile::Snapshot snap = profile::snapshot();
  CHECK(snap.steps == 3);  // not one per shard's graph
  const profile::Phases& t = snap.total;
  CHECK(t.construction_ns + t.forward_ns + t.backward_ns + t.update_ns <= t.step_ns);
  CHECK(t.construction_ns > 0);
  CHECK(t.backward_ns > 0);
  CHECK(t.update_ns > 0);
}

TEST_CASE("profiling off records nothing", "[profile]") {
  profile::reset();
  ParameterCollection pc;
  const Steps s = run_steps(pc);
  CHECK(profile::snapshot().steps == 0);
  // Nor does the engine read the clock around its groups for its scheduling time.
  CHECK(s.scheduling_ns == 0);
}

TEST_CASE("the profile's numbers add up", "[profile]") {
  ProfilingOn on(2);
  ParameterCollection pc;
  const Steps s = run_steps(pc);
  const profile::Snapshot snap = profile::snapshot();
  REQUIRE(snap.steps == 3);
  const profile::Phases& t = snap.total;
  CHECK(t.nodes == s.nodes);
  CHECK(t.kernel_calls == s.batches);
  CHECK(s.scheduling_ns > 0);
  // Every phase was timed, and lies within its step (the rest is the test's own code).
  CHECK(t.construction_ns + t.forward_ns + t.backward_ns + t.update_ns <= t.step_ns);
  CHECK(t.scheduling_ns + t.forward_kernel_ns <= t.forward_ns);
  CHECK(t.backward_kernel_ns <= t.backward_ns);
  CHECK(t.construction_ns > 0);
  CHECK(t.forward_ns > 0);
  CHECK(t.backward_ns > 0);
  CHECK(t.update_ns > 0);
  std::uint64_t calls = 0, nodes = 0, kernel_ns = 0;
  for (const profile::KernelStats& k : snap.kernels) {
    calls += k.calls;
    nodes += k.nodes;
    kernel_ns += k.forward_ns;
    CHECK(k.min_batch <= k.max_batch);
  }
  CHECK(calls == t.kernel_calls);
  CHECK(nodes == t.nodes);
  CHECK(kernel_ns == t.forward_kernel_ns);
  CHECK(snap.high_water.forward > 0);
  CHECK(snap.high_water.parameters > 0);
  const std::string text = profile::report(snap);
  CHECK_THAT(text, Catch::Contains("graph construction") && Catch::Contains("% of step") &&
                       Catch::Contains("tanh {8}") && Catch::Contains("batch min/mean/max"));
}

TEST_CASE("the profile's level 2 shows each vertex function's instances, tasks, fused chains and traffic",
          "[profile][vertex]") {
  ProfilingOn on(2);
  ParameterCollection pc;
  LookupParameter emb = pc.add_lookup_parameters(20, {4});
  VanillaLSTMBuilder lstm(1, 4, 5, pc);
  for (unsigned step = 0; step < 2; ++step) {
    ComputationGraph cg;
    cg.set_autobatch(1);
    cg.set_vertex(2);
    lstm.new_graph(cg);
    std::vector<Expression> finals;
    for (unsigned s = 0; s < 3; ++s) {
      lstm.start_new_sequence();
      for (unsigned t = 0; t < 4; ++t) lstm.add_input(lookup(cg, emb, s + t));
      finals.push_back(sum_elems(lstm.back()));
    }
    Expression loss = sum(finals);
    cg.forward(loss);
    cg.backward(loss);
  }
  const profile::Snapshot snap = profile::snapshot();
  REQUIRE(snap.functions.size() == 1);  // first steps read no other step: they are hoisted, not units
  const profile::VertexFunctionStats& f = snap.functions[0];
  CHECK_THAT(f.name, Catch::StartsWith("VanillaLSTMBuilder #"));
  CHECK(f.instances == 2 * 3 * 3);
  CHECK(f.tasks == 2 * 3);           // one per step after the first: the three sequences together
  CHECK(f.fused_chains == f.tasks);  // each step's elementwise tail (gates to state) as one pass
  CHECK(f.bytes_scattered > 0);      // the recurrent state's gradient goes back to the step before
  CHECK_THAT(profile::report(snap), Catch::Contains("vertex function") && Catch::Contains("instances per task") &&
                                        Catch::Contains("fused chains") && Catch::Contains(f.name));
}

// Four rows once read "affine_transform {8}", with nothing to tell the encoder's from the decoder's.
TEST_CASE("a kernel row whose groups share a parameter is named after it", "[profile]") {
  ProfilingOn on(2);
  ParameterCollection pc;
  ParameterCollection encoder = pc.add_subcollection("encoder"), decoder = pc.add_subcollection("decoder");
  Parameter We = encoder.add_parameters({8, 8}, "W"), be = encoder.add_parameters({8}, "b");
  Parameter Wd = decoder.add_parameters({8, 8}, "gates"), bd = decoder.add_parameters({8}, "b");
  for (unsigned step = 0; step < 2; ++step) {
    ComputationGraph cg;
    cg.set_autobatch(1);
    std::vector<Expression> outs;
    for (unsigned k = 0; k < 3; ++k) {
      const Expression x = input(cg, {8}, std::vector<float>(8, 0.1f * k));
      const Expression h = tanh(affine_transform({parameter(cg, be), parameter(cg, We), x}));
      outs.push_back(affine_transform({parameter(cg, bd), parameter(cg, Wd), h}));
    }
    const Expression loss = sum_elems(sum(outs));
    cg.forward(loss);
    cg.backward(loss);
  }
  const profile::Snapshot snap = profile::snapshot();
  std::vector<std::string> names;
  for (const profile::KernelStats& k : snap.kernels) names.push_back(k.name);
  CHECK_THAT(names, Catch::VectorContains(std::string("affine_transform {8} W=/encoder/W")));
  CHECK_THAT(names, Catch::VectorContains(std::string("affine_transform {8} W=/decoder/gates")));
  CHECK_THAT(names, Catch::VectorContains(std::string("tanh {8}")));  // no parameter argument: as before
  CHECK_THAT(profile::report(snap), Catch::Contains("affine_transform {8} W=/decoder/gates"));
}

// Evaluation graphs were once counted as steps ("1,261 steps" for 761 training steps).
TEST_CASE("graphs with no backward are counted as evaluation graphs, apart from training steps", "[profile]") {
  ProfilingOn on(1);
  ParameterCollection pc;
  run_steps(pc);  // three training steps, of the same graph
  Parameter W = pc.add_parameters({4, 4});
  std::uint64_t evaluated_nodes = 0;
  for (int k = 0; k < 2; ++k) {
    ComputationGraph cg;
    const Expression y = tanh(parameter(cg, W) * input(cg, {4}, {1.f, 2.f, 3.f, float(k)}));
    cg.engine().reset_stats();
    cg.forward(y);
    evaluated_nodes += cg.engine().stats().nodes;
  }
  const profile::Snapshot snap = profile::snapshot();
  CHECK(snap.steps == 3);
  CHECK(snap.evaluation_graphs == 2);
  CHECK(snap.total.nodes == 3 * snap.last_step.nodes);  // per-step figures are over training steps only
  CHECK(snap.evaluation.nodes == evaluated_nodes);
  CHECK(snap.evaluation.forward_ns > 0);
  CHECK(snap.evaluation.backward_ns == 0);
  CHECK(snap.last_step.backward_ns > 0);  // the last training step, not the last graph
  CHECK_THAT(profile::report(snap), Catch::StartsWith("dybatch profile: 3 training steps (forward+backward)") &&
                                        Catch::Contains("2 evaluation graphs (forward only)"));
  const Json j = parse_json(profile::to_json(snap));
  CHECK(j["steps"].number == 3);
  CHECK(j["evaluation_graphs"].number == 2);
  CHECK(j["evaluation_total"]["nodes"].number == double(evaluated_nodes));
}

// A program that updates after its graph is gone once counted every update as a step of its own.
TEST_CASE("an update after the graph is gone belongs to that graph's step", "[profile]") {
  ProfilingOn on(1);
  ParameterCollection pc;
  Parameter W = pc.add_parameters({4, 4});
  SimpleSGDTrainer trainer(pc, 0.1f);
  for (int k = 0; k < 3; ++k) {
    {
      ComputationGraph cg;
      const Expression loss = sum_elems(tanh(parameter(cg, W) * input(cg, {4}, {1.f, 2.f, 3.f, float(k)})));
      cg.forward(loss);
      cg.backward(loss);
    }
    trainer.update();
  }
  const profile::Snapshot snap = profile::snapshot();
  CHECK(snap.steps == 3);
  CHECK(snap.evaluation_graphs == 0);
  CHECK(snap.total.update_ns > 0);
  CHECK(snap.last_step.update_ns > 0);
  CHECK(snap.last_step.nodes > 0);
  CHECK(snap.total.nodes == 3 * snap.last_step.nodes);
}

TEST_CASE("the profile writes valid JSON and a Chrome trace", "[profile]") {
  ProfilingOn on(1);
  ParameterCollection pc;
  run_steps(pc);
  const ScratchFolder folder;
  const std::string json_path = folder.file("profile.json"), trace_path = folder.file("profile.trace.json");
  profile::write_json(json_path);
  profile::write_chrome_trace(trace_path);
  const profile::Snapshot snap = profile::snapshot();

  const Json j = parse_json(read(json_path));
  CHECK(j["steps"].number == 3);
  CHECK(j["total"]["nodes"].number == double(snap.total.nodes));
  CHECK(j["kernels"].items.size() == snap.kernels.size());

  const Json trace = parse_json(read(trace_path));
  std::size_t forward = 0, backward = 0;
  for (const Json& e : trace["traceEvents"].items) {
    if (e["ph"].text != "X") continue;
    CHECK(e["dur"].number >= 0);
    CHECK(!e["name"].text.empty());
    (e["cat"].text == "forward" ? forward : backward) += 1;
  }
  CHECK(forward == snap.last_step.kernel_calls);
  CHECK(backward > 0);
  CHECK_THROWS_WITH(profile::write_json("/nonexistent-dir/p.json"), Catch::Contains("/nonexistent-dir/p.json"));
}

TEST_CASE("the JSON reader used by these tests rejects malformed text", "[profile]") {
  CHECK_THROWS_AS(parse_json("{\"a\":1,}"), std::invalid_argument);
  CHECK_THROWS_AS(parse_json("[1 2]"), std::invalid_argument);
  CHECK(parse_json(" {\"a\": [1, -2.5e3, \"x\", true, null]} ")["a"].items.size() == 5);
}

namespace {

/// A clock whose slot k lasts (k + 1) ms.
struct SteppedClock : KernelClock {
  unsigned used = 0;
  std::vector<unsigned> stopped;
  unsigned start() override { return used++; }
  void stop(unsigned slot) override { stopped.push_back(slot); }
  std::vector<std::uint64_t> collect() override {
    std::vector<std::uint64_t> ns(used);
    for (unsigned k = 0; k < used; ++k) ns[k] = 1000000ull * (k + 1);
    used = 0;
    return ns;
  }
};

/// A CPU device with a kernel clock, as a GPU backend has one.
struct ClockedDevice : Device_CPU {
  explicit ClockedDevice(KernelClock& clock) : Device_CPU(MemorySizes{1 << 16, 1 << 16, 1 << 16, 1 << 16}, false) {
    clock_ = &clock;
  }
};

}  // namespace

TEST_CASE("kernels on a device with a kernel clock are timed by it, not by host clocks", "[profile]") {
  register_all_ops();
  const OpDef& op = *find_op("tanh");
  SteppedClock clock;
  ClockedDevice device(clock);
  std::vector<float> x{0.1f, 0.2f}, y(2), dy{1.f, 1.f}, dx(2);
  OpCall call;
  Tensor xs[1] = {Tensor(Dim({2}), x.data(), &device)};
  const void* no_data[1] = {nullptr};  // tanh has no op data, but kernels read the node's pointer
  call.xs = xs;
  call.nargs = 1;
  call.data = no_data;
  call.y = Tensor(Dim({2}), y.data(), &device);
  call.dy = Tensor(Dim({2}), dy.data(), &device);
  call.dx = Tensor(Dim({2}), dx.data(), &device);

  device.forward(op, call);
  CHECK(clock.used == 0);  // profiling off: no clock

  const ProfilingOn on(1);
  device.forward(op, call);
  profile::kernel(1, op, Dim({2}), 1, false, profile::now_ns(), 5);  // as an engine records it
  device.backward(op, call, 0);
  device.backward(op, call, 0);
  profile::kernel(1, op, Dim({2}), 1, true, profile::now_ns(), 7);
  CHECK(clock.stopped == std::vector<unsigned>{0, 1, 2});
  profile::end_step(&device);
  const profile::Snapshot s = profile::snapshot();
  CHECK(s.last_step.forward_kernel_ns == 1000000);             // slot 0
  CHECK(s.last_step.backward_kernel_ns == 2000000 + 3000000);  // slots 1 and 2, one record
  REQUIRE(s.last_step_events.size() == 2);
  CHECK(s.last_step_events[1].ns == 5000000);
  REQUIRE(s.kernels.size() == 1);
  CHECK(s.kernels[0].forward_ns == 1000000);
}
