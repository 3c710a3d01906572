#pragma once
// Shared by the ops that score one class per batch element of a column vector
// (pickneglogsoftmax, hinge): the shape rule and the walk over a node group's targets.

#include "dynet_core/op_def.h"
#include "dynet_core/ops/dims.h"
#include "dynet_core/ops/index_list.h"

namespace dynet {

/// x must be a column vector per batch element; one class for all of them or a vector of one each
/// (as DyNet's PickNegLogSoftmax and Hinge, a vector of one class does not serve a batch).
inline Dim infer_class_targets(const Dim& x, const IndexList& l) {
  if (x.ndims() > 2 || x.cols() != 1) dims::fail("x must be a column vector (one per batch element)");
  l.check_stored(x.rows(), "the classes");
  if (l.given_as_vector && l.count != x.bd)
    dims::fail("a vector of " + std::to_string(l.count) + " classes for a batch of " + std::to_string(x.bd) +
               " (give one class, or a vector of one per batch element)");
  return Dim({1}, x.bd);
}

/// The host-side check before a launch: the classes the caller's vectors hold now are in range;
/// list_of(node) gives the node's IndexList and name_of(node) the function that made it, which
/// errors name.
template <class NameOf, class ListOf>
void check_class_targets(const OpCall& c, NameOf&& name_of, ListOf&& list_of) {
  for (unsigned j = 0; j < c.nodes; ++j) list_of(j).check_caller(name_of(j), c.xs[0].d.rows(), "the classes");
}

/// Calls f(node, batch element, class) for every output of a node group.
template <class ListOf, class F>
void for_each_class_target(const OpCall& c, ListOf&& list_of, F&& f) {
  const unsigned per_node = c.y.d.bd / c.nodes;
  for (unsigned j = 0; j < c.nodes; ++j) {
    const IndexList& l = list_of(j);
    const unsigned* v = l.values();
    for (unsigned t = 0; t < per_node; ++t) f(j, j * per_node + t, v[l.count == 1 ? 0 : t]);
  }
}

}  // namespace dynet
