// Graph construction overhead: builds graphs of 10^3 .. 10^6 nodes of the ops a recurrent or
// tree model uses (lookup, affine_transform, tanh, cmult, sum) and reports, for construction alone,
// nanoseconds per node and heap allocations per node, cold (first graph) and warm (steady state).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/heap_counter.h"
#include "dynet_core/dybatch.h"

using namespace dynet;
using Clock = std::chrono::steady_clock;

namespace {

struct Model {
  explicit Model(unsigned dim) {
    emb = pc.add_lookup_parameters(1000, {dim});
    W = pc.add_parameters({dim, dim});
    U = pc.add_parameters({dim, dim});
    b = pc.add_parameters({dim});
  }
  ParameterCollection pc;
  LookupParameter emb;
  Parameter W, U, b;
};

/// Appends steps of 5 nodes each until the graph holds `nodes` nodes.
void build(ComputationGraph& cg, const Model& m, unsigned nodes) {
  Expression W = parameter(cg, m.W), U = parameter(cg, m.U), b = parameter(cg, m.b);
  Expression h = lookup(cg, m.emb, 0u);
  for (unsigned step = 0; cg.size() + 5 <= nodes; ++step) {
    Expression x = lookup(cg, m.emb, step % 1000);
    Expression a = affine_transform({b, W, x, U, h});
    Expression t = tanh(a);
    Expression g = cmult(t, x);
    h = sum({g, h});
  }
}

struct Measure {
  double ns_per_node;
  double allocs_per_node;
  double bytes_per_node;
};

Measure measure(const Model& m, unsigned nodes) {
  ComputationGraph cg;
  bench::start_heap_count();
  const auto t0 = Clock::now();
  build(cg, m, nodes);
  const auto t1 = Clock::now();
  const bench::HeapCount heap = bench::stop_heap_count();
  const double n = cg.size();
  return {std::chrono::duration<double, std::nano>(t1 - t0).count() / n, heap.calls / n, heap.bytes / n};
}

}  // namespace

int main(int argc, char** argv) {
  initialize(argc, argv);
  unsigned reps = 9;
  if (argc > 2 && std::string(argv[1]) == "--reps") reps = static_cast<unsigned>(std::atoi(argv[2]));
  Model model(64);
  std::printf("graph construction, ops: lookup, affine_transform, tanh, cmult, sum (5 nodes a step)\n");
  std::printf("%10s %14s %14s %16s %16s %14s\n", "nodes", "cold ns/node", "warm ns/node", "warm allocs/node",
              "warm bytes/node", "cold bytes/node");
  for (unsigned nodes : {1000u, 10000u, 100000u, 1000000u}) {
    const Measure cold = measure(model, nodes);
    std::vector<Measure> warm;
    for (unsigned r = 0; r < reps; ++r) warm.push_back(measure(model, nodes));
    std::sort(warm.begin(), warm.end(),
              [](const Measure& a, const Measure& b) { return a.ns_per_node < b.ns_per_node; });
    const Measure& med = warm[warm.size() / 2];
    double worst_allocs = 0, worst_bytes = 0;
    for (const Measure& w : warm) {
      worst_allocs = std::max(worst_allocs, w.allocs_per_node);
      worst_bytes = std::max(worst_bytes, w.bytes_per_node);
    }
    std::printf("%10u %14.1f %14.1f %16.4f %16.2f %14.1f\n", nodes, cold.ns_per_node, med.ns_per_node, worst_allocs,
                worst_bytes, cold.bytes_per_node);
  }
  std::printf("warm: median of %u graphs after the first (allocation columns: the worst graph)\n", reps);
  return 0;
}
