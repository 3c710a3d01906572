// arith-trees: a TreeLSTM learns to evaluate arithmetic expressions modulo 10.
//
// Expressions such as ((3 + 4) * (9 - 5)) are generated at random, as binary trees whose
// leaves are digits and whose inner nodes are operators; every node is labeled with its value
// mod 10. The classifier embeds each node's token, reads the tree bottom-up with a binary
// (N-ary, N = 2) or child-sum TreeLSTM (Tai et al., 2015) and predicts every node's label with an
// affine layer over the classes. Many trees share one graph, so an autobatcher
// (--dynet-autobatch 1) runs the same cell of all of them together. Needs no data files.
// Under mpirun -np N the N processes share every minibatch; rank 0 prints and saves.

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
#include "dynet_core/io/savers_and_loaders.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"
#include "dynet_core/tensor_tools.h"
#include "examples/common/arithmetic_trees.h"
#include "examples/common/minibatches.h"
#include "examples/common/training_epoch.h"
#include "trainers/parallel/sharded_training.h"
#include "trainers/program/training_flags.h"
#include "trainers/program/training_group.h"
#include "trainers/program/training_program.h"

using namespace dynet;
using namespace examples;
namespace po = boost::program_options;

namespace {

/// Trees printed with their predictions are at most this big, to fit on a line.
constexpr std::size_t kShownTreeSize = 15;
constexpr unsigned kEvaluationBatch = 256;

/// Correct predictions at the roots and at every node.
struct TreeAccuracy {
  std::size_t root_correct = 0, roots = 0, node_correct = 0, nodes = 0;
  double root() const { return roots ? double(root_correct) / roots : 0.0; }
  double all_nodes() const { return nodes ? double(node_correct) / nodes : 0.0; }
};

class TreeCalculator {
 public:
  /// `cell`: "binary" or "child-sum".
  TreeCalculator(ParameterCollection& model, const std::string& cell, unsigned embedding, unsigned hidden) {
    embeddings_ = model.add_lookup_parameters(ArithmeticTreeGenerator::vocabulary().size(), {embedding}, "embeddings");
    if (cell == "binary")
      tree_ = std::make_unique<NaryTreeLSTMBuilder>(2, 1, embedding, hidden, model);
    else if (cell == "child-sum")
      tree_ = std::make_unique<ChildSumTreeLSTMBuilder>(1, embedding, hidden, model);
    else
      throw UsageError("--cell: unknown tree cell '" + cell + "' (expected binary or child-sum)");
    p_out_w_ = model.add_parameters({ArithmeticTreeGenerator::kClasses, hidden}, 0.f, "output_w");
    p_out_b_ = model.add_parameters({ArithmeticTreeGenerator::kClasses}, ParameterInitConst(0.f), "output_b");
  }
  /// Over the same parameters, with graph state of its own: one per training thread.
  TreeCalculator(const TreeCalculator& other)
      : embeddings_(other.embeddings_),
        tree_(other.tree_->clone()),
        p_out_w_(other.p_out_w_),
        p_out_b_(other.p_out_b_),
        sharded_(1) {}
  TreeCalculator& operator=(const TreeCalculator&) = delete;

  void new_graph(ComputationGraph& cg, bool training) {
    tree_->new_graph(cg, training);
    out_w_ = training ? parameter(cg, p_out_w_) : const_parameter(cg, p_out_w_);
    out_b_ = training ? parameter(cg, p_out_b_) : const_parameter(cg, p_out_b_);
  }

  /// The class scores of every node of `tree`, children first, built in the bound graph.
  std::vector<Expression> node_scores(ComputationGraph& cg, const LabeledTree& tree) {
    tree_->start_new_sequence();
    tree_->set_num_elements(static_cast<unsigned>(tree.size()));
    std::vector<Expression> scores;
    for (std::size_t k = 0; k < tree.size(); ++k) {
      const LabeledTree::Node& n = tree.nodes[k];
      const Expression h =
          tree_->add_input(static_cast<int>(k), n.children, lookup(cg, embeddings_, unsigned(n.token)));
      scores.push_back(affine_transform({out_b_, out_w_, h}));
    }
    return scores;
  }

