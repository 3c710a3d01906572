#pragma once
// Cavs' Tree-FC: a leaf's state is its word's embedding, an internal node's state is one fully
// connected layer over its children's, h = tanh(W [h_l; h_r] + b); a 5-way softmax loss on the
// root's label.

#include <dybatch.h>
#include "autobatch/random_trees.h"

namespace bench {

struct TreeFcModel {
  TreeFcModel(dynet::ParameterCollection& pc, unsigned vocab, unsigned hidden);
  /// The loss of one tree; `new_graph` must have bound the model to `cg`.
  dynet::Expression tree_loss(dynet::ComputationGraph& cg, const Tree& t) const;
  void new_graph(dynet::ComputationGraph& cg);

  dynet::LookupParameter E;
  dynet::Parameter p_W, p_b, p_out_w, p_out_b;
  dynet::Expression W, b, out_w, out_b;
};

}  // namespace bench
