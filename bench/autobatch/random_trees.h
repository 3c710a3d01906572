#pragma once
// The random binary trees of the TreeLSTM reference program (../shared/BENCHMARKS.md): uniform
// random shapes over a fixed number of leaves; leaf label = word mod 5, internal label = sum of
// the children's labels mod 5.

#include <cstdint>
#include <vector>

namespace bench {

struct TreeNode {
  int left = -1, right = -1;  ///< children (indices into Tree::nodes), -1 for a leaf
  unsigned word = 0;          ///< leaves only
  unsigned label = 0;
};

/// Nodes in post-order: children come before their parent, the root is last.
struct Tree {
  std::vector<TreeNode> nodes;
};

std::vector<Tree> random_trees(unsigned count, unsigned leaves, unsigned vocab, std::uint64_t seed);
/// One random tree per entry of `leaves`, of that many leaves.
std::vector<Tree> random_trees(const std::vector<unsigned>& leaves, unsigned vocab, std::uint64_t seed);

}  // namespace bench
