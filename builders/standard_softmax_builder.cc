#include "builders/standard_softmax_builder.h"

#include <stdexcept>

#include "dynet_core/graph.h"
#include "dynet_core/ops/leaves.h"
#include "dynet_core/ops/linalg.h"
#include "dynet_core/ops/softmax.h"

namespace dynet {

StandardSoftmaxBuilder::StandardSoftmaxBuilder(unsigned rep_dim, unsigned num_classes, ParameterCollection& model,
                                               bool bias)
    : SoftmaxBuilder(model, "StandardSoftmaxBuilder", "standard-softmax-builder", rep_dim), num_classes_(num_classes) {
  if (num_classes == 0) throw std::invalid_argument(name_ + ": num_classes must be positive");
  p_w_ = local_model_.add_parameters({num_classes, rep_dim});
  if (bias) p_b_ = local_model_.add_parameters({num_classes}, ParameterInitConst(0.f));
}

namespace {

unsigned checked_rows(const Parameter& p_w) {
  if (!p_w) throw std::invalid_argument("StandardSoftmaxBuilder: p_w is an empty Parameter");
  const Dim d = p_w.dim();
  if (d.ndims() != 2)
    throw std::invalid_argument("StandardSoftmaxBuilder: p_w has dim " + to_string(d) +
                                ", expected {classes, rep_dim}");
  return d[1];
}

}  // namespace

StandardSoftmaxBuilder::StandardSoftmaxBuilder(Parameter& p_w)
    : SoftmaxBuilder("StandardSoftmaxBuilder", checked_rows(p_w)), num_classes_(p_w.dim()[0]), p_w_(p_w) {}

StandardSoftmaxBuilder::StandardSoftmaxBuilder(Parameter& p_w, Parameter& p_b) : StandardSoftmaxBuilder(p_w) {
  if (!p_b || p_b.dim() != Dim({num_classes_}))
    throw std::invalid_argument("StandardSoftmaxBuilder: p_b has dim " +
                                (p_b ? to_string(p_b.dim()) : std::string("(empty)")) + ", expected {" +
                                std::to_string(num_classes_) + "}");
  p_b_ = p_b;
}

void StandardSoftmaxBuilder::new_graph(ComputationGraph& cg, bool update) {
  w_ = update ? parameter(cg, p_w_) : const_parameter(cg, p_w_);
  b_ = !p_b_ ? Expression() : update ? parameter(cg, p_b_) : const_parameter(cg, p_b_);
  bind_graph(cg);
}

Expression StandardSoftmaxBuilder::logits(const Expression& rep, const char* who) {
  check_rep(rep, who);
  return b_.pg ? affine_transform({b_, w_, rep}) : w_ * rep;
}

Expression StandardSoftmaxBuilder::neg_log_softmax(const Expression& rep, unsigned class_index) {
  check_class(class_index, num_classes_, "neg_log_softmax");
  return pickneglogsoftmax(logits(rep, "neg_log_softmax"), class_index);
}

Expression StandardSoftmaxBuilder::neg_log_softmax(const Expression& rep, const std::vector<unsigned>& class_indices) {
  check_rep(rep, "neg_log_softmax", static_cast<unsigned>(class_indices.size()));
  for (unsigned c : class_indices) check_class(c, num_classes_, "neg_log_softmax");
  return pickneglogsoftmax(logits(rep, "neg_log_softmax"), class_indices);
}

unsigned StandardSoftmaxBuilder::sample(const Expression& rep) {
  check_rep(rep, "sample", 1);
  return sample_index(as_vector(graph("sample").incremental_forward(softmax(logits(rep, "sample")))));
}

Expression StandardSoftmaxBuilder::full_log_distribution(const Expression& rep) {
  return log_softmax(logits(rep, "full_log_distribution"));
}

}  // namespace dynet
