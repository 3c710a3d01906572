// rnnlm: an LSTM language model on the Penn Treebank (Mikolov's text), trained on minibatches
// of sentences of similar length; reports development perplexity after every epoch.
//
// Each word is embedded, read by a VanillaLSTM, and the next word is predicted by a softmax over
// the vocabulary: with --classes, a class-factored one over frequency-binned word classes (much
// faster on a large vocabulary), else a full one. A minibatch of sentences runs as one batch: at
// step t every sentence feeds its t-th word at once; sentences that already ended are padded and
// their losses masked out.

#include <algorithm>
#include <boost/program_options/options_description.hpp>
#include <boost/program_options/value_semantic.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <vector>

#include "builders/class_factored_softmax_builder.h"
#include "builders/frequency_classes.h"
#include "builders/standard_softmax_builder.h"
#include "builders/vanilla_lstm_builder.h"
#include "dynet_core/graph.h"
#include "dynet_core/init.h"
#include "dynet_core/io/dict.h"
#include "dynet_core/io/savers_and_loaders.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"
#include "examples/common/data_file.h"
#include "examples/common/minibatches.h"
#include "examples/common/text_corpus.h"
#include "examples/common/training_epoch.h"
#include "trainers/parallel/sharded_training.h"
#include "trainers/program/training_flags.h"
#include "trainers/program/training_group.h"
#include "trainers/program/training_program.h"

using namespace dynet;
using namespace examples;
namespace po = boost::program_options;

namespace {

const char* const kBoundary = "<s>";
const char* const kUnknown = "<unk>";

/// Word ids of one sentence, without boundary markers.
using WordIds = std::vector<unsigned>;

/// Words to predict in a sentence: its words and its end.
std::size_t predicted_words(const WordIds& s) { return s.size() + 1; }

struct Shape {
  unsigned layers = 1, embedding = 128, hidden = 256;
  float dropout = 0.2f;  ///< variational dropout on the LSTM's inputs and state, while training
};

class LanguageModel {
 public:
  /// `words` holds the boundary; `classes` (none: a full softmax) cover every word.
  LanguageModel(ParameterCollection& model, const Shape& shape, Dict& words,
                const ClassFactoredSoftmaxBuilder::WordClasses& classes)
      : shape_(shape),
        boundary_(static_cast<unsigned>(words.convert(kBoundary))),
        lstm_(shape.layers, shape.embedding, shape.hidden, model) {
    embeddings_ = model.add_lookup_parameters(words.size(), {shape.embedding}, "embeddings");
    if (classes.empty())
      softmax_ = std::make_unique<StandardSoftmaxBuilder>(shape.hidden, words.size(), model);
    else
      softmax_ = std::make_unique<ClassFactoredSoftmaxBuilder>(shape.hidden, classes, words, model);
  }
  /// Over the same parameters, with graph state of its own: one per training thread.
  LanguageModel(const LanguageModel& other)
      : shape_(other.shape_),
        boundary_(other.boundary_),
        embeddings_(other.embeddings_),
        lstm_(other.lstm_),
        softmax_(other.softmax_->clone()),
        sharded_(1) {}
  LanguageModel& operator=(const LanguageModel&) = delete;

