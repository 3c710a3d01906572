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
// Each cluster of the tree is a Cluster (builders/hierarchical_softmax_cluster.h), which scores
// its branches as DyNet does. Parameters are created root first, each cluster before its children.

#include <string>
#include <vector>

#include "builders/hierarchical_softmax_cluster.h"
#include "builders/softmax_builder.h"
#include "dynet_core/io/dict.h"

namespace dynet {

class HierarchicalSoftmaxBuilder : public SoftmaxBuilder {
 public:
  /// Throws std::runtime_error, naming the file and line, when the file cannot be read, a line has
  /// no tab-separated word, a word is listed twice, or a cluster would hold both words and
  /// subclusters; neither the dictionary nor the model is changed then.
  HierarchicalSoftmaxBuilder(unsigned rep_dim, const std::string& cluster_file, Dict& word_dict,
                             ParameterCollection& model);

  /// DyNet's: gives every cluster new parameters in `model`, which the builder uses from then on.
  void initialize(ParameterCollection& model);

  void new_graph(ComputationGraph& cg, bool update = true) override;
  /// -log p(word | rep), the sum of -log p(branch) along the word's path. Throws
  /// std::invalid_argument for a word that is not in the tree.
  Expression neg_log_softmax(const Expression& rep, unsigned word) override;
  /// One word per batch element of rep.
  Expression neg_log_softmax(const Expression& rep, const std::vector<unsigned>& words) override;
  /// Walks down from the root drawing a branch at each cluster.
  unsigned sample(const Expression& rep) override;
  /// log p(w | rep) for every word id up to the largest one in the tree (each must be in it).
  Expression full_log_distribution(const Expression& rep) override;
  std::unique_ptr<SoftmaxBuilder> clone() const override { return std::make_unique<HierarchicalSoftmaxBuilder>(*this); }

  /// The number of clusters in the tree, the root included.
  unsigned num_clusters() const;

 private:
  /// The branches taken from the root to `word`, the last one within its cluster.
  const std::vector<unsigned>& path_of(unsigned word, const char* who) const;
  /// Appends log p(w | rep) for the words under `c` to `pieces` (and their rows to `row`);
  /// `log_p` is the log-probability of reaching it (empty: 0).
  void collect_log_probs(const Cluster& c, const Expression& rep, const Expression& log_p,
                         std::vector<Expression>& pieces, std::vector<unsigned>& row, unsigned& next);

  const Dict* word_dict_;
  Cluster root_;
  std::vector<std::vector<unsigned>> word_path_;  ///< per word id; empty for a word not in the tree
};

}  // namespace dynet
