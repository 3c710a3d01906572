// dybatch's side of the benchmark suite: DyNet's benchmark tasks (rnnlm-batch, bilstm-tagger,
// bilstm-tagger-withchar, treenn) and Cavs' workloads (fixed-lstm, var-lstm, tree-fc, tree-lstm),
// each written with the public API as a user would, and an attention encoder-decoder learning to
// reverse digit strings (seq2seq-mixed, seq2seq-equal), trained for a time budget under whatever
// --dynet-* flags are given (--dynet-autobatch 0|1|2, --dynet-threads N, ...). Every model trains
// with SGD (learning rate 0.1), the same as its peers, except the encoder-decoder, which trains
// with Adam (its default learning rate) and is scored on held-out pairs before and after;
// `--updates sparse|dense` trains the others as DyNet's benchmark programs do instead (Adam, SPARSE
// 1 or 0).
// `--variant sharded` trains each minibatch as a user with several cores would, one graph a thread
// (ShardedTraining: copies of the model over shared parameters, DataParallel), instead of one
// graph. `--gemm-peak` instead measures this machine's single-thread GEMM throughput, which
// scripts/bench reports the workloads against.

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <dybatch.h>
#include "autobatch/tagger_model.h"
#include "autobatch/treelstm_model.h"
#include "common/gemm_peak.h"
#include "workloads/datasets.h"
#include "workloads/flops.h"
#include "workloads/measurement.h"
#include "workloads/rnn_language_model.h"
#include "workloads/seq2seq_model.h"
#include "workloads/tree_fc_model.h"
#include "workloads/workload_options.h"

using namespace dynet;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point& t) {
  const Clock::time_point now = Clock::now();
  const double s = std::chrono::duration<double>(now - t).count();
  t = now;
  return s;
}

/// One training step over `count` examples: `build(model, cg, first, end)` makes the loss of
/// examples [first, end) in a fresh graph, one graph for all or one a thread (`training`'s
/// threads). Construction is timed on the graph of the first examples; with one graph, forward,
/// backward and the update too (ShardedTraining's step, written out).
template <class Model, class Build>
bench::StepCost train_step(ShardedTraining<Model>& training, Model& model, std::size_t count, const Build& build,
                           Trainer& trainer, double items, double flops) {
  if (training.threads() == 1) {
    bench::StepCost c{items, flops};
    ComputationGraph cg;
    Clock::time_point t = Clock::now();
    const Expression loss = build(model, cg, 0, count);
    c.build_s = seconds_since(t);
    c.nodes = double(cg.size());
    cg.forward(loss);
    c.forward_s = seconds_since(t);
    cg.backward(loss);
    c.backward_s = seconds_since(t);
    trainer.update();
    c.update_s = seconds_since(t);
    return c;
  }
  double build_s = 0, nodes = 0;
  training.step(model, count, trainer, [&](Model& m, ComputationGraph& cg, std::size_t first, std::size_t end) {
    const Clock::time_point t0 = Clock::now();
    const Expression loss = build(m, cg, first, end);
    if (first == 0) {
      build_s = std::chrono::duration<double>(Clock::now() - t0).count();
      nodes = double(cg.size());
    }
    return loss;
  });
  return {items, flops, build_s, nodes};
}

/// The trainer of `o.updates`: SGD at 0.1 (sparse updates), or Adam at 0.001 without clipping,
/// with sparse or dense updates, as DyNet's benchmark programs train.
std::unique_ptr<Trainer> make_trainer(const bench::WorkloadOptions& o, ParameterCollection& pc) {
  if (o.updates == "sgd") return std::make_unique<SimpleSGDTrainer>(pc, 0.1f);
  auto adam = std::make_unique<AdamTrainer>(pc, 0.001f);
  adam->clipping_enabled = false;
  adam->sparse_updates_enabled = o.updates == "sparse";
  return adam;
}

/// Graphs a training step: one, or --dynet-threads under `--variant sharded`.
unsigned graphs_a_step(const bench::WorkloadOptions& o) { return o.variant == "sharded" ? o.threads : 1; }

/// Items [first, end) of `v`.
template <class T>
std::vector<T> part(const std::vector<T>& v, std::size_t first, std::size_t end) {
  return std::vector<T>(v.begin() + first, v.begin() + end);
}

