// Differential tests: random dynamic graphs run under the sequential engine (the reference) and
// both autobatching policies; the loss, every value read mid-graph and every parameter gradient
// must agree.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "autobatch/random_graph.h"
#include "dynet_core/random_engine.h"
#include "support/element_chain_device.h"
#include "support/sample_count.h"

using namespace dynet;
using namespace dynet_test;
using test_support::sample_count;

namespace {

struct Outcome {
  float loss;
  std::vector<float> mid_values;
  std::vector<float> gradients;
  EngineStats stats;
};

Outcome run(RandomModel& m, std::uint64_t seed, int strategy, const RandomGraphOptions& options = {}, int vertex = 2,
            Device* device = nullptr) {
  random_engine().seed(seed);  // dropout and noise masks come from per-node seeds drawn now
  m.zero_gradients();
  ComputationGraph cg(device ? device : default_device());
  cg.set_autobatch(strategy);
  cg.set_vertex(vertex);
  cg.engine().reset_stats();
  RandomGraph g = build_random_graph(cg, m, seed, options);
  Outcome o;
  o.loss = as_scalar(cg.forward(g.loss));
  cg.backward(g.loss);
  o.mid_values = g.mid_values;
  o.gradients = m.gradients();
  o.stats = cg.engine().stats();
  return o;
}

/// `scale`: the largest gradient of the graph. A gradient element sums products of the graph's
/// values, and a small element where they cancel carries the rounding of large ones: with Eigen's
/// products instead of libxsmm's, one of 413 gradients (0.0286, beside gradients up to 16.8) came
/// out 1.4e-5 apart when the engines summed in different orders.
bool close(float a, float b, float scale = 0.f) {
  return std::fabs(a - b) <= 1e-5f + 1e-6f * scale + 1e-4f * std::max(std::fabs(a), std::fabs(b));
}

void require_agree(const Outcome& ref, const Outcome& got, std::uint64_t seed, int strategy) {
  INFO("seed " << seed << ", --dynet-autobatch " << strategy);
  INFO("loss " << ref.loss << " vs " << got.loss);
  REQUIRE(close(ref.loss, got.loss));
  REQUIRE(ref.mid_values.size() == got.mid_values.size());
  for (std::size_t k = 0; k < ref.mid_values.size(); ++k) REQUIRE(close(ref.mid_values[k], got.mid_values[k]));
  REQUIRE(ref.gradients.size() == got.gradients.size());
  float scale = 0.f;
  for (float g : ref.gradients) scale = std::max(scale, std::fabs(g));
  for (std::size_t k = 0; k < ref.gradients.size(); ++k) {
    INFO("gradient " << k << ": " << ref.gradients[k] << " vs " << got.gradients[k] << " (largest gradient " << scale
                     << ")");
    REQUIRE(close(ref.gradients[k], got.gradients[k], scale));
  }
}

}  // namespace

TEST_CASE("random graphs agree under the sequential, agenda and depth engines", "[autobatch][differential]") {
  RandomModel m(6, 20, 5);
  std::uint64_t batched_nodes = 0, batches = 0;
  for (std::uint64_t seed = 1; seed <= sample_count(1500); ++seed) {
    const Outcome ref = run(m, seed, 0);
    for (int strategy : {1, 2}) {
      const Outcome got = run(m, seed, strategy);
      require_agree(ref, got, seed, strategy);
      batched_nodes += got.stats.nodes;
      batches += got.stats.batches;
    }
  }
  CHECK(batches < batched_nodes);  // irregular graphs, yet groups do form
}

TEST_CASE("parameter() at every use batches like parameter() once per graph", "[autobatch][differential]") {
  RandomModel m(5, 10, 4);
  RandomGraphOptions per_use;
  per_use.parameter_per_use = true;
  for (std::uint64_t seed = 1; seed <= sample_count(300); ++seed) {
    const Outcome ref = run(m, seed, 0, per_use);
    for (int strategy : {1, 2}) {
      const Outcome each = run(m, seed, strategy, per_use);
      require_agree(ref, each, seed, strategy);
      // Op by op: where instances are found without scopes may move with the parameter leaves.
      const Outcome once = run(m, seed, strategy, {}, 0);
      const Outcome each_op_by_op = run(m, seed, strategy, per_use, 0);
      require_agree(once, each_op_by_op, seed, strategy);
      INFO("seed " << seed);
      CHECK(each_op_by_op.stats.batches == once.stats.batches);
    }
  }
}

/// Instances and tasks of vertex functions over random graphs of repeated cells, which must agree
/// with the sequential engine under every --dynet-vertex mode: units everywhere (2), as suits the
/// device (1) and op by op (0).
struct VertexCounts {
  std::uint64_t marked = 0, instances = 0, tasks = 0, fused = 0;
  std::uint64_t suited_tasks = 0, suited_lazy_calls = 0;  // under mode 1
};

VertexCounts run_repeated_cells(RandomModel& m, const RandomGraphOptions& cells, std::uint64_t seeds,
                                Device* device = nullptr) {
  VertexCounts c;
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    const Outcome ref = run(m, seed, 0, cells, 2, device);
    for (int strategy : {1, 2}) {
      const Outcome got = run(m, seed, strategy, cells, 2, device);
      require_agree(ref, got, seed, strategy);
      const Outcome suited = run(m, seed, strategy, cells, 1, device);
      require_agree(ref, suited, seed, strategy);
      c.suited_tasks += suited.stats.vertex_tasks;
      c.suited_lazy_calls += suited.stats.lazy_weight_calls;
      const Outcome op_by_op = run(m, seed, strategy, cells, 0, device);
      require_agree(ref, op_by_op, seed, strategy);
      REQUIRE(op_by_op.stats.vertex_tasks == 0);
      REQUIRE(op_by_op.stats.lazy_weight_calls == 0);
      c.marked += got.stats.vertex_marked;
      c.instances += got.stats.vertex_instances;
      c.tasks += got.stats.vertex_tasks;
      c.fused += got.stats.fused_chains;
    }
  }
  return c;
}

