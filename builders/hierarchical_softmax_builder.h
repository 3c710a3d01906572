#pragma once
// A hierarchical softmax over a tree of word clusters (Morin and Bengio, 2005; as DyNet's
// HierarchicalSoftmaxBuilder): p(w | rep) is the product, along the path from the root to w's
// cluster, of the probability of each branch taken, then of w within its cluster. A step costs
// O(depth x branching) instead of O(vocabulary).
//
// The tree is read from a text file with one word a line, in DyNet's format: the path (cluster
// symbols separated by spaces), a tab, the word, then anything (a count) that is ignored:
//   0 1 1<TAB>the<TAB>1024
// Children and words keep the order in which the file first names them. Every word is added to
// the word dictionary (a frozen dictionary must already hold it, or map it to its unknown word).
//
// A node of k branches (children, or words in a leaf cluster) scores them as DyNet does:
//   k = 1: no parameters, p = 1;
//   k = 2: W {1, rep_dim}, b {1}; p(branch 0) = logistic(b + W rep), p(branch 1) = 1 - that;
//   k > 2: W {k, rep_dim}, b {k}; p = softmax(b + W rep).
// Parameters are created root first, each node before its children (biases zero).

#include <string>
#include <vector>

#include "builders/softmax_builder.h"
#include "dynet_core/dict.h"

namespace dynet {

class HierarchicalSoftmaxBuilder : public SoftmaxBuilder {
 public:
  /// Throws std::runtime_error, naming the file and line, when the file cannot be read, a line has
  /// no tab-separated word, a word is listed twice, or a cluster would hold both words and
  /// subclusters; neither the dictionary nor the model is changed then.
  HierarchicalSoftmaxBuilder(unsigned rep_dim, const std::string& cluster_file, Dict& word_dict,
                             ParameterCollection& model);

  void new_graph(ComputationGraph& cg, bool update = true) override;
  /// -log p(word | rep), the sum of -log p(branch) along the word's path. Throws
  /// std::invalid_argument for a word that is not in the tree.
  Expression neg_log_softmax(const Expression& rep, unsigned word) override;
  /// One word per batch element of rep.
  Expression neg_log_softmax(const Expression& rep, const std::vector<unsigned>& words) override;
  /// Walks down from the root drawing a branch at each node.
  unsigned sample(const Expression& rep) override;
  /// log p(w | rep) for every word id up to the largest one in the tree (each must be in it).
  Expression full_log_distribution(const Expression& rep) override;
  std::unique_ptr<SoftmaxBuilder> clone() const override { return std::make_unique<HierarchicalSoftmaxBuilder>(*this); }

  /// The number of clusters in the tree, the root included.
  unsigned num_clusters() const { return static_cast<unsigned>(nodes_.size()); }

 private:
  struct Node {
    std::vector<unsigned> children;  ///< node indices
    std::vector<unsigned> words;     ///< word ids, for a leaf cluster
    Parameter w, b;                  ///< unset for a node of one branch
    unsigned branches() const { return static_cast<unsigned>(children.empty() ? words.size() : children.size()); }
  };
  /// One choice on a word's path: at node `node`, branch `branch`.
  struct Step {
    unsigned node, branch;
  };

  void add_node_parameters(unsigned node);
  const std::vector<Step>& path_of(unsigned word, const char* who) const;
  /// b + W rep of a node of two or more branches; its parameters enter the graph on first use.
  Expression scores(unsigned node, const Expression& rep);
  /// -log p(branch | node, rep); an empty Expression for a node of one branch.
  Expression branch_loss(unsigned node, unsigned branch, const Expression& rep);
  /// log p(. | node, rep) over the node's branches; an empty Expression for a node of one branch.
  Expression branch_log_probs(unsigned node, const Expression& rep);
  /// Appends log p(w | rep) for the words under `node` to `pieces` (and their rows to `row`);
  /// `log_p` is the log-probability of reaching the node (empty: 0).
  void collect_log_probs(unsigned node, const Expression& rep, const Expression& log_p,
                         std::vector<Expression>& pieces, std::vector<unsigned>& row, unsigned& next);

  const Dict* word_dict_;
  std::vector<Node> nodes_;                   ///< nodes_[0] is the root
  std::vector<std::vector<Step>> word_path_;  ///< per word id: from the root; empty for a word not in the tree

  bool update_ = true;
  std::vector<Expression> w_, b_;  ///< per node, made on first use in a graph
};

}  // namespace dynet
