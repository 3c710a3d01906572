#include "builders/sequence_tree_lstm_builders.h"

#include <stdexcept>
#include <string>

#include "dynet_core/ops/shape.h"

namespace dynet {

namespace {

/// Runs `lstm` from the zero state over x (when given), then the top outputs of `children` (in
/// reverse when `reversed`); returns the state of every layer after the last step.
std::vector<CellState> read_node(RNNBuilder& lstm, const Expression& x,
                                 const std::vector<const std::vector<CellState>*>& children, bool reversed) {
  RNNPointer at = -1;
  if (x.pg) {
    lstm.add_input(at, x);
    at = lstm.state();
  }
  for (std::size_t k = 0; k < children.size(); ++k) {
    lstm.add_input(at, children[reversed ? children.size() - 1 - k : k]->back().h);
    at = lstm.state();
  }
  const std::vector<Expression> s = lstm.get_s(at);  // the cells of every layer, then the outputs
  const std::size_t layers = s.size() / 2;
  std::vector<CellState> states(layers);
  for (std::size_t l = 0; l < layers; ++l) states[l] = {s[layers + l], s[l]};
  return states;
}

/// A child's output is an input of the node LSTM, so it must have the input's size.
void check_children_readable(const std::string& builder, std::size_t children, unsigned input_dim,
                             unsigned hidden_dim) {
  if (children > 0 && input_dim != hidden_dim)
    throw std::invalid_argument(builder + "::add_input: a node with children reads their outputs ({" +
                                std::to_string(hidden_dim) + "}) as inputs of its LSTM, which takes {" +
                                std::to_string(input_dim) + "}: children need input_dim == hidden_dim");
}

unsigned half_of(unsigned hidden_dim) {
  if (hidden_dim % 2 != 0)
    throw std::invalid_argument("BidirectionalTreeLSTMBuilder: hidden_dim must be even (half of it for each "
                                "direction), got " +
                                std::to_string(hidden_dim));
  return hidden_dim / 2;
}

}  // namespace

UnidirectionalTreeLSTMBuilder::UnidirectionalTreeLSTMBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim,
                                                             ParameterCollection& model)
    : TreeLSTMBuilder(model, "UnidirectionalTreeLSTMBuilder", "unidirectional-tree-lstm-builder", layers, input_dim,
                      hidden_dim),
      node_builder(layers, input_dim, hidden_dim, get_parameter_collection()) {}

void UnidirectionalTreeLSTMBuilder::start_new_sequence() {
  TreeLSTMBuilder::start_new_sequence();
  node_builder.start_new_sequence();
}

void UnidirectionalTreeLSTMBuilder::check_child_count(std::size_t n) const {
  check_children_readable(name(), n, input_dim(), hidden_dim());
}

std::vector<CellState> UnidirectionalTreeLSTMBuilder::node_layers(
    const Expression& x, const std::vector<const std::vector<CellState>*>& children) {
  return read_node(node_builder, x, children, false);
}

void UnidirectionalTreeLSTMBuilder::derive_graph_expressions(ComputationGraph& cg, bool update) {
  node_builder.new_graph(cg, update);
}

BidirectionalTreeLSTMBuilder::BidirectionalTreeLSTMBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim,
                                                           ParameterCollection& model)
    : TreeLSTMBuilder(model, "BidirectionalTreeLSTMBuilder", "bidirectional-tree-lstm-builder", layers, input_dim,
                      hidden_dim),
      fwd_node_builder(layers, input_dim, half_of(hidden_dim), get_parameter_collection()),
      rev_node_builder(layers, input_dim, half_of(hidden_dim), get_parameter_collection()) {}

void BidirectionalTreeLSTMBuilder::start_new_sequence() {
  TreeLSTMBuilder::start_new_sequence();
  fwd_node_builder.start_new_sequence();
  rev_node_builder.start_new_sequence();
}

void BidirectionalTreeLSTMBuilder::check_child_count(std::size_t n) const {
  check_children_readable(name(), n, input_dim(), hidden_dim());
}

std::vector<CellState> BidirectionalTreeLSTMBuilder::node_layers(
    const Expression& x, const std::vector<const std::vector<CellState>*>& children) {
  const std::vector<CellState> fwd = read_node(fwd_node_builder, x, children, false);
  const std::vector<CellState> rev = read_node(rev_node_builder, x, children, true);
  std::vector<CellState> states(fwd.size());
  for (std::size_t l = 0; l < fwd.size(); ++l)
    states[l] = {concatenate({fwd[l].h, rev[l].h}), concatenate({fwd[l].c, rev[l].c})};
  return states;
}

void BidirectionalTreeLSTMBuilder::derive_graph_expressions(ComputationGraph& cg, bool update) {
  fwd_node_builder.new_graph(cg, update);
  rev_node_builder.new_graph(cg, update);
}

}  // namespace dynet
