// Binary elementwise ops with broadcasting (each binary op of the element rules' list,
// gpu/element_rules.h) and n-ary sums, from the scalar rules of dynet_core/ops/arithmetic.h.

#include <tuple>

#include "dynet_core/ops/arithmetic.h"
#include "gpu/element_rules.h"
#include "gpu/kernel_table.h"
#include "gpu/launch.cuh"

namespace dynet {
namespace gpu {

namespace {

constexpr unsigned kAxes = Dim::kMaxDims + 1;

/// y's axes (the batch last) with a's and b's strides along each: 0 where that side broadcasts.
struct Broadcast {
  unsigned size[kAxes];
  unsigned sa[kAxes];
  unsigned sb[kAxes];
  unsigned n = 0;

  Broadcast(const Dim& y, const Dim& a, const Dim& b) {
    unsigned ra = 1, rb = 1;
    for (unsigned k = 0; k < kAxes; ++k) {
      const unsigned ys = k < Dim::kMaxDims ? y[k] : y.bd, as = k < Dim::kMaxDims ? a[k] : a.bd,
                     bs = k < Dim::kMaxDims ? b[k] : b.bd;
      if (ys == 1) continue;
      size[n] = ys;
      sa[n] = as == 1 ? 0 : ra;
      sb[n] = bs == 1 ? 0 : rb;
      ++n;
      ra *= as;
      rb *= bs;
    }
  }
  __device__ void offsets(unsigned iy, unsigned& ia, unsigned& ib) const {
    ia = ib = 0;
    for (unsigned k = 0; k < n; ++k) {
      const unsigned j = iy % size[k];
      iy /= size[k];
      ia += j * sa[k];
      ib += j * sb[k];
    }
  }
};

template <class R>
__global__ void binary_forward_kernel(Broadcast bc, const float* a, const float* b, float* y, std::size_t n) {
  const R r{};
  DYBATCH_GRID_STRIDE(i, n) {
    unsigned ia, ib;
    bc.offsets(unsigned(i), ia, ib);
    y[i] = r.f(a[ia], b[ib]);
  }
}

// Where argument `which` is as large as y, each element of dx has one writer; where it
// broadcasts, several elements of y add into one, atomically (dx was zeroed when overwriting).
template <class R>
__global__ void binary_backward_kernel(Broadcast bc, const float* a, const float* b, const float* y, const float* dy,
                                       float* dx, std::size_t n, unsigned which, bool exclusive, bool overwrite) {
  const R r{};
  DYBATCH_GRID_STRIDE(i, n) {
    unsigned ia, ib;
    bc.offsets(unsigned(i), ia, ib);
    const float g = dy[i] * (which == 0 ? r.da(a[ia], b[ib], y[i]) : r.db(a[ia], b[ib], y[i]));
    float* target = dx + (which == 0 ? ia : ib);
    if (!exclusive)
      atomicAdd(target, g);
    else
      *target = overwrite ? g : *target + g;
  }
}

template <class R>
void binary_forward(const OpCall& c) {
  const std::size_t n = c.y.d.size();
  binary_forward_kernel<R><<<blocks_for(n), kThreads, 0, stream_of(c)>>>(Broadcast(c.y.d, c.xs[0].d, c.xs[1].d),
                                                                         c.xs[0].v, c.xs[1].v, c.y.v, n);
  check_launch("binary forward");
}

template <class R>
void binary_backward(const OpCall& c, unsigned i) {
  const std::size_t n = c.y.d.size();
  const bool exclusive = c.xs[i].d.size() == n;
  if (!exclusive && c.overwrite) device_of(c).zero(c.dx.v, c.dx.d.size());
  binary_backward_kernel<R><<<blocks_for(n), kThreads, 0, stream_of(c)>>>(Broadcast(c.y.d, c.xs[0].d, c.xs[1].d),
                                                                          c.xs[0].v, c.xs[1].v, c.y.v, c.dy.v, c.dx.v,
                                                                          n, i, exclusive, c.overwrite);
  check_launch("binary backward");
}

/// The kernels of each binary entry of the element rules; the other entries are other families'.
template <class Entry>
void add_if_binary(KernelTable&, const Entry&) {}
template <class R>
void add_if_binary(KernelTable& t, const element::Entry<element::Binary<R>>& e) {
  t.add({kernel_for(elementwise_op_name(e.op), binary_forward<R>, binary_backward<R>)});
}

// y (+)= x where x has y's batch size or one batch element that every batch element of y gets.
__global__ void add_batches_kernel(float* y, const float* x, std::size_t n, std::size_t x_size, bool overwrite) {
  DYBATCH_GRID_STRIDE(i, n) {
    const float v = x[i % x_size];
    y[i] = overwrite ? v : y[i] + v;
  }
}

// dx (+)= the sum over dy's batch elements, for an argument with one batch element.
__global__ void sum_batches_into_kernel(float* dx, const float* dy, std::size_t per_batch, unsigned batches,
                                        bool overwrite) {
  DYBATCH_GRID_STRIDE(j, per_batch) {
    float s = 0.f;
    for (unsigned b = 0; b < batches; ++b) s += dy[b * per_batch + j];
    dx[j] = overwrite ? s : dx[j] + s;
  }
}

void sum_forward(const OpCall& c) {
  const std::size_t n = c.y.d.size();
  for (unsigned k = 0; k < c.nargs; ++k)
    add_batches_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(c.y.v, c.xs[k].v, n, c.xs[k].d.size(), k == 0);
  check_launch("sum forward");
}

void sum_backward(const OpCall& c, unsigned) {
  if (c.dx.d.bd == c.dy.d.bd) {
    const std::size_t n = c.dx.d.size();
    add_batches_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(c.dx.v, c.dy.v, n, n, c.overwrite);
  } else {
    const std::size_t per_batch = c.dx.d.size();
    sum_batches_into_kernel<<<blocks_for(per_batch), kThreads, 0, stream_of(c)>>>(c.dx.v, c.dy.v, per_batch, c.dy.d.bd,
                                                                                  c.overwrite);
  }
  check_launch("sum backward");
}

}  // namespace

void add_arithmetic_kernels(KernelTable& t) {
  std::apply([&](const auto&... entries) { (add_if_binary(t, entries), ...); }, element::kRules);
  t.add({kernel_for("sum", sum_forward, sum_backward)});
}

}  // namespace gpu
}  // namespace dynet
