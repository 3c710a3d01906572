// hinge, binary_log_loss and poisson_loss: one thread per batch element. Classes and counts are
// read (and checked) on the host by the walks the CPU kernels use, then copied to the device.

#include <math.h>

#include <vector>

#include "dynet_core/ops/losses.h"
#include "gpu/kernel_table.h"
#include "gpu/launch.cuh"

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

__global__ void hinge_kernel(const HingeTarget* t, const float* x, unsigned n, unsigned cols, float* y,
                             const float* dy, float* dx) {
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

// Forward (dy null) sums the loss of each batch element; backward adds argument i's gradient,
// atomically: a target broadcast over the batch receives from every batch element.
__global__ void log_loss_kernel(const float* x, unsigned x_bd, const float* t, unsigned t_bd, std::size_t per_batch,
                                std::size_t n, float* y, const float* dy, float* dx, unsigned i) {
  DYBATCH_GRID_STRIDE(k, n) {
    const std::size_t b = k / per_batch, e = k % per_batch;
    const std::size_t ix = batched(x_bd, per_batch, b, e), it = batched(t_bd, per_batch, b, e);
    const float p = fminf(1.f - kLogLossClamp, fmaxf(kLogLossClamp, x[ix])), tv = t[it];
    if (!dy)
      atomicAdd(y + b, -(tv * logf(p) + (1.f - tv) * logf(1.f - p)));
    else if (i == 0)
      atomicAdd(dx + ix, dy[b] * ((1.f - tv) / (1.f - p) - tv / p));
    else
      atomicAdd(dx + it, dy[b] * (logf(1.f - p) - logf(p)));
  }
}

void log_loss(const OpCall& c, const float* dy, float* dx, unsigned i) {
  const std::size_t per_batch = c.xs[0].d.batch_size(), n = per_batch * c.y.d.bd;
  if (!dy) device_of(c).zero(c.y.v, c.y.d.size());
  log_loss_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(c.xs[0].v, c.xs[0].d.bd, c.xs[1].v, c.xs[1].d.bd,
                                                                per_batch, n, c.y.v, dy, dx, i);
  check_launch("binary_log_loss");
}

void log_loss_forward(const OpCall& c) { log_loss(c, nullptr, nullptr, 0); }
void log_loss_backward(const OpCall& c, unsigned i) { log_loss(c, c.dy.v, c.dx.v, i); }

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
