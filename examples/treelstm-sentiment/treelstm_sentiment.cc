// treelstm-sentiment: a TreeLSTM sentiment classifier on the Stanford Sentiment Treebank
// (Tai et al., 2015): five classes at every node of binarized parse trees; reports development
// accuracy at the roots (the sentences) and over all nodes after every epoch.
//
// Each word (a leaf) is embedded, with dropout while training; the tree is read bottom-up by an
// N-ary (binary) or child-sum TreeLSTM, and every node's state is scored by an affine layer over
// the classes. A minibatch of trees shares one graph.

#include <algorithm>
#include <boost/program_options/options_description.hpp>
#include <boost/program_options/value_semantic.hpp>
#include <cstdio>
#include <iostream>
#include <memory>
#include <vector>

#include "builders/child_sum_tree_lstm_builder.h"
#include "builders/nary_tree_lstm_builder.h"
#include "dynet_core/graph.h"
#include "dynet_core/init.h"
#include "dynet_core/io/dict.h"
#include "dynet_core/io/savers_and_loaders.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"
#include "dynet_core/tensor_tools.h"
#include "examples/common/data_file.h"
#include "examples/common/minibatches.h"
#include "examples/common/sentiment_treebank.h"
#include "examples/common/training_epoch.h"
#include "trainers/parallel/sharded_training.h"
#include "trainers/program/training_flags.h"
#include "trainers/program/training_group.h"
#include "trainers/program/training_program.h"

using namespace dynet;
using namespace examples;
namespace po = boost::program_options;

namespace {

constexpr unsigned kSentimentClasses = 5;
constexpr unsigned kEvaluationBatch = 256;

struct Shape {
  unsigned embedding = 128, hidden = 128;
  std::string cell = "binary";  ///< or "child-sum"
  float dropout = 0.3f;         ///< on the word embeddings, while training
};

class SentimentTreeLSTM {
 public:
  SentimentTreeLSTM(ParameterCollection& model, const Shape& shape, unsigned vocabulary) : dropout_(shape.dropout) {
    embeddings_ = model.add_lookup_parameters(vocabulary, {shape.embedding}, "embeddings");
    if (shape.cell == "binary")
      tree_ = std::make_unique<NaryTreeLSTMBuilder>(2, 1, shape.embedding, shape.hidden, model);
    else if (shape.cell == "child-sum")
      tree_ = std::make_unique<ChildSumTreeLSTMBuilder>(1, shape.embedding, shape.hidden, model);
    else
      throw UsageError("--cell: unknown tree cell '" + shape.cell + "' (expected binary or child-sum)");
    p_out_w_ = model.add_parameters({kSentimentClasses, shape.hidden}, 0.f, "output_w");
    p_out_b_ = model.add_parameters({kSentimentClasses}, ParameterInitConst(0.f), "output_b");
  }
  /// Over the same parameters, with graph state of its own: one per training thread.
  SentimentTreeLSTM(const SentimentTreeLSTM& other)
      : dropout_(other.dropout_),
        embeddings_(other.embeddings_),
        tree_(other.tree_->clone()),
        p_out_w_(other.p_out_w_),
        p_out_b_(other.p_out_b_),
        sharded_(1) {}
  SentimentTreeLSTM& operator=(const SentimentTreeLSTM&) = delete;

  void new_graph(ComputationGraph& cg, bool training) {
    training_ = training;
    tree_->new_graph(cg, training);
    out_w_ = training ? parameter(cg, p_out_w_) : const_parameter(cg, p_out_w_);
    out_b_ = training ? parameter(cg, p_out_b_) : const_parameter(cg, p_out_b_);
  }

