#pragma once
// Broadcasting: the batch stride of a tensor that may broadcast its one batch element (CPU and
// CUDA kernels), and CPU iteration over y = f(a, b) where a and b broadcast to y (dimensions equal
// or 1, batch included), axes with the same broadcast pattern merged, so that common cases run as
// one or two plain loops.

#include <cstddef>

#include "dynet_core/dim.h"
#include "dynet_core/tensor.h"

namespace dynet {

/// The distance between batch elements of t; 0 when t broadcasts its one batch element.
inline std::size_t batch_stride(const Tensor& t) { return t.d.bd == 1 ? 0 : t.d.batch_size(); }

/// Calls f(iy, ia, ib) for every element of y, with the matching offsets into a and b.
template <class F>
void broadcast_each(const Dim& y, const Dim& a, const Dim& b, F&& f) {
  const unsigned total = y.size();
  if (a == y && b == y) {
    for (unsigned i = 0; i < total; ++i) f(i, i, i);
    return;
  }
  constexpr unsigned kAxes = Dim::kMaxDims + 1;
  unsigned size[kAxes], sa[kAxes], sb[kAxes];
  unsigned n = 0, ra = 1, rb = 1;
  auto add_axis = [&](unsigned ys, unsigned as, unsigned bs) {
    if (ys == 1) return;
    const unsigned stride_a = as == 1 ? 0 : ra, stride_b = bs == 1 ? 0 : rb;
    if (n > 0 && stride_a == sa[n - 1] * size[n - 1] && stride_b == sb[n - 1] * size[n - 1]) {
      size[n - 1] *= ys;
    } else {
      size[n] = ys;
      sa[n] = stride_a;
      sb[n] = stride_b;
      ++n;
    }
    ra *= as;
    rb *= bs;
  };
  for (unsigned k = 0; k < Dim::kMaxDims; ++k) add_axis(y[k], a[k], b[k]);
  add_axis(y.bd, a.bd, b.bd);
  if (n == 0) {
    f(0u, 0u, 0u);
    return;
  }
  unsigned idx[kAxes] = {};
  unsigned iy = 0, ia = 0, ib = 0;
  for (;;) {
    for (unsigned j = 0; j < size[0]; ++j) f(iy + j, ia + j * sa[0], ib + j * sb[0]);
    iy += size[0];
    unsigned k = 1;
    for (; k < n; ++k) {
      ia += sa[k];
      ib += sb[k];
      if (++idx[k] < size[k]) break;
      ia -= sa[k] * size[k];
      ib -= sb[k] * size[k];
      idx[k] = 0;
    }
    if (k == n || iy >= total) return;
  }
}

/// A tensor seen as [pre, len, post] around dimension d: element (i, j, k) is at
/// i + pre * (j + len * k). `post` counts batch elements too.
struct AlongDim {
  unsigned pre = 1, len = 1, post = 1;
  AlongDim(const Dim& x, unsigned d) {
    for (unsigned k = 0; k < d && k < Dim::kMaxDims; ++k) pre *= x[k];
    len = x[d];
    post = x.size() / (pre * len);
  }
  unsigned at(unsigned i, unsigned j, unsigned k) const { return i + pre * (j + len * k); }
};

}  // namespace dynet
