#include <catch2/catch.hpp>

#include "dynet_core/graph.h"
#include "examples/arith-trees/arithmetic_trees.h"
#include "examples/common/tree_lstm_classifier.h"
#include "support/sharded_training_check.h"
#include "trainers/simple_sgd_trainer.h"

using namespace examples;

namespace {

TreeClassifierShape small_shape(TreeCell cell) {
  TreeClassifierShape shape;
  shape.vocabulary = static_cast<unsigned>(ArithmeticTreeGenerator::vocabulary().size());
  shape.classes = ArithmeticTreeGenerator::kClasses;
  shape.embedding = 8;
  shape.hidden = 16;
  shape.cell = cell;
  return shape;
}

}  // namespace

TEST_CASE("a TreeLSTM classifier learns small arithmetic trees", "[examples][tree_classifier]") {
  const TreeCell cell = GENERATE(TreeCell::Binary, TreeCell::ChildSum);
  dynet::ParameterCollection model;
  TreeLSTMClassifier classifier(model, small_shape(cell));
  dynet::SimpleSGDTrainer trainer(model, 0.2f);
  const std::vector<LabeledTree> trees = ArithmeticTreeGenerator(2, 0.5f, 3).generate(64);
  std::size_t nodes = 0;
  for (const LabeledTree& t : trees) nodes += t.size();
  auto epoch_loss = [&] {
    double loss = 0;
    for (std::size_t first = 0; first < trees.size(); first += 8) {
      std::vector<const LabeledTree*> batch;
      for (std::size_t k = first; k < first + 8; ++k) batch.push_back(&trees[k]);
      loss += classifier.train(batch, trainer, true);
    }
    return loss / nodes;
  };
  const double first = epoch_loss();
  double last = first;
  for (int epoch = 0; epoch < 30; ++epoch) last = epoch_loss();
  INFO("mean loss per node: first epoch " << first << ", last " << last);
  CHECK(first > 1.8);  // about log 10 at the start
  CHECK(last < 0.9);
  const TreeAccuracy acc = classifier.evaluate(trees, 16);
  CHECK(acc.roots == trees.size());
  CHECK(acc.nodes == nodes);
  CHECK(acc.all_nodes() > 0.6);
}

TEST_CASE("a TreeLSTM classifier trains the same on one thread and in parallel shards", "[examples][tree_classifier][threads]") {
  const TreeCell cell = GENERATE(TreeCell::Binary, TreeCell::ChildSum);
  const std::vector<LabeledTree> trees = ArithmeticTreeGenerator(2, 0.5f, 5).generate(24);
  test_support::check_sharded_training<TreeLSTMClassifier, LabeledTree>(
      trees, 0.2f,
      [&](dynet::ParameterCollection& model) { return std::make_unique<TreeLSTMClassifier>(model, small_shape(cell)); },
      [](TreeLSTMClassifier& c, const std::vector<const LabeledTree*>& batch, dynet::Trainer& trainer) {
        return c.train(batch, trainer, true);
      });
}

TEST_CASE("a TreeLSTM classifier rejects tokens outside its vocabulary", "[examples][tree_classifier]") {
  dynet::ParameterCollection model;
  TreeLSTMClassifier classifier(model, small_shape(TreeCell::Binary));
  LabeledTree tree;
  tree.nodes.push_back({"?", 99, {}, 1});
  dynet::ComputationGraph cg;
  classifier.new_graph(cg, true);
  CHECK_THROWS_WITH(classifier.loss(cg, tree, true), Catch::Contains("token id 99"));
  CHECK_THROWS_WITH(parse_tree_cell("ternary"), Catch::Contains("'ternary'"));
}
