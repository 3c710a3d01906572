#include "builders/layered_tree_lstm_builder.h"

namespace dynet {

std::vector<CellState> LayeredTreeLSTMBuilder::node_layers(const Expression& x,
                                                           const std::vector<const std::vector<CellState>*>& children) {
  std::vector<CellState> states(layers());
  std::vector<const CellState*> layer_children(children.size());
  Expression in = x;
  for (unsigned l = 0; l < layers(); ++l) {
    for (std::size_t k = 0; k < children.size(); ++k) layer_children[k] = &(*children[k])[l];
    states[l] = node(l, in, layer_children);
    in = states[l].h;
  }
  return states;
}

}  // namespace dynet