  /// The sentiment scores of every node of `tree`, children first, built in the bound graph.
  std::vector<Expression> node_scores(ComputationGraph& cg, const LabeledTree& tree) {
    tree_->start_new_sequence();
    tree_->set_num_elements(static_cast<unsigned>(tree.size()));
    std::vector<Expression> scores;
    for (std::size_t k = 0; k < tree.size(); ++k) {
      const LabeledTree::Node& n = tree.nodes[k];
      Expression word;  // none at an inner node
      if (n.token >= 0) {
        word =
            training_ ? lookup(cg, embeddings_, unsigned(n.token)) : const_lookup(cg, embeddings_, unsigned(n.token));
        if (training_ && dropout_ > 0.f) word = dropout(word, dropout_);
      }
      scores.push_back(affine_transform({out_b_, out_w_, tree_->add_input(static_cast<int>(k), n.children, word)}));
    }
    return scores;
  }

  /// One update on the summed loss of every labeled node (with root_only, of the roots), in
  /// shards on several threads; returns that loss.
  double train(const std::vector<const LabeledTree*>& trees, Trainer& trainer, bool root_only) {
    return sharded_.step(*this, trees.size(), trainer,
                         [&](SentimentTreeLSTM& m, ComputationGraph& cg, std::size_t first, std::size_t end) {
                           m.new_graph(cg, true);
                           std::vector<Expression> losses;
                           for (std::size_t k = first; k < end; ++k) {
                             const LabeledTree& t = *trees[k];
                             const std::vector<Expression> scores = m.node_scores(cg, t);
                             for (std::size_t i = 0; i < t.size(); ++i)
                               if (t.nodes[i].label >= 0 && (!root_only || i + 1 == t.size()))
                                 losses.push_back(pickneglogsoftmax(scores[i], unsigned(t.nodes[i].label)));
                           }
                           if (losses.empty())
                             throw std::invalid_argument("treelstm-sentiment: no labels to learn from");
                           return sum(losses);
                         });
  }

  /// The shares of correctly classified roots (sentences) and labeled nodes, kEvaluationBatch
  /// trees per graph (one forward each).
  std::pair<double, double> accuracy(const std::vector<LabeledTree>& trees) {
    std::size_t roots = 0, roots_correct = 0, nodes = 0, nodes_correct = 0;
    for (std::size_t first = 0; first < trees.size(); first += kEvaluationBatch) {
      const std::size_t end = std::min(trees.size(), first + kEvaluationBatch);
      ComputationGraph cg;
      new_graph(cg, false);
      std::vector<Expression> scores;
      for (std::size_t k = first; k < end; ++k) {
        const std::vector<Expression> s = node_scores(cg, trees[k]);
        scores.insert(scores.end(), s.begin(), s.end());
      }
      // One forward for all of them, so that an autobatcher sees the whole graph.
      const std::vector<std::ptrdiff_t> best = as_vector(TensorTools::argmax(cg.forward(concatenate_cols(scores))));
      auto predicted = best.begin();
      for (std::size_t k = first; k < end; ++k)
        for (const LabeledTree::Node& n : trees[k].nodes) {
          const bool correct = *predicted++ == n.label;
          if (n.label < 0) continue;
          nodes += 1;
          nodes_correct += correct;
          if (&n == &trees[k].root()) {
            roots += 1;
            roots_correct += correct;
          }
        }
    }
    return {roots ? double(roots_correct) / roots : 0.0, nodes ? double(nodes_correct) / nodes : 0.0};
  }

  /// Shares each update's trees with the other ranks of an MPI job.
  void set_reducer(DistributedReducer* reducer) { sharded_.set_reducer(reducer); }

