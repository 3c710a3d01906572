#include <catch2/catch.hpp>

#include <functional>

#include "examples/common/arithmetic_trees.h"

using namespace examples;

namespace {

/// The exact value of node k, computed with wide integers from the tokens.
long long exact_value(const LabeledTree& tree, int k) {
  const LabeledTree::Node& n = tree.nodes[unsigned(k)];
  if (n.children.empty()) return std::stoll(n.word);
  const long long a = exact_value(tree, n.children[0]), b = exact_value(tree, n.children[1]);
  if (n.word == "+") return a + b;
  if (n.word == "-") return a - b;
  return a * b;
}

unsigned depth(const LabeledTree& tree, int k) {
  unsigned d = 0;
  for (int c : tree.nodes[unsigned(k)].children) d = std::max(d, 1 + depth(tree, c));
  return d;
}

}  // namespace

TEST_CASE("every node of an arithmetic tree is labeled with its value mod 10", "[examples][arith]") {
  ArithmeticTreeGenerator gen(4, 0.3f, 17);
  for (const LabeledTree& tree : gen.generate(200)) {
    REQUIRE(depth(tree, static_cast<int>(tree.size()) - 1) <= 4);
    for (std::size_t k = 0; k < tree.size(); ++k) {
      const LabeledTree::Node& n = tree.nodes[k];
      CHECK(n.token == static_cast<int>(std::find(ArithmeticTreeGenerator::vocabulary().begin(),
                                                  ArithmeticTreeGenerator::vocabulary().end(), n.word) -
                                        ArithmeticTreeGenerator::vocabulary().begin()));
      for (int c : n.children) CHECK(c < static_cast<int>(k));
      const long long v = exact_value(tree, static_cast<int>(k));
      CHECK(n.label == ((v % 10) + 10) % 10);
    }
  }
}

TEST_CASE("arithmetic trees respect the depth limit and depend only on the seed", "[examples][arith]") {
  ArithmeticTreeGenerator a(10, 0.4f, 5), b(10, 0.4f, 5);
  unsigned deepest = 0;
  for (int k = 0; k < 300; ++k) {
    const LabeledTree x = a.next(), y = b.next();
    REQUIRE(infix(x) == infix(y));
    CHECK(x.root().children.size() == 2);  // the root is always an operator
    deepest = std::max(deepest, depth(x, static_cast<int>(x.size()) - 1));
  }
  CHECK(deepest == 10);
  CHECK(infix(ArithmeticTreeGenerator(0, 0.5f, 1).next()).size() == 1);
  CHECK_THROWS_AS(ArithmeticTreeGenerator(3, 1.5f, 1), std::invalid_argument);
}
