#pragma once
// The tree LSTMs whose layers are stacked cells (Tai et al., 2015): layer l of a node computes its
// state from the output of layer l - 1 of the same node (the node's input for layer 0) and the
// layer-l states of its children.

#include "builders/tree_lstm_builder.h"

namespace dynet {

class LayeredTreeLSTMBuilder : public TreeLSTMBuilder {
 protected:
  using TreeLSTMBuilder::TreeLSTMBuilder;

  /// One layer of one node: x is its input (empty for none), children the same layer's states of
  /// its children (never both empty).
  virtual CellState node(unsigned layer, const Expression& x, const std::vector<const CellState*>& children) = 0;

 private:
  std::vector<CellState> node_layers(const Expression& x,
                                     const std::vector<const std::vector<CellState>*>& children) final;
};

}  // namespace dynet
