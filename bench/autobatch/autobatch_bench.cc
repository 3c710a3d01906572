// Autobatching benchmark: the reference programs of ../shared/BENCHMARKS.md under each engine.
//  - treelstm: 512 random 16-leaf trees, 64 per graph, emb 128, hidden 128, Adam(0.001); with
//    parameter expressions once per graph and at every use.
//  - tagger: the BiLSTM tagger of the benchmark suite, words only (emb 128, hidden 50, MLP 32), on
//    WikiNER, 32 sentences per graph, Adam(0.001).
// Prints throughput, groups per graph, gathered bytes, scheduling (with --dynet-profiling, 0
// otherwise) and construction cost per node,
// the share of each phase, and achieved GFLOP/s against a GEMM measured in the same run, and the
// throughput per second of this thread's CPU time (steadier than wall time on a shared machine);
// settings
// take turns rep by rep (--vertex 0,1,2 compares the --dynet-vertex modes side by side). With
// --data-parallel, the TreeLSTM minibatch is also split into one shard per --dynet-threads thread
// (DataParallel). With --distributed, under mpirun -np N, the TreeLSTM minibatch is shared by the
// N processes instead (DistributedReducer); rank 0 prints.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "autobatch/random_trees.h"
#include "autobatch/tagger_model.h"
#include "autobatch/treelstm_model.h"
#include "common/gemm_peak.h"
#include "dynet_core/dybatch.h"
#include "examples/common/tagged_corpus.h"
#include "trainers/program/training_group.h"
#include "workloads/flops.h"

using namespace dynet;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::vector<std::string> models{"treelstm", "tagger"};
  std::vector<int> engines{0, 1, 2};
  std::vector<int> vertex{1};  // --vertex 0,1,2: --dynet-vertex modes compared side by side
  unsigned epochs = 2, reps = 3, tagger_sentences = 640;
  bool data_parallel = false;
  Communicator* group = nullptr;  // --distributed
  std::string tags = DYBATCH_DATA_DIR "/tags/train.txt";
};

/// A reference program: graphs of a minibatch each, the work in each, and how to build it (the
/// minibatch of `graph`, or shard `shard` of `shards` of it).
struct Workload {
  const char* unit;
  std::size_t graphs;
  std::function<Expression(ComputationGraph&, std::size_t graph, bool per_use, unsigned shard, unsigned shards)> build;
  std::function<double(std::size_t graph)> items, flops;
  Trainer* trainer;
};

struct Result {
  double items_per_s, items_per_cpu_s, groups_per_graph, mean_batch, gathered_share, sched_ns_per_node,
      build_ns_per_node, gflops;
  double share_build, share_forward, share_backward, share_update;
};

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double thread_cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/// One setting of a reference program: the engine, parameter() at every use or once per graph,
/// and --dynet-vertex.
struct Setting {
  int engine;
  bool per_use;
  int vertex;
};

/// One timed pass over the workload's epochs.
Result run_once(const Workload& w, const Setting& setting, const Options& o) {
  EngineStats stats;
  double build_s = 0, forward_s = 0, backward_s = 0, update_s = 0, nodes = 0, items = 0, flops = 0;
  unsigned graphs = 0;
  const Clock::time_point start = Clock::now();
  const double cpu_start = thread_cpu_seconds();
  for (unsigned epoch = 0; epoch < o.epochs; ++epoch)
    for (std::size_t g = 0; g < w.graphs; ++g) {
      ComputationGraph cg;
      cg.set_autobatch(setting.engine);
      cg.set_vertex(setting.vertex);
      cg.engine().reset_stats();
      const Clock::time_point t0 = Clock::now();
      Expression loss = w.build(cg, g, setting.per_use, 0, 1);
      const Clock::time_point t1 = Clock::now();
      cg.forward(loss);
      const Clock::time_point t2 = Clock::now();
      cg.backward(loss);
      const Clock::time_point t3 = Clock::now();
      w.trainer->update();
      update_s += seconds_since(t3);
      build_s += std::chrono::duration<double>(t1 - t0).count();
      forward_s += std::chrono::duration<double>(t2 - t1).count();
      backward_s += std::chrono::duration<double>(t3 - t2).count();
      nodes += cg.size();
      items += w.items(g);
      flops += w.flops(g);
      const EngineStats& s = cg.engine().stats();
      stats.nodes += s.nodes;
      stats.batches += s.batches;
      stats.bytes_gathered += s.bytes_gathered;
      stats.bytes_in_place += s.bytes_in_place;
      stats.scheduling_ns += s.scheduling_ns;
      ++graphs;
    }
  const double elapsed = seconds_since(start), cpu = thread_cpu_seconds() - cpu_start;
  return {items / elapsed,
          items / cpu,
          double(stats.batches) / graphs,
          stats.mean_batch_size(),
          stats.gathered_share(),
          double(stats.scheduling_ns) / std::max<double>(1, stats.nodes),
          build_s * 1e9 / nodes,
          flops / elapsed / 1e9,
          build_s / elapsed,
          forward_s / elapsed,
          backward_s / elapsed,
          update_s / elapsed};
}