  /// One update on the summed loss of every node's label (with root_only, of the roots' only), in
  /// shards on several threads; returns that loss.
  double train(const std::vector<const LabeledTree*>& trees, Trainer& trainer, bool root_only) {
    return sharded_.step(*this, trees.size(), trainer,
                         [&](TreeCalculator& c, ComputationGraph& cg, std::size_t first, std::size_t end) {
                           c.new_graph(cg, true);
                           std::vector<Expression> losses;
                           for (std::size_t k = first; k < end; ++k) {
                             const std::vector<Expression> scores = c.node_scores(cg, *trees[k]);
                             for (std::size_t i = root_only ? scores.size() - 1 : 0; i < scores.size(); ++i)
                               losses.push_back(pickneglogsoftmax(scores[i], unsigned(trees[k]->nodes[i].label)));
                           }
                           return sum(losses);
                         });
  }

  /// The predicted label of every node of `trees`, kEvaluationBatch trees per graph (one forward
  /// each), handed to on_tree(tree, its nodes' labels).
  template <class OnTree>
  void predict(const std::vector<LabeledTree>& trees, OnTree&& on_tree) {
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
      for (std::size_t k = first, at = 0; k < end; at += trees[k].size(), ++k) on_tree(trees[k], &best[at]);
    }
  }

  TreeAccuracy accuracy(const std::vector<LabeledTree>& trees) {
    TreeAccuracy acc;
    predict(trees, [&](const LabeledTree& t, const std::ptrdiff_t* labels) {
      for (std::size_t k = 0; k < t.size(); ++k) acc.node_correct += labels[k] == t.nodes[k].label;
      acc.nodes += t.size();
      acc.root_correct += labels[t.size() - 1] == t.root().label;
      acc.roots += 1;
    });
    return acc;
  }

  /// Shares each update's trees with the other ranks of an MPI job.
  void set_reducer(DistributedReducer* reducer) { sharded_.set_reducer(reducer); }

 private:
  LookupParameter embeddings_;
  std::unique_ptr<TreeLSTMBuilder> tree_;
  Parameter p_out_w_, p_out_b_;
  Expression out_w_, out_b_;
  ShardedTraining<TreeCalculator> sharded_;
};

struct Settings {
  unsigned train = 20000, dev = 1000, max_depth = 10;
  float leaf_probability = 0.5f;
  unsigned data_seed = 1;
  unsigned embedding = 64, hidden = 128;
  std::string cell = "binary";
  bool root_loss = false;
  TrainingFlags training;
  unsigned show = 5;
};

/// The most frequent root label's share: what a classifier that ignores the tree gets.
double chance_accuracy(const std::vector<LabeledTree>& trees) {
  std::vector<std::size_t> counts(ArithmeticTreeGenerator::kClasses, 0);
  for (const LabeledTree& t : trees) ++counts[unsigned(t.root().label)];
  return trees.empty() ? 0.0 : double(*std::max_element(counts.begin(), counts.end())) / trees.size();
}

