#include "autobatch/vertex/tail_order.h"

#include <algorithm>
#include <numeric>
#include <utility>

namespace dynet {

void TailOrder::truncate(VariableIndex n) {
  if (order_.size() <= n) return;
  std::size_t kept = 0;
  for (VariableIndex j : order_)
    if (j < n) {
      position_[j] = static_cast<std::uint32_t>(kept);
      order_[kept++] = j;
    }
  order_.resize(kept);
}

void TailOrder::plan(const ComputationGraph& cg, VariableIndex begin, VariableIndex end) {
  order_.resize(end);  // over what a pass a kernel's exception ended planned and did not compute
  if (position_.size() < end) position_.resize(end);
  const std::size_t count = end - begin;
  reader_.assign(count, kNone);
  products_.clear();
  streamed_.clear();
  for (VariableIndex j = begin; j < end; ++j) {
    const Node& n = cg.node(j);
    const VariableIndex* args = n.args();
    for (unsigned k = 0; k < n.nargs; ++k) {
      if (args[k] < begin) continue;
      VariableIndex& r = reader_[args[k] - begin];
      r = r == kNone || r == j ? j : kSeveral;
    }
    if (n.op->sum_of_products && n.nargs >= 3) {
      // x0 + x1 x2 + ... over a computed x1 of this pass: a product other such nodes may join.
      if (args[2] >= begin && cg.node(args[2]).nargs > 0) products_.push_back({args[1], j});
      if (cg.node(args[1]).dim.size() >= kStreamedWeight) streamed_.push_back(j);
    }
  }
  const bool levels = by_level(cg, begin, end);
  if (!levels && streamed_.empty()) {  // graph order
    for (VariableIndex j = begin; j < end; ++j) order_[j] = position_[j] = j;
    return;
  }
  // Latest first, so that a node's reader already holds its chain's end and its distance from
  // it, and each end's list of its chains' nodes, built by prepending, comes out in graph order.
  first_.assign(count, kNone);
  next_.resize(count);
  depth_.resize(count);
  for (VariableIndex j = end; j-- > begin;) {
    VariableIndex& r = reader_[j - begin];
    if (r == kNone || r == kSeveral) {
      r = j;
      depth_[j - begin] = 0;
      continue;
    }
    depth_[j - begin] = depth_[r - begin] + 1;
    r = reader_[r - begin];
    if (levels) continue;  // level_by_level places each node by itself
    next_[j - begin] = first_[r - begin];
    first_[r - begin] = j;
  }
  if (levels) return level_by_level(begin, end);
  // Only chains that hold a product over a streamed weight wait for their end: moving the rest
  // would only lose the cache their arguments are in (the tagger at 64 sentences a graph ran at
  // 0.87x when every chain waited).
  late_.assign(count, 0);
  for (VariableIndex j : streamed_) late_[reader_[j - begin] - begin] = 1;
  VariableIndex* out = order_.data();
  std::uint32_t at = begin;
  for (VariableIndex j = begin; j < end; ++j) {
    const VariableIndex e = reader_[j - begin];
    if (e != j) {
      if (!late_[e - begin]) out[at++] = j;
      continue;
    }
    if (late_[j - begin]) {
      const std::uint32_t chains = at;
      for (VariableIndex m = first_[j - begin]; m != kNone; m = next_[m - begin]) out[at++] = m;
      if (at - chains >= kInStep) in_step(begin, chains, at);
    }
    out[at++] = j;
  }
  for (std::uint32_t p = begin; p < end; ++p) position_[out[p]] = p;
}

bool TailOrder::by_level(const ComputationGraph& cg, VariableIndex begin, VariableIndex end) {
  // Products that several nodes read (a chain's runs in step where that matters), or whose input
  // several nodes read (a tree LSTM with a weight per gate: each gate's product is a chain, over
  // an input that every gate reads), by weight. A product of a chain over an input read by it
  // alone (a tagger's per-word MLP over both directions' states, whose heights pair words from
  // either end) keeps graph order: ordering the tagger by height ran it at 0.90-0.92x.
  std::size_t kept = 0;
  for (const auto& [w, j] : products_) {
    const VariableIndex r = reader_[j - begin];
    if (r == kNone || r == kSeveral || reader_[cg.node(j).arg(2) - begin] == kSeveral) products_[kept++] = {w, j};
  }
  products_.resize(kept);
  std::sort(products_.begin(), products_.end());
  if (std::adjacent_find(products_.begin(), products_.end(),
                         [](const auto& a, const auto& b) { return a.first == b.first; }) == products_.end())
    return false;
  // Two over one weight: their heights, the longest path to each from a leaf or a node before begin.
  height_.resize(end - begin);
  highest_ = 0;
  for (VariableIndex j = begin; j < end; ++j) {
    const Node& n = cg.node(j);
    const VariableIndex* args = n.args();
    std::uint32_t h = 0;
    for (unsigned k = 0; k < n.nargs; ++k)
      if (args[k] >= begin) h = std::max(h, height_[args[k] - begin] + 1);
    height_[j - begin] = h;
    highest_ = std::max(highest_, h);
  }
  for (auto& [w, j] : products_) j = height_[j - begin];
  std::sort(products_.begin(), products_.end());
  return std::adjacent_find(products_.begin(), products_.end()) != products_.end();
}

void TailOrder::level_by_level(VariableIndex begin, VariableIndex end) {
  // A chain's nodes as late as their end allows, every other node as early as its arguments do.
  for (VariableIndex j = begin; j < end; ++j) {
    const VariableIndex e = reader_[j - begin];
    depth_[j - begin] = e == j ? height_[j - begin] : height_[e - begin] - depth_[j - begin];
  }
  to_sort_.resize(end - begin);
  std::iota(to_sort_.begin(), to_sort_.end(), begin);
  sort_by(
      highest_, [&](VariableIndex j) { return depth_[j - begin]; }, order_.data() + begin);
  for (std::uint32_t p = begin; p < end; ++p) position_[order_[p]] = p;
}

void TailOrder::in_step(VariableIndex begin, std::uint32_t first, std::uint32_t end) {
  VariableIndex* nodes = order_.data();
  std::uint32_t deepest = 0;
  for (std::uint32_t p = first; p < end; ++p) deepest = std::max(deepest, depth_[nodes[p] - begin]);
  to_sort_.assign(nodes + first, nodes + end);
  sort_by(
      deepest, [&](VariableIndex j) { return deepest - depth_[j - begin]; }, nodes + first);
}

template <class Key>
void TailOrder::sort_by(std::uint32_t top, const Key& key, VariableIndex* out) {
  starts_.assign(top + 1, 0);
  for (VariableIndex j : to_sort_) ++starts_[key(j)];
  for (std::uint32_t k = 0, at = 0; k <= top; ++k) at += std::exchange(starts_[k], at);
  for (VariableIndex j : to_sort_) out[starts_[key(j)]++] = j;
}

}  // namespace dynet
