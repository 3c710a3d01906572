// softmax, log_softmax, pickneglogsoftmax, restricted log_softmax, sparsemax and sparsemax_loss.
// One thread per column (a distribution): columns are short next to their number in a group.
// Class indices are read and checked on the host, then copied to the device once per call.

#include <math.h>

#include <vector>

#include "dynet_core/ops/class_targets.h"
#include "dynet_core/ops/index_list.h"
#include "dynet_core/ops/softmax.h"
#include "gpu/kernel_table.h"
#include "gpu/ops/columns.cuh"
#include "gpu/launch.cuh"

namespace dynet {
namespace gpu {

namespace {

__device__ float column_log_sum_exp(const Columns& a, const float* x, std::size_t col) {
  float m = x[a.at(col, 0)];
  for (unsigned j = 1; j < a.len; ++j) m = fmaxf(m, x[a.at(col, j)]);
  float s = 0.f;
  for (unsigned j = 0; j < a.len; ++j) s += expf(x[a.at(col, j)] - m);
  return m + logf(s);
}

__global__ void softmax_kernel(Columns a, const float* x, float* y, bool log_form) {
  DYBATCH_GRID_STRIDE(col, a.count()) {
    const float lse = column_log_sum_exp(a, x, col);
    for (unsigned j = 0; j < a.len; ++j) {
      const std::size_t e = a.at(col, j);
      y[e] = log_form ? x[e] - lse : expf(x[e] - lse);
    }
  }
}

__global__ void softmax_backward_kernel(Columns a, const float* y, const float* dy, float* dx) {
  DYBATCH_GRID_STRIDE(col, a.count()) {
    float dot = 0.f;
    for (unsigned j = 0; j < a.len; ++j) dot += dy[a.at(col, j)] * y[a.at(col, j)];
    for (unsigned j = 0; j < a.len; ++j) {
      const std::size_t e = a.at(col, j);
      dx[e] += y[e] * (dy[e] - dot);
    }
  }
}

__global__ void log_softmax_backward_kernel(Columns a, const float* y, const float* dy, float* dx) {
  DYBATCH_GRID_STRIDE(col, a.count()) {
    float total = 0.f;
    for (unsigned j = 0; j < a.len; ++j) total += dy[a.at(col, j)];
    for (unsigned j = 0; j < a.len; ++j) {
      const std::size_t e = a.at(col, j);
      dx[e] += dy[e] - expf(y[e]) * total;
    }
  }
}

void softmax_forward(const OpCall& c) {
  const Columns a(AlongDim(c.xs[0].d, c.op_data<unsigned>()));
  softmax_kernel<<<blocks_for(a.count()), kThreads, 0, stream_of(c)>>>(a, c.xs[0].v, c.y.v, false);
  check_launch("softmax forward");
}

void softmax_backward(const OpCall& c, unsigned) {
  const Columns a(AlongDim(c.y.d, c.op_data<unsigned>()));
  softmax_backward_kernel<<<blocks_for(a.count()), kThreads, 0, stream_of(c)>>>(a, c.y.v, c.dy.v,
                                                                                                  c.dx.v);
  check_launch("softmax backward");
}

void log_softmax_forward(const OpCall& c) {
  const Columns a(AlongDim(c.xs[0].d, 0));
  softmax_kernel<<<blocks_for(a.post), kThreads, 0, stream_of(c)>>>(a, c.xs[0].v, c.y.v, true);
  check_launch("log_softmax forward");
}

void log_softmax_backward(const OpCall& c, unsigned) {
  const Columns a(AlongDim(c.y.d, 0));
  log_softmax_backward_kernel<<<blocks_for(a.post), kThreads, 0, stream_of(c)>>>(a, c.y.v, c.dy.v, c.dx.v);
  check_launch("log_softmax backward");
}

/// Each output's class, read on the host (the row's host_check checked the caller's indices).
const unsigned* targets(const OpCall& c) {
  std::vector<unsigned> t(c.y.d.bd);
  for_each_class_target(
      c, [&](unsigned j) -> const IndexList& { return c.op_data<IndexList>(j); },
      [&](unsigned, unsigned b, unsigned v) { t[b] = v; });
  return to_scratch(c, t.data(), t.size());
}

__global__ void pnls_kernel(Columns a, const float* x, const unsigned* target, float* y) {
  DYBATCH_GRID_STRIDE(b, a.post) y[b] = column_log_sum_exp(a, x, b) - x[a.at(b, target[b])];
}

__global__ void pnls_backward_kernel(Columns a, const float* x, const float* y, const unsigned* target,
                                     const float* dy, float* dx) {
  DYBATCH_GRID_STRIDE(b, a.post) {
    const float log_z = y[b] + x[a.at(b, target[b])];
    for (unsigned j = 0; j < a.len; ++j) dx[a.at(b, j)] += dy[b] * expf(x[a.at(b, j)] - log_z);
    dx[a.at(b, target[b])] -= dy[b];
  }
}

void pnls_forward(const OpCall& c) {
  const Columns a(AlongDim(c.xs[0].d, 0));
  pnls_kernel<<<blocks_for(a.post), kThreads, 0, stream_of(c)>>>(a, c.xs[0].v, targets(c), c.y.v);
  check_launch("pickneglogsoftmax forward");
}

void pnls_backward(const OpCall& c, unsigned) {
  const Columns a(AlongDim(c.xs[0].d, 0));
  pnls_backward_kernel<<<blocks_for(a.post), kThreads, 0, stream_of(c)>>>(a, c.xs[0].v, c.y.v, targets(c), c.dy.v,
                                                                          c.dx.v);
  check_launch("pickneglogsoftmax backward");
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

__global__ void restricted_kernel(Columns a, Lists l, const float* x, float* y) {
  DYBATCH_GRID_STRIDE(b, a.post) {
    const unsigned* ids = l.ids + l.begin[b];
    const unsigned count = l.begin[b + 1] - l.begin[b];
    for (unsigned j = 0; j < a.len; ++j) y[a.at(b, j)] = -INFINITY;
    float m = x[a.at(b, ids[0])];
    for (unsigned k = 1; k < count; ++k) m = fmaxf(m, x[a.at(b, ids[k])]);
    float s = 0.f;
    for (unsigned k = 0; k < count; ++k) s += expf(x[a.at(b, ids[k])] - m);
    const float lse = m + logf(s);
    for (unsigned k = 0; k < count; ++k) y[a.at(b, ids[k])] = x[a.at(b, ids[k])] - lse;
  }
}

__global__ void restricted_backward_kernel(Columns a, Lists l, const float* y, const float* dy, float* dx) {
  DYBATCH_GRID_STRIDE(b, a.post) {
    const unsigned* ids = l.ids + l.begin[b];
    const unsigned count = l.begin[b + 1] - l.begin[b];
    float total = 0.f;
    for (unsigned k = 0; k < count; ++k) total += dy[a.at(b, ids[k])];
    for (unsigned k = 0; k < count; ++k) {
      const std::size_t e = a.at(b, ids[k]);
      dx[e] += dy[e] - expf(y[e]) * total;
    }
  }
}

void restricted_forward(const OpCall& c) {
  const Columns a(AlongDim(c.y.d, 0));
  restricted_kernel<<<blocks_for(a.post), kThreads, 0, stream_of(c)>>>(a, lists(c), c.xs[0].v, c.y.v);
  check_launch("log_softmax (restricted) forward");
}

void restricted_backward(const OpCall& c, unsigned) {
  const Columns a(AlongDim(c.y.d, 0));
  restricted_backward_kernel<<<blocks_for(a.post), kThreads, 0, stream_of(c)>>>(a, lists(c), c.y.v,
                                                                                c.dy.v, c.dx.v);
  check_launch("log_softmax (restricted) backward");
}

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

}  // namespace

void add_softmax_kernels(KernelTable& t) {
  t.add({kernel_for("softmax", softmax_forward, softmax_backward),
         kernel_for("log_softmax", log_softmax_forward, log_softmax_backward),
         kernel_for("pickneglogsoftmax", pnls_forward, pnls_backward),
         kernel_for("restricted_log_softmax", restricted_forward, restricted_backward),
         kernel_for("sparsemax", sparsemax_forward, sparsemax_backward),
         kernel_for("sparsemax_loss", sparsemax_loss_forward, sparsemax_loss_backward)});
}

}  // namespace gpu
}  // namespace dynet
