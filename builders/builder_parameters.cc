#include "builders/builder_parameters.h"

#include <stdexcept>

#include "dynet_core/graph.h"
#include "dynet_core/ops/leaves.h"

namespace dynet {

BuilderParameters::BuilderParameters(ParameterCollection& model, const std::string& name, const std::string& collection,
                                     unsigned layers, unsigned input_dim, unsigned hidden_dim, UpperLayerInput upper)
    : name_(name), layers_(layers), input_dim_(input_dim), hidden_dim_(hidden_dim), upper_(upper) {
  if (layers == 0 || input_dim == 0 || hidden_dim == 0)
    throw std::invalid_argument(name + ": layers, input_dim and hidden_dim must be positive, got " +
                                std::to_string(layers) + ", " + std::to_string(input_dim) + ", " +
                                std::to_string(hidden_dim));
  local_model_ = model.add_subcollection(collection);
  params_.resize(layers);
  params.resize(layers);
}

Parameter BuilderParameters::add_layer_parameter(unsigned layer, const Dim& d, float init_constant) {
  return add_layer_parameter(layer, d, init_constant, local_model_);
}

Parameter BuilderParameters::add_layer_parameter(unsigned layer, const Dim& d, float init_constant,
                                                 ParameterCollection& collection) {
  params_.at(layer).push_back(collection.add_parameters(d, ParameterInitConst(init_constant)));
  params[layer].push_back(params_[layer].back());
  return params_[layer].back();
}

Parameter BuilderParameters::add_layer_parameter(unsigned layer, const Dim& d) {
  params_.at(layer).push_back(local_model_.add_parameters(d));
  params[layer].push_back(params_[layer].back());
  return params_[layer].back();
}

void BuilderParameters::bind_graph(ComputationGraph& cg, bool update) {
  if (layers_ == 0)
    throw std::invalid_argument(name_ + "::new_graph: this builder was default-constructed and has no parameters; "
                                        "assign it a builder made with a ParameterCollection first");
  vars_.assign(params_.size(), {});
  for (std::size_t l = 0; l < params_.size(); ++l)
    for (const Parameter& p : params_[l]) vars_[l].push_back(update ? parameter(cg, p) : const_parameter(cg, p));
  cg_ = &cg;
  graph_id_ = cg.id();
  derive_graph_expressions(cg, update);
}

std::vector<std::vector<Expression>> BuilderParameters::parameter_expressions() const {
  std::vector<std::vector<Expression>> out(vars_.size());
  for (std::size_t l = 0; l < vars_.size(); ++l)
    for (const Parameter& p : params[l])
      for (std::size_t k = 0; k < params_[l].size(); ++k)
        if (&params_[l][k].get_storage() == &p.get_storage()) out[l].push_back(vars_[l][k]);
  return out;
}

ComputationGraph& BuilderParameters::graph(const char* who) const {
  if (!cg_) throw std::invalid_argument(name_ + "::" + who + ": call new_graph(cg) first");
  return *cg_;
}

void BuilderParameters::check_vector(const Expression& x, unsigned rows, const char* who, const char* what) const {
  graph(who);
  if (!x.pg) throw std::invalid_argument(name_ + "::" + who + ": " + what + " is an empty Expression");
  if (x.pg != cg_ || x.graph_id != graph_id_)
    throw std::invalid_argument(name_ + "::" + who + ": " + what +
                                " belongs to another graph than the one given to new_graph(cg)");
  const Dim d = x.dim();
  if (d.rows() != rows || d.batch_size() != rows)
    throw std::invalid_argument(name_ + "::" + who + ": " + what + " has dim " + to_string(d) + ", expected {" +
                                std::to_string(rows) + "} (any batch size)");
}

}  // namespace dynet
