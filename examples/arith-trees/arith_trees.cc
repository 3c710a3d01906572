// arith-trees: a TreeLSTM learns to evaluate arithmetic expressions modulo 10.
//
// Expressions such as ((3 + 4) * (9 - 5)) are generated at random, as binary trees whose
// leaves are digits and whose inner nodes are operators; every node is labeled with its value
// mod 10. The classifier embeds each node's token, reads the tree bottom-up with a binary
// TreeLSTM and predicts every node's label. Many trees share one graph, so an autobatcher
// (--dynet-autobatch 1) runs the same cell of all of them together. Needs no data files.
// Under mpirun -np N the N processes share every minibatch; rank 0 prints and saves.

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/init.h"
#include "dynet_core/io.h"
#include "dynet_core/param_collection.h"
#include "examples/arith-trees/arithmetic_trees.h"
#include "examples/common/column_argmax.h"
#include "examples/common/command_line.h"
#include "examples/common/example_main.h"
#include "examples/common/tree_lstm_classifier.h"
#include "examples/common/training_flags.h"
#include "examples/common/tree_training.h"
#include "examples/common/training_group.h"

using namespace examples;

namespace {

/// Trees printed with their predictions are at most this big, to fit on a line.
constexpr std::size_t kShownTreeSize = 15;

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

int run(int argc, char** argv) {
  Settings s;
  s.training.epochs = 10;
  s.training.batch = 64;
  s.training.learning_rate = 0.002f;
  CommandLine cl("arith-trees", "Trains a TreeLSTM to evaluate random arithmetic expressions (digits, + - *) modulo 10.");
  cl.add("train", &s.train, "training trees");
  cl.add("dev", &s.dev, "development trees");
  cl.add("max-depth", &s.max_depth, "deepest operator nesting");
  cl.add("leaf-probability", &s.leaf_probability, "chance that a node below the root is a digit");
  cl.add("data-seed", &s.data_seed, "seed of the generated data");
  cl.add("embedding", &s.embedding, "token embedding size");
  cl.add("hidden", &s.hidden, "TreeLSTM state size");
  cl.add("cell", &s.cell, "TreeLSTM cell: binary (N-ary, N = 2) or child-sum");
  cl.add("root-loss", &s.root_loss, "learn from the roots' labels only, not every node's");
  cl.add("show", &s.show, "small development trees to print with their predictions at the end");
  s.training.declare(cl, "trees", false);
  if (!cl.parse(argc, argv)) return 0;
  s.training.check();
  TrainingGroup group(s.training);

  ArithmeticTreeGenerator train_data(s.max_depth, s.leaf_probability, s.data_seed);
  ArithmeticTreeGenerator dev_data(s.max_depth, s.leaf_probability, s.data_seed + 1000003);
  const std::vector<LabeledTree> train = train_data.generate(s.train), dev = dev_data.generate(s.dev);
  std::size_t train_nodes = 0;
  for (const LabeledTree& t : train) train_nodes += t.size();
  std::cout << "arith-trees: " << train.size() << " training trees (" << train_nodes << " nodes), " << dev.size()
            << " development trees, depth <= " << s.max_depth << "; autobatch " << dynet::current_params().autobatch
            << "\n";

  dynet::ParameterCollection model;
  TreeClassifierShape shape;
  shape.vocabulary = static_cast<unsigned>(ArithmeticTreeGenerator::vocabulary().size());
  shape.classes = ArithmeticTreeGenerator::kClasses;
  shape.embedding = s.embedding;
  shape.hidden = s.hidden;
  shape.cell = parse_tree_cell(s.cell);
  TreeLSTMClassifier classifier(model, shape);
  if (!s.training.load.empty()) dynet::TextFileLoader(s.training.load).populate(model);
  classifier.set_reducer(&group.share(model));
  auto trainer = s.training.make_trainer(model);

  const double chance = chance_accuracy(dev);
  std::printf("learning curve (development accuracy; chance at the root: %.3f)\n", chance);
  std::mt19937 rng(s.data_seed);
  const TreeTrainingResult result = train_tree_classifier(classifier, train, dev, *trainer, s.training, s.root_loss, rng);

  unsigned shown = 0;
  for (const LabeledTree& tree : dev) {
    if (shown == s.show) break;
    if (tree.size() > kShownTreeSize) continue;
    dynet::ComputationGraph cg;
    classifier.new_graph(cg, false);
    const unsigned predicted = column_argmax(cg, {classifier.node_scores(cg, tree).back()})[0];
    std::printf("  %s = %d (mod 10); predicted %u\n", infix(tree).c_str(), tree.root().label, predicted);
    ++shown;
  }
  std::printf("final development accuracy: root %.3f (chance %.3f), every node %.3f\n", result.dev.root(), chance,
              result.dev.all_nodes());
  if (result.trees_per_second > 0) std::printf("training speed: %.1f trees/s\n", result.trees_per_second);
  if (!s.training.save.empty()) {
    group.on_root([&] { dynet::TextFileSaver(s.training.save).save(model); });
    std::cout << "saved the model to " << s.training.save << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return run_example("arith-trees", argc, argv, run); }