 private:
  float dropout_;
  bool training_ = false;
  LookupParameter embeddings_;
  std::unique_ptr<TreeLSTMBuilder> tree_;
  Parameter p_out_w_, p_out_b_;
  Expression out_w_, out_b_;
  ShardedTraining<SentimentTreeLSTM> sharded_;
};

struct Settings {
  std::string train = default_data_path("trees/train.txt"), dev = default_data_path("trees/dev.txt");
  unsigned max_train = 0, max_dev = 0;  ///< 0: all
  unsigned min_count = 2;
  Shape shape;
  bool root_loss = false;
  TrainingFlags training;
};

void assign_tokens(std::vector<LabeledTree>& trees, Dict& words) {
  for (LabeledTree& t : trees)
    for (LabeledTree::Node& n : t.nodes)
      if (!n.word.empty()) n.token = words.convert(n.word);
}

int run(Settings& s) {
  TrainingGroup group(s.training);

  std::vector<LabeledTree> train = read_sentiment_trees(s.train), dev = read_sentiment_trees(s.dev);
  keep_first(train, s.max_train, s.train);
  keep_first(dev, s.max_dev, s.dev);
  Dict words;
  if (!s.training.load.empty()) {
    load_dicts(s.training.load + ".vocab", {{"words", &words}});
  } else {
    WordCounter counter;
    for (const LabeledTree& t : train)
      for (const LabeledTree::Node& n : t.nodes)
        if (!n.word.empty()) counter.add(n.word);
    words = counter.frequent(s.min_count, "<unk>");
  }
  assign_tokens(train, words);
  assign_tokens(dev, words);

  ParameterCollection model;
  SentimentTreeLSTM classifier(model, s.shape, words.size());
  if (!s.training.load.empty()) TextFileLoader(s.training.load).populate(model);
  classifier.set_reducer(&group.share(model));
  auto trainer = s.training.make_trainer(model);
  std::cout << "treelstm-sentiment: " << train.size() << " training trees, " << dev.size()
            << " development trees; vocabulary " << words.size() << "; autobatch " << current_params().autobatch
            << "\n";

  std::printf("learning curve (development accuracy, 5 classes)\n");
  std::printf("%6s %12s %10s %10s %10s\n", "epoch", "train loss", "trees/s", "root acc", "node acc");
  // A row of the learning curve: the epoch's training (none before the first) and the accuracy after it.
  auto report = [&](unsigned epoch, const EpochSummary* e) {
    const std::pair<double, double> acc = classifier.accuracy(dev);
    if (e)
      std::printf("%6u %12.4f %10.1f %10.4f %10.4f\n", epoch, e->mean_loss(), e->examples_per_second(), acc.first,
                  acc.second);
    else
      std::printf("%6u %12s %10s %10.4f %10.4f\n", epoch, "-", "-", acc.first, acc.second);
    std::fflush(stdout);
  };
  report(0, nullptr);
  std::mt19937 rng(1);
  train_epochs(
      s.training, "trees", train, [&] { return shuffled_minibatches(train.size(), s.training.batch, rng); },
      [&](const std::vector<const LabeledTree*>& trees) { return classifier.train(trees, *trainer, s.root_loss); },
      [&](const LabeledTree& t) { return s.root_loss ? std::size_t{1} : t.size(); },
      [&](unsigned epoch, const EpochSummary& e) { report(epoch, &e); });
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
  s.training.epochs = 8;
  s.training.batch = 16;
  po::options_description flags("flags");
  flags.add_options()("train", po::value(&s.train)->default_value(s.train),
                      "training trees, PTB-style with sentiment labels")("dev", po::value(&s.dev)->default_value(s.dev),
                                                                         "development trees")(
      "max-train", po::value(&s.max_train)->default_value(0), "use only the first N training trees (0: all)")(
      "max-dev", po::value(&s.max_dev)->default_value(0), "use only the first N development trees (0: all)")(
      "embedding", po::value(&s.shape.embedding)->default_value(s.shape.embedding), "word embedding size")(
      "hidden", po::value(&s.shape.hidden)->default_value(s.shape.hidden), "TreeLSTM state size")(
      "dropout", po::value(&s.shape.dropout)->default_value(s.shape.dropout, "0.3"),
      "dropout on the word embeddings while training")("min-count", po::value(&s.min_count)->default_value(s.min_count),
                                                       "words seen fewer times in training share the unknown word")(
      "cell", po::value(&s.shape.cell)->default_value(s.shape.cell),
      "TreeLSTM cell: binary (N-ary, N = 2) or child-sum")("root-loss", po::bool_switch(&s.root_loss),
                                                           "learn from the roots' labels only, not every node's");
  s.training.declare(flags, "trees", true);
  return run_training_program("treelstm-sentiment",
                              "Trains a TreeLSTM sentiment classifier on SST trees; reports development accuracy.",
                              flags, argc, argv, [&] { return run(s); });
}
