#pragma once
// The sequential engine's order under --dynet-vertex 1 and 2. A node whose value only one later
// node reads, in a chain of such sole readers that holds a product over a weight too large for the
// cache, runs just before the node the chain ends at (a node read by several, or by none), many
// chains that end at one node in step, farthest from it first. A language model's per-step output
// layer and loss then all run after the recurrence, where their products over the output weight
// are ready together and leading_products.h makes them one product: reading a 10 MB weight once
// a sequence instead of once a step. Other nodes keep graph order. Where two products over one
// weight from inputs computed in the pass, each read by several nodes or over an input several
// nodes read, stand at one height (a tree LSTM's nodes of one level), the pass runs level by
// level instead: every node as early as
// its arguments allow, a chain's as late as its end allows, so that leading_products.h joins each
// level's products. Backward runs in the reverse of this order. Values are those of graph order:
// only independent nodes change places, and random ops draw from their own seeds.

#include <cstdint>
#include <utility>
#include <vector>

#include "dynet_core/graph.h"

namespace dynet {

class TailOrder {
 public:
  /// A weight of this many floats or more (4 MiB, beyond a core's L2) is streamed from memory by
  /// every product over it, whatever its width (rnnlm-batch's 10,000 x 256 output weight at 16
  /// columns ran at 100-115 GFLOP/s of a 186 GFLOP/s peak): such products are worth joining.
  static constexpr std::uint64_t kStreamedWeight = std::uint64_t(1) << 20;

  /// Forgets every node (the graph's values were forgotten).
  void forget() { order_.clear(); }
  /// Forgets nodes n and after (the graph was cut back to n nodes; every node below n computed).
  void truncate(VariableIndex n);

  /// Orders nodes [begin, end), which the engine computes next; every node below begin is computed.
  void plan(const ComputationGraph& cg, VariableIndex begin, VariableIndex end);
  /// Every computed or planned node, in the order computed: [0, begin) of it is nodes [0, begin).
  const std::vector<VariableIndex>& order() const { return order_; }
  /// Node j's place in order().
  std::uint32_t position(VariableIndex j) const { return position_[j]; }

 private:
  static constexpr VariableIndex kNone = ~VariableIndex(0), kSeveral = kNone - 1;
  /// The chains of an end with fewer nodes run in graph order: a cell's few chains gain nothing
  /// from running in step.
  static constexpr std::uint32_t kInStep = 16;

  std::vector<VariableIndex> order_;
  std::vector<std::uint32_t> position_;  // by node index
  // Reused by plan(), indexed by node - begin.
  std::vector<VariableIndex> reader_;    // the one later node that reads it, kNone or kSeveral
  std::vector<VariableIndex> first_;     // a chain end: the first node of its chains; kNone
  std::vector<VariableIndex> next_;      // the next node of the chains of its end, kNone
  std::vector<std::uint32_t> depth_;     // readers away from its chain's end; then its level
  std::uint32_t highest_ = 0;            // the greatest of height_
  std::vector<std::uint32_t> height_;    // the longest path to it from a leaf or a node before begin
  std::vector<VariableIndex> streamed_;  // products over a streamed weight
  std::vector<std::uint8_t> late_;       // a chain end whose chains wait for it
  std::vector<std::pair<VariableIndex, std::uint32_t>> products_;  // by_level's (weight, node or height)
  std::vector<std::uint32_t> starts_;                              // sort_by's, by key
  std::vector<VariableIndex> to_sort_;                             // sort_by's input

  /// Whether two products over one weight from inputs computed in the pass, each read by several
  /// nodes or over an input several nodes read, stand at one height: a tree's nodes of one level,
  /// ready together only when run level by level. Sets height_ and highest_ where it needs them.
  bool by_level(const ComputationGraph& cg, VariableIndex begin, VariableIndex end);
  /// Orders nodes [begin, end) level by level: a node not in a chain at its height, a chain's at
  /// its end's height less its depth.
  void level_by_level(VariableIndex begin, VariableIndex end);
  /// Puts order_[first, end), the chains of one end in graph order, in step: farthest from the
  /// end first, each distance in graph order (nodes begin and after are planned).
  void in_step(VariableIndex begin, std::uint32_t first, std::uint32_t end);
  /// Writes to_sort_ to out by key(node), from 0 to `top`, each key's nodes in to_sort_'s order (a
  /// counting sort).
  template <class Key>
  void sort_by(std::uint32_t top, const Key& key, VariableIndex* out);
};

}  // namespace dynet
