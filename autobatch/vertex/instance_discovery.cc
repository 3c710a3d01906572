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

bool InstanceDiscovery::repeats(std::uint64_t hash) const {
  const auto range = std::equal_range(sorted_.begin(), sorted_.end(), hash);
  return range.second - range.first >= 2;
}

void InstanceDiscovery::trim(const ComputationGraph& cg, std::size_t c, bool keep_end) {
  VertexInstance& inst = candidates_[c];
  if (repeats(hashes_[c])) return;
  tried_.clear();  // lengths whose part has been hashed, with that hash
  VariableIndex best = 0;  // the longest part that repeats
  for (std::size_t k = 0; k < candidates_.size(); ++k) {
    const VariableIndex n = candidates_[k].end - candidates_[k].begin;
    if (n >= inst.end - inst.begin || !repeats(hashes_[k])) continue;
    std::uint64_t part = 0;
    const auto seen = std::find_if(tried_.begin(), tried_.end(), [n](const auto& t) { return t.first == n; });
    if (seen != tried_.end()) {
      part = seen->second;
    } else {
      const VertexInstance p = keep_end ? VertexInstance{inst.end - n, inst.end, inst.key}
                                        : VertexInstance{inst.begin, inst.begin + n, inst.key};
      part = structural_hash(cg, p);
      tried_.emplace_back(n, part);
    }
    if (part == hashes_[k] && n > best) {
      best = n;
      hashes_[c] = part;
    }
  }
  if (best == 0) return;
  if (keep_end) inst.begin = inst.end - best;
  else inst.end = inst.begin + best;
}

void InstanceDiscovery::find(const ComputationGraph& cg, VariableIndex begin, VariableIndex end) {
  candidates_.clear();
  anchors_.clear();
  VariableIndex open = begin, last = begin;  // the open candidate starts at `open`; `last` ends its joined nodes
  for (VariableIndex j = begin; j < end; ++j) {
    const Node& n = cg.node(j);
    if (!reads_parameter(cg, n)) {
      if (anchors_.empty()) continue;  // before the first anchor: waits for it
      for (unsigned i = 0; i < n.nargs; ++i)
        if (n.arg(i) >= open && n.arg(i) < last) {
          last = j + 1;
          break;
        }
      continue;
    }
    bool sibling = false;
    for (std::size_t k = 0; k < anchors_.size() && !sibling; ++k) sibling = share_input(cg, n, cg.node(anchors_[k]));
    if (!sibling && !anchors_.empty()) {
      close(open, last);
      open = last;
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
  // The first candidate also holds what precedes the first cell (parameters read once per graph,
  // inputs), the last one what follows the last cell (a sum over cells): each is cut down to its
  // part that has a repeating structure, if one has.
  if (!candidates_.empty()) {
    trim(cg, 0, true);
    trim(cg, candidates_.size() - 1, false);
  }
  kept_.clear();
  kept_hashes_.clear();
  for (std::size_t c = 0; c < candidates_.size(); ++c) {
    if (!repeats(hashes_[c])) continue;
    kept_.push_back(candidates_[c]);
    kept_hashes_.push_back(hashes_[c]);
  }
}

}  // namespace dynet
