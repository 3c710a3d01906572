#pragma once
// The N-ary TreeLSTM of Tai et al. (2015, section 3.2) for trees of at most N ordered children:
// every child position k has its own recurrent matrices, so the model can tell a left child from
// a right one. For a node with input x and children (h_k, c_k), k < K <= N:
//   [a_i; a_o; a_u; a_f0 .. a_f(N-1)] = b + W x + sum_k U_k h_k
//   i = logistic(a_i), o = logistic(a_o), u = tanh(a_u), f_k = logistic(a_fk)
//   c = i * u + sum_k f_k * c_k,  h = o * tanh(c)
// One affine transform per node computes every gate; a node without children (a leaf) computes
// only i, o and u (the first 3 hidden rows of W and b). Missing children contribute nothing.
// Parameters of each layer: W {(N+3) hidden, input}, b {(N+3) hidden} (zeros), then U_0 .. U_(N-1)
// {(N+3) hidden, hidden}.

#include "builders/layered_tree_lstm_builder.h"

namespace dynet {

class NaryTreeLSTMBuilder : public LayeredTreeLSTMBuilder {
 public:
  /// Without parameters until assigned a builder made with a model.
  NaryTreeLSTMBuilder() : LayeredTreeLSTMBuilder("NaryTreeLSTMBuilder"), n_(0) {}
  NaryTreeLSTMBuilder(unsigned N, unsigned layers, unsigned input_dim, unsigned hidden_dim,
                      ParameterCollection& model);

  unsigned max_children() const { return n_; }
  std::unique_ptr<TreeLSTMBuilder> clone() const override { return std::make_unique<NaryTreeLSTMBuilder>(*this); }

 protected:
  void check_child_count(std::size_t n) const override;
  CellState node(unsigned layer, const Expression& x, const std::vector<const CellState*>& children) override;
  void derive_graph_expressions(ComputationGraph&, bool) override;

 private:
  unsigned n_;
  std::vector<Expression> leaf_w_, leaf_b_;  ///< per layer: the i, o, u rows of W and b in this graph
};

}  // namespace dynet
