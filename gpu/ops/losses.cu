// hinge and poisson_loss: one thread per batch element; binary_log_loss sums each batch element's
// loss in a fixed order (reduce_outputs.cuh) and gives its backward a thread per element. Classes and counts are
// read (and checked) on the host by the walks the CPU kernels use, then copied to the device.

#include <math.h>

#include <vector>

#include "dynet_core/ops/losses.h"
#include "gpu/kernel_table.h"
#include "gpu/launch.cuh"
#include "gpu/ops/reduce_outputs.cuh"

namespace dynet {
namespace gpu {

namespace {

struct HingeTarget {
  unsigned v;
  float margin;
};

const HingeTarget* hinge_targets(const OpCall& c) {
  std::vector<HingeTarget> t(c.y.d.bd);
  for_each_hinge(c, [&](unsigned b, unsigned v, float m) { t[b] = {v, m}; });
  return to_scratch(c, t.data(), t.size());
}

__global__ void hinge_kernel(const HingeTarget* t, const float* x, unsigned n, unsigned cols, float* y, const float* dy,
                             float* dx) {
  DYBATCH_GRID_STRIDE(b, cols) {
    const float* xb = x + b * n;
    const unsigned v = t[b].v;
    const float m = t[b].margin;
    float loss = 0.f;
    for (unsigned i = 0; i < n; ++i) {
      if (i == v) continue;
      const float l = m - xb[v] + xb[i];
      if (!dy) {
        loss += fmaxf(0.f, l);
      } else if (l > 0.f) {
        dx[b * n + i] += dy[b];
        dx[b * n + v] -= dy[b];
      }
    }
    if (!dy) y[b] = loss;
  }
}

void hinge_forward(const OpCall& c) {
  const unsigned n = c.xs[0].d.rows(), cols = c.y.d.bd;
  hinge_kernel<<<blocks_for(cols), kThreads, 0, stream_of(c)>>>(hinge_targets(c), c.xs[0].v, n, cols, c.y.v, nullptr,
                                                                nullptr);
  check_launch("hinge forward");
}

void hinge_backward(const OpCall& c, unsigned) {
  const unsigned n = c.xs[0].d.rows(), cols = c.y.d.bd;
  hinge_kernel<<<blocks_for(cols), kThreads, 0, stream_of(c)>>>(hinge_targets(c), c.xs[0].v, n, cols, c.y.v, c.dy.v,
                                                                c.dx.v);
  check_launch("hinge backward");
}

/// The prediction and the target at element e of batch element b.
struct LogLossAt {
  const float *x, *t;
  unsigned x_bd, t_bd;
  std::size_t per_batch;
  __device__ std::size_t x_at(std::size_t b, std::size_t e) const { return batched(x_bd, per_batch, b, e); }
  __device__ std::size_t t_at(std::size_t b, std::size_t e) const { return batched(t_bd, per_batch, b, e); }
  /// The loss of element e of batch element b: the terms reduce_outputs sums.
  __device__ float operator()(std::size_t b, std::size_t e) const {
    return log_loss_term(x[x_at(b, e)], t[t_at(b, e)]);
  }
};

LogLossAt log_loss_at(const OpCall& c) {
  return {c.xs[0].v, c.xs[1].v, c.xs[0].d.bd, c.xs[1].d.bd, c.xs[0].d.batch_size()};
}

// Adds argument i's gradient, atomically: a target broadcast over the batch receives from every
// batch element.
__global__ void log_loss_backward_kernel(LogLossAt l, std::size_t n, const float* dy, float* dx, unsigned i) {
  DYBATCH_GRID_STRIDE(k, n) {
    const std::size_t b = k / l.per_batch, e = k % l.per_batch;
    const float xv = l.x[l.x_at(b, e)], tv = l.t[l.t_at(b, e)];
    if (i == 0)
      atomicAdd(dx + l.x_at(b, e), dy[b] * log_loss_dx(xv, tv));
    else
      atomicAdd(dx + l.t_at(b, e), dy[b] * log_loss_dt(xv));
  }
}

void log_loss_forward(const OpCall& c) {
  const LogLossAt l = log_loss_at(c);
  reduce_outputs(c, "binary_log_loss forward", l, c.y.d.bd, l.per_batch, c.y.v);
}

void log_loss_backward(const OpCall& c, unsigned i) {
  const LogLossAt l = log_loss_at(c);
  const std::size_t n = l.per_batch * c.y.d.bd;
  log_loss_backward_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(l, n, c.dy.v, c.dx.v, i);
  check_launch("binary_log_loss backward");
}

const float* counts(const OpCall& c) {
  std::vector<float> n(c.y.d.bd);
  for_each_count(c, [&](unsigned b, float y) { n[b] = y; });
  return to_scratch(c, n.data(), n.size());
}

__global__ void poisson_kernel(const float* counts, const float* x, std::size_t n, float* y, const float* dy,
                               float* dx) {
  DYBATCH_GRID_STRIDE(b, n) {
    if (!dy)
      y[b] = expf(x[b]) - counts[b] * x[b] + lgammaf(counts[b] + 1.f);
    else
      dx[b] += dy[b] * (expf(x[b]) - counts[b]);
  }
}

void poisson_forward(const OpCall& c) {
  const std::size_t n = c.y.d.bd;
  poisson_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(counts(c), c.xs[0].v, n, c.y.v, nullptr, nullptr);
  check_launch("poisson_loss forward");
}

void poisson_backward(const OpCall& c, unsigned) {
  const std::size_t n = c.y.d.bd;
  poisson_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(counts(c), c.xs[0].v, n, c.y.v, c.dy.v, c.dx.v);
  check_launch("poisson_loss backward");
}

}  // namespace

void add_loss_kernels(KernelTable& t) {
  t.add({kernel_for("hinge", hinge_forward, hinge_backward),
         kernel_for("binary_log_loss", log_loss_forward, log_loss_backward),
         kernel_for("poisson_loss", poisson_forward, poisson_backward)});
}

}  // namespace gpu
}  // namespace dynet
