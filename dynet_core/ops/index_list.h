#pragma once
// Indices an op was given: copied into the graph when the node was built, or read from the
// caller's vector at every forward (DyNet's pointer overloads).

#include <algorithm>
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
  /// The indices came as a vector (DyNet's pvals), which must hold one per batch element; a single
  /// index (DyNet's pval) serves every batch element.
  bool given_as_vector;
  /// The caller's vector of vectors (DyNet's batched pointer overloads), flattened into `flat`
  /// (graph memory of `count` entries) at every read.
  const std::vector<std::vector<unsigned>>* nested = nullptr;
  unsigned* flat = nullptr;

  // Messages start with `op`, the function that made the node, at forward; inside infer_dim `op` is
  // null, as the graph names the function there.

  /// The indices as a kernel reads them, unchecked: a host_check (check_caller) ran before the launch.
  const unsigned* values() const { return nested ? flat : pindices ? pindices->data() : indices; }
  /// The check when the node is built: indices copied into the graph are below `limit`. The
  /// caller's are not read then, as DyNet reads them first at forward: a placeholder the program
  /// fills before forward is legal (check_caller checks them there).
  void check_stored(unsigned limit, const std::string& what) const {
    if (!caller_owned) check_range(nullptr, limit, what);
  }
  /// The host-side check before a launch: reads the caller's indices (flattening nested vectors) and
  /// throws std::invalid_argument if they changed size or one is not below `limit`. Indices copied
  /// into the graph were checked when the node was built.
  void check_caller(const char* op, unsigned limit, const std::string& what) const {
    if (caller_owned) check_range(op, limit, what);
  }
  /// The indices now; throws if the caller's vector changed size since the node was built.
  const unsigned* current(const char* op) const {
    if (nested) return flattened(op);
    if (!pindices) return indices;
    if (pindices->size() != count) changed_size(op, "index vector", pindices->size());
    return pindices->data();
  }
  /// Writes v over indices copied into the graph (DyNet's reusable graphs), after the checks the
  /// node's constructor made: as many indices, each below `limit`. Throws std::invalid_argument
  /// naming `op`, and writes nothing, when a check fails or the indices are the caller's.
  void overwrite(const char* op, const std::vector<unsigned>& v, unsigned limit, const std::string& what) {
    if (caller_owned)
      throw std::invalid_argument(named(op) + "the expression reads the caller's indices (a pointer overload); "
                                              "change them there");
    if (v.size() != count)
      throw std::invalid_argument(named(op) + std::to_string(v.size()) + " indices given; the expression reads " +
                                  std::to_string(count));
    IndexList{v.data(), count, nullptr, false, given_as_vector}.check_range(op, limit, what);
    std::copy(v.begin(), v.end(), const_cast<unsigned*>(indices));
  }
  /// Throws std::invalid_argument unless every index is below `limit`.
  void check_range(const char* op, unsigned limit, const std::string& what) const {
    const unsigned* idx = current(op);
    for (unsigned k = 0; k < count; ++k)
      if (idx[k] >= limit)
        throw std::invalid_argument(named(op) + "index " + std::to_string(idx[k]) + " is out of range for " + what +
                                    " of size " + std::to_string(limit));
  }

 private:
  static std::string named(const char* op) { return op ? std::string(op) + ": " : std::string(); }
  [[noreturn]] void changed_size(const char* op, const char* what, std::size_t now) const {
    throw std::invalid_argument(named(op) + "the " + what + " behind this node now holds " + std::to_string(now) +
                                " indices; it was built with " + std::to_string(count));
  }
  const unsigned* flattened(const char* op) const {
    std::size_t total = 0;
    for (const auto& v : *nested) total += v.size();
    if (total != count) changed_size(op, "index vectors", total);
    unsigned* out = flat;
    for (const auto& v : *nested) out = std::copy(v.begin(), v.end(), out);
    return flat;
  }
};

/// One index copied into the graph.
inline IndexList stored_index(const unsigned* in_graph) { return {in_graph, 1, nullptr, false, false}; }
/// A vector of indices copied into the graph.
inline IndexList stored_indices(const unsigned* in_graph, unsigned count) {
  return {in_graph, count, nullptr, false, true};
}
/// The caller's index, read at every forward.
inline IndexList caller_index(const unsigned* p) { return {p, 1, nullptr, true, false}; }
/// The caller's vector, read at every forward.
inline IndexList caller_indices(const std::vector<unsigned>* p) {
  return {p->data(), static_cast<unsigned>(p->size()), p, true, true};
}
/// The caller's vectors, read in order at every forward into `flat`, room for all their indices.
inline IndexList caller_nested_indices(const std::vector<std::vector<unsigned>>* p, unsigned* flat, unsigned count) {
  return {flat, count, nullptr, true, true, p, flat};
}

}  // namespace dynet
