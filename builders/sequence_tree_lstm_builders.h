#pragma once
// DyNet's tree LSTMs that read a node's children as a sequence: an LSTM (a VanillaLSTMBuilder,
// DyNet's LSTMBuilder) starts from the zero state at every node, reads the node's input, then the
// top outputs of its children in order; its state after the last child is the node's state.
// The children's outputs are the LSTM's inputs, so a node with children needs
// input_dim == hidden_dim. A node without input starts with its first child.
//   UnidirectionalTreeLSTMBuilder: one LSTM reads the children left to right.
//   BidirectionalTreeLSTMBuilder: an LSTM of hidden_dim / 2 reads them left to right and another
//     right to left; each layer's output (and cell) is the two concatenated, forward first.
// The parameters are the LSTMs' (the public node builders), in this builder's subcollection
// ("unidirectional-tree-lstm-builder", "bidirectional-tree-lstm-builder"), as in DyNet;
// layer_parameters() and `params` hold none of their own.

#include "builders/tree_lstm_builder.h"
#include "builders/vanilla_lstm_builder.h"

namespace dynet {

class UnidirectionalTreeLSTMBuilder : public TreeLSTMBuilder {
 public:
  /// Without parameters until assigned a builder made with a model.
  UnidirectionalTreeLSTMBuilder() : TreeLSTMBuilder("UnidirectionalTreeLSTMBuilder") {}
  UnidirectionalTreeLSTMBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim, ParameterCollection& model);
  std::unique_ptr<TreeLSTMBuilder> clone() const override {
    return std::make_unique<UnidirectionalTreeLSTMBuilder>(*this);
  }
  void start_new_sequence() override;

  /// The LSTM that reads every node (DyNet's public member).
  VanillaLSTMBuilder node_builder;

 protected:
  void check_child_count(std::size_t n) const override;
  std::vector<CellState> node_layers(const Expression& x,
                                     const std::vector<const std::vector<CellState>*>& children) override;
  void derive_graph_expressions(ComputationGraph& cg, bool update) override;
};

class BidirectionalTreeLSTMBuilder : public TreeLSTMBuilder {
 public:
  /// Without parameters until assigned a builder made with a model.
  BidirectionalTreeLSTMBuilder() : TreeLSTMBuilder("BidirectionalTreeLSTMBuilder") {}
  /// hidden_dim must be even: half of it for each direction.
  BidirectionalTreeLSTMBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim, ParameterCollection& model);
  std::unique_ptr<TreeLSTMBuilder> clone() const override {
    return std::make_unique<BidirectionalTreeLSTMBuilder>(*this);
  }
  void start_new_sequence() override;

  /// The LSTMs that read the children left to right and right to left (DyNet's public members).
  VanillaLSTMBuilder fwd_node_builder, rev_node_builder;

 protected:
  void check_child_count(std::size_t n) const override;
  std::vector<CellState> node_layers(const Expression& x,
                                     const std::vector<const std::vector<CellState>*>& children) override;
  void derive_graph_expressions(ComputationGraph& cg, bool update) override;
};

}  // namespace dynet
