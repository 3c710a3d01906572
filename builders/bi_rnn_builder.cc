#include "builders/bi_rnn_builder.h"

#include <stdexcept>
#include <string>

#include "dynet_core/ops/called_as.h"
#include "dynet_core/ops/shape.h"

namespace dynet {

BiRNNBuilder::BiRNNBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim, ParameterCollection& model,
                           const RNNBuilderFactory& factory, const std::string& name)
    : input_dim_(input_dim), hidden_dim_(hidden_dim) {
  if (layers == 0 || input_dim == 0 || hidden_dim == 0 || hidden_dim % 2 != 0)
    throw std::invalid_argument("BiRNNBuilder: layers and input_dim must be positive and hidden_dim positive and even "
                                "(each direction gets half), got " +
                                std::to_string(layers) + ", " + std::to_string(input_dim) + ", " +
                                std::to_string(hidden_dim));
  if (!factory) throw std::invalid_argument("BiRNNBuilder: the builder factory is empty");
  local_model_ = model.add_subcollection(name);
  for (unsigned l = 0; l < layers; ++l) {
    const unsigned in = l == 0 ? input_dim : hidden_dim;
    forward_.push_back(factory(in, hidden_dim / 2, local_model_));
    backward_.push_back(factory(in, hidden_dim / 2, local_model_));
  }
}

BiRNNBuilder::BiRNNBuilder(const BiRNNBuilder& other)
    : input_dim_(other.input_dim_), hidden_dim_(other.hidden_dim_), local_model_(other.local_model_) {
  for (unsigned l = 0; l < other.layers(); ++l) {
    forward_.push_back(other.forward_[l]->clone());
    backward_.push_back(other.backward_[l]->clone());
  }
}

void BiRNNBuilder::new_graph(ComputationGraph& cg, bool update) {
  for (unsigned l = 0; l < layers(); ++l) {
    forward_[l]->new_graph(cg, update);
    backward_[l]->new_graph(cg, update);
  }
}

std::vector<std::pair<Expression, Expression>> BiRNNBuilder::add_inputs(const std::vector<Expression>& xs) {
  return called_as("BiRNNBuilder::add_inputs", [&] { return run_layers(xs); });
}

std::vector<std::pair<Expression, Expression>> BiRNNBuilder::run_layers(const std::vector<Expression>& xs) {
  const std::size_t n = xs.size();
  std::vector<std::pair<Expression, Expression>> out(n);
  std::vector<Expression> in = xs;
  for (unsigned l = 0; l < layers(); ++l) {
    forward_[l]->start_new_sequence();
    backward_[l]->start_new_sequence();
    for (std::size_t t = 0; t < n; ++t) out[t].first = forward_[l]->add_input(in[t]);
    for (std::size_t t = n; t-- > 0;) out[t].second = backward_[l]->add_input(in[t]);
    if (l + 1 < layers())
      for (std::size_t t = 0; t < n; ++t) in[t] = concatenate({out[t].first, out[t].second});
  }
  return out;
}

std::vector<Expression> BiRNNBuilder::transduce(const std::vector<Expression>& xs) {
  return called_as("BiRNNBuilder::transduce", [&] {
    std::vector<Expression> hs;
    for (const auto& fb : run_layers(xs)) hs.push_back(concatenate({fb.first, fb.second}));
    return hs;
  });
}

void BiRNNBuilder::set_dropout(float d, float d_h) {
  called_as("BiRNNBuilder::set_dropout", [&] {
    for (unsigned l = 0; l < layers(); ++l) {
      forward_[l]->set_dropout(d, d_h);
      backward_[l]->set_dropout(d, d_h);
    }
  });
}

void BiRNNBuilder::disable_dropout() { set_dropout(0.f, 0.f); }

}  // namespace dynet