/// The median run of each setting; the settings take turns rep by rep, so that a load that
/// drifts over the run weighs on all of them alike (rep 0 warms up).
std::vector<Result> run_interleaved(const Workload& w, const std::vector<Setting>& settings, const Options& o) {
  std::vector<std::vector<Result>> runs(settings.size());
  for (unsigned rep = 0; rep <= o.reps; ++rep)
    for (std::size_t k = 0; k < settings.size(); ++k) {
      const Result r = run_once(w, settings[k], o);
      if (rep > 0) runs[k].push_back(r);
    }
  std::vector<Result> medians;
  for (std::vector<Result>& r : runs) {
    std::sort(r.begin(), r.end(), [](const Result& a, const Result& b) { return a.items_per_s < b.items_per_s; });
    medians.push_back(r[r.size() / 2]);
  }
  return medians;
}

/// Items per second and GFLOP/s with each minibatch split into one shard per thread.
std::pair<double, double> run_data_parallel(const Workload& w, int engine, const Options& o, DataParallel& dp) {
  std::vector<std::pair<double, double>> runs;
  for (unsigned rep = 0; rep <= o.reps; ++rep) {
    double items = 0, flops = 0;
    const Clock::time_point start = Clock::now();
    for (unsigned epoch = 0; epoch < o.epochs; ++epoch)
      for (std::size_t g = 0; g < w.graphs; ++g) {
        dp.backward(dp.threads(), [&](ComputationGraph& cg, unsigned shard) {
          cg.set_autobatch(engine);
          return w.build(cg, g, false, shard, dp.threads());
        });
        w.trainer->update();
        items += w.items(g);
        flops += w.flops(g);
      }
    const double elapsed = seconds_since(start);
    if (rep > 0) runs.push_back({items / elapsed, flops / elapsed / 1e9});
  }
  std::sort(runs.begin(), runs.end());
  return runs[runs.size() / 2];
}

/// Items per second over all ranks with each minibatch shared by the ranks of `reducer`, and the
/// CPU time of this rank's own forward and backward per step (which, unlike wall time, a machine
/// shared with other work leaves unchanged).
std::pair<double, double> run_distributed(const Workload& w, int engine, const Options& o,
                                          DistributedReducer& reducer) {
  std::vector<std::pair<double, double>> runs;
  for (unsigned rep = 0; rep <= o.reps; ++rep) {
    double items = 0, cpu = 0, steps = 0;
    const Clock::time_point start = Clock::now();
    for (unsigned epoch = 0; epoch < o.epochs; ++epoch)
      for (std::size_t g = 0; g < w.graphs; ++g) {
        reducer.backward([&] {
          const double cpu_start = thread_cpu_seconds();
          ComputationGraph cg;
          cg.set_autobatch(engine);
          const Expression loss = w.build(cg, g, false, unsigned(reducer.rank()), unsigned(reducer.size()));
          const double value = as_scalar(cg.forward(loss));
          cg.backward(loss);
          cpu += thread_cpu_seconds() - cpu_start;
          return value;
        });
        w.trainer->update();
        items += w.items(g);
        ++steps;
      }
    if (rep > 0) runs.push_back({items / seconds_since(start), cpu / steps});
  }
  std::sort(runs.begin(), runs.end());
  return runs[runs.size() / 2];
}

const char* engine_name(int e) { return e == 0 ? "sequential" : e == 1 ? "agenda" : "depth"; }

