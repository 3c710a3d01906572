#pragma once
// The geometry and walks of the convolution family, shared by its CPU kernels (convolution.cc)
// and its CUDA kernels (gpu/ops/convolution.cu): each walk visits the terms of one output element
// in the order the CPU sums them, so that a GPU thread per output element computes the CPU's value
// (conv2d's CPU kernel sums its terms in products over the same taps, equal up to rounding).

#include <cstddef>

#include "dynet_core/op_def.h"
#include "dynet_core/ops/broadcast.h"
#include "dynet_core/ops/host_device.h"

namespace dynet {
namespace conv {

/// Strides and padding mode of conv2d and maxpooling2d; the window is the filter (conv2d) or the
/// pooling size.
struct WindowData {
  unsigned stride[2];
  unsigned valid;
  unsigned window[2];  // maxpooling2d only; conv2d reads its filter's shape
};

/// Where the window of one output position starts, and the output size, along one axis.
struct Axis {
  unsigned out = 0;
  unsigned pad = 0;  // rows (or columns) of padding before the input
  Axis(unsigned in, unsigned window, unsigned stride, bool valid) {
    if (valid) {
      out = in >= window ? (in - window + stride) / stride : 0;
    } else {
      out = (in + stride - 1) / stride;
      const unsigned need = (out - 1) * stride + window;
      pad = need > in ? (need - in) / 2 : 0;
    }
  }
};

/// The geometry of one conv2d / maxpooling2d call. Positions index one channel's plane; output
/// position o is row o % rows.out of column o / rows.out.
struct Window {
  unsigned h, w, channels;  // input
  unsigned fh, fw;          // window
  unsigned sh, sw;
  Axis rows, cols;
  Window(const Dim& x, unsigned fh_, unsigned fw_, const WindowData& d)
      : h(x[0]),
        w(x[1]),
        channels(x[2]),
        fh(fh_),
        fw(fw_),
        sh(d.stride[0]),
        sw(d.stride[1]),
        rows(h, fh, sh, d.valid != 0),
        cols(w, fw, sw, d.valid != 0) {}
  DYBATCH_HD unsigned outputs() const { return rows.out * cols.out; }
  /// Calls f(input position, window position) for every tap of output o's window that falls
  /// inside the input, columns outer.
  template <class F>
  DYBATCH_HD void each_tap(unsigned o, F&& f) const {
    const unsigned orow = o % rows.out, oc = o / rows.out;
    for (unsigned kc = 0; kc < fw; ++kc) {
      const int ic = int(oc * sw + kc) - int(cols.pad);
      if (ic < 0 || ic >= int(w)) continue;
      for (unsigned kr = 0; kr < fh; ++kr) {
        const int ir = int(orow * sh + kr) - int(rows.pad);
        if (ir < 0 || ir >= int(h)) continue;
        f(unsigned(ir) + h * unsigned(ic), kr + fh * kc);
      }
    }
  }
};

/// The input position of the first maximum of output o's window over plane x; ~0u when no tap
/// of the window falls inside the input.
DYBATCH_HD unsigned window_max(const Window& g, const float* x, unsigned o) {
  unsigned best = ~0u;
  g.each_tap(o, [&](unsigned ix, unsigned) {
    if (best == ~0u || x[ix] > x[best]) best = ix;
  });
  return best;
}

/// Plane offsets of one conv2d term: output channel co of batch element t, input channel ci,
/// filter (ci, co).
struct Planes {
  std::size_t y, x, f;
};
/// Where conv2d's planes lie in its tensors.
struct ConvLayout {
  Window g;
  std::size_t y_batch, x_batch, f_batch;
  unsigned channels_out;
  explicit ConvLayout(const OpCall& c)
      : g(c.xs[0].d, c.xs[1].d[0], c.xs[1].d[1], c.op_data<WindowData>()),
        y_batch(c.y.d.batch_size()),
        x_batch(batch_stride(c.xs[0])),
        f_batch(batch_stride(c.xs[1])),
        channels_out(c.xs[1].d[3]) {}
  DYBATCH_HD Planes at(unsigned t, unsigned co, unsigned ci) const {
    return {t * y_batch + std::size_t(co) * g.outputs(), t * x_batch + std::size_t(ci) * g.h * g.w,
            t * f_batch + (std::size_t(co) * g.channels + ci) * g.fh * g.fw};
  }
};

/// filter1d_narrow's layout: y[n, j] of batch element t sums, over the filter's columns k, the
/// dot product of column j + k of x with column k of filter n, `rows` long.
struct Filter1dLayout {
  unsigned rows, width, filters, out;
  std::size_t y_batch, x_batch, f_batch;
  explicit Filter1dLayout(const OpCall& c)
      : rows(c.xs[1].d.rows()),
        width(c.xs[1].d.cols()),
        filters(c.xs[1].d[2]),
        out(c.y.d.cols()),
        y_batch(c.y.d.batch_size()),
        x_batch(batch_stride(c.xs[0])),
        f_batch(batch_stride(c.xs[1])) {}
  DYBATCH_HD std::size_t y_at(unsigned t, unsigned j, unsigned n) const {
    return t * y_batch + n + std::size_t(filters) * j;
  }
  DYBATCH_HD std::size_t x_at(unsigned t, unsigned j, unsigned k) const {
    return t * x_batch + std::size_t(j + k) * rows;
  }
  DYBATCH_HD std::size_t f_at(unsigned t, unsigned n, unsigned k) const {
    return t * f_batch + (std::size_t(n) * width + k) * rows;
  }
};

/// The sum of x[r] f[r] over r < n.
DYBATCH_HD float column_dot(const float* x, const float* f, unsigned n) {
  float s = 0;
  for (unsigned r = 0; r < n; ++r) s += x[r] * f[r];
  return s;
}

struct KMaxData {
  unsigned k, d;
};

/// A tensor as lines along one dimension: element j of line (i, o) lies at i + pre (j + len o).
struct Lines {
  unsigned pre, len, post;
  explicit Lines(const AlongDim& a) : pre(a.pre), len(a.len), post(a.post) {}
  DYBATCH_HD std::size_t at(unsigned i, unsigned j, unsigned o) const {
    return i + std::size_t(pre) * (j + std::size_t(len) * o);
  }
};

/// Calls f(kept, j) for the first k elements j of line (i, o) of x that are at least kth (the
/// k-th largest of the line), in their order; kept counts them from 0.
template <class F>
DYBATCH_HD void each_kept(const float* x, const Lines& a, unsigned i, unsigned o, unsigned k, float kth, F&& f) {
  unsigned kept = 0;
  for (unsigned j = 0; j < a.len && kept < k; ++j)
    if (x[a.at(i, j, o)] >= kth) f(kept++, j);
}

/// The index j of the term u_i v_j of y_k: k - i (convolution) or k + i (correlation), mod n.
DYBATCH_HD unsigned circular_partner(bool correlation, unsigned k, unsigned i, unsigned n) {
  return correlation ? (k + i) % n : (k + n - i) % n;
}

}  // namespace conv
}  // namespace dynet
