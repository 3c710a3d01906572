#include "autobatch/vertex/instance_discovery.h"

#include <algorithm>

#include "autobatch/vertex/vertex_function.h"
#include "dynet_core/vertex_scope.h"

namespace dynet {

namespace {

template <class IsParameter>
bool reads_parameter(const Node& n, const IsParameter& is_parameter) {
  for (unsigned i = 0; i < n.nargs; ++i)
    if (is_parameter(n.arg(i))) return true;
  return false;
}

/// Whether n and m read a common argument that is not a parameter leaf.
template <class IsParameter>
bool share_input(const Node& n, const Node& m, const IsParameter& is_parameter) {
  for (unsigned i = 0; i < n.nargs; ++i) {
    const VariableIndex a = n.arg(i);
    if (is_parameter(a)) continue;
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

void InstanceDiscovery::trim(const ComputationGraph& cg, std::size_t c, bool keep_end) {
  VertexInstance& inst = candidates_[c];
  if (repeats_[c]) return;
  tried_.clear();          // lengths whose part has been hashed, with that hash
  VariableIndex best = 0;  // the longest part that repeats
  for (std::size_t k = 0; k < candidates_.size(); ++k) {
    const VariableIndex n = candidates_[k].end - candidates_[k].begin;
    if (n >= inst.end - inst.begin || !repeats_[k]) continue;
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
  repeats_[c] = 1;  // its part has the structure of one that repeats
  if (keep_end)
    inst.begin = inst.end - best;
  else
    inst.end = inst.begin + best;
}

void InstanceDiscovery::find(const ComputationGraph& cg, VariableIndex begin, VariableIndex end) {
  candidates_.clear();
  anchors_.clear();
  // Whether a node is a parameter leaf, kept a byte per node of the range: arguments are read far
  // more often than nodes.
  leaf_.resize(end - begin);
  const auto is_parameter = [&](VariableIndex a) {
    return a >= begin ? leaf_[a - begin] != 0 : cg.node(a).op->value_alias != nullptr;
  };
  VariableIndex open = begin, last = begin;  // the open candidate starts at `open`; `last` ends its joined nodes
  for (VariableIndex j = begin; j < end; ++j) {
    const Node& n = cg.node(j);
    leaf_[j - begin] = n.op->value_alias != nullptr;
    if (!reads_parameter(n, is_parameter)) {
      if (anchors_.empty()) continue;  // before the first anchor: waits for it
      for (unsigned i = 0; i < n.nargs; ++i)
        if (n.arg(i) >= open && n.arg(i) < last) {
          last = j + 1;
          break;
        }
      continue;
    }
    bool sibling = false;
    for (std::size_t k = 0; k < anchors_.size() && !sibling; ++k)
      sibling = share_input(n, cg.node(anchors_[k]), is_parameter);
    if (!sibling && !anchors_.empty()) {
      close(open, last);
      open = last;
      anchors_.clear();
    }
    anchors_.push_back(j);
    last = j + 1;
  }
  if (!anchors_.empty()) close(open, last);
  // A candidate's last node that joins its output with an earlier candidate's (the concat of a
  // tree node's children, built right after the right child) belongs to the candidate that reads
  // it next: left where it is, the right children's cells would differ from the left children's,
  // and each kind would run as a function and a task of its own.
  for (std::size_t c = 0; c + 1 < candidates_.size(); ++c) {
    VertexInstance &cell = candidates_[c], &next = candidates_[c + 1];
    while (cell.end - cell.begin > 1 && next.begin == cell.end) {
      const Node& n = cg.node(cell.end - 1);
      bool joins = false;
      for (unsigned i = 0; i < n.nargs && !joins; ++i)
        joins = n.arg(i) < cell.begin && n.arg(i) >= begin && !is_parameter(n.arg(i));
      if (!joins || reads_parameter(n, is_parameter)) break;
      --cell.end;
      --next.begin;
    }
  }

  hashes_.clear();
  for (const VertexInstance& c : candidates_) hashes_.push_back(structural_hash(cg, c));
  // Which candidates share their hash with another: each hash gets an id and a count.
  hash_ids_.clear();
  hash_count_.clear();
  hash_id_.resize(hashes_.size());
  for (std::size_t c = 0; c < hashes_.size(); ++c) {
    bool added;
    hash_id_[c] = hash_ids_.id(hashes_[c], &added);
    if (added) hash_count_.push_back(0);
    ++hash_count_[hash_id_[c]];
  }
  repeats_.resize(hashes_.size());
  for (std::size_t c = 0; c < hashes_.size(); ++c) repeats_[c] = hash_count_[hash_id_[c]] > 1;
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
    if (!repeats_[c]) continue;
    kept_.push_back(candidates_[c]);
    kept_hashes_.push_back(hashes_[c]);
  }
}

}  // namespace dynet
