#pragma once
// The TreeLSTM reference program of ../shared/BENCHMARKS.md. Leaf: one affine W_leaf (3h x e)
// gives i, o, u; c = i*u, h = o*tanh(c). Internal node: one affine U (5h x 2h) over [h_l; h_r]
// gives i, f_l, f_r, o, u; c = i*u + f_l*c_l + f_r*c_r, h = o*tanh(c). Every node (or, as in
// DyNet's treenn benchmark, the root only): a 5-way softmax loss on its label.

#include "autobatch/random_trees.h"
#include "dynet_core/dybatch.h"

namespace bench {

struct TreeLstmModel {
  /// The parameter expressions of one graph. With `per_use`, parameter() is called at every use
  /// of a parameter (the way many users write models) instead of once per graph.
  struct GraphParameters {
    bool per_use;
    dynet::Expression once[6];
  };

  TreeLstmModel(dynet::ParameterCollection& pc, unsigned vocab, unsigned emb, unsigned hidden,
                bool loss_at_every_node = true);

  GraphParameters new_graph(dynet::ComputationGraph& cg, bool per_use) const;
  /// The summed loss of one tree. Reads the model only, so graphs may be built on several threads.
  dynet::Expression tree_loss(dynet::ComputationGraph& cg, const Tree& t, const GraphParameters& gp) const;
  /// Floating-point operations of one tree, forward and backward (GEMMs only).
  double flops(const Tree& t) const;

  unsigned emb, hidden;
  bool loss_at_every_node;
  dynet::LookupParameter E;
  dynet::Parameter W_leaf, b_leaf, U, b_node, W_out, b_out;

 private:
  dynet::Expression p(dynet::ComputationGraph& cg, const dynet::Parameter& param, unsigned which,
                      const GraphParameters& gp) const;
};

}  // namespace bench
