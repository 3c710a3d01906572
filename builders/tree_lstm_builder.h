#pragma once
// The interface of the tree-structured LSTMs (Tai, Socher and Manning, 2015). Nodes are added
// bottom-up: add_input(id, children, x) computes node `id` from the states of its children,
// which must have been added before, and its input x. A node may have no input (pass an empty
// Expression), as the inner nodes of a parse tree; a leaf must have one. A node has a state
// (output and memory cell) per layer; the top layer's output is the node's output.
//
//   builder.new_graph(cg);
//   builder.start_new_sequence();                    // a new tree
//   builder.add_input(0, {}, x0); builder.add_input(1, {}, x1);
//   Expression root = builder.add_input(2, {0, 1}, Expression());
//
// The cell of each node is a fixed set of ops over its children's states, so nodes of the same
// kind (same child count, with or without input) in any number of trees batch together.
// LayeredTreeLSTMBuilder stacks such cells, layer l of a node reading layer l - 1's output; the
// builders that read a node's children with an LSTM (UnidirectionalTreeLSTMBuilder,
// BidirectionalTreeLSTMBuilder) take every layer's state from that LSTM.

#include <memory>
#include <vector>

#include "builders/builder_parameters.h"
#include "builders/cell_state.h"

namespace dynet {

class TreeLSTMBuilder : public BuilderParameters {
 public:
  /// Binds the builder to `cg` (parameter expressions are made here, once per graph) and starts a new tree.
  void new_graph(ComputationGraph& cg, bool update = true);
  /// Forgets the nodes of the previous tree.
  virtual void start_new_sequence();
  /// Reserves room for node ids 0..n-1 (optional; ids beyond it still work).
  void set_num_elements(unsigned n);

  /// Adds node `id` (not added yet in this tree) over `children` (added already; order matters
  /// for N-ary trees) with input x ({input_dim}, any batch size, or empty for none). Returns the
  /// top layer's output. Ids index a table: number the nodes of a tree 0, 1, 2...
  Expression add_input(int id, const std::vector<int>& children, const Expression& x);

  /// The top layer's output of the node added last.
  Expression back() const;
  /// The output of every layer at node `id`.
  std::vector<Expression> get_h(int id) const;
  /// The memory cell of every layer at node `id`, then the output of every layer.
  std::vector<Expression> get_s(int id) const;

  /// A builder of the same kind over the same parameters, with graph state of its own: one per
  /// thread for graphs built at the same time (DataParallel).
  virtual std::unique_ptr<TreeLSTMBuilder> clone() const = 0;

 protected:
  TreeLSTMBuilder(ParameterCollection& model, const std::string& name, const std::string& collection, unsigned layers,
                  unsigned input_dim, unsigned hidden_dim);
  explicit TreeLSTMBuilder(const std::string& name) : BuilderParameters(name) {}

  /// Throws std::invalid_argument when a node may not have `n` children.
  virtual void check_child_count(std::size_t n) const;
  /// The state of every layer of one node: x is its input (empty for none), children the states
  /// (per layer) of its children (never both empty). Returns one state per layer.
  virtual std::vector<CellState> node_layers(const Expression& x,
                                             const std::vector<const std::vector<CellState>*>& children) = 0;

 private:
  const std::vector<CellState>& node_states(int id, const char* who) const;
  /// Throws std::invalid_argument, naming what the user passed, unless the batch sizes of the input
  /// and the children's states agree or are 1: the cell would mix them.
  void check_batches(int id, const std::vector<int>& children, const Expression& x,
                     const std::vector<const std::vector<CellState>*>& child_states) const;

  std::vector<std::vector<CellState>> nodes_;  ///< per id, then per layer; empty when not added
  int last_ = -1;
};

}  // namespace dynet
