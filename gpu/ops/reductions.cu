// Reductions. Sums over elements, over the batch and along dimensions are one kernel: each element
// of x adds into the element of y it maps to (atomically, y zeroed first); their backward reads
// the same map. Reductions along one dimension give each column a thread.

#include <vector>

#include "dynet_core/ops/reductions.h"
#include "gpu/device_operations.h"
#include "gpu/kernel_table.h"
#include "gpu/launch.cuh"
#include "gpu/ops/columns.cuh"

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

/// y += scale x^r summed by the map (r = 1, scale = 1: a plain sum); backward: dx += scale r x^(r-1) dy.
__global__ void summed_kernel(SumMap m, const float* x, float* y, std::size_t n, float scale, unsigned r) {
  DYBATCH_GRID_STRIDE(i, n) atomicAdd(y + m.y_of(i), scale * power(x[i], r));
}

__global__ void summed_backward_kernel(SumMap m, const float* x, const float* dy, float* dx, std::size_t n, float scale,
                                       unsigned r) {
  DYBATCH_GRID_STRIDE(i, n) dx[i] += scale * r * power(x[i], r - 1) * dy[m.y_of(i)];
}

void summed_forward(const OpCall& c, unsigned mask, float scale, unsigned r) {
  const std::size_t n = c.xs[0].d.size();
  device_of(c).zero(c.y.v, c.y.d.size());
  summed_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(SumMap(c.xs[0].d, c.y.d, mask), c.xs[0].v, c.y.v, n,
                                                              scale, r);
  check_launch("sum forward");
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

__global__ void dot_kernel(const float* a, unsigned a_bd, const float* b, unsigned b_bd, float* y, std::size_t per_batch,
                           std::size_t n) {
  DYBATCH_GRID_STRIDE(i, n) {
    const std::size_t bi = i / per_batch, e = i % per_batch;
    atomicAdd(y + bi, a[batched(a_bd, per_batch, bi, e)] * b[batched(b_bd, per_batch, bi, e)]);
  }
}

__global__ void dot_backward_kernel(const float* other, unsigned other_bd, const float* dy, float* dx, unsigned dx_bd,
                                    std::size_t per_batch, std::size_t n) {
  DYBATCH_GRID_STRIDE(i, n) {
    const std::size_t bi = i / per_batch, e = i % per_batch;
    atomicAdd(dx + batched(dx_bd, per_batch, bi, e), dy[bi] * other[batched(other_bd, per_batch, bi, e)]);
  }
}

void dot_forward(const OpCall& c) {
  const std::size_t per_batch = c.xs[0].d.batch_size(), n = per_batch * c.y.d.bd;
  device_of(c).zero(c.y.v, c.y.d.size());
  dot_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(c.xs[0].v, c.xs[0].d.bd, c.xs[1].v, c.xs[1].d.bd, c.y.v,
                                                           per_batch, n);
  check_launch("dot_product forward");
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

__global__ void logsumexp_dim_kernel(Columns a, const float* x, float* y) {
  DYBATCH_GRID_STRIDE(col, a.count()) y[col] = logsumexp_of(a.len, [&](unsigned j) { return x[a.at(col, j)]; });
}

__global__ void logsumexp_dim_backward_kernel(Columns a, const float* x, const float* y, const float* dy, float* dx) {
  DYBATCH_GRID_STRIDE(col, a.count()) {
    for (unsigned j = 0; j < a.len; ++j) dx[a.at(col, j)] += dy[col] * expf(x[a.at(col, j)] - y[col]);
  }
}

void logsumexp_dim_forward(const OpCall& c) {
  const Columns a(AlongDim(c.xs[0].d, c.op_data<unsigned>()));
  logsumexp_dim_kernel<<<blocks_for(a.count()), kThreads, 0, stream_of(c)>>>(a, c.xs[0].v, c.y.v);
  check_launch("logsumexp_dim forward");
}

void logsumexp_dim_backward(const OpCall& c, unsigned) {
  const Columns a(AlongDim(c.xs[0].d, c.op_data<unsigned>()));
  logsumexp_dim_backward_kernel<<<blocks_for(a.count()), kThreads, 0, stream_of(c)>>>(a, c.xs[0].v, c.y.v, c.dy.v,
                                                                                      c.dx.v);
  check_launch("logsumexp_dim backward");
}

// The first extreme element of a column wins ties, as on the CPU.
template <bool Max>
__device__ unsigned extreme_index(const Columns& a, const float* x, std::size_t col) {
  unsigned best = 0;
  for (unsigned j = 1; j < a.len; ++j) {
    const float v = x[a.at(col, j)], b = x[a.at(col, best)];
    if (Max ? v > b : v < b) best = j;
  }
  return best;
}

template <bool Max>
__global__ void extreme_kernel(Columns a, const float* x, float* y, const float* dy, float* dx) {
  DYBATCH_GRID_STRIDE(col, a.count()) {
    const std::size_t at = a.at(col, extreme_index<Max>(a, x, col));
    if (dy)
      dx[at] += dy[col];
    else
      y[col] = x[at];
  }
}

template <bool Max>
void extreme_forward(const OpCall& c) {
  const Columns a(AlongDim(c.xs[0].d, c.op_data<unsigned>()));
  extreme_kernel<Max><<<blocks_for(a.count()), kThreads, 0, stream_of(c)>>>(a, c.xs[0].v, c.y.v, nullptr, nullptr);
  check_launch("max_dim / min_dim forward");
}

template <bool Max>
void extreme_backward(const OpCall& c, unsigned) {
  const Columns a(AlongDim(c.xs[0].d, c.op_data<unsigned>()));
  extreme_kernel<Max><<<blocks_for(a.count()), kThreads, 0, stream_of(c)>>>(a, c.xs[0].v, nullptr, c.dy.v, c.dx.v);
  check_launch("max_dim / min_dim backward");
}

}  // namespace

void add_reduction_kernels(KernelTable& t) {
  t.add({kernel_for("sum_elems", sum_elems_forward, sum_elems_backward),
         kernel_for("sum_batches", sum_batches_forward, sum_batches_backward),
         kernel_for("sum_dim", sum_dim_forward, sum_dim_backward), kernel_for("moment_dim", moment_forward, moment_backward),
         kernel_for("cumsum", cumsum_forward, cumsum_backward),
         kernel_for("squared_norm", squared_norm_forward, squared_norm_backward),
         kernel_for("dot_product", dot_forward, dot_backward), kernel_for("logsumexp", logsumexp_forward, logsumexp_backward),
         kernel_for("logsumexp_dim", logsumexp_dim_forward, logsumexp_dim_backward),
         kernel_for("max_dim", extreme_forward<true>, extreme_backward<true>),
         kernel_for("min_dim", extreme_forward<false>, extreme_backward<false>)});
}

}  // namespace gpu
}  // namespace dynet
