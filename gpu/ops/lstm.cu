// The LSTM ops: the gates (bias, two cuBLAS products, then the activations of the scalar rules
// of dynet_core/ops/elementwise.h), and the cell and output ops, one thread per hidden unit of
// each batch element, reading the gates [i; f; o; g]. A shared bias's gradient sums the batch
// in order, a thread per row; a broadcast cell or gate argument's gradient adds atomically.

#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/lstm.h"
#include "gpu/device_operations.h"
#include "gpu/gemm.h"
#include "gpu/kernel_table.h"
#include "gpu/launch.cuh"

namespace dynet {
namespace gpu {

namespace {

/// Element (u, t) of a {H} argument and of the {4H} gates, each of which may broadcast its batch.
struct CellIndex {
  unsigned hidden, cell_bd, gates_bd;
  __device__ std::size_t cell(std::size_t i) const { return cell_bd == 1 ? i % hidden : i; }
  __device__ std::size_t gate(std::size_t i, unsigned which) const {
    const std::size_t t = gates_bd == 1 ? 0 : i / hidden;
    return t * 4 * hidden + which * hidden + i % hidden;
  }
};

CellIndex cell_index(const OpCall& c) { return {c.y.d.rows(), c.xs[0].d.bd, c.xs[1].d.bd}; }

__global__ void cell_forward_kernel(CellIndex ix, const float* c_tm1, const float* g, float* y, std::size_t n) {
  DYBATCH_GRID_STRIDE(i, n) y[i] = g[ix.gate(i, 0)] * g[ix.gate(i, 3)] + g[ix.gate(i, 1)] * c_tm1[ix.cell(i)];
}

// Broadcast arguments receive from several batch elements: atomically.
__device__ void add_to(float* dx, std::size_t at, float v, bool exclusive) {
  if (exclusive)
    dx[at] += v;
  else
    atomicAdd(dx + at, v);
}

__global__ void cell_backward_kernel(CellIndex ix, const float* c_tm1, const float* g, const float* dy, float* dx,
                                     std::size_t n, unsigned arg, bool exclusive) {
  DYBATCH_GRID_STRIDE(i, n) {
    if (arg == 0) {
      add_to(dx, ix.cell(i), dy[i] * g[ix.gate(i, 1)], exclusive);
    } else {
      add_to(dx, ix.gate(i, 0), dy[i] * g[ix.gate(i, 3)], exclusive);
      add_to(dx, ix.gate(i, 1), dy[i] * c_tm1[ix.cell(i)], exclusive);
      add_to(dx, ix.gate(i, 3), dy[i] * g[ix.gate(i, 0)], exclusive);
    }
  }
}

__global__ void hidden_forward_kernel(CellIndex ix, const float* cell, const float* g, float* y, std::size_t n) {
  DYBATCH_GRID_STRIDE(i, n) y[i] = g[ix.gate(i, 2)] * tanhf(cell[ix.cell(i)]);
}

__global__ void hidden_backward_kernel(CellIndex ix, const float* cell, const float* g, const float* dy, float* dx,
                                       std::size_t n, unsigned arg, bool exclusive) {
  DYBATCH_GRID_STRIDE(i, n) {
    const float t = tanhf(cell[ix.cell(i)]);
    if (arg == 0)
      add_to(dx, ix.cell(i), dy[i] * g[ix.gate(i, 2)] * (1.f - t * t), exclusive);
    else
      add_to(dx, ix.gate(i, 2), dy[i] * t, exclusive);
  }
}

void cell_forward(const OpCall& c) {
  const std::size_t n = c.y.d.size();
  cell_forward_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(cell_index(c), c.xs[0].v, c.xs[1].v, c.y.v, n);
  check_launch("vanilla_lstm_c forward");
}

void cell_backward(const OpCall& c, unsigned i) {
  const std::size_t n = c.y.d.size();
  cell_backward_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(cell_index(c), c.xs[0].v, c.xs[1].v, c.dy.v,
                                                                     c.dx.v, n, i, c.dx.d.bd == c.y.d.bd);
  check_launch("vanilla_lstm_c backward");
}

void hidden_forward(const OpCall& c) {
  const std::size_t n = c.y.d.size();
  hidden_forward_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(cell_index(c), c.xs[0].v, c.xs[1].v, c.y.v, n);
  check_launch("vanilla_lstm_h forward");
}

void hidden_backward(const OpCall& c, unsigned i) {
  const std::size_t n = c.y.d.size();
  hidden_backward_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(cell_index(c), c.xs[0].v, c.xs[1].v, c.dy.v,
                                                                       c.dx.v, n, i, c.dx.d.bd == c.y.d.bd);
  check_launch("vanilla_lstm_h backward");
}

// y = b, plus 1 on the forget gate's rows, for every batch element.
__global__ void gates_bias_kernel(const float* b, unsigned b_bd, unsigned hidden, float* y, std::size_t n) {
  DYBATCH_GRID_STRIDE(i, n) {
    const std::size_t r = i % (4 * hidden);
    y[i] = b[batched(b_bd, 4 * hidden, i / (4 * hidden), r)] + (r >= hidden && r < 2 * hidden ? 1.f : 0.f);
  }
}

// y = [logistic(a_i); logistic(a_f + forget_bias); logistic(a_o); tanh(a_g)]; a may be y.
__global__ void gates_activation_kernel(unsigned hidden, float forget_bias, const float* a, float* y, std::size_t n) {
  DYBATCH_GRID_STRIDE(i, n) {
    const std::size_t r = i % (4 * hidden);
    y[i] = r >= 3 * hidden ? rules::Tanh().f(a[i])
                           : rules::Logistic().f(r >= hidden && r < 2 * hidden ? a[i] + forget_bias : a[i]);
  }
}

// d (+)= dy times the activations' derivative at their output y.
__global__ void gates_pre_gradient_kernel(unsigned hidden, const float* y, const float* dy, float* d, std::size_t n,
                                          bool accumulate) {
  DYBATCH_GRID_STRIDE(i, n) {
    const bool g = i % (4 * hidden) >= 3 * hidden;
    const float v = dy[i] * (g ? rules::Tanh().df(0.f, y[i]) : rules::Logistic().df(0.f, y[i]));
    d[i] = accumulate ? d[i] + v : v;
  }
}

/// Row r of v(t) times its mask, where v(t) starts at t v_stride (0: v broadcasts) and the mask
/// (optional) may broadcast its batch.
struct MaskedRows {
  const float* v;
  unsigned v_stride, from;
  const float* mask;
  unsigned mask_bd, mask_rows;
  __device__ float operator()(std::size_t t, std::size_t r) const {
    const float g = v[t * v_stride + from + r];
    return mask ? g * mask[batched(mask_bd, mask_rows, t, from + r)] : g;
  }
};

// out(t)[r] (+)= rows(t, r), r < n, t < bd; out has bd batch elements, or one when bd is 1.
__global__ void add_rows_kernel(float* out, unsigned out_bd, unsigned out_rows, MaskedRows rows, unsigned n,
                                unsigned bd, bool overwrite) {
  DYBATCH_GRID_STRIDE(i, std::size_t(n) * bd) {
    const std::size_t t = i / n, r = i % n;
    float* o = out + batched(out_bd, out_rows, t, r);
    *o = overwrite ? rows(t, r) : *o + rows(t, r);
  }
}

// out[r] += the sum over t < bd of rows(t, r), for an out of one batch element (a bias's
// gradient): a thread per row, adding the batch elements in order.
__global__ void add_summed_rows_kernel(float* out, MaskedRows rows, unsigned n, unsigned bd) {
  DYBATCH_GRID_STRIDE(r, n) {
    float s = 0.f;
    for (unsigned t = 0; t < bd; ++t) s += rows(t, r);
    out[r] += s;
  }
}

/// out (+)= rows [from, from + n) of v (bd batch elements), times the same rows of mask if given.
void add_rows(const OpCall& c, const Tensor& out, const Tensor& v, unsigned from, unsigned n, const Tensor* mask,
              bool overwrite = false) {
  const unsigned bd = v.d.bd;
  const MaskedRows rows{
      v.v, v.d.rows(), from, mask ? mask->v : nullptr, mask ? mask->d.bd : 1u, mask ? mask->d.rows() : 0u};
  if (out.d.bd == 1 && bd > 1 && !overwrite)
    add_summed_rows_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(out.v, rows, n, bd);
  else
    add_rows_kernel<<<blocks_for(std::size_t(n) * bd), kThreads, 0, stream_of(c)>>>(out.v, out.d.bd, out.d.rows(), rows,
                                                                                    n, bd, overwrite);
  check_launch("vanilla_lstm_gates rows");
}

/// The inputs as the products see them: x_1..x_k stacked (times mask_x), one column per batch
/// element, in scratch. For one unmasked input, that input itself.
Tensor stacked_input(const OpCall& c, const GatesArgs& a) {
  if (a.k == 1 && !a.dropout) return c.xs[0];
  const unsigned input = c.xs[a.wx].d.cols(), bd = c.y.d.bd;
  Tensor x(Dim({input}, bd), c.scratch_floats(std::size_t(input) * bd), c.y.device);
  for (unsigned i = 0, off = 0; i < a.k; off += c.xs[i].d.rows(), ++i) {
    const Tensor& xi = c.xs[i];
    // Rows [0, n) of x_i into rows [off, off + n) of each column of x.
    const MaskedRows rows{xi.v, xi.d.bd == 1 ? 0 : xi.d.rows(), 0, nullptr, 1, 0};
    add_rows_kernel<<<blocks_for(std::size_t(xi.d.rows()) * bd), kThreads, 0, stream_of(c)>>>(
        x.v + off, bd, input, rows, xi.d.rows(), bd, true);
    check_launch("vanilla_lstm_gates inputs");
  }
  if (a.dropout) add_rows(c, x, x, 0, input, &c.xs[a.mask_x], true);
  return x;
}

/// h_tm1 as the product sees it: times mask_h when there is one.
Tensor masked_hidden(const OpCall& c, const GatesArgs& a) {
  if (!a.dropout) return c.xs[a.h];
  const unsigned hidden = c.xs[a.h].d.rows(), bd = c.y.d.bd;
  Tensor h(Dim({hidden}, bd), c.scratch_floats(std::size_t(hidden) * bd), c.y.device);
  const MaskedRows rows{c.xs[a.h].v, c.xs[a.h].d.bd == 1 ? 0 : hidden, 0, c.xs[a.mask_h].v, c.xs[a.mask_h].d.bd,
                        hidden};
  add_rows_kernel<<<blocks_for(std::size_t(hidden) * bd), kThreads, 0, stream_of(c)>>>(h.v, bd, hidden, rows, hidden,
                                                                                       bd, true);
  check_launch("vanilla_lstm_gates hidden");
  return h;
}

void gates_forward(const OpCall& c) {
  const GatesArgs a(c.op_data<GatesData>());
  const std::size_t n = c.y.d.size();
  const unsigned hidden = c.y.d.rows() / 4;
  gates_bias_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(c.xs[a.b].v, c.xs[a.b].d.bd, hidden, c.y.v, n);
  check_launch("vanilla_lstm_gates bias");
  gemm(c.y, c.xs[a.wx], false, stacked_input(c, a), false, true);
  gemm(c.y, c.xs[a.wh], false, masked_hidden(c, a), false, true);
  gates_activation_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(hidden, 0.f, c.y.v, c.y.v, n);
  check_launch("vanilla_lstm_gates activations");
}

void gates_backward(const OpCall& c, unsigned i) {
  const GatesArgs a(c.op_data<GatesData>());
  const std::size_t size = c.y.d.size();
  const Tensor d(c.y.d, c.scratch_floats(size), c.y.device);
  gates_pre_gradient_kernel<<<blocks_for(size), kThreads, 0, stream_of(c)>>>(c.y.d.rows() / 4, c.y.v, c.dy.v, d.v,
                                                                             size, false);
  check_launch("vanilla_lstm_gates pre-activation gradient");
  const unsigned bd = c.y.d.bd;
  if (i == a.wx) return gemm(c.dx, d, false, stacked_input(c, a), true, true);
  if (i == a.wh) return gemm(c.dx, d, false, masked_hidden(c, a), true, true);
  if (i == a.b) return add_rows(c, c.dx, d, 0, c.y.d.rows(), nullptr);
  // Inputs, h_tm1 and masks: through W^T d, the gradient of the (masked) vector the product saw.
  const bool input_side = i < a.k || (a.dropout && i == a.mask_x);
  const Tensor& w = c.xs[input_side ? a.wx : a.wh];
  const unsigned n = w.d.cols();
  const Tensor back(Dim({n}, bd), c.scratch_floats(std::size_t(n) * bd), c.y.device);
  gemm(back, w, true, d, false, false);
  if (i < a.k) {
    unsigned from = 0;
    for (unsigned j = 0; j < i; ++j) from += c.xs[j].d.rows();
    return add_rows(c, c.dx, back, from, c.xs[i].d.rows(), a.dropout ? &c.xs[a.mask_x] : nullptr);
  }
  if (i == a.h) return add_rows(c, c.dx, back, 0, n, a.dropout ? &c.xs[a.mask_h] : nullptr);
  if (i == a.mask_x) {
    const Tensor x = stacked_input(c, GatesArgs(GatesData{a.k, 0}));
    return add_rows(c, c.dx, back, 0, n, &x);
  }
  add_rows(c, c.dx, back, 0, n, &c.xs[a.h]);
}

void activations_forward(const OpCall& c) {
  const std::size_t n = c.y.d.size();
  gates_activation_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(c.y.d.rows() / 4, c.op_data<float>(),
                                                                         c.xs[0].v, c.y.v, n);
  check_launch("vanilla_lstm_activations forward");
}

void activations_backward(const OpCall& c, unsigned) {
  const std::size_t n = c.y.d.size();
  gates_pre_gradient_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(c.y.d.rows() / 4, c.y.v, c.dy.v, c.dx.v, n,
                                                                          true);
  check_launch("vanilla_lstm_activations backward");
}

}  // namespace

void add_lstm_kernels(KernelTable& t) {
  t.add({kernel_for("vanilla_lstm_c", cell_forward, cell_backward),
         kernel_for("vanilla_lstm_h", hidden_forward, hidden_backward),
         kernel_for("vanilla_lstm_gates", gates_forward, gates_backward),
         kernel_for("vanilla_lstm_activations", activations_forward, activations_backward),
         kernel_for("vanilla_lstm_gates_dropout", gates_forward, gates_backward)});
}

}  // namespace gpu
}  // namespace dynet
