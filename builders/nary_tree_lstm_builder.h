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
// A node runs as one affine transform for every gate, over weights new_graph joins once per graph
// from these parameters, rows in the order i, o, u, f_0 .. f_(N-1):
//   [a_i; a_o; a_u; a_f0 ..] = b + W x + sum_j (U[e(j)] h_j + V[e(j)] c_j)
// (V[j]'s u rows are zeros: the candidate reads no cell), so that the nodes of a tree batch as one
// matrix product per operand.

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

  /// DyNet's lookup parameters per layer: U_i, U_f, U_o, U_c, V_i, V_f, V_o.
  std::vector<std::vector<LookupParameter>> lparams;

 protected:
  CellState node(unsigned layer, const Expression& x, const std::vector<const CellState*>& children) override;
  void derive_graph_expressions(ComputationGraph& cg, bool update) override;

 private:
  /// One layer's weights joined for the bound graph, rows i, o, u, f_0 .. f_(N-1).
  struct JoinedGates {
    Expression w, b;            ///< W {(N+3) hidden, input}, b {(N+3) hidden} (the forget bias added)
    Expression leaf_w, leaf_b;  ///< their i, o, u rows: all a leaf computes
    std::vector<Expression> u, v;  ///< per child position: U[j], V[j] {(N+3) hidden, hidden}
  };
  JoinedGates join_layer(ComputationGraph& cg, unsigned layer, bool update) const;

  unsigned n_;
  std::vector<JoinedGates> joined_;
};

}  // namespace dynet
