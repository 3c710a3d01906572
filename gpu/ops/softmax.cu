// softmax, log_softmax, pickneglogsoftmax, restricted log_softmax, sparsemax, sparsemax_loss and
// constrained_softmax.
// A team of threads per column (a distribution), gpu/block_reduce.cuh: a warp for columns of up
// to kWarpItem elements, a block for longer ones (an output layer over a vocabulary); the team
// reduces the maximum and the sum of exponentials in a fixed order, then writes the column.
// Class indices are read and checked on the host, then copied to the device once per call.

#include <math.h>

#include <vector>

#include "dynet_core/ops/broadcast.h"
#include "dynet_core/ops/class_targets.h"
#include "dynet_core/ops/index_list.h"
#include "dynet_core/ops/softmax.h"
#include "gpu/kernel_table.h"
#include "gpu/launch.cuh"
#include "gpu/ops/columns.cuh"

namespace dynet {
namespace gpu {

namespace {

/// log(sum of exp) of column col, shifted by its largest element; every thread of the team gets it.
template <class Team>
__device__ float column_log_sum_exp(const Team& t, const Columns& a, const float* x, std::size_t col) {
  float m = -INFINITY;
  for (unsigned j = t.rank(); j < a.len; j += t.size()) m = fmaxf(m, x[a.at(col, j)]);
  m = t.reduce(m, Max());
  float s = 0.f;
  for (unsigned j = t.rank(); j < a.len; j += t.size()) s += expf(x[a.at(col, j)] - m);
  return m + logf(t.reduce(s, Sum()));
}

/// The sum over column col of f(element index); every thread of the team gets it.
template <class Team, class F>
__device__ float column_sum(const Team& t, const Columns& a, std::size_t col, F f) {
  float s = 0.f;
  for (unsigned j = t.rank(); j < a.len; j += t.size()) s += f(a.at(col, j));
  return t.reduce(s, Sum());
}

template <class Team>
__global__ void softmax_kernel(Columns a, const float* x, float* y, bool log_form) {
  const Team t;
  for (std::size_t col = t.first(); col < a.count(); col += t.stride()) {
    const float lse = column_log_sum_exp(t, a, x, col);
    for (unsigned j = t.rank(); j < a.len; j += t.size()) {
      const std::size_t e = a.at(col, j);
      y[e] = log_form ? x[e] - lse : expf(x[e] - lse);
    }
  }
}

template <class Team>
__global__ void softmax_backward_kernel(Columns a, const float* y, const float* dy, float* dx) {
  const Team t;
  for (std::size_t col = t.first(); col < a.count(); col += t.stride()) {
    const float dot = column_sum(t, a, col, [&](std::size_t e) { return dy[e] * y[e]; });
    for (unsigned j = t.rank(); j < a.len; j += t.size()) {
      const std::size_t e = a.at(col, j);
      dx[e] += y[e] * (dy[e] - dot);
    }
  }
}

template <class Team>
__global__ void log_softmax_backward_kernel(Columns a, const float* y, const float* dy, float* dx) {
  const Team t;
  for (std::size_t col = t.first(); col < a.count(); col += t.stride()) {
    const float total = column_sum(t, a, col, [&](std::size_t e) { return dy[e]; });
    for (unsigned j = t.rank(); j < a.len; j += t.size()) {
      const std::size_t e = a.at(col, j);
      dx[e] += dy[e] - expf(y[e]) * total;
    }
  }
}

void softmax_forward(const OpCall& c) {
  const Columns a(AlongDim(c.xs[0].d, c.op_data<unsigned>()));
  launch_teams("softmax forward", a.count(), a.len, stream_of(c), softmax_kernel<WarpTeam>, softmax_kernel<BlockTeam>,
               a, c.xs[0].v, c.y.v, false);
}

void softmax_backward(const OpCall& c, unsigned) {
  const Columns a(AlongDim(c.y.d, c.op_data<unsigned>()));
  launch_teams("softmax backward", a.count(), a.len, stream_of(c), softmax_backward_kernel<WarpTeam>,
               softmax_backward_kernel<BlockTeam>, a, c.y.v, c.dy.v, c.dx.v);
}

void log_softmax_forward(const OpCall& c) {
  const Columns a(AlongDim(c.xs[0].d, 0));
  launch_teams("log_softmax forward", a.count(), a.len, stream_of(c), softmax_kernel<WarpTeam>,
               softmax_kernel<BlockTeam>, a, c.xs[0].v, c.y.v, true);
}

void log_softmax_backward(const OpCall& c, unsigned) {
  const Columns a(AlongDim(c.y.d, 0));
  launch_teams("log_softmax backward", a.count(), a.len, stream_of(c), log_softmax_backward_kernel<WarpTeam>,
               log_softmax_backward_kernel<BlockTeam>, a, c.y.v, c.dy.v, c.dx.v);
}

/// Each output's class, read on the host (the row's host_check checked the caller's indices).
const unsigned* targets(const OpCall& c) {
  std::vector<unsigned> t(c.y.d.bd);
  for_each_class_target(
      c, [&](unsigned j) -> const IndexList& { return c.op_data<IndexList>(j); },
      [&](unsigned, unsigned b, unsigned v) { t[b] = v; });
  return to_scratch(c, t.data(), t.size());
}

template <class Team>
__global__ void pnls_kernel(Columns a, const float* x, const unsigned* target, float* y) {
  const Team t;
  for (std::size_t b = t.first(); b < a.post; b += t.stride()) {
    const float lse = column_log_sum_exp(t, a, x, b);
    if (t.rank() == 0) y[b] = lse - x[a.at(b, target[b])];
  }
}

template <class Team>
__global__ void pnls_backward_kernel(Columns a, const float* x, const float* y, const unsigned* target, const float* dy,
                                     float* dx) {
  const Team t;
  for (std::size_t b = t.first(); b < a.post; b += t.stride()) {
    const float log_z = y[b] + x[a.at(b, target[b])];
    for (unsigned j = t.rank(); j < a.len; j += t.size()) {
      const std::size_t e = a.at(b, j);
      dx[e] += dy[b] * expf(x[e] - log_z);
      if (j == target[b]) dx[e] -= dy[b];
    }
  }
}

void pnls_forward(const OpCall& c) {
  const Columns a(AlongDim(c.xs[0].d, 0));
  launch_teams("pickneglogsoftmax forward", a.post, a.len, stream_of(c), pnls_kernel<WarpTeam>, pnls_kernel<BlockTeam>,
               a, c.xs[0].v, targets(c), c.y.v);
}

void pnls_backward(const OpCall& c, unsigned) {
  const Columns a(AlongDim(c.xs[0].d, 0));
  launch_teams("pickneglogsoftmax backward", a.post, a.len, stream_of(c), pnls_backward_kernel<WarpTeam>,
               pnls_backward_kernel<BlockTeam>, a, c.xs[0].v, c.y.v, targets(c), c.dy.v, c.dx.v);
}

/// Every batch element's class list, flattened: entries [begin[b], begin[b + 1]) are column b's.
struct Lists {
  const unsigned* ids;
  const unsigned* begin;
};

Lists lists(const OpCall& c) {
  std::vector<unsigned> ids, begin{0};
  const unsigned run = c.y.d.bd / c.nodes;
  for (unsigned j = 0; j < c.nodes; ++j) {
    const IndexList& l = c.op_data<IndexList>(j);
    const unsigned* v = l.values();
    for (unsigned b = 0; b < run; ++b) {
      ids.insert(ids.end(), v, v + l.count);
      begin.push_back(unsigned(ids.size()));
    }
  }
  return {to_scratch(c, ids.data(), ids.size()), to_scratch(c, begin.data(), begin.size())};
}

template <class Team>
__global__ void restricted_kernel(Columns a, Lists l, const float* x, float* y) {
  const Team t;
  for (std::size_t b = t.first(); b < a.post; b += t.stride()) {
    const unsigned* ids = l.ids + l.begin[b];
    const unsigned count = l.begin[b + 1] - l.begin[b];
    for (unsigned j = t.rank(); j < a.len; j += t.size()) y[a.at(b, j)] = -INFINITY;
    t.sync();  // another thread of the team may write a listed element below
    float m = -INFINITY;
    for (unsigned k = t.rank(); k < count; k += t.size()) m = fmaxf(m, x[a.at(b, ids[k])]);
    m = t.reduce(m, Max());
    float s = 0.f;
    for (unsigned k = t.rank(); k < count; k += t.size()) s += expf(x[a.at(b, ids[k])] - m);
    const float lse = m + logf(t.reduce(s, Sum()));
    for (unsigned k = t.rank(); k < count; k += t.size()) y[a.at(b, ids[k])] = x[a.at(b, ids[k])] - lse;
  }
}

// A class listed twice adds twice, from two threads: atomically.
template <class Team>
__global__ void restricted_backward_kernel(Columns a, Lists l, const float* y, const float* dy, float* dx) {
  const Team t;
  for (std::size_t b = t.first(); b < a.post; b += t.stride()) {
    const unsigned* ids = l.ids + l.begin[b];
    const unsigned count = l.begin[b + 1] - l.begin[b];
    float total = 0.f;
    for (unsigned k = t.rank(); k < count; k += t.size()) total += dy[a.at(b, ids[k])];
    total = t.reduce(total, Sum());
    for (unsigned k = t.rank(); k < count; k += t.size()) {
      const std::size_t e = a.at(b, ids[k]);
      atomicAdd(dx + e, dy[e] - expf(y[e]) * total);
    }
  }
}

void restricted_forward(const OpCall& c) {
  const Columns a(AlongDim(c.y.d, 0));
  launch_teams("log_softmax (restricted) forward", a.post, a.len, stream_of(c), restricted_kernel<WarpTeam>,
               restricted_kernel<BlockTeam>, a, lists(c), c.xs[0].v, c.y.v);
}

void restricted_backward(const OpCall& c, unsigned) {
  const Columns a(AlongDim(c.y.d, 0));
  launch_teams("log_softmax (restricted) backward", a.post, a.len, stream_of(c), restricted_backward_kernel<WarpTeam>,
               restricted_backward_kernel<BlockTeam>, a, lists(c), c.y.v, c.dy.v, c.dx.v);
}

// sparsemax keeps one thread per column: its threshold comes from the column sorted (here an
// insertion sort into scratch) and a scan of the sorted prefix (sparsemax_threshold_of_sorted,
// shared with the CPU), both sequential; its columns are label sets, short next to a vocabulary.
// The sparsemax threshold of one column, sorting a copy of it (descending) in `sorted`.
__device__ float sparsemax_threshold(const float* x, unsigned n, float* sorted) {
  for (unsigned i = 0; i < n; ++i) {
    const float v = x[i];
    unsigned k = i;
    for (; k > 0 && sorted[k - 1] < v; --k) sorted[k] = sorted[k - 1];
    sorted[k] = v;
  }
  return sparsemax_threshold_of_sorted(sorted, n);
}

__global__ void sparsemax_kernel(unsigned n, unsigned cols, const float* x, float* sorted, float* y) {
  DYBATCH_GRID_STRIDE(b, cols) {
    const float* xb = x + b * n;
    const float tau = sparsemax_threshold(xb, n, sorted + b * n);
    for (unsigned i = 0; i < n; ++i) y[b * n + i] = fmaxf(0.f, xb[i] - tau);
  }
}

__global__ void sparsemax_backward_kernel(unsigned n, unsigned cols, const float* y, const float* dy, float* dx) {
  DYBATCH_GRID_STRIDE(b, cols) {
    float mean = 0.f;
    unsigned support = 0;
    for (unsigned i = 0; i < n; ++i)
      if (y[b * n + i] > 0.f) {
        mean += dy[b * n + i];
        ++support;
      }
    mean /= static_cast<float>(support);
    for (unsigned i = 0; i < n; ++i)
      if (y[b * n + i] > 0.f) dx[b * n + i] += dy[b * n + i] - mean;
  }
}

void sparsemax_forward(const OpCall& c) {
  const unsigned n = c.y.d.rows(), cols = c.y.d.bd;
  sparsemax_kernel<<<blocks_for(cols), kThreads, 0, stream_of(c)>>>(n, cols, c.xs[0].v,
                                                                    c.scratch_floats(std::size_t(n) * cols), c.y.v);
  check_launch("sparsemax forward");
}

void sparsemax_backward(const OpCall& c, unsigned) {
  const unsigned n = c.y.d.rows(), cols = c.y.d.bd;
  sparsemax_backward_kernel<<<blocks_for(cols), kThreads, 0, stream_of(c)>>>(n, cols, c.y.v, c.dy.v, c.dx.v);
  check_launch("sparsemax backward");
}

// Forward writes the loss; backward (dy given) adds its gradient into dx.
__global__ void sparsemax_loss_kernel(unsigned n, unsigned cols, Lists l, const float* x, float* sorted, float* y,
                                      const float* dy, float* dx) {
  DYBATCH_GRID_STRIDE(b, cols) {
    const float* xb = x + b * n;
    const unsigned* ids = l.ids + l.begin[b];
    const unsigned count = l.begin[b + 1] - l.begin[b];
    const float tau = sparsemax_threshold(xb, n, sorted + b * n), q = 1.f / static_cast<float>(count);
    if (!dy) {
      float loss = 0.5f * q * q * static_cast<float>(count);
      for (unsigned i = 0; i < n; ++i)
        if (xb[i] > tau) loss += 0.5f * (xb[i] * xb[i] - tau * tau);
      for (unsigned k = 0; k < count; ++k) loss -= q * xb[ids[k]];
      y[b] = loss;
    } else {
      const float g = dy[b];
      for (unsigned i = 0; i < n; ++i) dx[b * n + i] += g * fmaxf(0.f, xb[i] - tau);
      for (unsigned k = 0; k < count; ++k) dx[b * n + ids[k]] -= g * q;
    }
  }
}

void sparsemax_loss(const OpCall& c, const float* dy, float* dx) {
  const unsigned n = c.xs[0].d.rows(), cols = c.y.d.bd;
  sparsemax_loss_kernel<<<blocks_for(cols), kThreads, 0, stream_of(c)>>>(
      n, cols, lists(c), c.xs[0].v, c.scratch_floats(std::size_t(n) * cols), c.y.v, dy, dx);
  check_launch("sparsemax_loss");
}

void sparsemax_loss_forward(const OpCall& c) { sparsemax_loss(c, nullptr, nullptr); }
void sparsemax_loss_backward(const OpCall& c, unsigned) { sparsemax_loss(c, c.dy.v, c.dx.v); }

// constrained_softmax keeps one thread per column too, running the CPU's column rule
// (constrained_softmax_column); bounds or an x shared by every column have a step of 0, and their
// gradient gathers the columns' parts atomically.
__global__ void constrained_softmax_kernel(unsigned n, unsigned cols, const float* x, std::size_t x_step,
                                           const float* u, std::size_t u_step, float* q, float* y) {
  DYBATCH_GRID_STRIDE(b, cols) { constrained_softmax_column(x + b * x_step, u + b * u_step, n, q + b * n, y + b * n); }
}

__global__ void constrained_softmax_backward_kernel(unsigned n, unsigned cols, const float* x, std::size_t x_step,
                                                    const float* u, std::size_t u_step, float* q, float* p,
                                                    const float* y, const float* dy, unsigned i, float* dx,
                                                    std::size_t dx_step) {
  DYBATCH_GRID_STRIDE(b, cols) {
    const float mass = constrained_softmax_column(x + b * x_step, u + b * u_step, n, q + b * n, p + b * n);
    const float* yb = y + b * n;
    const float* dyb = dy + b * n;
    const float* held = q + b * n;
    float dhat = 0.f;
    for (unsigned k = 0; k < n; ++k)
      if (held[k] >= 0.f) dhat += yb[k] * dyb[k];
    dhat /= 1.f - mass;
    for (unsigned k = 0; k < n; ++k) {
      const bool free = held[k] >= 0.f;
      if (free != (i == 0)) continue;
      const float g = i == 0 ? yb[k] * (dyb[k] - dhat) : dyb[k] - dhat;
      if (dx_step == 0 && cols > 1)
        atomicAdd(dx + k, g);
      else
        dx[b * dx_step + k] += g;
    }
  }
}

void constrained_softmax_forward(const OpCall& c) {
  const unsigned n = c.y.d.rows(), cols = c.y.d.bd;
  constrained_softmax_kernel<<<blocks_for(cols), kThreads, 0, stream_of(c)>>>(
      n, cols, c.xs[0].v, batch_stride(c.xs[0]), c.xs[1].v, batch_stride(c.xs[1]),
      c.scratch_floats(std::size_t(n) * cols), c.y.v);
  check_launch("constrained_softmax forward");
}

void constrained_softmax_backward(const OpCall& c, unsigned i) {
  const unsigned n = c.y.d.rows(), cols = c.y.d.bd;
  constrained_softmax_backward_kernel<<<blocks_for(cols), kThreads, 0, stream_of(c)>>>(
      n, cols, c.xs[0].v, batch_stride(c.xs[0]), c.xs[1].v, batch_stride(c.xs[1]),
      c.scratch_floats(std::size_t(n) * cols), c.scratch_floats(std::size_t(n) * cols), c.y.v, c.dy.v, i, c.dx.v,
      batch_stride(c.dx));
  check_launch("constrained_softmax backward");
}

}  // namespace

void add_softmax_kernels(KernelTable& t) {
  t.add({kernel_for("softmax", softmax_forward, softmax_backward),
         kernel_for("log_softmax", log_softmax_forward, log_softmax_backward),
         kernel_for("pickneglogsoftmax", pnls_forward, pnls_backward),
         kernel_for("restricted_log_softmax", restricted_forward, restricted_backward),
         kernel_for("sparsemax", sparsemax_forward, sparsemax_backward),
         kernel_for("sparsemax_loss", sparsemax_loss_forward, sparsemax_loss_backward),
         kernel_for("constrained_softmax", constrained_softmax_forward, constrained_softmax_backward)});
}

}  // namespace gpu
}  // namespace dynet
