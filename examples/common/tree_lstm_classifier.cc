#include "examples/common/tree_lstm_classifier.h"

#include <algorithm>
#include <stdexcept>

#include "builders/child_sum_tree_lstm_builder.h"
#include "builders/nary_tree_lstm_builder.h"
#include "dynet_core/expr.h"
#include "dynet_core/graph.h"
#include "examples/common/batched_prediction.h"
#include "examples/common/command_line.h"

namespace examples {

using namespace dynet;

TreeCell parse_tree_cell(const std::string& name) {
  if (name == "binary") return TreeCell::Binary;
  if (name == "child-sum") return TreeCell::ChildSum;
  throw UsageError("unknown tree cell '" + name + "' (expected binary or child-sum)");
}

TreeLSTMClassifier::TreeLSTMClassifier(ParameterCollection& model, const TreeClassifierShape& shape) : shape_(shape) {
  if (shape.vocabulary == 0 || shape.classes == 0)
    throw std::invalid_argument("TreeLSTMClassifier: the vocabulary and the classes must not be empty");
  embeddings_ = model.add_lookup_parameters(shape.vocabulary, {shape.embedding}, "embeddings");
  if (shape.cell == TreeCell::Binary)
    tree_ = std::make_unique<NaryTreeLSTMBuilder>(2, 1, shape.embedding, shape.hidden, model);
  else
    tree_ = std::make_unique<ChildSumTreeLSTMBuilder>(1, shape.embedding, shape.hidden, model);
  p_out_w_ = model.add_parameters({shape.classes, shape.hidden}, 0.f, "output_w");
  p_out_b_ = model.add_parameters({shape.classes}, ParameterInitConst(0.f), "output_b");
}

TreeLSTMClassifier::TreeLSTMClassifier(const TreeLSTMClassifier& other)
    : shape_(other.shape_),
      embeddings_(other.embeddings_),
      tree_(other.tree_->clone()),
      p_out_w_(other.p_out_w_),
      p_out_b_(other.p_out_b_),
      sharded_(1) {}

void TreeLSTMClassifier::new_graph(ComputationGraph& cg, bool training) {
  training_ = training;
  tree_->new_graph(cg, training);
  out_w_ = training ? parameter(cg, p_out_w_) : const_parameter(cg, p_out_w_);
  out_b_ = training ? parameter(cg, p_out_b_) : const_parameter(cg, p_out_b_);
}

std::vector<Expression> TreeLSTMClassifier::node_scores(ComputationGraph& cg, const LabeledTree& tree) {
  tree_->start_new_sequence();
  tree_->set_num_elements(static_cast<unsigned>(tree.size()));
  std::vector<Expression> scores;
  for (std::size_t k = 0; k < tree.size(); ++k) {
    const LabeledTree::Node& n = tree.nodes[k];
    Expression x;
    if (n.token >= 0) {
      if (static_cast<unsigned>(n.token) >= shape_.vocabulary)
        throw std::invalid_argument("TreeLSTMClassifier: token id " + std::to_string(n.token) +
                                    " is outside the vocabulary of " + std::to_string(shape_.vocabulary));
      x = training_ ? lookup(cg, embeddings_, static_cast<unsigned>(n.token))
                    : const_lookup(cg, embeddings_, static_cast<unsigned>(n.token));
      if (training_ && shape_.dropout > 0.f) x = dropout(x, shape_.dropout);
    }
    const Expression h = tree_->add_input(static_cast<int>(k), n.children, x);
    scores.push_back(affine_transform({out_b_, out_w_, h}));
  }
  return scores;
}

Expression TreeLSTMClassifier::loss(ComputationGraph& cg, const LabeledTree& tree, bool every_node) {
  const std::vector<Expression> scores = node_scores(cg, tree);
  std::vector<Expression> losses;
  for (std::size_t k = 0; k < tree.size(); ++k) {
    const int label = tree.nodes[k].label;
    if (label < 0 || (!every_node && k + 1 != tree.size())) continue;
    losses.push_back(pickneglogsoftmax(scores[k], static_cast<unsigned>(label)));
  }
  if (losses.empty()) throw std::invalid_argument("TreeLSTMClassifier: a tree without labels to learn from");
  return sum(losses);
}

double TreeLSTMClassifier::train(const std::vector<const LabeledTree*>& trees, Trainer& trainer, bool every_node) {
  return sharded_.step(*this, trees.size(), trainer,
                       [&](TreeLSTMClassifier& c, ComputationGraph& cg, std::size_t first, std::size_t end) {
                         c.new_graph(cg, true);
                         std::vector<Expression> losses;
                         for (std::size_t k = first; k < end; ++k) losses.push_back(c.loss(cg, *trees[k], every_node));
                         return sum(losses);
                       });
}

TreeAccuracy TreeLSTMClassifier::evaluate(const std::vector<LabeledTree>& trees, unsigned batch) {
  TreeAccuracy acc;
  predict_in_batches(
      trees, batch, [&](ComputationGraph& cg) { new_graph(cg, false); },
      [&](ComputationGraph& cg, const LabeledTree& t) { return node_scores(cg, t); },
      [&](const LabeledTree& t, const std::vector<unsigned>& predicted) {
        for (std::size_t k = 0; k < t.size(); ++k) {
          const int label = t.nodes[k].label;
          if (label < 0) continue;
          const bool correct = predicted[k] == static_cast<unsigned>(label);
          acc.nodes += 1;
          acc.node_correct += correct;
          if (k + 1 == t.size()) {
            acc.roots += 1;
            acc.root_correct += correct;
          }
        }
      });
  return acc;
}

}  // namespace examples
