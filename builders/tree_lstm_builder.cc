#include "builders/tree_lstm_builder.h"

#include <new>
#include <stdexcept>
#include <string>

#include "dynet_core/vertex_scope.h"

namespace dynet {

TreeLSTMBuilder::TreeLSTMBuilder(ParameterCollection& model, const std::string& name, const std::string& collection,
                                 unsigned layers, unsigned input_dim, unsigned hidden_dim)
    : BuilderParameters(model, name, collection, layers, input_dim, hidden_dim) {}

void TreeLSTMBuilder::new_graph(ComputationGraph& cg, bool update) {
  bind_graph(cg, update);
  start_new_sequence();
}

void TreeLSTMBuilder::start_new_sequence() {
  nodes_.clear();
  last_ = -1;
}

void TreeLSTMBuilder::set_num_elements(unsigned n) { nodes_.reserve(n); }

void TreeLSTMBuilder::check_child_count(std::size_t) const {}

Expression TreeLSTMBuilder::add_input(int id, const std::vector<int>& children, const Expression& x) {
  graph("add_input");
  if (id < 0) throw std::invalid_argument(name() + "::add_input: node id " + std::to_string(id) + " is negative");
  const auto slot = static_cast<unsigned>(id);
  if (slot < nodes_.size() && !nodes_[slot].empty())
    throw std::invalid_argument(name() + "::add_input: node " + std::to_string(id) + " was already added to this tree");
  check_child_count(children.size());
  if (x.pg)
    check_vector(x, input_dim(), "add_input", "the input");
  else if (children.empty())
    throw std::invalid_argument(name() + "::add_input: node " + std::to_string(id) +
                                " has neither an input nor children");
  std::vector<const std::vector<CellState>*> child_states;
  for (int child : children) {
    if (child == id)
      throw std::invalid_argument(name() + "::add_input: node " + std::to_string(id) + " is its own child");
    child_states.push_back(&node_states(child, "add_input"));
  }
  check_batches(id, children, x, child_states);

  std::vector<CellState> states;
  {
    const VertexScope cell(graph("add_input"), name());
    states = node_layers(x, child_states);
  }
  if (slot >= nodes_.size()) {
    // Ids index a table of the tree's nodes, so an id far beyond them asks for a table that large.
    try {
      nodes_.resize(std::size_t(slot) + 1);
    } catch (const std::bad_alloc&) {
      throw std::runtime_error(name() + "::add_input: node id " + std::to_string(id) + " needs a table of " +
                               std::to_string(std::size_t(slot) + 1) +
                               " nodes, more than memory allows (number the nodes of a tree 0, 1, 2, ...)");
    }
  }
  nodes_[slot] = std::move(states);
  last_ = id;
  return nodes_[slot].back().h;
}

void TreeLSTMBuilder::check_batches(int id, const std::vector<int>& children, const Expression& x,
                                    const std::vector<const std::vector<CellState>*>& child_states) const {
  unsigned batch = x.pg ? x.dim().bd : 1;
  int source = -1;  // which of the children set `batch`; -1: the input
  for (std::size_t k = 0; k < children.size(); ++k)
    for (const CellState& s : *child_states[k])
      for (const Expression* e : {&s.h, &s.c}) {
        const unsigned b = e->pg ? e->dim().bd : 1;
        if (b == 1 || b == batch) continue;
        if (batch == 1) {
          batch = b;
          source = static_cast<int>(k);
          continue;
        }
        throw std::invalid_argument(name() + "::add_input: node " + std::to_string(id) + "'s child " +
                                    std::to_string(children[k]) + " has batch size " + std::to_string(b) + ", but " +
                                    (source < 0
                                         ? std::string("the input")
                                         : "its child " + std::to_string(children[static_cast<std::size_t>(source)])) +
                                    " has batch size " + std::to_string(batch) + " (batch sizes must agree, or be 1)");
      }
}

const std::vector<CellState>& TreeLSTMBuilder::node_states(int id, const char* who) const {
  if (id < 0 || static_cast<unsigned>(id) >= nodes_.size() || nodes_[static_cast<unsigned>(id)].empty())
    throw std::invalid_argument(name() + "::" + who + ": node " + std::to_string(id) +
                                " has not been added to this tree");
  return nodes_[static_cast<unsigned>(id)];
}

Expression TreeLSTMBuilder::back() const {
  if (last_ < 0) throw std::invalid_argument(name() + "::back: no node was added to this tree");
  return nodes_[static_cast<unsigned>(last_)].back().h;
}

std::vector<Expression> TreeLSTMBuilder::get_h(int id) const { return outputs_of(node_states(id, "get_h")); }

std::vector<Expression> TreeLSTMBuilder::get_s(int id) const { return full_state_of(node_states(id, "get_s"), true); }

}  // namespace dynet