int run(Settings& s) {
  TrainingGroup group(s.training);

  ArithmeticTreeGenerator train_data(s.max_depth, s.leaf_probability, s.data_seed);
  ArithmeticTreeGenerator dev_data(s.max_depth, s.leaf_probability, s.data_seed + 1000003);
  const std::vector<LabeledTree> train = train_data.generate(s.train), dev = dev_data.generate(s.dev);
  std::size_t train_nodes = 0;
  for (const LabeledTree& t : train) train_nodes += t.size();
  std::cout << "arith-trees: " << train.size() << " training trees (" << train_nodes << " nodes), " << dev.size()
            << " development trees, depth <= " << s.max_depth << "; autobatch " << current_params().autobatch << "\n";

  ParameterCollection model;
  TreeCalculator calculator(model, s.cell, s.embedding, s.hidden);
  if (!s.training.load.empty()) TextFileLoader(s.training.load).populate(model);
  calculator.set_reducer(&group.share(model));
  auto trainer = s.training.make_trainer(model);

  const double chance = chance_accuracy(dev);
  std::printf("learning curve (development accuracy; chance at the root: %.3f)\n", chance);
  TreeAccuracy acc = calculator.accuracy(dev);
  double trees_per_second = 0;
  std::printf("%6s %12s %10s %10s %10s\n", "epoch", "train loss", "trees/s", "root acc", "node acc");
  std::printf("%6u %12s %10s %10.4f %10.4f\n", 0u, "-", "-", acc.root(), acc.all_nodes());
  std::fflush(stdout);
  std::mt19937 rng(s.data_seed);
  train_epochs(
      s.training, "trees", train, [&] { return shuffled_minibatches(train.size(), s.training.batch, rng); },
      [&](const std::vector<const LabeledTree*>& trees) { return calculator.train(trees, *trainer, s.root_loss); },
      [&](const LabeledTree& t) { return s.root_loss ? std::size_t{1} : t.size(); },
      [&](unsigned epoch, const EpochSummary& e) {
        trees_per_second = e.examples_per_second();
        acc = calculator.accuracy(dev);
        std::printf("%6u %12.4f %10.1f %10.4f %10.4f\n", epoch, e.mean_loss(), trees_per_second, acc.root(),
                    acc.all_nodes());
        std::fflush(stdout);
      });

  std::vector<LabeledTree> shown;
  for (const LabeledTree& tree : dev)
    if (shown.size() < s.show && tree.size() <= kShownTreeSize) shown.push_back(tree);
  calculator.predict(shown, [](const LabeledTree& tree, const std::ptrdiff_t* labels) {
    std::printf("  %s = %d (mod 10); predicted %td\n", infix(tree).c_str(), tree.root().label, labels[tree.size() - 1]);
  });
  std::printf("final development accuracy: root %.3f (chance %.3f), every node %.3f\n", acc.root(), chance,
              acc.all_nodes());
  if (trees_per_second > 0) std::printf("training speed: %.1f trees/s\n", trees_per_second);
  if (!s.training.save.empty()) {
    group.on_root([&] { TextFileSaver(s.training.save).save(model); });
    std::cout << "saved the model to " << s.training.save << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  s.training.epochs = 10;
  s.training.batch = 64;
  s.training.learning_rate = 0.002f;
  po::options_description flags("flags");
  flags.add_options()("train", po::value(&s.train)->default_value(s.train), "training trees")(
      "dev", po::value(&s.dev)->default_value(s.dev), "development trees")(
      "max-depth", po::value(&s.max_depth)->default_value(s.max_depth), "deepest operator nesting")(
      "leaf-probability", po::value(&s.leaf_probability)->default_value(s.leaf_probability, "0.5"),
      "chance that a node below the root is a digit")("data-seed", po::value(&s.data_seed)->default_value(s.data_seed),
                                                      "seed of the generated data")(
      "embedding", po::value(&s.embedding)->default_value(s.embedding), "token embedding size")(
      "hidden", po::value(&s.hidden)->default_value(s.hidden), "TreeLSTM state size")(
      "cell", po::value(&s.cell)->default_value(s.cell), "TreeLSTM cell: binary (N-ary, N = 2) or child-sum")(
      "root-loss", po::bool_switch(&s.root_loss), "learn from the roots' labels only, not every node's")(
      "show", po::value(&s.show)->default_value(s.show),
      "small development trees to print with their predictions at the end");
  s.training.declare(flags, "trees", false);
  return run_training_program("arith-trees",
                              "Trains a TreeLSTM to evaluate random arithmetic expressions (digits, + - *) modulo 10.",
                              flags, argc, argv, [&] { return run(s); });
}
