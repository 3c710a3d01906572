#pragma once
// The interface of the output layers that turn a representation into a distribution over a
// vocabulary, as DyNet's SoftmaxBuilder.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dynet_core/expression.h"
#include "dynet_core/param_collection.h"

namespace dynet {

class ComputationGraph;

class SoftmaxBuilder {
 public:
  virtual ~SoftmaxBuilder() = default;

  /// Binds the builder to `cg` (parameter expressions, once per graph; constants when !update).
  virtual void new_graph(ComputationGraph& cg, bool update = true) = 0;
  /// -log p(class | rep): rep a column vector {rep_dim}; a batch of them gives one loss each.
  virtual Expression neg_log_softmax(const Expression& rep, unsigned class_index) = 0;
  /// One class per batch element of rep.
  virtual Expression neg_log_softmax(const Expression& rep, const std::vector<unsigned>& class_indices) = 0;
  /// A class drawn from p(. | rep) with the random engine (--dynet-seed). Computes rep's value,
  /// so rep must have batch size 1.
  virtual unsigned sample(const Expression& rep) = 0;
  /// log p(c | rep) for every class c, as a {classes} vector (per batch element of rep).
  virtual Expression full_log_distribution(const Expression& rep) = 0;
  /// Scores whose softmax is p(. | rep): b + W rep for a flat softmax; by default (factored
  /// softmaxes, which have no single score vector) the log-probabilities.
  virtual Expression full_logits(const Expression& rep) { return full_log_distribution(rep); }
  /// A builder of the same kind over the same parameters, with graph state of its own: one per
  /// thread for graphs built at the same time (DataParallel).
  virtual std::unique_ptr<SoftmaxBuilder> clone() const = 0;

  ParameterCollection& get_parameter_collection() { return local_model_; }
  unsigned rep_dim() const { return rep_dim_; }

  /// An index drawn from the distribution `p` (which sums to about 1) with the random engine.
  static unsigned sample_index(const std::vector<float>& p);

 protected:
  /// `name` is the builder's class, as messages name it; `collection` DyNet's name for its parameters.
  SoftmaxBuilder(ParameterCollection& model, const std::string& name, const std::string& collection, unsigned rep_dim);
  /// A builder over parameters made elsewhere: its own collection stays empty.
  SoftmaxBuilder(const std::string& name, unsigned rep_dim);

  /// Remembers `cg` as the graph expressions are made in.
  void bind_graph(ComputationGraph& cg);
  /// The bound graph; throws std::invalid_argument naming `who` when new_graph was not called.
  ComputationGraph& graph(const char* who) const;
  /// Throws std::invalid_argument unless rep is a {rep_dim} vector (any batch size) of the bound
  /// graph and, when `batch` is not 0, has that batch size.
  void check_rep(const Expression& rep, const char* who, unsigned batch = 0) const;
  /// Throws std::invalid_argument unless index < classes.
  void check_class(unsigned index, unsigned classes, const char* who) const;

  std::string name_;
  ParameterCollection local_model_;

 private:
  unsigned rep_dim_;
  ComputationGraph* cg_ = nullptr;
  std::uint64_t graph_id_ = 0;
};

}  // namespace dynet