  /// -log p of every word of the sentences and of each sentence's end, summed over the batch.
  Expression loss(ComputationGraph& cg, const std::vector<const WordIds*>& sentences, bool training) {
    const unsigned batch = static_cast<unsigned>(sentences.size());
    std::size_t longest = 0;
    for (const WordIds* s : sentences) longest = std::max(longest, s->size());
    if (training && shape_.dropout > 0.f)
      lstm_.set_dropout(shape_.dropout, shape_.dropout);
    else
      lstm_.disable_dropout();
    lstm_.new_graph(cg, training);
    softmax_->new_graph(cg, training);
    lstm_.start_new_sequence();

    // Step t reads word t - 1 (the boundary at t = 0) and predicts word t; a sentence of n words
    // predicts n words and its end. Ended sentences keep reading the boundary, masked out.
    std::vector<Expression> losses;
    std::vector<unsigned> inputs(batch, boundary_), targets(batch);
    std::vector<float> mask(batch);
    for (std::size_t t = 0; t <= longest; ++t) {
      bool masked = false;
      for (unsigned b = 0; b < batch; ++b) {
        const WordIds& s = *sentences[b];
        targets[b] = t < s.size() ? s[t] : boundary_;
        mask[b] = t <= s.size() ? 1.f : 0.f;
        masked = masked || mask[b] == 0.f;
      }
      const Expression x = training ? lookup(cg, embeddings_, inputs) : const_lookup(cg, embeddings_, inputs);
      Expression step_loss = softmax_->neg_log_softmax(lstm_.add_input(x), targets);
      if (masked) step_loss = cmult(step_loss, input(cg, Dim({1}, batch), mask));
      losses.push_back(sum_batches(step_loss));
      inputs = targets;
    }
    return sum(losses);
  }

  /// One update on a minibatch (in shards on several threads); returns its summed loss.
  double train(const std::vector<const WordIds*>& sentences, Trainer& trainer) {
    return sharded_.step(*this, sentences.size(), trainer,
                         [&](LanguageModel& m, ComputationGraph& cg, std::size_t first, std::size_t end) {
                           return m.loss(cg, {sentences.begin() + first, sentences.begin() + end}, true);
                         });
  }

  /// The summed loss of the sentences, `batch` per graph. Sentences of similar length share a
  /// graph, so little is padded; the sum is the same in any order.
  double evaluate(const std::vector<WordIds>& sentences, unsigned batch) {
    std::vector<const WordIds*> by_length;
    for (const WordIds& s : sentences) by_length.push_back(&s);
    std::stable_sort(by_length.begin(), by_length.end(),
                     [](const WordIds* a, const WordIds* b) { return a->size() < b->size(); });
    double total = 0;
    for (std::size_t first = 0; first < by_length.size(); first += batch) {
      const auto end = by_length.begin() + static_cast<std::ptrdiff_t>(std::min(by_length.size(), first + batch));
      ComputationGraph cg;
      total += as_scalar(cg.forward(loss(cg, {by_length.begin() + static_cast<std::ptrdiff_t>(first), end}, false)));
    }
    return total;
  }

  /// Shares each update's sentences with the other ranks of an MPI job.
  void set_reducer(DistributedReducer* reducer) { sharded_.set_reducer(reducer); }

