// treelstm-sentiment: a TreeLSTM sentiment classifier on the Stanford Sentiment Treebank
// (Tai et al., 2015): five classes at every node of binarized parse trees; reports development
// accuracy at the roots (the sentences) and over all nodes after every epoch.

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
#include "examples/common/sentiment_treebank.h"
#include "examples/common/tree_lstm_classifier.h"
#include "examples/common/training_flags.h"
#include "examples/common/tree_training.h"
#include "examples/common/training_group.h"

using namespace examples;

namespace {

constexpr unsigned kSentimentClasses = 5;

struct Settings {
  DataFlags data{"trees/train.txt", "trees/dev.txt"};
  unsigned min_count = 2;
  TreeClassifierShape shape;
  std::string cell = "binary";
  bool root_loss = false;
  TrainingFlags training;
};

void assign_tokens(std::vector<LabeledTree>& trees, dynet::Dict& words) {
  for (LabeledTree& t : trees)
    for (LabeledTree::Node& n : t.nodes)
      if (!n.word.empty()) n.token = words.convert(n.word);
}

int run(int argc, char** argv) {
  Settings s;
  s.shape.dropout = 0.3f;
  s.training.epochs = 8;
  s.training.batch = 16;
  CommandLine cl("treelstm-sentiment", "Trains a TreeLSTM sentiment classifier on SST trees; reports development accuracy.");
  s.data.declare(cl, "trees");
  cl.add("embedding", &s.shape.embedding, "word embedding size");
  cl.add("hidden", &s.shape.hidden, "TreeLSTM state size");
  cl.add("dropout", &s.shape.dropout, "dropout on the word embeddings while training");
  cl.add("min-count", &s.min_count, "words seen fewer times in training share the unknown word");
  cl.add("cell", &s.cell, "TreeLSTM cell: binary (N-ary, N = 2) or child-sum");
  cl.add("root-loss", &s.root_loss, "learn from the roots' labels only, not every node's");
  s.training.declare(cl, "trees", true);
  if (!cl.parse(argc, argv)) return 0;
  s.training.check();
  TrainingGroup group(s.training);

  std::vector<LabeledTree> train = read_sentiment_trees(s.data.train), dev = read_sentiment_trees(s.data.dev);
  s.data.limit(train, dev);
  dynet::Dict words;
  if (!s.training.load.empty()) {
    dynet::load_dicts(s.training.load + ".vocab", {{"words", &words}});
  } else {
    dynet::WordCounter counter;
    for (const LabeledTree& t : train)
      for (const LabeledTree::Node& n : t.nodes)
        if (!n.word.empty()) counter.add(n.word);
    words = counter.frequent(s.min_count, "<unk>");
  }
  assign_tokens(train, words);
  assign_tokens(dev, words);

  dynet::ParameterCollection model;
  s.shape.vocabulary = words.size();
  s.shape.classes = kSentimentClasses;
  s.shape.cell = parse_tree_cell(s.cell);
  TreeLSTMClassifier classifier(model, s.shape);
  if (!s.training.load.empty()) dynet::TextFileLoader(s.training.load).populate(model);
  classifier.set_reducer(&group.share(model));
  auto trainer = s.training.make_trainer(model);
  std::cout << "treelstm-sentiment: " << train.size() << " training trees, " << dev.size() << " development trees; vocabulary "
            << words.size() << "; autobatch " << dynet::current_params().autobatch << "\n";

  std::printf("learning curve (development accuracy, 5 classes)\n");
  std::mt19937 rng(1);
  train_tree_classifier(classifier, train, dev, *trainer, s.training, s.root_loss, rng);
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

int main(int argc, char** argv) { return run_example("treelstm-sentiment", argc, argv, run); }
