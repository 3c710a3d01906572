#include "dynet_core/ops/dims.h"

#include <limits>
#include <stdexcept>

namespace dynet {
namespace dims {

void fail(const std::string& what) { throw std::invalid_argument(what); }

void fail_batch(unsigned a, unsigned b) {
  fail("batch sizes " + std::to_string(a) + " and " + std::to_string(b) + " do not match (each must be 1 or the same)");
}

// DyNet's CwiseSum and its kin: the larger number of dimensions, trailing ones of size 1 kept.
Dim broadcast(const Dim& a, const Dim& b) {
  if (a == b) return a.nd >= b.nd ? a : b;
  Dim r;
  r.nd = a.nd > b.nd ? a.nd : b.nd;
  for (unsigned k = 0; k < r.nd; ++k) {
    const unsigned sa = a[k], sb = b[k];
    if (sa != sb && sa != 1 && sb != 1)
      fail("dimension " + std::to_string(k) + " has sizes " + std::to_string(sa) + " and " + std::to_string(sb) +
           "; they must be equal or one of them 1");
    r.d[k] = sa > sb ? sa : sb;
  }
  if (a.bd != b.bd && a.bd != 1 && b.bd != 1) fail_batch(a.bd, b.bd);
  r.bd = a.bd > b.bd ? a.bd : b.bd;
  return r;
}

Dim same_shape(const DimArgs& xs) {
  for (unsigned k = 1; k < xs.size(); ++k)
    if (!xs[k].same_shape(xs[0]))
      fail("all arguments must have the same shape; argument " + std::to_string(k) + " is " +
           to_string(xs[k].single_batch()) + ", argument 0 is " + to_string(xs[0].single_batch()));
  return xs[0].with_batch(batch(xs));
}

void require_dim_index(unsigned d) {
  if (d >= Dim::kMaxDims)
    fail("dimension index " + std::to_string(d) + " is out of range (at most " + std::to_string(Dim::kMaxDims - 1) +
         ")");
}

void require_has_dim(const Dim& x, unsigned d) {
  if (d >= dynet_nd(x))
    fail("dimension " + std::to_string(d) + " is not one of the input's " + std::to_string(dynet_nd(x)) + " (input " +
         to_string(x) + ")");
}

void require_size(std::uint64_t size, const char* what) {
  if (size > std::numeric_limits<unsigned>::max())
    fail(std::string(what) + " would be " + std::to_string(size) + "; one tensor holds at most " +
         std::to_string(Dim::kMaxElements) + " (2^31-1) elements");
}

}  // namespace dims
}  // namespace dynet
