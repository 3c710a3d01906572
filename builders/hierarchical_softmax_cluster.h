#pragma once
// DyNet's Cluster: one node of a hierarchical softmax's tree. A cluster has either children
// (reached by path symbols) or words; it scores its k branches as DyNet does:
//   k = 1: no parameters, p = 1;
//   k = 2: W {1, rep_dim}, b {1}; p(branch 0) = logistic(b + W h), p(branch 1) = 1 - that;
//   k > 2: W {k, rep_dim}, b {k}; p = softmax(b + W h).
// HierarchicalSoftmaxBuilder builds its tree of these from a cluster file; a program can also
// build one by hand (add_child, add_word, initialize). Copies are deep (each with its own graph
// state) and share the parameters.

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "dynet_core/expression.h"
#include "dynet_core/param_collection.h"

namespace dynet {

class ComputationGraph;

class Cluster {
 public:
  Cluster() = default;
  Cluster(const Cluster& other);
  Cluster& operator=(const Cluster& other);
  Cluster(Cluster&&) = default;
  Cluster& operator=(Cluster&&) = default;

  /// The child reached by path symbol `sym`, made on first use (its path is this one's plus sym).
  Cluster* add_child(unsigned sym);
  /// Appends word id `word` to the cluster's words; get_index(word) is then its branch.
  void add_word(unsigned word);
  /// Creates the parameters of this cluster, then of its children, in `model` (biases 0); called
  /// again, it makes new ones. Throws std::invalid_argument for rep_dim 0 or a cluster with
  /// neither children nor words.
  void initialize(ParameterCollection& model);
  void initialize(unsigned rep_dim, ParameterCollection& model);

  /// Forgets the expressions of the previous graph, here and below; parameters enter the next
  /// graph as constants when !update.
  void new_graph(ComputationGraph& cg, bool update = true);
  /// A branch drawn from p(. | h) (computes h's value, so h must have batch size 1).
  unsigned sample(Expression h, ComputationGraph& cg) const;
  /// -log p(branch r | h); a constant 0 for a cluster of one branch.
  Expression neg_log_softmax(Expression h, unsigned r, ComputationGraph& cg) const;

  /// The branch of child symbol or word `word`; throws std::invalid_argument when it has none.
  unsigned get_index(unsigned word) const;
  /// The word of branch `index` of a cluster of words.
  unsigned get_word(unsigned index) const;
  unsigned num_children() const { return static_cast<unsigned>(children_.size()); }
  const Cluster* get_child(unsigned i) const;
  /// The path symbols from the root to this cluster.
  const std::vector<unsigned>& get_path() const { return path_; }
  /// W and b as expressions of `cg` (made once per graph); throws for a cluster of one branch.
  Expression get_weights(ComputationGraph& cg) const;
  Expression get_bias(ComputationGraph& cg) const;
  /// The path symbols, separated by spaces.
  std::string toString() const;

 private:
  friend class HierarchicalSoftmaxBuilder;

  /// Children, or else words.
  unsigned branches() const { return static_cast<unsigned>(children_.empty() ? words_.size() : children_.size()); }
  /// b + W h, or a constant 1 for one branch.
  Expression predict(const Expression& h, ComputationGraph& cg) const;
  /// log p(. | h) over the branches; an empty Expression for one branch.
  Expression log_probs(const Expression& h, ComputationGraph& cg) const;
  void require_initialized(const char* who) const;
  Expression node_of(const Parameter& p, Expression& cached, ComputationGraph& cg, const char* who) const;

  std::vector<std::unique_ptr<Cluster>> children_;
  std::vector<unsigned> path_;
  std::vector<unsigned> words_;
  std::unordered_map<unsigned, unsigned> index_;  ///< child symbol or word -> branch
  Parameter weights_, bias_;
  mutable Expression weights_expr_, bias_expr_;
  unsigned rep_dim_ = 0;
  unsigned initialized_branches_ = 0;  ///< branches() when initialize() ran; 0 before
  bool update_ = true;
};

}  // namespace dynet
