#include "examples/common/arithmetic_trees.h"

#include <functional>
#include <stdexcept>

namespace examples {

namespace {

constexpr int kPlus = 10, kMinus = 11, kTimes = 12;

/// (a op b) mod 10 for a, b in 0..9: residues compose, so no value ever grows.
int apply_mod_10(int op, int a, int b) {
  switch (op) {
    case kPlus:
      return (a + b) % 10;
    case kMinus:
      return ((a - b) % 10 + 10) % 10;
    case kTimes:
      return (a * b) % 10;
  }
  throw std::invalid_argument("arithmetic tree: token " + std::to_string(op) + " is not an operator");
}

}  // namespace

ArithmeticTreeGenerator::ArithmeticTreeGenerator(unsigned max_depth, float leaf_probability, std::uint32_t seed)
    : max_depth_(max_depth), leaf_probability_(leaf_probability), rng_(seed) {
  if (!(leaf_probability >= 0.f && leaf_probability <= 1.f))
    throw std::invalid_argument("arithmetic trees: the leaf probability must be in [0, 1]");
}

const std::vector<std::string>& ArithmeticTreeGenerator::vocabulary() {
  static const std::vector<std::string> tokens{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "+", "-", "*"};
  return tokens;
}

int ArithmeticTreeGenerator::add_node(LabeledTree& tree, unsigned depth) {
  LabeledTree::Node n;
  const bool root = depth == 0 && max_depth_ > 0;
  if (depth >= max_depth_ || (!root && std::bernoulli_distribution(leaf_probability_)(rng_))) {
    n.token = std::uniform_int_distribution<int>(0, 9)(rng_);
    n.label = n.token;
  } else {
    n.token = std::uniform_int_distribution<int>(kPlus, kTimes)(rng_);
    n.children.push_back(add_node(tree, depth + 1));
    n.children.push_back(add_node(tree, depth + 1));
    n.label =
        apply_mod_10(n.token, tree.nodes[unsigned(n.children[0])].label, tree.nodes[unsigned(n.children[1])].label);
  }
  n.word = vocabulary()[unsigned(n.token)];
  tree.nodes.push_back(std::move(n));
  return static_cast<int>(tree.nodes.size()) - 1;
}

LabeledTree ArithmeticTreeGenerator::next() {
  LabeledTree tree;
  add_node(tree, 0);
  return tree;
}

std::vector<LabeledTree> ArithmeticTreeGenerator::generate(std::size_t count) {
  std::vector<LabeledTree> trees;
  trees.reserve(count);
  for (std::size_t k = 0; k < count; ++k) trees.push_back(next());
  return trees;
}

std::string infix(const LabeledTree& tree) {
  std::function<std::string(int)> text = [&](int k) {
    const LabeledTree::Node& n = tree.nodes[unsigned(k)];
    if (n.children.empty()) return n.word;
    return "(" + text(n.children[0]) + " " + n.word + " " + text(n.children[1]) + ")";
  };
  return text(static_cast<int>(tree.size()) - 1);
}

}  // namespace examples