bench::Measurement language_model(const bench::WorkloadOptions& o) {
  bench::TextData d = bench::load_task_text(o.task, o.data);
  // DyNet's rnnlm-batch batches sentences of similar length, padded as its program does; Cavs'
  // workloads take them as they come, and var-lstm's sentences of their own lengths are written one
  // at a time, leaving the batching to the autobatcher (fixed-lstm's are all of one length).
  const bool by_length = o.task == "rnnlm-batch";
  const auto layout = o.task == "var-lstm" ? bench::RNNLanguageModel::Layout::kSentenceBySentence
                                           : bench::RNNLanguageModel::Layout::kPadded;
  ParameterCollection pc;
  bench::RNNLanguageModel lm(pc, o.embedding, o.hidden, d.words, d.boundary);
  const std::unique_ptr<Trainer> trainer = make_trainer(o, pc);
  ShardedTraining<bench::RNNLanguageModel> training(graphs_a_step(o));
  std::vector<std::size_t> sizes;
  for (const bench::WordIds& s : d.sentences) sizes.push_back(s.size());
  const bench::Minibatches minibatches(sizes, o.batch, by_length);
  const double word_flops = bench::language_model_word_flops(o.embedding, o.hidden, d.words.size());
  return bench::measure(o.seconds, minibatches.largest_steps(), [&](std::size_t step) {
    std::vector<const bench::WordIds*> batch;
    double words = 0;
    for (std::size_t i : minibatches.at(step)) {
      batch.push_back(&d.sentences[i]);
      words += double(bench::RNNLanguageModel::predicted_words(d.sentences[i]));
    }
    return train_step(
        training, lm, batch.size(),
        [&](bench::RNNLanguageModel& m, ComputationGraph& cg, std::size_t first, std::size_t end) {
          return m.loss(cg, part(batch, first, end), layout);
        },
        *trainer, words, words * word_flops);
  });
}

bench::Measurement tagger(const bench::WorkloadOptions& o, bool chars) {
  // DyNet's withchar benchmark spells the words seen fewer than 5 times.
  bench::TagData d = bench::load_tags(o.data, chars ? 5 : 1, chars);
  ParameterCollection pc;
  const bench::TaggerShape shape{o.embedding, o.hidden, 32, chars ? 20u : 0u};
  bench::TaggerModel model(pc, shape, d.vocabulary);
  const std::unique_ptr<Trainer> trainer = make_trainer(o, pc);
  ShardedTraining<bench::TaggerModel> training(graphs_a_step(o));
  std::vector<std::size_t> sizes;
  for (const bench::EncodedSentence& s : d.sentences) sizes.push_back(s.words.size());
  const bench::Minibatches minibatches(sizes, o.batch, false);
  const double word_flops = bench::tagger_word_flops(o.embedding, o.hidden, shape.mlp, d.vocabulary.tags.size());
  const double char_flops = bench::char_flops(shape.char_embedding, o.embedding);
  return bench::measure(o.seconds, minibatches.largest_steps(), [&](std::size_t step) {
    std::vector<const bench::EncodedSentence*> batch;
    double words = 0, letters = 0;
    for (std::size_t i : minibatches.at(step)) {
      batch.push_back(&d.sentences[i]);
      words += double(d.sentences[i].words.size());
      for (const auto& spelling : d.sentences[i].spellings) letters += double(spelling.size());
    }
    return train_step(
        training, model, batch.size(),
        [&](bench::TaggerModel& m, ComputationGraph& cg, std::size_t first, std::size_t end) {
          return m.loss(cg, part(batch, first, end));
        },
        *trainer, words, words * word_flops + letters * char_flops);
  });
}

/// Trees through `Model`'s bind-then-tree_loss cycle (`bind(model, cg)` binds it to a graph),
/// `o.batch` trees a minibatch.
template <class Model, class Bind, class Flops>
bench::Measurement trees(const bench::WorkloadOptions& o, const bench::TreeData& d, Model& model, const Bind& bind,
                         const Flops& flops, ParameterCollection& pc) {
  const std::unique_ptr<Trainer> trainer = make_trainer(o, pc);
  ShardedTraining<Model> training(graphs_a_step(o));
  std::vector<std::size_t> sizes;
  for (const bench::Tree& t : d.trees) sizes.push_back(t.nodes.size());
  const bench::Minibatches minibatches(sizes, o.batch, false);
  return bench::measure(o.seconds, minibatches.largest_steps(), [&](std::size_t step) {
    const std::vector<std::size_t> batch = minibatches.at(step);
    double f = 0;
    for (std::size_t i : batch) f += flops(d.trees[i]);
    return train_step(
        training, model, batch.size(),
        [&](Model& m, ComputationGraph& cg, std::size_t first, std::size_t end) {
          const auto bound = bind(m, cg);
          std::vector<Expression> losses;
          for (std::size_t k = first; k < end; ++k) losses.push_back(m.tree_loss(cg, d.trees[batch[k]], bound));
          return sum(losses);
        },
        *trainer, double(batch.size()), f);
  });
}

