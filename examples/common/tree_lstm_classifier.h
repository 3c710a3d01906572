#pragma once
// A TreeLSTM that labels the nodes of a tree: each node's token is embedded, the tree is read
// bottom-up by an N-ary (binary) or child-sum TreeLSTM, and every node's state is scored by an
// affine layer over the classes (Tai et al., 2015). Used by treelstm-sentiment and arith-trees.

#include <memory>
#include <string>
#include <vector>

#include "builders/tree_lstm_builder.h"
#include "dynet_core/expression.h"
#include "dynet_core/param_collection.h"
#include "examples/common/labeled_tree.h"
#include "trainers/sharded_training.h"
#include "trainers/trainer.h"

namespace examples {

enum class TreeCell { Binary, ChildSum };
/// "binary" or "child-sum"; throws UsageError otherwise.
TreeCell parse_tree_cell(const std::string& name);

struct TreeClassifierShape {
  unsigned vocabulary = 0;  ///< token ids are below it
  unsigned classes = 0;
  unsigned embedding = 128;
  unsigned hidden = 128;
  TreeCell cell = TreeCell::Binary;
  float dropout = 0.f;  ///< on the token embeddings, while training
};

/// Correct predictions at the roots and at every labeled node.
struct TreeAccuracy {
  std::size_t root_correct = 0, roots = 0, node_correct = 0, nodes = 0;
  double root() const { return roots ? double(root_correct) / roots : 0.0; }
  double all_nodes() const { return nodes ? double(node_correct) / nodes : 0.0; }
};

class TreeLSTMClassifier {
 public:
  TreeLSTMClassifier(dynet::ParameterCollection& model, const TreeClassifierShape& shape);
  /// A classifier over the same parameters with graph state of its own.
  TreeLSTMClassifier(const TreeLSTMClassifier& other);
  TreeLSTMClassifier& operator=(const TreeLSTMClassifier&) = delete;

  /// One update on the summed loss of the trees, built in one graph — or, with N > 1 training
  /// threads, in N graphs of a share of the trees each, run at once (DataParallel); returns that
  /// loss. With every_node, every labeled node counts, else the roots only.
  double train(const std::vector<const LabeledTree*>& trees, dynet::Trainer& trainer, bool every_node);
  /// Classifies every node of the trees, `batch` trees per graph (one forward each).
  TreeAccuracy evaluate(const std::vector<LabeledTree>& trees, unsigned batch);

  /// Binds the model to cg; call before building the trees of a graph.
  void new_graph(dynet::ComputationGraph& cg, bool training);
  /// The class scores of every node of `tree`, in node order, built in the bound graph.
  std::vector<dynet::Expression> node_scores(dynet::ComputationGraph& cg, const LabeledTree& tree);
  /// The summed negative log-likelihood of the labels (every labeled node, or the root).
  dynet::Expression loss(dynet::ComputationGraph& cg, const LabeledTree& tree, bool every_node);

  const TreeClassifierShape& shape() const { return shape_; }
  /// Graphs built at once per update (default: --dynet-threads).
  void set_training_threads(unsigned n) { sharded_.set_threads(n); }
  /// Shares each update's trees with the other ranks of an MPI job (null: trains alone).
  void set_reducer(dynet::DistributedReducer* reducer) { sharded_.set_reducer(reducer); }

 private:
  TreeClassifierShape shape_;
  dynet::LookupParameter embeddings_;
  std::unique_ptr<dynet::TreeLSTMBuilder> tree_;
  dynet::Parameter p_out_w_, p_out_b_;
  dynet::Expression out_w_, out_b_;
  bool training_ = false;
  dynet::ShardedTraining<TreeLSTMClassifier> sharded_;
};

}  // namespace examples
