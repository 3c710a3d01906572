#pragma once
// Shape rules shared by the ops' infer_dim functions. Each throws std::invalid_argument saying
// what was expected; the graph adds the op name and the argument dims.

#include <cstdint>
#include <string>

#include "dynet_core/op_def.h"

namespace dynet {
namespace dims {

[[noreturn]] void fail(const std::string& what);
inline void require(bool ok, const char* what) {
  if (!ok) fail(what);
}

/// Fails: batch sizes a and b do not match.
[[noreturn]] void fail_batch(unsigned a, unsigned b);
/// The batch size of a result over xs: every batch size is 1 or the same n.
inline unsigned batch(const DimArgs& xs) {
  unsigned b = 1;
  for (unsigned k = 0; k < xs.size(); ++k) {
    const unsigned bk = xs[k].bd;
    if (bk == 1 || bk == b) continue;
    if (b != 1) fail_batch(b, bk);
    b = bk;
  }
  return b;
}
/// Elementwise broadcasting: every dimension (and the batch) equal or 1 on one side.
Dim broadcast(const Dim& a, const Dim& b);
/// All arguments have the same shape (batch sizes may differ as batch() allows); returns the
/// shape with the common batch size.
Dim same_shape(const DimArgs& xs);
/// A dimension index an op was given must be below Dim::kMaxDims.
void require_dim_index(unsigned d);
/// The number of dimensions DyNet gives x, which its ops check dimension indices against: the
/// same as dybatch's, except that DyNet keeps a vector reduced along its only dimension as {1},
/// where dybatch's delete_dim leaves none.
inline unsigned dynet_nd(const Dim& x) { return x.nd > 0 ? x.nd : 1; }
/// Fails unless x has dimension d (d < dynet_nd(x)), as DyNet's ops that reduce or select along d.
void require_has_dim(const Dim& x, unsigned d);
/// A size summed over arguments (`what`: which one) must not wrap around in a Dim's 32 bits;
/// below that, the graph checks the whole shape against Dim::kMaxElements.
void require_size(std::uint64_t size, const char* what);

}  // namespace dims
}  // namespace dynet