bench::Measurement tree_lstm(const bench::WorkloadOptions& o) {
  const bench::TreeData d = bench::load_trees(o.data);
  ParameterCollection pc;
  bench::TreeLstmModel model(pc, d.vocabulary, o.embedding, o.hidden, false);
  return trees(
      o, d, model, [](bench::TreeLstmModel& m, ComputationGraph& cg) { return m.new_graph(cg, false); },
      [&](const bench::Tree& t) { return model.flops(t); }, pc);
}

bench::Measurement tree_fc(const bench::WorkloadOptions& o) {
  const bench::TreeData d = bench::complete_trees(4 * o.batch, 256, 10000);
  ParameterCollection pc;
  struct Unbound {};
  // The model itself, not a reference: each training thread's copy binds a graph of its own.
  struct Adapter {
    bench::TreeFcModel m;
    Expression tree_loss(ComputationGraph& cg, const bench::Tree& t, Unbound) const { return m.tree_loss(cg, t); }
  } adapter{bench::TreeFcModel(pc, d.vocabulary, o.hidden)};
  return trees(
      o, d, adapter,
      [](Adapter& a, ComputationGraph& cg) {
        a.m.new_graph(cg);
        return Unbound{};
      },
      [&](const bench::Tree& t) { return bench::tree_fc_flops(t, o.hidden); }, pc);
}

bench::Measurement seq2seq(const bench::WorkloadOptions& o) {
  const bench::PairData d = bench::reversal_pairs(o.task);
  ParameterCollection pc;
  bench::Seq2SeqModel model(pc, d, o.embedding, o.hidden);
  AdamTrainer trainer(pc);
  ShardedTraining<bench::Seq2SeqModel> training(graphs_a_step(o));
  std::vector<std::size_t> sizes;
  for (const bench::SequencePair& p : d.train) sizes.push_back(p.source.size());
  const bench::Minibatches minibatches(sizes, o.batch, false);
  const bench::HeldOutScore before = model.score(d.held_out);
  bench::Measurement m = bench::measure(o.seconds, minibatches.largest_steps(), [&](std::size_t step) {
    std::vector<const bench::SequencePair*> batch;
    double flops = 0;
    for (std::size_t i : minibatches.at(step)) {
      batch.push_back(&d.train[i]);
      flops += bench::seq2seq_pair_flops(d.train[i].source.size(), d.train[i].target.size(), o.embedding, o.hidden,
                                         d.vocabulary);
    }
    return train_step(
        training, model, batch.size(),
        [&](bench::Seq2SeqModel& s, ComputationGraph& cg, std::size_t first, std::size_t end) {
          return s.loss(cg, part(batch, first, end));
        },
        trainer, double(batch.size()), flops);
  });
  m.before = before;
  m.after = model.score(d.held_out);
  return m;
}

/// The value of flag `name` among the --dynet-* arguments (either `--name v` or `--name=v`), or
/// `otherwise`.
int flag_value(int argc, char** argv, const char* name, int otherwise) {
  const std::size_t n = std::strlen(name);
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0 && i + 1 < argc) return std::atoi(argv[i + 1]);
    if (std::strncmp(argv[i], name, n) == 0 && argv[i][n] == '=') return std::atoi(argv[i] + n + 1);
  }
  return otherwise;
}

}  // namespace

int main(int argc, char** argv) {
  const int vertex = flag_value(argc, argv, "--dynet-vertex", -1);
  const unsigned threads = static_cast<unsigned>(flag_value(argc, argv, "--dynet-threads", 1));
  try {
    initialize(argc, argv);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 2;
  }
  if (argc == 2 && std::strcmp(argv[1], "--gemm-peak") == 0) {
    std::printf("RESULT task=gemm-peak impl=dybatch threads=1 gflops=%.3f\n", bench::gemm_gflops());
    return 0;
  }
  bench::WorkloadOptions o = bench::parse_workload_options(argc, argv, "model,sharded", DYBATCH_DATA_DIR);
  o.threads = threads;
  if (bench::is_seq2seq(o.task) && o.updates != "sgd") {
    std::fprintf(stderr, "%s: --updates: %s trains with Adam and sparse updates of its own\n", argv[0], o.task.c_str());
    return 2;
  }
  bench::RunLabel label = bench::run_label(o, "dybatch");
  label.autobatch = autobatch_flag;
  label.vertex = vertex;
  bench::Measurement m;
  if (bench::is_language_model(o.task)) {
    m = language_model(o);
  } else if (o.task == "bilstm-tagger" || o.task == "bilstm-tagger-withchar") {
    m = tagger(o, o.task == "bilstm-tagger-withchar");
  } else if (bench::is_seq2seq(o.task)) {
    m = seq2seq(o);
  } else if (o.task == "treenn" || o.task == "tree-lstm") {
    m = tree_lstm(o);
  } else {
    m = tree_fc(o);
  }
  bench::report(label, m);
  return 0;
}
