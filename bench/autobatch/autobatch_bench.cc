// Autobatching benchmark: the TreeLSTM reference program of ../shared/BENCHMARKS.md (64 random
// 16-leaf trees per graph) under each engine, with parameter expressions once per graph and at
// every use. Prints trees/s, groups per graph, gathered bytes, scheduling and construction cost
// per node, and achieved GFLOP/s against a GEMM measured in the same run.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "autobatch/execution_engine.h"
#include "autobatch/random_trees.h"
#include "autobatch/treelstm_model.h"
#include "common/gemm_peak.h"
#include "dynet_core/dybatch.h"

using namespace dynet;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::vector<int> engines{0, 1, 2};
  unsigned trees = 512, per_graph = 64, epochs = 2, reps = 3;
};

struct Result {
  double trees_per_s, batches_per_graph, mean_batch, gathered_share, sched_ns_per_node, construct_ns_per_node,
      gflops;
  double share_build, share_forward, share_backward, share_update;  // of the whole step
};

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

Result run_treelstm(int engine, bool per_use, const Options& o) {
  ParameterCollection pc;
  bench::TreeLstmModel model(pc, 1000, 128, 128);
  AdamTrainer trainer(pc, 0.001f);
  const std::vector<bench::Tree> trees = bench::random_trees(o.trees, 16, 1000, 42);
  double flops_per_epoch = 0;
  for (const bench::Tree& t : trees) flops_per_epoch += model.flops(t);

  std::vector<Result> runs;
  for (unsigned rep = 0; rep <= o.reps; ++rep) {  // rep 0 warms up
    EngineStats stats;
    double construct_s = 0, forward_s = 0, backward_s = 0, update_s = 0, nodes = 0;
    unsigned graphs = 0;
    const Clock::time_point start = Clock::now();
    for (unsigned epoch = 0; epoch < o.epochs; ++epoch)
      for (unsigned first = 0; first < trees.size(); first += o.per_graph) {
        ComputationGraph cg;
        cg.set_autobatch(engine);
        cg.engine().reset_stats();
        const Clock::time_point c0 = Clock::now();
        if (!per_use) model.new_graph(cg);
        std::vector<Expression> losses;
        for (unsigned k = first; k < first + o.per_graph && k < trees.size(); ++k)
          losses.push_back(model.tree_loss(cg, trees[k], per_use));
        Expression loss = sum(losses);
        construct_s += seconds_since(c0);
        nodes += cg.size();
        const Clock::time_point f0 = Clock::now();
        cg.forward(loss);
        forward_s += seconds_since(f0);
        const Clock::time_point b0 = Clock::now();
        cg.backward(loss);
        backward_s += seconds_since(b0);
        const Clock::time_point u0 = Clock::now();
        trainer.update();
        update_s += seconds_since(u0);
        const EngineStats& s = cg.engine().stats();
        stats.nodes += s.nodes;
        stats.batches += s.batches;
        stats.bytes_gathered += s.bytes_gathered;
        stats.bytes_in_place += s.bytes_in_place;
        stats.scheduling_ns += s.scheduling_ns;
        ++graphs;
      }
    const double elapsed = seconds_since(start);
    if (rep == 0) continue;
    runs.push_back({o.epochs * trees.size() / elapsed, double(stats.batches) / graphs, stats.mean_batch_size(),
                    stats.gathered_share(), double(stats.scheduling_ns) / std::max<double>(1, stats.nodes),
                    construct_s * 1e9 / nodes, o.epochs * flops_per_epoch / elapsed / 1e9, construct_s / elapsed,
                    forward_s / elapsed, backward_s / elapsed, update_s / elapsed});
  }
  std::sort(runs.begin(), runs.end(), [](const Result& a, const Result& b) { return a.trees_per_s < b.trees_per_s; });
  return runs[runs.size() / 2];
}

const char* engine_name(int e) { return e == 0 ? "sequential" : e == 1 ? "agenda" : "depth"; }

}  // namespace

int main(int argc, char** argv) {
  initialize(argc, argv);
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> unsigned {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    };
    if (a == "--engine") {
      o.engines = {static_cast<int>(value())};
    } else if (a == "--epochs") {
      o.epochs = value();
    } else if (a == "--reps") {
      o.reps = value();
    } else if (a == "--help" || a == "-h") {
      std::printf("usage: autobatch_bench [--engine 0|1|2] [--epochs N] [--reps N] [--dynet-* flags]\n");
      return 0;
    } else {
      std::fprintf(stderr, "unknown argument %s (see --help)\n", a.c_str());
      return 2;
    }
  }
  const double peak = bench::gemm_gflops();
  std::printf("TreeLSTM reference: %u random 16-leaf trees, %u per graph, emb 128, hidden 128; medians of %u runs of %u epochs\n",
              o.trees, o.per_graph, o.reps, o.epochs);
  std::printf("GEMM peak in this run (best of n = 128..512): %.1f GFLOP/s\n", peak);
  std::printf("%-11s %-9s %9s %9s %8s %9s %10s %10s %8s %7s  %s\n", "engine", "params", "trees/s", "groups/g",
              "mean bs", "gathered", "sched/node", "build/node", "GFLOP/s", "% GEMM", "build/fwd/bwd/update % of step");
  for (int e : o.engines)
    for (bool per_use : {false, true}) {
      const Result r = run_treelstm(e, per_use, o);
      std::printf("%-11s %-9s %9.0f %9.1f %8.1f %8.1f%% %8.0fns %8.0fns %8.1f %6.1f%%  %.0f/%.0f/%.0f/%.0f\n",
                  engine_name(e), per_use ? "per use" : "once", r.trees_per_s, r.batches_per_graph, r.mean_batch,
                  100 * r.gathered_share, r.sched_ns_per_node, r.construct_ns_per_node, r.gflops, 100 * r.gflops / peak,
                  100 * r.share_build, 100 * r.share_forward, 100 * r.share_backward, 100 * r.share_update);
    }
  return 0;
}