void report(const char* model, const Workload& w, const Options& o, double peak, bool per_use_too) {
  std::vector<Setting> settings;
  for (int e : o.engines)
    for (bool per_use : {false, true})
      for (int v : o.vertex)
        if ((!per_use || per_use_too) && (e != 0 || v == o.vertex[0])) settings.push_back({e, per_use, v});
  const std::vector<Result> results = run_interleaved(w, settings, o);
  std::printf("%-9s %-11s %-8s %-6s %10s %10s %8s %8s %9s %10s %10s %8s %7s  %s\n", "model", "engine", "params",
              "vertex", (std::string(w.unit) + "/s").c_str(), "per CPU s", "groups/g", "mean bs", "gathered",
              "sched/node", "build/node", "GFLOP/s", "% GEMM", "build/fwd/bwd/update % of step");
  for (std::size_t k = 0; k < settings.size(); ++k) {
    const Setting& st = settings[k];
    const Result& r = results[k];
    std::printf("%-9s %-11s %-8s %-6s %10.0f %10.0f %8.1f %8.1f %8.1f%% %8.0fns %8.0fns %8.1f %6.1f%%  "
                "%.0f/%.0f/%.0f/%.0f\n",
                model, engine_name(st.engine), st.per_use ? "per use" : "once",
                st.engine == 0 ? "-" : std::to_string(st.vertex).c_str(), r.items_per_s, r.items_per_cpu_s,
                r.groups_per_graph, r.mean_batch, 100 * r.gathered_share, r.sched_ns_per_node, r.build_ns_per_node,
                r.gflops, 100 * r.gflops / peak, 100 * r.share_build, 100 * r.share_forward, 100 * r.share_backward,
                100 * r.share_update);
  }
  std::fflush(stdout);
}

void bench_treelstm(const Options& o, double peak) {
  ParameterCollection pc;
  bench::TreeLstmModel model(pc, 1000, 128, 128);
  AdamTrainer trainer(pc, 0.001f);
  const std::vector<bench::Tree> trees = bench::random_trees(512, 16, 1000, 42);
  const std::size_t per_graph = 64;
  Workload w{"trees",
             trees.size() / per_graph,
             [&](ComputationGraph& cg, std::size_t g, bool per_use, unsigned shard, unsigned shards) {
               const bench::TreeLstmModel::GraphParameters gp = model.new_graph(cg, per_use);
               std::vector<Expression> losses;
               const std::size_t first = g * per_graph + shard * per_graph / shards;
               const std::size_t end = g * per_graph + (shard + 1) * per_graph / shards;
               for (std::size_t k = first; k < end; ++k) losses.push_back(model.tree_loss(cg, trees[k], gp));
               return sum(losses);
             },
             [&](std::size_t) { return double(per_graph); },
             [&](std::size_t g) {
               double f = 0;
               for (std::size_t k = g * per_graph; k < (g + 1) * per_graph; ++k) f += model.flops(trees[k]);
               return f;
             },
             &trainer};
  std::printf("TreeLSTM reference: 512 random 16-leaf trees, 64 per graph, emb 128, hidden 128, Adam\n");
  if (o.group) {
    DistributedReducer reducer(pc, *o.group);
    for (int e : o.engines) {
      profile::reset();
      const auto r = run_distributed(w, e, o, reducer);
      const profile::Snapshot s = profile::snapshot();
      const double steps = std::max<double>(1, double(s.steps));
      std::printf("%-9s %-11s %-8s %10.0f trees/s on %d processes; rank 0 per step: forward+backward %.1f ms CPU",
                  "treelstm", engine_name(e), "once", r.first, reducer.size(), r.second * 1e3);
      // The profiler measures communication only when it is on.
      if (profile::enabled())
        std::printf(", communication %.0f us (waits included), %.0f KiB\n", s.total.communication_ns / steps / 1e3,
                    s.total.bytes_communicated / steps / 1024);
      else
        std::printf(" (communication: with --dynet-profiling 1)\n");
    }
    return;
  }
  report("treelstm", w, o, peak, true);
  if (!o.data_parallel) return;
  DataParallel dp;
  for (int e : o.engines) {
    const auto r = run_data_parallel(w, e, o, dp);
    std::printf("%-9s %-11s %-8s %10.0f trees/s with %u shards on %u threads, %.1f GFLOP/s\n", "treelstm",
                engine_name(e), "once", r.first, dp.threads(), dp.threads(), r.second);
  }
}