TEST_CASE("random graphs of repeated cells agree when instances run as vertex-function tasks",
          "[autobatch][differential][vertex]") {
  RandomModel m(6, 20, 5);
  RandomGraphOptions cells;
  cells.repeated_cells = true;
  cells.vertex_scopes = true;
  for (bool per_use : {false, true}) {
    cells.parameter_per_use = per_use;
    const VertexCounts c = run_repeated_cells(m, cells, sample_count(600));
    INFO("parameter() per use: " << per_use << ", marked " << c.marked << ", units " << c.instances << ", tasks "
                                 << c.tasks << ", fused chains " << c.fused);
    CHECK(c.instances > c.marked / 4);  // most instances run as units; the rest (cut, or not batchable) op by op
    CHECK(c.instances < c.marked);
    CHECK(c.tasks < c.instances);  // tasks run several instances at once
    CHECK(c.fused > c.tasks / 4);  // and many run an elementwise chain as one pass
    // Mode 1 runs units only where kernel calls are launches (a GPU); small groups' weight
    // gradients wait for one call on every device.
    CHECK((c.suited_tasks > 0) == dynet::default_device()->capabilities().costly_calls);
    CHECK(c.suited_lazy_calls > 0);
  }
}

TEST_CASE("random graphs of repeated cells agree when the device runs fused chains as kernels",
          "[autobatch][differential][vertex]") {
  // The engine's path for a GPU: each chain handed to the device whole, with its reads, writes,
  // gradient blocks and the blocks that hold nothing yet (NaN-filled here: debug memory).
  test_support::ElementChainDevice device;
  RandomModel m(6, 20, 5, &device);
  RandomGraphOptions cells;
  cells.repeated_cells = true;
  cells.vertex_scopes = true;
  const VertexCounts c = run_repeated_cells(m, cells, sample_count(200), &device);
  INFO("fused chains " << c.fused << ", run forward by the device " << device.forward_chains << ", backward "
                       << device.backward_chains);
  CHECK(c.fused > c.tasks / 4);
  CHECK(device.forward_chains == 2 * c.fused);  // every fused chain ran as the device's kernel, under modes 2 and 1
  CHECK(device.backward_chains > c.fused / 2);
  CHECK(c.suited_tasks == c.tasks);  // mode 1 plans units on a device whose kernel calls are launches
}

TEST_CASE("each capability of a device steers the one choice of the engine it stands for",
          "[autobatch][differential][vertex][device]") {
  RandomGraphOptions cells;
  cells.repeated_cells = true;
  cells.vertex_scopes = true;
  const std::uint64_t seeds = sample_count(40);
  SECTION("chain kernels: every fused chain is the device's kernel; mode 1 plans no units without costly calls") {
    test_support::ElementChainDevice device({true, true, false});
    RandomModel m(6, 20, 5, &device);
    const VertexCounts c = run_repeated_cells(m, cells, seeds, &device);
    CHECK(c.fused > 0);
    CHECK(device.forward_chains == c.fused);  // mode 2 only: mode 1 runs op by op here
    CHECK(c.suited_tasks == 0);
  }
  SECTION("costly calls: mode 1 plans units; without chain kernels, chains run as host loops") {
    test_support::ElementChainDevice device({true, false, true});
    RandomModel m(6, 20, 5, &device);
    const VertexCounts c = run_repeated_cells(m, cells, seeds, &device);
    CHECK(c.suited_tasks == c.tasks);
    CHECK(c.fused > 0);
    CHECK(device.forward_chains == 0);
  }
  SECTION("host kernels: without them no host loop runs, and chains run op by op") {
    test_support::ElementChainDevice device({false, false, false});
    CHECK_THROWS_AS(device.run_host_kernel("a probe", [] {}), std::logic_error);
    RandomModel m(6, 20, 5, &device);
    const VertexCounts c = run_repeated_cells(m, cells, seeds, &device);  // a host loop would throw
    CHECK(c.tasks > 0);
    CHECK(c.fused == 0);
  }
}

TEST_CASE("random graphs of repeated cells built with plain ops: discovered instances agree",
          "[autobatch][differential][vertex]") {
  RandomModel m(6, 20, 5);
  RandomGraphOptions cells;
  cells.repeated_cells = true;
  for (bool per_use : {false, true}) {
    cells.parameter_per_use = per_use;
    const VertexCounts c = run_repeated_cells(m, cells, sample_count(300));
    INFO("parameter() per use: " << per_use << ", found " << c.marked << ", units " << c.instances << ", tasks "
                                 << c.tasks << ", fused chains " << c.fused);
    CHECK(c.instances > c.marked / 4);
    CHECK(c.tasks < c.instances);  // tasks run several discovered instances at once
    CHECK(c.fused > c.tasks / 4);
    CHECK((c.suited_tasks > 0) == dynet::default_device()->capabilities().costly_calls);  // mode 1: units on a GPU only
    CHECK(c.suited_lazy_calls > 0);
  }
}
