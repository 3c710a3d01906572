#include "autobatch/vertex/instance_discovery.h"

#include <algorithm>

#include "autobatch/vertex/vertex_function.h"
#include "dynet_core/vertex_scope.h"

namespace dynet {

namespace {

bool is_parameter(const ComputationGraph& cg, VariableIndex a) { return cg.node(a).op->value_alias != nullptr; }

bool reads_parameter(const ComputationGraph& cg, const Node& n) {
  for (unsigned i = 0; i < n.nargs; ++i)
    if (is_parameter(cg, n.arg(i))) return true;
  return false;
}

/// Whether n and m read a common argument that is not a parameter leaf.
bool share_input(const ComputationGraph& cg, const Node& n, const Node& m) {
  for (unsigned i = 0; i < n.nargs; ++i) {
    const VariableIndex a = n.arg(i);
    if (is_parameter(cg, a)) continue;
    for (unsigned k = 0; k < m.nargs; ++k)
      if (m.arg(k) == a) return true;
  }
  return false;
}

}  // namespace

std::uint64_t discovered_key() {
  static const std::uint64_t key = named_vertex_key("unscoped");
  return key;
}

void InstanceDiscovery::close(VariableIndex begin, VariableIndex end) {
  if (end > begin) candidates_.push_back({begin, end, discovered_key()});
}

void InstanceDiscovery::find(const ComputationGraph& cg, VariableIndex begin, VariableIndex end) {
  candidates_.clear();
  anchors_.clear();
  VariableIndex open = begin, last = begin;  // the open candidate starts at `open`; `last` ends its joined nodes
  for (VariableIndex j = begin; j < end; ++j) {
    const Node& n = cg.node(j);
    if (!reads_parameter(cg, n)) {
      bool joins = false;
      for (unsigned i = 0; i < n.nargs && !joins; ++i) joins = n.arg(i) >= open && n.arg(i) < last && !anchors_.empty();
      if (joins) last = j + 1;
      continue;
    }
    bool sibling = false;
    for (std::size_t k = 0; k < anchors_.size() && !sibling; ++k) sibling = share_input(cg, n, cg.node(anchors_[k]));
    if (!sibling) {
      if (!anchors_.empty()) close(open, last);
      open = anchors_.empty() ? open : last;
      anchors_.clear();
    }
    anchors_.push_back(j);
    last = j + 1;
  }
  if (!anchors_.empty()) close(open, last);

  hashes_.clear();
  for (const VertexInstance& c : candidates_) hashes_.push_back(structural_hash(cg, c));
  sorted_.assign(hashes_.begin(), hashes_.end());
  std::sort(sorted_.begin(), sorted_.end());
  kept_.clear();
  kept_hashes_.clear();
  for (std::size_t c = 0; c < candidates_.size(); ++c) {
    const auto range = std::equal_range(sorted_.begin(), sorted_.end(), hashes_[c]);
    if (range.second - range.first < 2) continue;
    kept_.push_back(candidates_[c]);
    kept_hashes_.push_back(hashes_[c]);
  }
}

}  // namespace dynet
