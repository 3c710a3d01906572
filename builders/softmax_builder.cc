#include "builders/softmax_builder.h"

#include <random>
#include <stdexcept>

#include "dynet_core/graph.h"
#include "dynet_core/random_engine.h"

namespace dynet {

SoftmaxBuilder::SoftmaxBuilder(ParameterCollection& model, const std::string& name, const std::string& collection,
                               unsigned rep_dim)
    : name_(name), rep_dim_(rep_dim) {
  if (rep_dim == 0) throw std::invalid_argument(name + ": rep_dim must be positive");
  local_model_ = model.add_subcollection(collection);
}

SoftmaxBuilder::SoftmaxBuilder(const std::string& name, unsigned rep_dim) : name_(name), rep_dim_(rep_dim) {
  if (rep_dim == 0) throw std::invalid_argument(name + ": rep_dim must be positive");
}

void SoftmaxBuilder::bind_graph(ComputationGraph& cg) {
  cg_ = &cg;
  graph_id_ = cg.id();
}

ComputationGraph& SoftmaxBuilder::graph(const char* who) const {
  if (!cg_) throw std::invalid_argument(name_ + "::" + who + ": call new_graph(cg) first");
  return *cg_;
}

void SoftmaxBuilder::check_rep(const Expression& rep, const char* who, unsigned batch) const {
  graph(who);
  const std::string where = name_ + "::" + who + ": ";
  if (!rep.pg) throw std::invalid_argument(where + "the representation is an empty Expression");
  if (rep.pg != cg_ || rep.graph_id != graph_id_)
    throw std::invalid_argument(where +
                                "the representation belongs to another graph than the one given to new_graph(cg)");
  const Dim d = rep.dim();
  if (d.rows() != rep_dim_ || d.batch_size() != rep_dim_)
    throw std::invalid_argument(where + "the representation has dim " + to_string(d) + ", expected {" +
                                std::to_string(rep_dim_) + "}");
  if (batch != 0 && d.bd != batch)
    throw std::invalid_argument(where + "the representation has batch size " + std::to_string(d.bd) + ", expected " +
                                std::to_string(batch));
}

void SoftmaxBuilder::check_class(unsigned index, unsigned classes, const char* who) const {
  if (index >= classes)
    throw std::invalid_argument(name_ + "::" + who + ": class " + std::to_string(index) + " is out of range for " +
                                std::to_string(classes) + " classes");
}

unsigned SoftmaxBuilder::sample_index(const std::vector<float>& p) {
  double u = 0;
  random_engine().with([&](std::mt19937_64& engine) { u = std::uniform_real_distribution<double>(0., 1.)(engine); });
  for (unsigned k = 0; k < p.size(); ++k) {
    u -= p[k];
    if (u < 0) return k;
  }
  // Rounding left a sliver of mass past the end: it belongs to the last class.
  return p.empty() ? 0 : static_cast<unsigned>(p.size()) - 1;
}

}  // namespace dynet
