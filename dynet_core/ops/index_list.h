#pragma once
// Indices an op was given: copied into the graph when the node was built, or read from the
// caller's vector at every forward (DyNet's pointer overloads).

#include <stdexcept>
#include <string>
#include <vector>

namespace dynet {

struct IndexList {
  const unsigned* indices;
  unsigned count;
  const std::vector<unsigned>* pindices;
  /// The indices are the caller's (pointer overloads): read, and so checked, at every forward;
  /// indices copied into the graph were checked once, when the node was built.
  bool caller_owned;

  // Messages start with `op`, the function that made the node, at forward; inside infer_dim `op` is
  // null, as the graph names the function there.

  /// The indices now; throws if the caller's vector changed size since the node was built.
  const unsigned* current(const char* op) const {
    if (!pindices) return indices;
    if (pindices->size() != count)
      throw std::invalid_argument(named(op) + "the index vector behind this node now holds " +
                                  std::to_string(pindices->size()) + " indices; it was built with " +
                                  std::to_string(count));
    return pindices->data();
  }
  /// Throws std::invalid_argument unless every index is below `limit`.
  void check_range(const char* op, unsigned limit, const std::string& what) const {
    const unsigned* idx = current(op);
    for (unsigned k = 0; k < count; ++k)
      if (idx[k] >= limit)
        throw std::invalid_argument(named(op) + "index " + std::to_string(idx[k]) +
                                    " is out of range for " + what + " of size " + std::to_string(limit));
  }

 private:
  static std::string named(const char* op) { return op ? std::string(op) + ": " : std::string(); }
};

/// Indices copied into the graph.
inline IndexList stored_indices(const unsigned* in_graph, unsigned count) { return {in_graph, count, nullptr, false}; }
/// The caller's index, read at every forward.
inline IndexList caller_index(const unsigned* p) { return {p, 1, nullptr, true}; }
/// The caller's vector, read at every forward.
inline IndexList caller_indices(const std::vector<unsigned>* p) {
  return {p->data(), static_cast<unsigned>(p->size()), p, true};
}

}  // namespace dynet
