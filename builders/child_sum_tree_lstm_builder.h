#pragma once
// The child-sum TreeLSTM of Tai et al. (2015, section 3.1), for trees with any number of
// unordered children (dependency trees). For a node with input x and children (h_k, c_k):
//   h~ = sum_k h_k
//   [a_i; a_o; a_u] = b_iou + W_iou x + U_iou h~,  i = logistic(a_i), o = logistic(a_o), u = tanh(a_u)
//   f_k = logistic(b_f + W_f x + U_f h_k)          (one forget gate per child)
//   c = i * u + sum_k f_k * c_k,  h = o * tanh(c)
// Parameters of each layer: W_iou {3 hidden, input}, U_iou {3 hidden, hidden}, b_iou {3 hidden},
// W_f {hidden, input}, U_f {hidden, hidden}, b_f {hidden} (biases zero).

#include "builders/layered_tree_lstm_builder.h"

namespace dynet {

class ChildSumTreeLSTMBuilder : public LayeredTreeLSTMBuilder {
 public:
  /// Without parameters until assigned a builder made with a model.
  ChildSumTreeLSTMBuilder() : LayeredTreeLSTMBuilder("ChildSumTreeLSTMBuilder") {}
  ChildSumTreeLSTMBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim, ParameterCollection& model);
  std::unique_ptr<TreeLSTMBuilder> clone() const override { return std::make_unique<ChildSumTreeLSTMBuilder>(*this); }

 protected:
  CellState node(unsigned layer, const Expression& x, const std::vector<const CellState*>& children) override;
};

}  // namespace dynet
