#include "autobatch/random_trees.h"

#include <random>

namespace bench {

namespace {

int grow(Tree& t, unsigned leaves, unsigned vocab, std::mt19937_64& rng) {
  TreeNode n;
  if (leaves == 1) {
    n.word = std::uniform_int_distribution<unsigned>(0, vocab - 1)(rng);
    n.label = n.word % 5;
  } else {
    const unsigned left = std::uniform_int_distribution<unsigned>(1, leaves - 1)(rng);
    n.left = grow(t, left, vocab, rng);
    n.right = grow(t, leaves - left, vocab, rng);
    n.label = (t.nodes[n.left].label + t.nodes[n.right].label) % 5;
  }
  t.nodes.push_back(n);
  return static_cast<int>(t.nodes.size() - 1);
}

}  // namespace

std::vector<Tree> random_trees(unsigned count, unsigned leaves, unsigned vocab, std::uint64_t seed) {
  return random_trees(std::vector<unsigned>(count, leaves), vocab, seed);
}

std::vector<Tree> random_trees(const std::vector<unsigned>& leaves, unsigned vocab, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Tree> trees(leaves.size());
  for (std::size_t k = 0; k < trees.size(); ++k) grow(trees[k], leaves[k], vocab, rng);
  return trees;
}

}  // namespace bench
