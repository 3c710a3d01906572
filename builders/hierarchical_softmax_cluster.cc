#include "builders/hierarchical_softmax_cluster.h"

#include <sstream>
#include <stdexcept>

#include "builders/softmax_builder.h"
#include "dynet_core/graph.h"
#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/leaves.h"
#include "dynet_core/ops/linalg.h"
#include "dynet_core/ops/shape.h"
#include "dynet_core/ops/softmax.h"

namespace dynet {

Cluster::Cluster(const Cluster& other)
    : path_(other.path_),
      words_(other.words_),
      index_(other.index_),
      weights_(other.weights_),
      bias_(other.bias_),
      weights_expr_(other.weights_expr_),
      bias_expr_(other.bias_expr_),
      rep_dim_(other.rep_dim_),
      initialized_branches_(other.initialized_branches_),
      update_(other.update_) {
  for (const auto& c : other.children_) children_.push_back(std::make_unique<Cluster>(*c));
}

Cluster& Cluster::operator=(const Cluster& other) {
  if (this != &other) *this = Cluster(other);
  return *this;
}

Cluster* Cluster::add_child(unsigned sym) {
  if (!words_.empty())
    throw std::invalid_argument("Cluster::add_child: the cluster '" + toString() +
                                "' holds words; it cannot have children");
  const auto found = index_.find(sym);
  if (found != index_.end()) return children_[found->second].get();
  auto child = std::make_unique<Cluster>();
  child->rep_dim_ = rep_dim_;
  child->path_ = path_;
  child->path_.push_back(sym);
  index_.emplace(sym, num_children());
  children_.push_back(std::move(child));
  return children_.back().get();
}

void Cluster::add_word(unsigned word) {
  if (!children_.empty())
    throw std::invalid_argument("Cluster::add_word: the cluster '" + toString() +
                                "' has children; it cannot hold words");
  index_[word] = static_cast<unsigned>(words_.size());
  words_.push_back(word);
}

void Cluster::initialize(unsigned rep_dim, ParameterCollection& model) {
  rep_dim_ = rep_dim;
  initialize(model);
}

void Cluster::initialize(ParameterCollection& model) {
  const unsigned k = branches();
  if (k == 0)
    throw std::invalid_argument("Cluster::initialize: the cluster '" + toString() + "' has neither children nor words");
  if (k > 1) {
    if (rep_dim_ == 0)
      throw std::invalid_argument("Cluster::initialize: rep_dim is 0; give it to initialize(rep_dim, model)");
    const unsigned rows = k == 2 ? 1 : k;
    weights_ = model.add_parameters({rows, rep_dim_});
    bias_ = model.add_parameters({rows}, ParameterInitConst(0.f));
  }
  initialized_branches_ = k;
  for (auto& c : children_) {
    c->rep_dim_ = rep_dim_;
    c->initialize(model);
  }
}

void Cluster::new_graph(ComputationGraph& cg, bool update) {
  update_ = update;
  for (auto& c : children_) c->new_graph(cg, update);
  weights_expr_ = Expression();
  bias_expr_ = Expression();
}

void Cluster::require_initialized(const char* who) const {
  if (initialized_branches_ != branches() || branches() == 0)
    throw std::invalid_argument(std::string("Cluster::") + who + ": the cluster '" + toString() + "' has " +
                                std::to_string(branches()) + " branches and " +
                                (initialized_branches_ ? "was initialized with " + std::to_string(initialized_branches_)
                                                       : std::string("no parameters yet")) +
                                "; call initialize(model) after adding children or words");
}

Expression Cluster::node_of(const Parameter& p, Expression& cached, ComputationGraph& cg, const char* who) const {
  require_initialized(who);
  if (branches() == 1)
    throw std::invalid_argument(std::string("Cluster::") + who + ": the cluster '" + toString() +
                                "' has one branch and no parameters");
  if (cached.pg != &cg) cached = update_ ? parameter(cg, p) : const_parameter(cg, p);
  return cached;
}

Expression Cluster::get_weights(ComputationGraph& cg) const {
  return node_of(weights_, weights_expr_, cg, "get_weights");
}
Expression Cluster::get_bias(ComputationGraph& cg) const { return node_of(bias_, bias_expr_, cg, "get_bias"); }

Expression Cluster::predict(const Expression& h, ComputationGraph& cg) const {
  if (branches() == 1) return input(cg, 1.f);
  return affine_transform({get_bias(cg), get_weights(cg), h});
}

Expression Cluster::neg_log_softmax(Expression h, unsigned r, ComputationGraph& cg) const {
  require_initialized("neg_log_softmax");
  const unsigned k = branches();
  if (r >= k)
    throw std::invalid_argument("Cluster::neg_log_softmax: branch " + std::to_string(r) +
                                " is out of range for the cluster '" + toString() + "' of " + std::to_string(k) +
                                " branches");
  if (k == 1) return input(cg, 0.f);
  if (k > 2) return pickneglogsoftmax(predict(h, cg), r);
  const Expression p0 = logistic(predict(h, cg));
  return -log(r == 0 ? p0 : 1.f - p0);
}

Expression Cluster::log_probs(const Expression& h, ComputationGraph& cg) const {
  const unsigned k = branches();
  if (k == 1) return Expression();
  if (k > 2) return log_softmax(predict(h, cg));
  const Expression p0 = logistic(predict(h, cg));
  return log(concatenate({p0, 1.f - p0}));
}

unsigned Cluster::sample(Expression h, ComputationGraph& cg) const {
  require_initialized("sample");
  const unsigned k = branches();
  if (k == 1) return 0;
  if (k == 2) {
    const float p0 = as_scalar(cg.incremental_forward(logistic(predict(h, cg))));
    return SoftmaxBuilder::sample_index({p0, 1.f - p0});
  }
  return SoftmaxBuilder::sample_index(as_vector(cg.incremental_forward(softmax(predict(h, cg)))));
}

unsigned Cluster::get_index(unsigned word) const {
  const auto found = index_.find(word);
  if (found == index_.end())
    throw std::invalid_argument("Cluster::get_index: " + std::to_string(word) +
                                " is neither a child symbol nor a word of the cluster '" + toString() + "'");
  return found->second;
}

unsigned Cluster::get_word(unsigned index) const {
  if (index >= words_.size())
    throw std::invalid_argument("Cluster::get_word: index " + std::to_string(index) +
                                " is out of range for the cluster '" + toString() + "' of " +
                                std::to_string(words_.size()) + " words");
  return words_[index];
}

const Cluster* Cluster::get_child(unsigned i) const {
  if (i >= children_.size())
    throw std::invalid_argument("Cluster::get_child: index " + std::to_string(i) +
                                " is out of range for the cluster '" + toString() + "' of " +
                                std::to_string(children_.size()) + " children");
  return children_[i].get();
}

std::string Cluster::toString() const {
  std::ostringstream s;
  for (std::size_t i = 0; i < path_.size(); ++i) s << (i ? " " : "") << path_[i];
  return s.str();
}

}  // namespace dynet