void bench_tagger(const Options& o, double peak) {
  std::vector<examples::TaggedSentence> sentences = examples::read_tagged_sentences(o.tags);
  sentences.resize(std::min<std::size_t>(sentences.size(), o.tagger_sentences));
  bench::TaggerVocabulary vocabulary(sentences, 1, false);
  std::vector<bench::EncodedSentence> encoded;
  for (const examples::TaggedSentence& s : sentences) encoded.push_back(vocabulary.encode(s));
  ParameterCollection pc;
  const bench::TaggerShape shape;
  bench::TaggerModel tagger(pc, shape, vocabulary);
  AdamTrainer trainer(pc, 0.001f);
  const std::size_t per_graph = 32;
  auto batch = [&](std::size_t g) {
    std::vector<const bench::EncodedSentence*> b;
    for (std::size_t k = g * per_graph; k < (g + 1) * per_graph && k < encoded.size(); ++k) b.push_back(&encoded[k]);
    return b;
  };
  auto words = [&](std::size_t g) {
    double n = 0;
    for (const auto* s : batch(g)) n += s->words.size();
    return n;
  };
  const double per_word = bench::tagger_word_flops(shape.embedding, shape.hidden, shape.mlp, vocabulary.tags.size());
  Workload w{"words",
             (encoded.size() + per_graph - 1) / per_graph,
             [&](ComputationGraph& cg, std::size_t g, bool, unsigned, unsigned) { return tagger.loss(cg, batch(g)); },
             words,
             [&](std::size_t g) { return per_word * words(g); },
             &trainer};
  std::printf("BiLSTM tagger reference: %zu WikiNER sentences, 32 per graph, emb 128, hidden 50, MLP 32, Adam\n",
              encoded.size());
  report("tagger", w, o, peak, false);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t comma; (comma = s.find(',', start)) != std::string::npos; start = comma + 1)
    out.push_back(s.substr(start, comma - start));
  out.push_back(s.substr(start));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  initialize(argc, argv);
  Options o;
  std::unique_ptr<Communicator> group;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--model") {
      o.models = split(value());
    } else if (a == "--engine") {
      o.engines.clear();
      for (const std::string& e : split(value())) o.engines.push_back(std::atoi(e.c_str()));
    } else if (a == "--vertex") {
      o.vertex.clear();
      for (const std::string& v : split(value())) {
        if (v != "0" && v != "1" && v != "2") {
          std::fprintf(stderr, "--vertex: '%s' is not a --dynet-vertex mode (0, 1 or 2)\n", v.c_str());
          return 2;
        }
        o.vertex.push_back(v[0] - '0');
      }
    } else if (a == "--epochs") {
      o.epochs = static_cast<unsigned>(std::atoi(value().c_str()));
    } else if (a == "--reps") {
      o.reps = static_cast<unsigned>(std::atoi(value().c_str()));
    } else if (a == "--tags") {
      o.tags = value();
    } else if (a == "--data-parallel") {
      o.data_parallel = true;
    } else if (a == "--distributed") {
      group = dynet::join_launched_group();
      o.group = group.get();
    } else if (a == "--help" || a == "-h") {
      std::printf("usage: autobatch_bench [--model treelstm,tagger] [--engine 0,1,2] [--vertex 0,1,2] [--epochs N]\n"
                  "                       [--reps N]\n"
                  "                       [--tags FILE] [--data-parallel] [--distributed] [--dynet-threads N]\n"
                  "                       [--dynet-* flags]\n");
      return 0;
    } else {
      std::fprintf(stderr, "unknown argument %s (see --help)\n", a.c_str());
      return 2;
    }
  }
  const double peak = bench::gemm_gflops();
  std::printf(
      "GEMM peak in this run (best of n = 128..512, one thread): %.1f GFLOP/s; medians of %u runs of %u epochs\n", peak,
      o.reps, o.epochs);
  for (const std::string& m : o.models) {
    if (m == "treelstm") {
      bench_treelstm(o, peak);
    } else if (m == "tagger") {
      bench_tagger(o, peak);
    } else {
      std::fprintf(stderr, "unknown model %s (treelstm, tagger)\n", m.c_str());
      return 2;
    }
  }
  return 0;
}
