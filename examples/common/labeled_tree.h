#pragma once
// A tree with a class label on its nodes (sentiment trees, arithmetic expressions). Nodes are
// stored children first, so adding them in order to a TreeLSTM builder is bottom-up; the root
// is the last node.

#include <string>
#include <vector>

namespace examples {

struct LabeledTree {
  struct Node {
    std::string word;           ///< the node's token; empty for none
    int token = -1;             ///< the token's vocabulary id; -1 for none
    std::vector<int> children;  ///< indices of earlier nodes
    int label = -1;             ///< the node's class; -1 for none
  };
  std::vector<Node> nodes;

  const Node& root() const { return nodes.back(); }
  std::size_t size() const { return nodes.size(); }
};

}  // namespace examples
