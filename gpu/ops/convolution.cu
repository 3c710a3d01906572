// conv2d, maxpooling2d, filter1d_narrow, kmax_pooling, circ_conv and circ_corr: a thread per
// output element walks its terms through the CPU's walks (dynet_core/ops/convolution_walks.h), so
// it sums them in the CPU's order; backward threads add into gradients that other threads share
// (overlapping windows, broadcast arguments) atomically.

#include "dynet_core/ops/convolution_walks.h"
#include "gpu/kernel_table.h"
#include "gpu/launch.cuh"

namespace dynet {
namespace gpu {

namespace {

using conv::ConvLayout;
using conv::Filter1dLayout;
using conv::Lines;
using conv::Planes;
using conv::Window;

/// Output element e of conv2d as (batch element, output channel, position).
struct ConvOutput {
  unsigned t, co, o;
  __device__ ConvOutput(const ConvLayout& l, std::size_t e)
      : t(unsigned(e / (std::size_t(l.channels_out) * l.g.outputs()))),
        co(unsigned(e / l.g.outputs() % l.channels_out)),
        o(unsigned(e % l.g.outputs())) {}
};

__global__ void conv2d_kernel(ConvLayout l, const float* x, const float* f, const float* bias, std::size_t bias_batch,
                              float* y, std::size_t n) {
  DYBATCH_GRID_STRIDE(e, n) {
    const ConvOutput out(l, e);
    float s = bias ? bias[out.t * bias_batch + out.co] : 0.f;
    for (unsigned ci = 0; ci < l.g.channels; ++ci) {
      const Planes p = l.at(out.t, out.co, ci);
      l.g.each_tap(out.o, [&](unsigned ix, unsigned k) { s += x[p.x + ix] * f[p.f + k]; });
    }
    y[e] = s;
  }
}

/// Thread e handles output element e / channels of input channel e % channels.
__global__ void conv2d_backward_kernel(ConvLayout l, const float* x, const float* f, const float* dy, float* dx,
                                       unsigned arg, std::size_t n) {
  DYBATCH_GRID_STRIDE(e, n) {
    const unsigned ci = unsigned(e % l.g.channels);
    const ConvOutput out(l, e / l.g.channels);
    const Planes p = l.at(out.t, out.co, ci);
    const float g = dy[p.y + out.o];
    if (arg == 0)
      l.g.each_tap(out.o, [&](unsigned ix, unsigned k) { atomicAdd(dx + p.x + ix, g * f[p.f + k]); });
    else
      l.g.each_tap(out.o, [&](unsigned ix, unsigned k) { atomicAdd(dx + p.f + k, g * x[p.x + ix]); });
  }
}

/// Thread e sums the plane of output channel e % channels of batch element e / channels.
__global__ void conv2d_bias_backward_kernel(const float* dy, float* db, std::size_t db_batch, unsigned channels,
                                            unsigned plane, std::size_t n) {
  DYBATCH_GRID_STRIDE(e, n) {
    float s = 0;
    for (unsigned k = 0; k < plane; ++k) s += dy[e * plane + k];
    atomicAdd(db + (e / channels) * db_batch + e % channels, s);
  }
}

void conv2d_forward(const OpCall& c) {
  const ConvLayout l(c);
  const std::size_t n = c.y.d.size();
  const bool biased = c.nargs == 3;
  conv2d_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(l, c.xs[0].v, c.xs[1].v, biased ? c.xs[2].v : nullptr,
                                                              biased ? batch_stride(c.xs[2]) : 0, c.y.v, n);
  check_launch("conv2d forward");
}

void conv2d_backward(const OpCall& c, unsigned i) {
  const ConvLayout l(c);
  if (i == 2) {
    const std::size_t n = std::size_t(c.y.d.bd) * l.channels_out;
    conv2d_bias_backward_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(c.dy.v, c.dx.v, batch_stride(c.dx),
                                                                              l.channels_out, l.g.outputs(), n);
  } else {
    const std::size_t n = c.y.d.size() * l.g.channels;
    conv2d_backward_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(l, c.xs[0].v, c.xs[1].v, c.dy.v, c.dx.v, i, n);
  }
  check_launch("conv2d backward");
}

/// Output element e of maxpooling2d: plane e / g.outputs(), position e % g.outputs().
__global__ void maxpool_kernel(Window g, const float* x, float* y, const float* dy, float* dx, std::size_t n) {
  DYBATCH_GRID_STRIDE(e, n) {
    const std::size_t xp = e / g.outputs() * g.h * g.w;
    const unsigned best = conv::window_max(g, x + xp, unsigned(e % g.outputs()));
    if (best == ~0u) continue;
    if (y)
      y[e] = x[xp + best];
    else
      atomicAdd(dx + xp + best, dy[e]);
  }
}

Window pooling_window(const OpCall& c) {
  const conv::WindowData& d = c.op_data<conv::WindowData>();
  return Window(c.xs[0].d, d.window[0], d.window[1], d);
}

void maxpool_forward(const OpCall& c) {
  const std::size_t n = c.y.d.size();
  maxpool_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(pooling_window(c), c.xs[0].v, c.y.v, nullptr, nullptr,
                                                               n);
  check_launch("maxpooling2d forward");
}

void maxpool_backward(const OpCall& c, unsigned) {
  const std::size_t n = c.y.d.size();
  maxpool_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(pooling_window(c), c.xs[0].v, nullptr, c.dy.v, c.dx.v,
                                                               n);
  check_launch("maxpooling2d backward");
}

/// Output element e of filter1d_narrow as (batch element, column j, filter).
struct Filter1dOutput {
  unsigned t, j, f;
  __device__ Filter1dOutput(const Filter1dLayout& l, std::size_t e)
      : t(unsigned(e / (std::size_t(l.filters) * l.out))),
        j(unsigned(e / l.filters % l.out)),
        f(unsigned(e % l.filters)) {}
};

__global__ void filter1d_kernel(Filter1dLayout l, const float* x, const float* f, float* y, std::size_t n) {
  DYBATCH_GRID_STRIDE(e, n) {
    const Filter1dOutput out(l, e);
    float s = 0;
    for (unsigned k = 0; k < l.width; ++k)
      s += conv::column_dot(x + l.x_at(out.t, out.j, k), f + l.f_at(out.t, out.f, k), l.rows);
    y[l.y_at(out.t, out.j, out.f)] = s;
  }
}

/// Thread e handles the filter column e % width of output element e / width.
__global__ void filter1d_backward_kernel(Filter1dLayout l, const float* x, const float* f, const float* dy, float* dx,
                                         unsigned arg, std::size_t n) {
  DYBATCH_GRID_STRIDE(e, n) {
    const unsigned k = unsigned(e % l.width);
    const Filter1dOutput out(l, e / l.width);
    const float g = dy[l.y_at(out.t, out.j, out.f)];
    const std::size_t ix = l.x_at(out.t, out.j, k), jf = l.f_at(out.t, out.f, k);
    for (unsigned r = 0; r < l.rows; ++r)
      if (arg == 0)
        atomicAdd(dx + ix + r, g * f[jf + r]);
      else
        atomicAdd(dx + jf + r, g * x[ix + r]);
  }
}

void filter1d_forward(const OpCall& c) {
  const std::size_t n = c.y.d.size();
  filter1d_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(Filter1dLayout(c), c.xs[0].v, c.xs[1].v, c.y.v, n);
  check_launch("filter1d_narrow forward");
}

void filter1d_backward(const OpCall& c, unsigned i) {
  const Filter1dLayout l(c);
  const std::size_t n = c.y.d.size() * l.width;
  filter1d_backward_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(l, c.xs[0].v, c.xs[1].v, c.dy.v, c.dx.v, i, n);
  check_launch("filter1d_narrow backward");
}

/// The k-th largest element of line (i, o), counted with repeats, as the CPU's nth_element finds it.
__device__ float kth_largest(const float* x, const Lines& a, unsigned i, unsigned o, unsigned k) {
  for (unsigned j = 0; j < a.len; ++j) {
    const float v = x[a.at(i, j, o)];
    unsigned greater = 0, at_least = 0;
    for (unsigned q = 0; q < a.len; ++q) {
      const float w = x[a.at(i, q, o)];
      greater += w > v;
      at_least += w >= v;
    }
    if (greater < k && at_least >= k) return v;
  }
  return x[a.at(i, 0, o)];  // only for lines holding NaNs
}

/// Thread per line (i, o) of x along d: forward copies the kept elements to y, backward adds dy
/// back to them (lines are disjoint, so no two threads share an element).
__global__ void kmax_kernel(Lines a, Lines b, unsigned k, const float* x, float* y, const float* dy, float* dx,
                            std::size_t n) {
  DYBATCH_GRID_STRIDE(line, n) {
    const unsigned i = unsigned(line % a.pre), o = unsigned(line / a.pre);
    conv::each_kept(x, a, i, o, k, kth_largest(x, a, i, o, k), [&](unsigned kept, unsigned j) {
      if (y)
        y[b.at(i, kept, o)] = x[a.at(i, j, o)];
      else
        dx[a.at(i, j, o)] += dy[b.at(i, kept, o)];
    });
  }
}

void kmax_launch(const OpCall& c, float* y, const float* dy, float* dx) {
  const conv::KMaxData& m = c.op_data<conv::KMaxData>();
  const Lines a(AlongDim(c.xs[0].d, m.d)), b(AlongDim(c.y.d, m.d));
  const std::size_t n = std::size_t(a.pre) * a.post;
  kmax_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(a, b, m.k, c.xs[0].v, y, dy, dx, n);
  check_launch("kmax_pooling");
}
void kmax_forward(const OpCall& c) { kmax_launch(c, c.y.v, nullptr, nullptr); }
void kmax_backward(const OpCall& c, unsigned) { kmax_launch(c, nullptr, c.dy.v, c.dx.v); }

/// The vectors of one circ_conv / circ_corr call: n elements, batch strides (0 when broadcast).
struct Circular {
  unsigned n;
  std::size_t u_batch, v_batch;
  bool correlation;
};

/// Thread per y_k of batch element t (e = t n + k).
__global__ void circular_kernel(Circular c, const float* u, const float* v, float* y, std::size_t count) {
  DYBATCH_GRID_STRIDE(e, count) {
    const unsigned t = unsigned(e / c.n), k = unsigned(e % c.n);
    float s = 0;
    for (unsigned i = 0; i < c.n; ++i)
      s += u[t * c.u_batch + i] * v[t * c.v_batch + conv::circular_partner(c.correlation, k, i, c.n)];
    y[e] = s;
  }
}

__global__ void circular_backward_kernel(Circular c, const float* u, const float* v, const float* dy, float* dx,
                                         std::size_t dx_batch, unsigned arg, std::size_t count) {
  DYBATCH_GRID_STRIDE(e, count) {
    const unsigned t = unsigned(e / c.n), k = unsigned(e % c.n);
    const float g = dy[e];
    for (unsigned i = 0; i < c.n; ++i) {
      const unsigned j = conv::circular_partner(c.correlation, k, i, c.n);
      if (arg == 0)
        atomicAdd(dx + t * dx_batch + i, g * v[t * c.v_batch + j]);
      else
        atomicAdd(dx + t * dx_batch + j, g * u[t * c.u_batch + i]);
    }
  }
}

template <bool Correlation>
Circular circular(const OpCall& c) {
  return {c.y.d.rows(), batch_stride(c.xs[0]), batch_stride(c.xs[1]), Correlation};
}

template <bool Correlation>
void circular_forward(const OpCall& c) {
  const std::size_t n = c.y.d.size();
  circular_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(circular<Correlation>(c), c.xs[0].v, c.xs[1].v, c.y.v,
                                                                n);
  check_launch("circular forward");
}

template <bool Correlation>
void circular_backward(const OpCall& c, unsigned i) {
  const std::size_t n = c.y.d.size();
  circular_backward_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(circular<Correlation>(c), c.xs[0].v, c.xs[1].v,
                                                                         c.dy.v, c.dx.v, batch_stride(c.dx), i, n);
  check_launch("circular backward");
}

}  // namespace

void add_convolution_kernels(KernelTable& t) {
  t.add({kernel_for("conv2d", conv2d_forward, conv2d_backward),
         kernel_for("maxpooling2d", maxpool_forward, maxpool_backward),
         kernel_for("filter1d_narrow", filter1d_forward, filter1d_backward),
         kernel_for("kmax_pooling", kmax_forward, kmax_backward),
         kernel_for("circ_conv", circular_forward<false>, circular_backward<false>),
         kernel_for("circ_corr", circular_forward<true>, circular_backward<true>)});
}

}  // namespace gpu
}  // namespace dynet
