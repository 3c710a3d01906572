// Reductions. Sums over elements, over the batch and along dimensions are one reduction
// (reduce_outputs.cuh): each element of y is the sum of the elements of x that map to it, taken
// in a fixed order; their backward reads the same map. Reductions along one dimension give each
// column a warp or a block (launch_teams), except cumsum: a scan, one thread per column.

#include <vector>

#include "dynet_core/ops/reductions.h"
#include "gpu/device_operations.h"
#include "gpu/kernel_table.h"
#include "gpu/launch.cuh"
#include "gpu/ops/columns.cuh"
#include "gpu/ops/reduce_outputs.cuh"

namespace dynet {
namespace gpu {

namespace {

/// Where element ix of x lands in y when the dimensions in `mask` are summed, and groups of `run`
/// batch elements of x are summed into one of y.
struct SumMap {
  unsigned xdims[Dim::kMaxDims];
  unsigned ystride[Dim::kMaxDims];
  unsigned per_batch, run, y_batch;

  SumMap(const Dim& x, const Dim& y, unsigned mask)
      : per_batch(unsigned(x.batch_size())), run(x.bd / y.bd), y_batch(unsigned(y.batch_size())) {
    unsigned s = 1;
    for (unsigned k = 0; k < Dim::kMaxDims; ++k) {
      xdims[k] = x[k];
      ystride[k] = ((mask >> k) & 1u) ? 0 : s;
      if (!((mask >> k) & 1u)) s *= x[k];
    }
  }
  __device__ std::size_t y_of(std::size_t ix) const {
    const std::size_t bi = ix / per_batch;
    std::size_t e = ix % per_batch, iy = (bi / run) * y_batch;
    for (unsigned k = 0; k < Dim::kMaxDims; ++k) {
      iy += (e % xdims[k]) * ystride[k];
      e /= xdims[k];
    }
    return iy;
  }
};

constexpr unsigned kAllDims = (1u << Dim::kMaxDims) - 1;

/// Term k of output o of a sum by SumMap's map, scale x^r: o's kept coordinates, then k's summed
/// coordinates and, last, which of the `run` batch elements of x summed into o's.
struct SummedTerms {
  unsigned xdims[Dim::kMaxDims];
  std::size_t xstride[Dim::kMaxDims];
  unsigned mask, run;
  std::size_t per_batch, y_batch;
  const float* x;
  float scale;
  unsigned r;

