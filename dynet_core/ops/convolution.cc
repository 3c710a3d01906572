#include "dynet_core/ops/convolution.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "dynet_core/gemm/gemm.h"
#include "dynet_core/graph.h"
#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/broadcast.h"
#include "dynet_core/ops/called_as.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/convolution_walks.h"
#include "dynet_core/ops/dims.h"
#include "dynet_core/ops/reductions.h"
#include "dynet_core/ops/registry.h"
#include "dynet_core/ops/select.h"
#include "dynet_core/ops/shape.h"

namespace dynet {

namespace {

using conv::Axis;
using conv::KMaxData;
using conv::Window;
using conv::WindowData;

/// Calls f(output position, input position, window position) for every tap of every output
/// position of g, in the order of the CUDA kernels' walks.
template <class F>
void each_tap(const Window& g, F&& f) {
  for (unsigned o = 0; o < g.outputs(); ++o) g.each_tap(o, [&](unsigned ix, unsigned k) { f(o, ix, k); });
}

void require_window(const Axis& a, const char* what, unsigned in, unsigned window) {
  if (a.out == 0)
    dims::fail(std::string("the ") + what + " window of " + std::to_string(window) + " is larger than the input's " +
               std::to_string(in) + " for a VALID operation");
}

Dim infer_conv2d(const DimArgs& xs, const void* data) {
  const WindowData& d = *static_cast<const WindowData*>(data);
  const Dim& x = xs[0];
  const Dim& f = xs[1];
  if (x.ndims() > 3) dims::fail("x must be {H, W, Ci} (3 dimensions at most), got " + to_string(x.single_batch()));
  if (f.ndims() != 4 && !(f.ndims() < 4 && x[2] == f[2]))
    dims::fail("the filters must be {FH, FW, Ci, Co}, got " + to_string(f.single_batch()));
  if (f[2] != x[2])
    dims::fail("the filters have " + std::to_string(f[2]) + " input channels but x has " + std::to_string(x[2]));
  if (xs.size() == 3 && (xs[2].ndims() != 1 || xs[2].rows() != f[3]))
    dims::fail("the bias must be a vector of the " + std::to_string(f[3]) + " output channels, got " +
               to_string(xs[2].single_batch()));
  const Window g(x, f[0], f[1], d);
  require_window(g.rows, "row", x[0], f[0]);
  require_window(g.cols, "column", x[1], f[1]);
  return Dim({g.rows.out, g.cols.out, f[3]}, dims::batch(xs));
}

/// conv2d on the CPU as products: for each batch element, the input's taps as a matrix P of
/// (output positions) x (filter positions x input channels), zero where the window leaves the
/// input, so that y = P F over the filter F of (filter positions x input channels) x (output
/// channels), which is how the filter lies in memory; backward is F's P^T dy and x's dy F^T
/// scattered back through P's taps. The CUDA kernels walk the taps one output at a time instead.
struct Im2col {
  const conv::ConvLayout l;
  const std::size_t rows, cols, per_channel;  // P is rows x cols; a channel's filter positions
  explicit Im2col(const OpCall& c)
      : l(c), rows(l.g.outputs()), cols(std::size_t(l.g.fh) * l.g.fw * l.g.channels), per_channel(l.g.fh * l.g.fw) {}
  /// Calls f(P offset, input offset) for every tap of batch element t's input.
  template <class F>
  void each_entry(unsigned t, F&& f) const {
    for (unsigned ci = 0; ci < l.g.channels; ++ci) {
      const std::size_t x = l.at(t, 0, ci).x, column = ci * per_channel;
      for (unsigned o = 0; o < rows; ++o)
        l.g.each_tap(o, [&](unsigned ix, unsigned k) { f(o + rows * (column + k), x + ix); });
    }
  }
  /// Tensors of P, F and y (or their gradients) of batch element t, for gemm.
  Tensor p(float* v, Device* d) const { return Tensor(Dim({unsigned(rows), unsigned(cols)}), v, d); }
  Tensor f(const Tensor& filter, unsigned t) const {
    return Tensor(Dim({unsigned(cols), l.channels_out}), filter.v + t * l.f_batch, filter.device);
  }
  Tensor y(const Tensor& out, unsigned t) const {
    return Tensor(Dim({unsigned(rows), l.channels_out}), out.v + t * l.y_batch, out.device);
  }
};

void conv2d_forward(const OpCall& c) {
  const unsigned yplane = c.y.d[0] * c.y.d[1];
  for (unsigned t = 0; t < c.y.d.bd; ++t)
    for (unsigned co = 0; co < c.y.d[2]; ++co) {
      float* y = c.y.v + std::size_t(t) * c.y.d.batch_size() + std::size_t(co) * yplane;
      const float bias = c.nargs == 3 ? c.xs[2].batch_ptr(t)[co] : 0.f;
      std::fill(y, y + yplane, bias);
    }
  const Im2col m(c);
  float* p = c.scratch_floats(m.rows * m.cols);
  for (unsigned t = 0; t < c.y.d.bd; ++t) {
    std::fill(p, p + m.rows * m.cols, 0.f);
    m.each_entry(t, [&](std::size_t ip, std::size_t ix) { p[ip] = c.xs[0].v[ix]; });
    gemm(m.y(c.y, t), m.p(p, c.y.device), false, m.f(c.xs[1], t), false, true);
  }
}
void conv2d_backward(const OpCall& c, unsigned i) {
  if (i == 2) {
    const unsigned yplane = c.y.d[0] * c.y.d[1];
    for (unsigned t = 0; t < c.y.d.bd; ++t)
      for (unsigned co = 0; co < c.y.d[2]; ++co) {
        const float* dy = c.dy.v + std::size_t(t) * c.y.d.batch_size() + std::size_t(co) * yplane;
        float s = 0;
        for (unsigned e = 0; e < yplane; ++e) s += dy[e];
        c.dx.batch_ptr(t)[co] += s;
      }
    return;
  }
  const Im2col m(c);
  float* p = c.scratch_floats(m.rows * m.cols);
  for (unsigned t = 0; t < c.y.d.bd; ++t) {
    if (i == 1) {  // dF += P^T dy
      std::fill(p, p + m.rows * m.cols, 0.f);
      m.each_entry(t, [&](std::size_t ip, std::size_t ix) { p[ip] = c.xs[0].v[ix]; });
      gemm(m.f(c.dx, t), m.p(p, c.y.device), true, m.y(c.dy, t), false, true);
    } else {  // dP = dy F^T, scattered back to the taps' inputs
      gemm(m.p(p, c.y.device), m.y(c.dy, t), false, m.f(c.xs[1], t), true, false);
      m.each_entry(t, [&](std::size_t ip, std::size_t ix) { c.dx.v[ix] += p[ip]; });
    }
  }
}

Expression check_conv2d(CheckCase& c) {
  const unsigned bd = c.batch(), ci = c.uniform(1, 2), co = c.uniform(1, 2);
  const unsigned fh = c.uniform(1, 3), fw = c.uniform(1, 3);
  const Dim xd({fh + c.uniform(0, 3), fw + c.uniform(0, 3), ci}, c.uniform(0, 1) ? bd : 1);
  const Expression x = c.input(xd);
  const Expression f = c.parameter(Dim({fh, fw, ci, co}));
  const std::vector<unsigned> stride{c.uniform(1, 2), c.uniform(1, 3)};
  const bool valid = c.uniform(0, 1) == 1;
  if (c.uniform(0, 1)) return conv2d(x, f, stride, valid);
  return conv2d(x, f, c.parameter(Dim({co})), stride, valid);
}

OpDef Conv2dOp = OpRow("conv2d")
                     .arity(-1)
                     .infer(infer_conv2d)
                     .forward(conv2d_forward)
                     .backward(conv2d_backward)
                     .saves(kSavesInputs)
                     .batch(ConcatBatch().sig_bytes(sizeof(WindowData)).broadcasts_all())
                     .check(check_conv2d);

Dim infer_maxpool(const DimArgs& xs, const void* data) {
  const WindowData& d = *static_cast<const WindowData*>(data);
  const Dim& x = xs[0];
  if (x.ndims() > 3) dims::fail("x must be {H, W, C} (3 dimensions at most), got " + to_string(x.single_batch()));
  const Window g(x, d.window[0], d.window[1], d);
  require_window(g.rows, "row", x[0], d.window[0]);
  require_window(g.cols, "column", x[1], d.window[1]);
  // As many dimensions as x, as DyNet's MaxPooling2D.
  if (x.ndims() < 3) return Dim({g.rows.out, g.cols.out}, x.bd);
  return Dim({g.rows.out, g.cols.out, x[2]}, x.bd);
}

/// Calls f(output offset, input offset of the window's first maximum) for every output element.
struct WindowMaxima {
  template <class F>
  static void each(const OpCall& c, F&& f) {
    const WindowData& d = c.op_data<WindowData>();
    const Window g(c.xs[0].d, d.window[0], d.window[1], d);
    const unsigned yplane = g.rows.out * g.cols.out, xplane = g.h * g.w;
    const unsigned planes = c.y.d.size() / yplane;
    for (unsigned p = 0; p < planes; ++p)
      for (unsigned o = 0; o < yplane; ++o) {
        const unsigned best = conv::window_max(g, c.xs[0].v + std::size_t(p) * xplane, o);
        if (best != ~0u) f(std::size_t(p) * yplane + o, std::size_t(p) * xplane + best);
      }
  }
};

/// Ops whose output elements are elements of x: Picks::each(c, f) calls f(y offset, x offset)
/// for each; forward copies them, backward adds the gradient back.
template <class Picks>
void picked_forward(const OpCall& c) {
  Picks::each(c, [&](std::size_t iy, std::size_t ix) { c.y.v[iy] = c.xs[0].v[ix]; });
}
template <class Picks>
void picked_backward(const OpCall& c, unsigned) {
  Picks::each(c, [&](std::size_t iy, std::size_t ix) { c.dx.v[ix] += c.dy.v[iy]; });
}
OpDef MaxPooling2dOp =
    OpRow("maxpooling2d")
        .arity(1)
        .infer(infer_maxpool)
        .forward(picked_forward<WindowMaxima>)
        .backward(picked_backward<WindowMaxima>)
        .saves(kSavesInputs)
        .batch(ConcatBatch().sig_bytes(sizeof(WindowData)))
        .check([](CheckCase& c) {
          const unsigned kh = c.uniform(1, 3), kw = c.uniform(1, 3);
          const Dim xd({kh + c.uniform(0, 3), kw + c.uniform(0, 3), c.uniform(1, 2)}, c.batch());
          return maxpooling2d(c.distinct_input(xd), {kh, kw}, {c.uniform(1, 3), c.uniform(1, 2)}, c.uniform(0, 1) == 1);
        });

WindowData window_data(const char* op, const std::vector<unsigned>& stride, bool is_valid,
                       const std::vector<unsigned>& window) {
  if (stride.size() != 2 || stride[0] == 0 || stride[1] == 0)
    throw std::invalid_argument(std::string(op) + ": stride must be two positive numbers {rows, columns}, got " +
                                std::to_string(stride.size()) + " values");
  WindowData d{{stride[0], stride[1]}, is_valid ? 1u : 0u, {0, 0}};
  if (!window.empty()) {
    if (window.size() != 2 || window[0] == 0 || window[1] == 0)
      throw std::invalid_argument(std::string(op) + ": ksize must be two positive numbers {rows, columns}, got " +
                                  std::to_string(window.size()) + " values");
    d.window[0] = window[0];
    d.window[1] = window[1];
  }
  return d;
}

Dim infer_filter1d(const DimArgs& xs, const void*) {
  const Dim& x = xs[0];
  const Dim& f = xs[1];
  if (x.ndims() > 2) dims::fail("x must be a matrix {rows, columns}, got " + to_string(x.single_batch()));
  if (f.ndims() > 3 || f.rows() != x.rows() || f.cols() > x.cols())
    dims::fail("the filters must be {" + std::to_string(x.rows()) + ", FC} or {" + std::to_string(x.rows()) +
               ", FC, N} with FC <= " + std::to_string(x.cols()) + ", got " + to_string(f.single_batch()));
  return Dim({f[2], x.cols() - f.cols() + 1}, dims::batch(xs));
}

/// Calls g(y offset, x offset, f offset, n) for every column product of length n (rows).
template <class G>
void each_filter_column(const OpCall& c, G&& g) {
  const conv::Filter1dLayout l(c);
  for (unsigned t = 0; t < c.y.d.bd; ++t)
    for (unsigned j = 0; j < l.out; ++j)
      for (unsigned n = 0; n < l.filters; ++n)
        for (unsigned k = 0; k < l.width; ++k) g(l.y_at(t, j, n), l.x_at(t, j, k), l.f_at(t, n, k), l.rows);
}
void filter1d_forward(const OpCall& c) {
  std::memset(c.y.v, 0, c.y.d.size() * sizeof(float));
  each_filter_column(c, [&](std::size_t iy, std::size_t ix, std::size_t jf, unsigned n) {
    c.y.v[iy] += conv::column_dot(c.xs[0].v + ix, c.xs[1].v + jf, n);
  });
}
void filter1d_backward(const OpCall& c, unsigned i) {
  each_filter_column(c, [&](std::size_t iy, std::size_t ix, std::size_t jf, unsigned n) {
    const float g = c.dy.v[iy];
    if (i == 0)
      for (unsigned r = 0; r < n; ++r) c.dx.v[ix + r] += g * c.xs[1].v[jf + r];
    else
      for (unsigned r = 0; r < n; ++r) c.dx.v[jf + r] += g * c.xs[0].v[ix + r];
  });
}
OpDef Filter1dNarrowOp =
    OpRow("filter1d_narrow")
        .arity(2)
        .infer(infer_filter1d)
        .forward(filter1d_forward)
        .backward(filter1d_backward)
        .saves(kSavesInputs)
        .batch(ConcatBatch().broadcasts_all())
        .check([](CheckCase& c) {
          const unsigned rows = c.uniform(1, 3), width = c.uniform(1, 3), bd = c.batch();
          const Expression x = c.input(Dim({rows, width + c.uniform(0, 3)}, bd));
          const Dim fd = c.uniform(0, 1) ? Dim({rows, width}) : Dim({rows, width, c.uniform(1, 3)});
          return filter1d_narrow(x, c.parameter(fd));
        });

Dim infer_kmax(const DimArgs& xs, const void* data) {
  const KMaxData& m = *static_cast<const KMaxData*>(data);
  const Dim& x = xs[0];
  if (m.d >= x.ndims())
    dims::fail("dimension " + std::to_string(m.d) + " is out of range for x " + to_string(x.single_batch()));
  if (m.k < 1 || m.k > x[m.d])
    dims::fail("k = " + std::to_string(m.k) + " must be in [1, " + std::to_string(x[m.d]) +
               "], the size of dimension " + std::to_string(m.d));
  Dim y = x;
  y.set(m.d, m.k);
  return y;
}

/// Calls f(y offset, x offset) for the k kept elements of every line along d, in their order.
struct KeptElements {
  template <class F>
  static void each(const OpCall& c, F&& f) {
    const KMaxData& m = c.op_data<KMaxData>();
    const AlongDim a(c.xs[0].d, m.d), b(c.y.d, m.d);
    float* values = c.scratch_floats(a.len);
    for (unsigned o = 0; o < a.post; ++o)
      for (unsigned i = 0; i < a.pre; ++i) {
        for (unsigned j = 0; j < a.len; ++j) values[j] = c.xs[0].v[a.at(i, j, o)];
        std::nth_element(values, values + (m.k - 1), values + a.len, [](float p, float q) { return p > q; });
        conv::each_kept(c.xs[0].v, conv::Lines(a), i, o, m.k, values[m.k - 1],
                        [&](unsigned kept, unsigned j) { f(b.at(i, kept, o), a.at(i, j, o)); });
      }
  }
};
OpDef KMaxPoolingOp = OpRow("kmax_pooling")
                          .arity(1)
                          .infer(infer_kmax)
                          .forward(picked_forward<KeptElements>)
                          .backward(picked_backward<KeptElements>)
                          .saves(kSavesInputs)
                          .batch(ConcatBatch().sig_bytes(sizeof(KMaxData)))
                          .check([](CheckCase& c) {
                            const Dim xd = c.shape(2, 3, c.batch());
                            const unsigned d = c.uniform(0, xd.ndims() - 1);
                            return kmax_pooling(c.distinct_input(xd), c.uniform(1, xd[d]), d);
                          });

Dim infer_circular(const DimArgs& xs, const void*) {
  if (xs[0].ndims() != 1 || !xs[0].same_shape(xs[1])) dims::fail("u and v must be vectors of one size");
  return xs[0].with_batch(dims::batch(xs));
}

/// Calls f(t, k, i, j) for every term u_i v_j of y_k (conv::circular_partner).
template <bool Correlation, class F>
void each_term(const OpCall& c, F&& f) {
  const unsigned n = c.y.d.rows();
  for (unsigned t = 0; t < c.y.d.bd; ++t)
    for (unsigned k = 0; k < n; ++k)
      for (unsigned i = 0; i < n; ++i) f(t, k, i, conv::circular_partner(Correlation, k, i, n));
}
template <bool Correlation>
void circular_forward(const OpCall& c) {
  const unsigned n = c.y.d.rows();
  std::memset(c.y.v, 0, c.y.d.size() * sizeof(float));
  each_term<Correlation>(c, [&](unsigned t, unsigned k, unsigned i, unsigned j) {
    c.y.v[t * n + k] += c.xs[0].batch_ptr(t)[i] * c.xs[1].batch_ptr(t)[j];
  });
}
template <bool Correlation>
void circular_backward(const OpCall& c, unsigned arg) {
  const unsigned n = c.y.d.rows();
  each_term<Correlation>(c, [&](unsigned t, unsigned k, unsigned i, unsigned j) {
    const float g = c.dy.v[t * n + k];
    if (arg == 0)
      c.dx.batch_ptr(t)[i] += g * c.xs[1].batch_ptr(t)[j];
    else
      c.dx.batch_ptr(t)[j] += g * c.xs[0].batch_ptr(t)[i];
  });
}
Expression check_circular(CheckCase& c, bool correlation) {
  const unsigned n = c.uniform(1, 5), bd = c.batch();
  const Expression u = c.input(Dim({n}, bd)), v = c.input(Dim({n}, c.uniform(0, 1) ? bd : 1));
  return correlation ? circ_corr(u, v) : circ_conv(u, v);
}
OpDef CircConvOp = OpRow("circ_conv")
                       .arity(2)
                       .infer(infer_circular)
                       .forward(circular_forward<false>)
                       .backward(circular_backward<false>)
                       .saves(kSavesInputs)
                       .batch(ConcatBatch().broadcasts_all())
                       .check([](CheckCase& c) { return check_circular(c, false); });
OpDef CircCorrOp = OpRow("circ_corr")
                       .arity(2)
                       .infer(infer_circular)
                       .forward(circular_forward<true>)
                       .backward(circular_backward<true>)
                       .saves(kSavesInputs)
                       .batch(ConcatBatch().broadcasts_all())
                       .check([](CheckCase& c) { return check_circular(c, true); });

}  // namespace

Expression conv2d(const Expression& x, const Expression& f, const std::vector<unsigned>& stride, bool is_valid) {
  ComputationGraph& g = graph_of(x, "conv2d");
  return g.append(Conv2dOp, {x, f}, g.store(window_data("conv2d", stride, is_valid, {})));
}
Expression conv2d(const Expression& x, const Expression& f, const Expression& b, const std::vector<unsigned>& stride,
                  bool is_valid) {
  ComputationGraph& g = graph_of(x, "conv2d");
  return g.append(Conv2dOp, {x, f, b}, g.store(window_data("conv2d", stride, is_valid, {})));
}
Expression maxpooling2d(const Expression& x, const std::vector<unsigned>& ksize, const std::vector<unsigned>& stride,
                        bool is_valid) {
  ComputationGraph& g = graph_of(x, "maxpooling2d");
  return g.append(MaxPooling2dOp, {x}, g.store(window_data("maxpooling2d", stride, is_valid, ksize)));
}
Expression filter1d_narrow(const Expression& x, const Expression& f) {
  return graph_of(x, "filter1d_narrow").append(Filter1dNarrowOp, {x, f});
}
Expression kmax_pooling(const Expression& x, unsigned k, unsigned d) {
  ComputationGraph& g = graph_of(x, "kmax_pooling");
  return g.append(KMaxPoolingOp, {x}, g.store(KMaxData{k, d}));
}
Expression fold_rows(const Expression& x, unsigned nrows) {
  return called_as("fold_rows", [&] {
    const Dim xd = x.dim();
    if (nrows == 0 || xd.ndims() > 2 || xd.rows() % nrows != 0)
      throw std::invalid_argument("fold_rows: x " + to_string(xd) +
                                  " must be a matrix whose rows divide into groups of " + std::to_string(nrows));
    return sum_dim(reshape(x, Dim({nrows, xd.rows() / nrows, xd.cols()})), {0});
  });
}
Expression kmh_ngram(const Expression& x, unsigned n) {
  return called_as("kmh_ngram", [&] {
    const Dim xd = x.dim();
    if (xd.ndims() > 2 || n == 0 || n > xd.cols())
      throw std::invalid_argument("kmh_ngram: x " + to_string(xd) +
                                  " must be a matrix of at least n columns, n >= 1 (n = " + std::to_string(n) + ")");
    std::vector<Expression> grams;
    for (unsigned k = 0; k < n; ++k) grams.push_back(pick_range(x, k, k + xd.cols() - n + 1, 1));
    return sum(grams);
  });
}
Expression circ_conv(const Expression& u, const Expression& v) {
  return graph_of(u, "circ_conv").append(CircConvOp, {u, v});
}
Expression circ_corr(const Expression& u, const Expression& v) {
  return graph_of(u, "circ_corr").append(CircCorrOp, {u, v});
}

void register_convolution_ops() {
  register_ops({&Conv2dOp, &MaxPooling2dOp, &Filter1dNarrowOp, &KMaxPoolingOp, &CircConvOp, &CircCorrOp});
}

}  // namespace dynet
