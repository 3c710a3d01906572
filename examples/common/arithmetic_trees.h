#pragma once
// Random arithmetic expressions over the digits 0-9 with +, - and *, as labeled binary trees:
// every node is labeled with the value of its subexpression modulo 10. A node's label is a
// function of its operator and its children's labels, so a TreeLSTM can learn the whole task
// from the nodes' tokens, but only by composing along the tree.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "examples/common/labeled_tree.h"

namespace examples {

class ArithmeticTreeGenerator {
 public:
  /// Trees of depth at most max_depth (a digit alone has depth 0); below the root, a node is a
  /// digit with probability leaf_probability (always at max_depth).
  ArithmeticTreeGenerator(unsigned max_depth, float leaf_probability, std::uint32_t seed);

  LabeledTree next();
  std::vector<LabeledTree> generate(std::size_t count);

  /// The tokens, by id: "0".."9", "+", "-", "*".
  static const std::vector<std::string>& vocabulary();
  static constexpr unsigned kClasses = 10;

 private:
  int add_node(LabeledTree& tree, unsigned depth);

  unsigned max_depth_;
  float leaf_probability_;
  std::mt19937 rng_;
};

/// The expression in infix form with full brackets, as "((3 + 4) * 5)".
std::string infix(const LabeledTree& tree);

}  // namespace examples