 private:
  Shape shape_;
  unsigned boundary_;
  LookupParameter embeddings_;
  VanillaLSTMBuilder lstm_;
  std::unique_ptr<SoftmaxBuilder> softmax_;
  ShardedTraining<LanguageModel> sharded_;
};

struct Settings {
  std::string train = default_data_path("text/train.txt"), dev = default_data_path("text/dev.txt");
  unsigned max_train = 0, max_dev = 0;  ///< 0: all
  unsigned classes = 100;
  unsigned eval_batch = 64;
  Shape shape;
  TrainingFlags training;
};

std::vector<WordIds> to_ids(const std::vector<Sentence>& sentences, Dict& words, std::size_t& count) {
  std::vector<WordIds> ids;
  count = 0;
  for (const Sentence& s : sentences) {
    WordIds w;
    for (const std::string& token : s) w.push_back(static_cast<unsigned>(words.convert(token)));
    count += predicted_words(w);
    ids.push_back(std::move(w));
  }
  return ids;
}

int run(Settings& s) {
  if (s.eval_batch == 0) throw UsageError("--eval-batch must be positive");
  TrainingGroup group(s.training);

  std::vector<Sentence> train_text = read_sentences(s.train), dev_text = read_sentences(s.dev);
  keep_first(train_text, s.max_train, s.train);
  keep_first(dev_text, s.max_dev, s.dev);

  Dict words;
  if (!s.training.load.empty()) {
    load_dicts(s.training.load + ".vocab", {{"words", &words}});
  } else {
    words.convert(kBoundary);
    for (const Sentence& sentence : train_text)
      for (const std::string& w : sentence) words.convert(w);
    words.set_unk(kUnknown);
    words.freeze();
  }
  std::size_t train_words = 0, dev_words = 0;
  const std::vector<WordIds> train = to_ids(train_text, words, train_words), dev = to_ids(dev_text, words, dev_words);

  ClassFactoredSoftmaxBuilder::WordClasses classes;
  if (s.classes > 0) {
    std::vector<std::size_t> counts(words.size(), 0);
    for (const WordIds& sentence : train) {
      for (unsigned w : sentence) ++counts[w];
      ++counts[static_cast<unsigned>(words.convert(kBoundary))];
    }
    classes = frequency_classes(words, counts, s.classes);
  }
  ParameterCollection model;
  LanguageModel lm(model, s.shape, words, classes);
  if (!s.training.load.empty()) TextFileLoader(s.training.load).populate(model);
  lm.set_reducer(&group.share(model));
  auto trainer = s.training.make_trainer(model);
  std::cout << "rnnlm: " << train.size() << " training sentences (" << train_words << " words), " << dev.size()
            << " development sentences; vocabulary " << words.size() << "; autobatch " << current_params().autobatch
            << "\n";

  std::vector<unsigned> lengths;
  for (const WordIds& w : train) lengths.push_back(static_cast<unsigned>(w.size()));
  std::mt19937 rng(1);
  std::printf("learning curve\n%6s %12s %10s %10s\n", "epoch", "train ppl", "words/s", "dev ppl");
  std::printf("%6u %12s %10s %10.2f\n", 0u, "-", "-", std::exp(lm.evaluate(dev, s.eval_batch) / dev_words));
  train_epochs(
      s.training, "sent", train, [&] { return length_sorted_minibatches(lengths, s.training.batch, rng); },
      [&](const std::vector<const WordIds*>& sentences) { return lm.train(sentences, *trainer); }, predicted_words,
      [&](unsigned epoch, const EpochSummary& e) {
        std::printf("%6u %12.2f %10.1f %10.2f\n", epoch, std::exp(e.mean_loss()), e.units_per_second(),
                    std::exp(lm.evaluate(dev, s.eval_batch) / dev_words));
        std::fflush(stdout);
      });
  if (!s.training.save.empty()) {
    group.on_root([&] {
      save_model_and_dicts(s.training.save, model, s.training.save + ".vocab", {{"words", &words}});
    });
    std::cout << "saved the model to " << s.training.save << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  s.training.epochs = 5;
  po::options_description flags("flags");
  flags.add_options()("train", po::value(&s.train)->default_value(s.train), "training sentences, one a line")(
      "dev", po::value(&s.dev)->default_value(s.dev), "development sentences")(
      "max-train", po::value(&s.max_train)->default_value(0), "use only the first N training sentences (0: all)")(
      "max-dev", po::value(&s.max_dev)->default_value(0), "use only the first N development sentences (0: all)")(
      "layers", po::value(&s.shape.layers)->default_value(s.shape.layers), "LSTM layers")(
      "embedding", po::value(&s.shape.embedding)->default_value(s.shape.embedding), "word embedding size")(
      "hidden", po::value(&s.shape.hidden)->default_value(s.shape.hidden), "LSTM state size")(
      "dropout", po::value(&s.shape.dropout)->default_value(s.shape.dropout, "0.2"),
      "variational dropout on the LSTM's inputs and state")(
      "classes", po::value(&s.classes)->default_value(s.classes),
      "class-factored softmax with this many frequency-binned word classes (0: full softmax)")(
      "eval-batch", po::value(&s.eval_batch)->default_value(s.eval_batch), "development sentences per graph");
  s.training.declare(flags, "sentences", true);
  return run_training_program("rnnlm",
                              "Trains an LSTM language model on one-sentence-a-line text, minibatches of sentences of "
                              "similar\nlength run as one batch; reports development perplexity.",
                              flags, argc, argv, [&] { return run(s); });
}
