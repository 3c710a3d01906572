// A tree model as DyNet users write one (examples/treelstm.cc, simplified): a binary
// NaryTreeLSTMBuilder over parse trees of a toy language, classifying each tree by the parity of
// the "one" leaves it holds. Passes when the training loss falls to a fifth and every tree is
// classified right.
#include "dynet/treelstm.h"
#include "dynet/expr.h"
#include "dynet/model.h"
#include "dynet/training.h"

#include <iostream>
#include <vector>

using namespace std;
using namespace dynet;

// A node: leaves carry a word (0 or 1), inner nodes two children by index.
struct TreeNode {
  int word;
  int left, right;
};

struct TreeClassifier {
  LookupParameter p_w;
  Parameter p_O, p_o;
  NaryTreeLSTMBuilder tree;

  explicit TreeClassifier(ParameterCollection& model) {
    tree = NaryTreeLSTMBuilder(2, 1, 8, 16, model);
    p_w = model.add_lookup_parameters(2, {8});
    p_O = model.add_parameters({2, 16});
    p_o = model.add_parameters({2});
  }

  Expression scores(ComputationGraph& cg, const vector<TreeNode>& nodes) {
    tree.new_graph(cg);
    tree.start_new_sequence();
    tree.set_num_elements(nodes.size());
    Expression h;
    for (unsigned i = 0; i < nodes.size(); ++i) {
      const TreeNode& n = nodes[i];
      if (n.left < 0)
        h = tree.add_input(i, {}, lookup(cg, p_w, n.word));
      else
        h = tree.add_input(i, {n.left, n.right}, Expression());
    }
    return affine_transform({parameter(cg, p_o), parameter(cg, p_O), h});
  }
};

// The leaves in order, combined left to right into a comb-shaped binary tree.
vector<TreeNode> comb(const vector<int>& words) {
  vector<TreeNode> nodes;
  for (int w : words) nodes.push_back({w, -1, -1});
  int top = 0;
  for (unsigned i = 1; i < words.size(); ++i) {
    nodes.push_back({-1, top, static_cast<int>(i)});
    top = nodes.size() - 1;
  }
  return nodes;
}

int main(int argc, char** argv) {
  dynet::initialize(argc, argv);
  vector<vector<int>> sentences = {{0, 1}, {1, 1}, {0, 0}, {1, 0, 1}, {1, 1, 1}, {0, 1, 0}, {0, 0, 1, 1}, {1, 0, 0, 0}};
  ParameterCollection model;
  AdamTrainer trainer(model, 0.02);
  TreeClassifier classifier(model);

  double first = 0, last = 0;
  for (unsigned epoch = 0; epoch < 60; ++epoch) {
    double loss = 0;
    for (const auto& s : sentences) {
      unsigned parity = 0;
      for (int w : s) parity ^= w;
      ComputationGraph cg;
      Expression err = pickneglogsoftmax(classifier.scores(cg, comb(s)), parity);
      loss += as_scalar(cg.forward(err));
      cg.backward(err);
      trainer.update();
    }
    if (epoch == 0) first = loss;
    last = loss;
  }
  unsigned right = 0;
  for (const auto& s : sentences) {
    unsigned parity = 0;
    for (int w : s) parity ^= w;
    ComputationGraph cg;
    vector<float> v = as_vector(cg.forward(classifier.scores(cg, comb(s))));
    right += (v[1] > v[0]) == (parity == 1);
  }
  cerr << "loss " << first << " -> " << last << ", " << right << " of " << sentences.size() << " right" << endl;
  return last < first / 5 && right == sentences.size() ? 0 : 1;
}