  SummedTerms(const Dim& xd, const Dim& yd, unsigned mask, const float* x, float scale, unsigned r)
      : mask(mask), run(xd.bd / yd.bd), per_batch(xd.batch_size()), y_batch(yd.batch_size()), x(x), scale(scale), r(r) {
    std::size_t s = 1;
    for (unsigned k = 0; k < Dim::kMaxDims; ++k) {
      xdims[k] = xd[k];
      xstride[k] = s;
      s *= xd[k];
    }
  }
  __device__ std::size_t x_of(std::size_t o, std::size_t k) const {
    std::size_t e = o % y_batch, ix = 0;
    for (unsigned d = 0; d < Dim::kMaxDims; ++d)
      if (!((mask >> d) & 1u)) {
        ix += (e % xdims[d]) * xstride[d];
        e /= xdims[d];
      }
    for (unsigned d = 0; d < Dim::kMaxDims; ++d)
      if ((mask >> d) & 1u) {
        ix += (k % xdims[d]) * xstride[d];
        k /= xdims[d];
      }
    return ix + ((o / y_batch) * run + k) * per_batch;
  }
  __device__ float operator()(std::size_t o, std::size_t k) const { return scale * power(x[x_of(o, k)], r); }
};

__global__ void summed_backward_kernel(SumMap m, const float* x, const float* dy, float* dx, std::size_t n, float scale,
                                       unsigned r) {
  DYBATCH_GRID_STRIDE(i, n) dx[i] += scale * r * power(x[i], r - 1) * dy[m.y_of(i)];
}

/// y = scale x^r summed by the map (r = 1, scale = 1: a plain sum); backward: dx += scale r x^(r-1) dy.
void summed_forward(const OpCall& c, unsigned mask, float scale, unsigned r) {
  const std::size_t outputs = c.y.d.size();
  reduce_outputs(c, "sum forward", SummedTerms(c.xs[0].d, c.y.d, mask, c.xs[0].v, scale, r), outputs,
                 c.xs[0].d.size() / outputs, c.y.v);
}

void summed_backward(const OpCall& c, unsigned mask, float scale, unsigned r) {
  const std::size_t n = c.xs[0].d.size();
  summed_backward_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(SumMap(c.xs[0].d, c.y.d, mask), c.xs[0].v,
                                                                       c.dy.v, c.dx.v, n, scale, r);
  check_launch("sum backward");
}

void sum_elems_forward(const OpCall& c) { summed_forward(c, kAllDims, 1.f, 1); }
void sum_elems_backward(const OpCall& c, unsigned) { summed_backward(c, kAllDims, 1.f, 1); }
void sum_batches_forward(const OpCall& c) { summed_forward(c, 0, 1.f, 1); }
void sum_batches_backward(const OpCall& c, unsigned) { summed_backward(c, 0, 1.f, 1); }
void sum_dim_forward(const OpCall& c) { summed_forward(c, c.op_data<SumDimData>().mask, 1.f, 1); }
void sum_dim_backward(const OpCall& c, unsigned) { summed_backward(c, c.op_data<SumDimData>().mask, 1.f, 1); }
void squared_norm_forward(const OpCall& c) { summed_forward(c, kAllDims, 1.f, 2); }
void squared_norm_backward(const OpCall& c, unsigned) { summed_backward(c, kAllDims, 1.f, 2); }

void moment_forward(const OpCall& c) {
  const MomentData& m = c.op_data<MomentData>();
  summed_forward(c, m.sum.mask, moment_scale(c.xs[0].d, c.y.d, m), m.r);
}

void moment_backward(const OpCall& c, unsigned) {
  const MomentData& m = c.op_data<MomentData>();
  if (m.r == 0) return;
  summed_backward(c, m.sum.mask, moment_scale(c.xs[0].d, c.y.d, m), m.r);
}

__global__ void cumsum_kernel(Columns a, const float* x, float* y, bool reverse) {
  DYBATCH_GRID_STRIDE(col, a.count()) {
    float s = 0.f;
    for (unsigned t = 0; t < a.len; ++t) {
      const std::size_t e = a.at(col, reverse ? a.len - 1 - t : t);
      s += x[e];
      y[e] = reverse ? y[e] + s : s;
    }
  }
}

void cumsum_forward(const OpCall& c) {
  const Columns a(AlongDim(c.xs[0].d, c.op_data<unsigned>()));
  cumsum_kernel<<<blocks_for(a.count()), kThreads, 0, stream_of(c)>>>(a, c.xs[0].v, c.y.v, false);
  check_launch("cumsum forward");
}

void cumsum_backward(const OpCall& c, unsigned) {
  const Columns a(AlongDim(c.y.d, c.op_data<unsigned>()));
  cumsum_kernel<<<blocks_for(a.count()), kThreads, 0, stream_of(c)>>>(a, c.dy.v, c.dx.v, true);
  check_launch("cumsum backward");
}

/// Term e of batch element o of a dot product; either argument may broadcast its batch.
struct DotTerms {
  const float *a, *b;
  unsigned a_bd, b_bd;
  std::size_t per_batch;
  __device__ float operator()(std::size_t o, std::size_t e) const {
    return a[batched(a_bd, per_batch, o, e)] * b[batched(b_bd, per_batch, o, e)];
  }
};

__global__ void dot_backward_kernel(const float* other, unsigned other_bd, const float* dy, float* dx, unsigned dx_bd,
                                    std::size_t per_batch, std::size_t n) {
  DYBATCH_GRID_STRIDE(i, n) {
    const std::size_t bi = i / per_batch, e = i % per_batch;
    atomicAdd(dx + batched(dx_bd, per_batch, bi, e), dy[bi] * other[batched(other_bd, per_batch, bi, e)]);
  }
}

void dot_forward(const OpCall& c) {
  const std::size_t per_batch = c.xs[0].d.batch_size();
  reduce_outputs(c, "dot_product forward", DotTerms{c.xs[0].v, c.xs[1].v, c.xs[0].d.bd, c.xs[1].d.bd, per_batch},
                 c.y.d.bd, per_batch, c.y.v);
}

void dot_backward(const OpCall& c, unsigned i) {
  const Tensor& other = c.xs[1 - i];
  const std::size_t per_batch = other.d.batch_size(), n = per_batch * c.y.d.bd;
  dot_backward_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(other.v, other.d.bd, c.dy.v, c.dx.v, c.dx.d.bd,
                                                                    per_batch, n);
  check_launch("dot_product backward");
}

/// The arguments of an n-ary op in device scratch: their values and batch sizes.
struct Arguments {
  const float* const* v;
  const unsigned* bd;
  unsigned n;
};

Arguments arguments(const OpCall& c) {
  std::vector<const float*> v(c.nargs);
  std::vector<unsigned> bd(c.nargs);
  for (unsigned k = 0; k < c.nargs; ++k) {
    v[k] = c.xs[k].v;
    bd[k] = c.xs[k].d.bd;
  }
  return {to_scratch(c, v.data(), v.size()), to_scratch(c, bd.data(), bd.size()), c.nargs};
}

__global__ void logsumexp_kernel(Arguments a, float* y, std::size_t per_batch, std::size_t n) {
  DYBATCH_GRID_STRIDE(i, n) {
    const std::size_t bi = i / per_batch, e = i % per_batch;
    y[i] = logsumexp_of(a.n, [&](unsigned k) { return a.v[k][batched(a.bd[k], per_batch, bi, e)]; });
  }
}

__global__ void logsumexp_backward_kernel(const float* x, unsigned x_bd, const float* y, const float* dy, float* dx,
                                          std::size_t per_batch, std::size_t n) {
  DYBATCH_GRID_STRIDE(i, n) {
    const std::size_t at = batched(x_bd, per_batch, i / per_batch, i % per_batch);
    atomicAdd(dx + at, dy[i] * expf(x[at] - y[i]));
  }
}

void logsumexp_forward(const OpCall& c) {
  const std::size_t n = c.y.d.size();
  logsumexp_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(arguments(c), c.y.v, c.y.d.batch_size(), n);
  check_launch("logsumexp forward");
}

void logsumexp_backward(const OpCall& c, unsigned i) {
  const std::size_t n = c.y.d.size();
  logsumexp_backward_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(c.xs[i].v, c.xs[i].d.bd, c.y.v, c.dy.v,
                                                                          c.dx.v, c.y.d.batch_size(), n);
  check_launch("logsumexp backward");
}

template <class Team>
__global__ void logsumexp_dim_kernel(Columns a, const float* x, float* y) {
  const Team t;
  for (std::size_t col = t.first(); col < a.count(); col += t.stride()) {
    float m = -INFINITY;
    for (unsigned j = t.rank(); j < a.len; j += t.size()) m = fmaxf(m, x[a.at(col, j)]);
    m = t.reduce(m, Max());
    float s = 0.f;
    for (unsigned j = t.rank(); j < a.len; j += t.size()) s += expf(x[a.at(col, j)] - m);
    s = t.reduce(s, Sum());
    if (t.rank() == 0) y[col] = m + logf(s);
  }
}

template <class Team>
__global__ void logsumexp_dim_backward_kernel(Columns a, const float* x, const float* y, const float* dy, float* dx) {
  const Team t;
  for (std::size_t col = t.first(); col < a.count(); col += t.stride())
    for (unsigned j = t.rank(); j < a.len; j += t.size()) dx[a.at(col, j)] += dy[col] * expf(x[a.at(col, j)] - y[col]);
}

void logsumexp_dim_forward(const OpCall& c) {
  const Columns a(AlongDim(c.xs[0].d, c.op_data<unsigned>()));
  launch_teams("logsumexp_dim forward", a.count(), a.len, stream_of(c), logsumexp_dim_kernel<WarpTeam>,
               logsumexp_dim_kernel<BlockTeam>, a, c.xs[0].v, c.y.v);
}

void logsumexp_dim_backward(const OpCall& c, unsigned) {
  const Columns a(AlongDim(c.xs[0].d, c.op_data<unsigned>()));
  launch_teams("logsumexp_dim backward", a.count(), a.len, stream_of(c), logsumexp_dim_backward_kernel<WarpTeam>,
               logsumexp_dim_backward_kernel<BlockTeam>, a, c.xs[0].v, c.y.v, c.dy.v, c.dx.v);
}

// The first extreme element of a column wins ties, as on the CPU: each thread keeps the first
// extreme of its elements, and the reduction prefers the smaller index on equal values.
template <class Team, bool Larger>
__global__ void extreme_kernel(Columns a, const float* x, float* y, const float* dy, float* dx) {
  const Team t;
  for (std::size_t col = t.first(); col < a.count(); col += t.stride()) {
    Found best{Larger ? -INFINITY : INFINITY, ~0u};
    for (unsigned j = t.rank(); j < a.len; j += t.size()) {
      const float v = x[a.at(col, j)];
      if (best.at == ~0u || (Larger ? v > best.v : v < best.v)) best = {v, j};
    }
    best = t.reduce(best, Extreme<Larger>());
    if (t.rank() == 0) {
      const std::size_t at = a.at(col, best.at);
      if (dy)
        dx[at] += dy[col];
      else
        y[col] = x[at];
    }
  }
}

template <bool Larger>
void extreme_forward(const OpCall& c) {
  const Columns a(AlongDim(c.xs[0].d, c.op_data<unsigned>()));
  launch_teams("max_dim / min_dim forward", a.count(), a.len, stream_of(c), extreme_kernel<WarpTeam, Larger>,
               extreme_kernel<BlockTeam, Larger>, a, c.xs[0].v, c.y.v, static_cast<const float*>(nullptr),
               static_cast<float*>(nullptr));
}

template <bool Larger>
void extreme_backward(const OpCall& c, unsigned) {
  const Columns a(AlongDim(c.xs[0].d, c.op_data<unsigned>()));
  launch_teams("max_dim / min_dim backward", a.count(), a.len, stream_of(c), extreme_kernel<WarpTeam, Larger>,
               extreme_kernel<BlockTeam, Larger>, a, c.xs[0].v, static_cast<float*>(nullptr), c.dy.v, c.dx.v);
}

}  // namespace

void add_reduction_kernels(KernelTable& t) {
  t.add({kernel_for("sum_elems", sum_elems_forward, sum_elems_backward),
         kernel_for("sum_batches", sum_batches_forward, sum_batches_backward),
         kernel_for("sum_dim", sum_dim_forward, sum_dim_backward),
         kernel_for("moment_dim", moment_forward, moment_backward),
         kernel_for("cumsum", cumsum_forward, cumsum_backward),
         kernel_for("squared_norm", squared_norm_forward, squared_norm_backward),
         kernel_for("dot_product", dot_forward, dot_backward),
         kernel_for("logsumexp", logsumexp_forward, logsumexp_backward),
         kernel_for("logsumexp_dim", logsumexp_dim_forward, logsumexp_dim_backward),
         kernel_for("max_dim", extreme_forward<true>, extreme_backward<true>),
         kernel_for("min_dim", extreme_forward<false>, extreme_backward<false>)});
}

}  // namespace gpu
}  // namespace dynet
