#pragma once
// A full softmax over the classes: p(. | rep) = softmax(b + W rep).
// Parameters: W {classes, rep_dim}, b {classes} (zeros; none when bias is false).

#include "builders/softmax_builder.h"

namespace dynet {

class StandardSoftmaxBuilder : public SoftmaxBuilder {
 public:
  StandardSoftmaxBuilder(unsigned rep_dim, unsigned num_classes, ParameterCollection& model, bool bias = true);
  /// Over existing parameters W {classes, rep_dim} and b {classes} (DyNet's); get_parameter_collection()
  /// is then empty. Throws std::invalid_argument when the shapes do not fit.
  StandardSoftmaxBuilder(Parameter& p_w, Parameter& p_b);
  /// The same without a bias.
  explicit StandardSoftmaxBuilder(Parameter& p_w);

  void new_graph(ComputationGraph& cg, bool update = true) override;
  Expression neg_log_softmax(const Expression& rep, unsigned class_index) override;
  Expression neg_log_softmax(const Expression& rep, const std::vector<unsigned>& class_indices) override;
  unsigned sample(const Expression& rep) override;
  Expression full_log_distribution(const Expression& rep) override;
  std::unique_ptr<SoftmaxBuilder> clone() const override { return std::make_unique<StandardSoftmaxBuilder>(*this); }
  /// The unnormalized scores b + W rep.
  Expression full_logits(const Expression& rep) override { return logits(rep, "full_logits"); }

  unsigned num_classes() const { return num_classes_; }

 private:
  /// full_logits for the method `who` the user called, as messages name it.
  Expression logits(const Expression& rep, const char* who);

  unsigned num_classes_;
  Parameter p_w_, p_b_;
  Expression w_, b_;
};

}  // namespace dynet
