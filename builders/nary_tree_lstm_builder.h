#pragma once
// DyNet's NaryTreeLSTMBuilder: the N-ary TreeLSTM of Tai et al. (2015, section 3.2) as DyNet
// computes it, for trees whose nodes have ordered children. Every child position j < N has its
// own matrices, so the model can tell a left child from a right one; a node with more than N
// children reads children N-1, N, ... with position N-1's (as DyNet). For a node with input x and
// children (h_j, c_j), e(j) = min(j, N-1):
//   i   = logistic(b_i + W_xi x + sum_j (U_i[e(j)] h_j + V_i[e(j)] c_j))
//   f_k = logistic(b_f + W_xf x + sum_j (U_f[e(j) N + e(k)] h_j + V_f[e(j) N + e(k)] c_j) + 1)
//   o   = logistic(b_o + W_xo x + sum_j (U_o[e(j)] h_j + V_o[e(j)] c_j))
//   u   = tanh(b_c + W_xc x + sum_j U_c[e(j)] h_j)
//   c = i * u + sum_k f_k * c_k,  h = o * tanh(c)
// A leaf (no children) computes i, o and u from x alone; the +1 is DyNet's forget bias.
// Parameters of each layer, in DyNet's order (U and V are lookup tables of {hidden, hidden} rows;
// their keys are numbered among the parameters'):
//   W_xi {hidden, input}, U_i (N rows), V_i (N), b_i {hidden}, W_xf, U_f (N*N), V_f (N*N), b_f,
//   W_xo, U_o (N), V_o (N), b_o, W_xc, U_c (N), b_c   (biases zero)
// `params` holds DyNet's per layer {W_xi, b_i, W_xf, b_f, W_xo, b_o, W_xc, b_c} (as does
// layer_parameters()) and `lparams` {U_i, U_f, U_o, U_c, V_i, V_f, V_o}.
//
// Each gate is one affine transform over the node's input and its children, as in DyNet; the
// tables' rows enter the graph once per new_graph as parameters (parameter(cg, table, row)): no
// copy, and they batch as weights. Joining every gate and child position into one product a node
// needs the rows copied into joined matrices in every graph: on one core, the arith-trees example
// trained 1.3 times slower so at one tree a graph (1.05 times faster at 64).

#include "builders/layered_tree_lstm_builder.h"

namespace dynet {

class NaryTreeLSTMBuilder : public LayeredTreeLSTMBuilder {
 public:
  /// Without parameters until assigned a builder made with a model.
  NaryTreeLSTMBuilder() : LayeredTreeLSTMBuilder("NaryTreeLSTMBuilder"), n_(0) {}
  NaryTreeLSTMBuilder(unsigned N, unsigned layers, unsigned input_dim, unsigned hidden_dim, ParameterCollection& model);

  unsigned max_children() const { return n_; }
  std::unique_ptr<TreeLSTMBuilder> clone() const override { return std::make_unique<NaryTreeLSTMBuilder>(*this); }

  /// DyNet's lookup parameters per layer: U_i, U_f, U_o, U_c, V_i, V_f, V_o.
  std::vector<std::vector<LookupParameter>> lparams;

 protected:
  CellState node(unsigned layer, const Expression& x, const std::vector<const CellState*>& children) override;
  void derive_graph_expressions(ComputationGraph& cg, bool update) override;

 private:
  unsigned n_;
  std::vector<std::vector<std::vector<Expression>>> rows_;  ///< per layer, table (as lparams), row: in the bound graph
  std::vector<Expression> forget_bias_;                     ///< per layer: b_f + 1 in the bound graph
};

}  // namespace dynet
