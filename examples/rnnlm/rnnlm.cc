// rnnlm: an LSTM language model on the Penn Treebank (Mikolov's text), trained on minibatches
// of sentences of similar length; reports development perplexity after every epoch. With
// --classes, a class-factored softmax replaces the full one (much faster on a large vocabulary).

#include <cmath>
#include <cstdio>
#include <iostream>
#include <vector>

#include "dynet_core/dict.h"
#include "dynet_core/init.h"
#include "dynet_core/io.h"
#include "dynet_core/param_collection.h"
#include "examples/common/command_line.h"
#include "examples/common/data_flags.h"
#include "examples/common/example_main.h"
#include "examples/common/minibatches.h"
#include "examples/common/text_corpus.h"
#include "examples/common/training_epoch.h"
#include "examples/common/training_flags.h"
#include "examples/common/training_group.h"
#include "examples/rnnlm/frequency_classes.h"
#include "examples/rnnlm/rnn_language_model.h"

using namespace examples;

namespace {

const char* const kBoundary = "<s>";
const char* const kUnknown = "<unk>";

struct Settings {
  DataFlags data{"text/train.txt", "text/dev.txt"};
  unsigned classes = 100;
  LanguageModelShape shape;
  TrainingFlags training;
};

std::vector<WordIds> to_ids(const std::vector<Sentence>& sentences, dynet::Dict& words, std::size_t& count) {
  std::vector<WordIds> ids;
  count = 0;
  for (const Sentence& s : sentences) {
    WordIds w;
    for (const std::string& token : s) w.push_back(static_cast<unsigned>(words.convert(token)));
    count += RNNLanguageModel::predicted_words(w);
    ids.push_back(std::move(w));
  }
  return ids;
}

int run(int argc, char** argv) {
  Settings s;
  s.shape.dropout = 0.2f;
  s.training.epochs = 5;
  CommandLine cl("rnnlm",
                 "Trains an LSTM language model on one-sentence-a-line text, minibatches of sentences of similar\n"
                 "length run as one batch; reports development perplexity.");
  s.data.declare(cl, "sentences");
  cl.add("layers", &s.shape.layers, "LSTM layers");
  cl.add("embedding", &s.shape.embedding, "word embedding size");
  cl.add("hidden", &s.shape.hidden, "LSTM state size");
  cl.add("dropout", &s.shape.dropout, "variational dropout on the LSTM's inputs and state");
  cl.add("classes", &s.classes, "class-factored softmax with this many frequency-binned word classes (0: full softmax)");
  s.training.declare(cl, "sentences", true);
  if (!cl.parse(argc, argv)) return 0;
  s.training.check();
  TrainingGroup group(s.training);

  std::vector<Sentence> train_text = read_sentences(s.data.train), dev_text = read_sentences(s.data.dev);
  s.data.limit(train_text, dev_text);

  dynet::Dict words;
  if (!s.training.load.empty()) {
    dynet::load_dicts(s.training.load + ".vocab", {{"words", &words}});
  } else {
    words.convert(kBoundary);
    for (const Sentence& sentence : train_text)
      for (const std::string& w : sentence) words.convert(w);
    words.set_unk(kUnknown);
    words.freeze();
  }
  std::size_t train_words = 0, dev_words = 0;
  const std::vector<WordIds> train = to_ids(train_text, words, train_words), dev = to_ids(dev_text, words, dev_words);

  if (s.classes > 0) {
    std::vector<std::size_t> counts(words.size(), 0);
    for (const WordIds& sentence : train) {
      for (unsigned w : sentence) ++counts[w];
      ++counts[static_cast<unsigned>(words.convert(kBoundary))];
    }
    s.shape.word_classes = frequency_classes(words, counts, s.classes);
  }
  dynet::ParameterCollection model;
  RNNLanguageModel lm(model, s.shape, words, kBoundary);
  if (!s.training.load.empty()) dynet::TextFileLoader(s.training.load).populate(model);
  lm.set_reducer(&group.share(model));
  auto trainer = s.training.make_trainer(model);
  std::cout << "rnnlm: " << train.size() << " training sentences (" << train_words << " words), " << dev.size()
            << " development sentences; vocabulary " << words.size() << "; autobatch "
            << dynet::current_params().autobatch << "\n";

  std::vector<unsigned> lengths;
  for (const WordIds& w : train) lengths.push_back(static_cast<unsigned>(w.size()));
  std::mt19937 rng(1);
  std::printf("learning curve\n%6s %12s %10s %10s\n", "epoch", "train ppl", "words/s", "dev ppl");
  std::printf("%6u %12s %10s %10.1f\n", 0u, "-", "-", std::exp(lm.evaluate(dev, 64) / dev_words));
  train_epochs(
      s.training, "sent", train, [&] { return length_sorted_minibatches(lengths, s.training.batch, rng); },
      [&](const std::vector<const WordIds*>& sentences) { return lm.train(sentences, *trainer); },
      RNNLanguageModel::predicted_words,
      [&](unsigned epoch, const EpochSummary& e) {
        std::printf("%6u %12.1f %10.1f %10.1f\n", epoch, std::exp(e.mean_loss()), e.units_per_second(),
                    std::exp(lm.evaluate(dev, 64) / dev_words));
        std::fflush(stdout);
      });
  if (!s.training.save.empty()) {
    group.on_root([&] {
      dynet::save_dicts(s.training.save + ".vocab", {{"words", &words}});
      dynet::TextFileSaver(s.training.save).save(model);
    });
    std::cout << "saved the model to " << s.training.save << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return run_example("rnnlm", argc, argv, run); }
