#include "dynet_core/ops/lstm.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "dynet_core/gemm/gemm.h"
#include "dynet_core/graph.h"
#include "dynet_core/ops/called_as.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/dims.h"
#include "dynet_core/ops/fixed_blocks.h"
#include "dynet_core/ops/random.h"
#include "dynet_core/ops/registry.h"
#include "dynet_core/ops/vector_logistic.h"
#include "dynet_core/tensor_eigen.h"

namespace dynet {

namespace {

void require_vector(const Dim& d, const std::string& what) {
  if (d.ndims() != 1) dims::fail(what + " must be a vector, got " + to_string(d.single_batch()));
}
void require_size(const Dim& d, unsigned n, const std::string& what) {
  if (d.rows() != n) dims::fail(what + " must have " + std::to_string(n) + " rows, got " + to_string(d.single_batch()));
}

Dim infer_gates(const DimArgs& xs, const void* data) {
  const GatesArgs a(*static_cast<const GatesData*>(data));
  require_vector(xs[a.h], "h_tm1");
  const unsigned hidden = xs[a.h].rows();
  unsigned input = 0;
  for (unsigned i = 0; i < a.k; ++i) {
    require_vector(xs[i], "x_t[" + std::to_string(i) + "]");
    input += xs[i].rows();
  }
  const Dim& wx = xs[a.wx];
  const Dim& wh = xs[a.wh];
  if (wx.ndims() != 2 || wx.rows() != 4 * hidden || wx.cols() != input)
    dims::fail("Wx must be {" + std::to_string(4 * hidden) + "," + std::to_string(input) +
               "} (4 x hidden, input), got " + to_string(wx.single_batch()));
  if (wh.ndims() != 2 || wh.rows() != 4 * hidden || wh.cols() != hidden)
    dims::fail("Wh must be {" + std::to_string(4 * hidden) + "," + std::to_string(hidden) +
               "} (4 x hidden, hidden), got " + to_string(wh.single_batch()));
  require_vector(xs[a.b], "b");
  require_size(xs[a.b], 4 * hidden, "b");
  if (a.dropout) {
    require_vector(xs[a.mask_x], "dropout_mask_x");
    require_size(xs[a.mask_x], input, "dropout_mask_x");
    require_vector(xs[a.mask_h], "dropout_mask_h");
    require_size(xs[a.mask_h], hidden, "dropout_mask_h");
  }
  return Dim({4 * hidden}, dims::batch(xs));
}

/// The inputs as the products see them: x_1..x_k stacked (times mask_x), one column per batch
/// element, in scratch. For one unmasked input, that input itself.
Tensor stacked_input(const OpCall& c, const GatesArgs& a) {
  if (a.k == 1 && !a.dropout) return c.xs[0];
  const unsigned input = c.xs[a.wx].d.cols(), bd = c.y.d.bd;
  Tensor x(Dim({input}, bd), c.scratch_floats(std::size_t(input) * bd), c.y.device);
  for (unsigned t = 0; t < bd; ++t) {
    float* col = x.batch_ptr(t);
    for (unsigned i = 0, off = 0; i < a.k; off += c.xs[i].d.rows(), ++i)
      std::memcpy(col + off, c.xs[i].batch_ptr(t), c.xs[i].d.rows() * sizeof(float));
    if (a.dropout) eig::Vector(col, input).array() *= eig::Vector(c.xs[a.mask_x].batch_ptr(t), input).array();
  }
  return x;
}

/// h_tm1 as the product sees it: times mask_h when there is one.
Tensor masked_hidden(const OpCall& c, const GatesArgs& a) {
  if (!a.dropout) return c.xs[a.h];
  const unsigned hidden = c.xs[a.h].d.rows(), bd = c.y.d.bd;
  Tensor h(Dim({hidden}, bd), c.scratch_floats(std::size_t(hidden) * bd), c.y.device);
  for (unsigned t = 0; t < bd; ++t)
    eig::Vector(h.batch_ptr(t), hidden) =
        eig::Vector(c.xs[a.h].batch_ptr(t), hidden).cwiseProduct(eig::Vector(c.xs[a.mask_h].batch_ptr(t), hidden));
  return h;
}

/// y = [logistic(a_i); logistic(a_f + forget_bias); logistic(a_o); tanh(a_g)] for every batch
/// element of y (rows 4 hidden); a may be y. In fixed blocks (fixed_blocks.h): the same bits
/// wherever a and y lie.
void activate_gates(const Tensor& a, const Tensor& y, float forget_bias) {
  const unsigned hidden = y.d.rows() / 4;
  auto logistic = [](const auto& v) { return vector_logistic(v); };
  for (unsigned t = 0; t < y.d.bd; ++t) {
    const float* in = a.batch_ptr(t);
    float* out = y.batch_ptr(t);
    map_in_blocks(in, out, hidden, logistic);
    map_in_blocks(in + hidden, out + hidden, hidden,
                  [forget_bias](const auto& v) { return vector_logistic(v + forget_bias); });
    map_in_blocks(in + 2 * hidden, out + 2 * hidden, hidden, logistic);
    map_in_blocks(in + 3 * hidden, out + 3 * hidden, hidden, [](const auto& v) { return v.tanh(); });
  }
}

/// d (+)= dy times the derivative of activate_gates at its output y: the gradient of the
/// pre-activations.
void gate_gradients(const Tensor& y, const Tensor& dy, const Tensor& d, bool accumulate) {
  const unsigned rows = y.d.rows(), hidden = rows / 4;
  for (unsigned t = 0; t < y.d.bd; ++t) {
    const float *out = y.batch_ptr(t), *g = dy.batch_ptr(t);
    float* dt = d.batch_ptr(t);
    if (!accumulate) std::fill(dt, dt + rows, 0.f);
    for (unsigned r = 0; r < 3 * hidden; ++r) dt[r] += g[r] * (out[r] * (1.f - out[r]));
    for (unsigned r = 3 * hidden; r < rows; ++r) dt[r] += g[r] * (1.f - out[r] * out[r]);
  }
}

void gates_forward(const OpCall& c) {
  const GatesArgs a(c.op_data<GatesData>());
  const unsigned rows = c.y.d.rows(), hidden = rows / 4;
  for (unsigned t = 0; t < c.y.d.bd; ++t) {
    float* y = c.y.batch_ptr(t);
    std::memcpy(y, c.xs[a.b].batch_ptr(t), rows * sizeof(float));
    eig::Vector(y + hidden, hidden).array() += 1.f;
  }
  gemm(c.y, c.xs[a.wx], false, stacked_input(c, a), false, true);
  gemm(c.y, c.xs[a.wh], false, masked_hidden(c, a), false, true);
  activate_gates(c.y, c.y, 0.f);
}

/// d(loss)/d(pre-activation) of every gate, in scratch.
Tensor gates_pre_gradient(const OpCall& c) {
  Tensor d(c.y.d, c.scratch_floats(c.y.d.size()), c.y.device);
  gate_gradients(c.y, c.dy, d, false);
  return d;
}

/// dx += v * (mask when given) over n rows starting at row `from` of v, for every batch element of
/// v (a dx of one batch element sums them).
void add_rows(const Tensor& dx, const Tensor& v, unsigned from, unsigned n, const Tensor* mask) {
  for (unsigned t = 0; t < v.d.bd; ++t) {
    eig::Vector out(dx.batch_ptr(t), n);
    const eig::Vector src(v.batch_ptr(t) + from, n);
    if (mask)
      out.array() += src.array() * eig::Vector(mask->batch_ptr(t) + from, n).array();
    else
      out += src;
  }
}

void gates_backward(const OpCall& c, unsigned i) {
  const GatesArgs a(c.op_data<GatesData>());
  const Tensor d = gates_pre_gradient(c);
  const unsigned bd = c.y.d.bd;
  if (i == a.wx) return gemm(c.dx, d, false, stacked_input(c, a), true, true);
  if (i == a.wh) return gemm(c.dx, d, false, masked_hidden(c, a), true, true);
  if (i == a.b) {
    for (unsigned t = 0; t < bd; ++t)
      eig::Vector(c.dx.batch_ptr(t), c.y.d.rows()) += eig::Vector(d.batch_ptr(t), c.y.d.rows());
    return;
  }
  // Inputs, h_tm1 and masks: through W^T d, the gradient of the (masked) vector the product saw.
  const bool input_side = i < a.k || (a.dropout && i == a.mask_x);
  const Tensor& w = c.xs[input_side ? a.wx : a.wh];
  const unsigned n = w.d.cols();
  Tensor back(Dim({n}, bd), c.scratch_floats(std::size_t(n) * bd), c.y.device);
  gemm(back, w, true, d, false, false);
  if (i < a.k) {
    unsigned from = 0;
    for (unsigned j = 0; j < i; ++j) from += c.xs[j].d.rows();
    add_rows(c.dx, back, from, c.xs[i].d.rows(), a.dropout ? &c.xs[a.mask_x] : nullptr);
  } else if (i == a.h) {
    add_rows(c.dx, back, 0, n, a.dropout ? &c.xs[a.mask_h] : nullptr);
  } else if (i == a.mask_x) {
    const Tensor x = stacked_input(c, GatesArgs(GatesData{a.k, 0}));
    add_rows(c.dx, back, 0, n, &x);
  } else {
    add_rows(c.dx, back, 0, n, &c.xs[a.h]);
  }
}

Expression check_gates(CheckCase& c, bool dropout) {
  const unsigned hidden = c.uniform(1, 3), bd = c.batch(), k = c.uniform(1, 2);
  auto batch = [&] { return c.uniform(0, 1) ? bd : 1u; };
  std::vector<Expression> xs;
  unsigned input = 0;
  for (unsigned i = 0; i < k; ++i) {
    const unsigned n = c.uniform(1, 3);
    input += n;
    xs.push_back(c.input(Dim({n}, batch())));
  }
  const Expression h = c.input(Dim({hidden}, batch()));
  const Expression wx = c.parameter(Dim({4 * hidden, input}));
  const Expression wh = c.parameter(Dim({4 * hidden, hidden}));
  const Expression b = c.parameter(Dim({4 * hidden}));
  if (!dropout) return vanilla_lstm_gates_concat(xs, h, wx, wh, b);
  return vanilla_lstm_gates_dropout_concat(xs, h, wx, wh, b, c.input(Dim({input}, batch()), 0.f, 2.f),
                                           c.input(Dim({hidden}, batch()), 0.f, 2.f));
}

OpDef VanillaLstmGatesOp = OpRow("vanilla_lstm_gates")
                               .arity(-1)
                               .infer(infer_gates)
                               .forward(gates_forward)
                               .backward(gates_backward)
                               .saves(kSavesBoth)
                               .batch(ConcatBatch().sig_bytes(sizeof(GatesData)).broadcasts_all())
                               .check([](CheckCase& c) { return check_gates(c, false); });
OpDef VanillaLstmGatesDropoutOp = OpRow("vanilla_lstm_gates_dropout")
                                      .arity(-1)
                                      .infer(infer_gates)
                                      .forward(gates_forward)
                                      .backward(gates_backward)
                                      .saves(kSavesBoth)
                                      .batch(ConcatBatch().sig_bytes(sizeof(GatesData)).broadcasts_all())
                                      .check([](CheckCase& c) { return check_gates(c, true); });

/// c_tm1 or c_t {H} and gates {4H}.
Dim infer_cell(const DimArgs& xs, const void*) {
  require_vector(xs[0], "the cell");
  require_vector(xs[1], "the gates");
  require_size(xs[1], 4 * xs[0].rows(), "the gates (4 x the cell)");
  return xs[0].with_batch(dims::batch(xs));
}

/// Calls f(t, cell, gates) for each batch element t of the output.
template <class F>
void for_each_cell(const OpCall& c, F&& f) {
  const unsigned hidden = c.y.d.rows();
  for (unsigned t = 0; t < c.y.d.bd; ++t) {
    const float* g = c.xs[1].batch_ptr(t);
    f(t, eig::Vector(c.xs[0].batch_ptr(t), hidden), eig::Vector(const_cast<float*>(g), 4 * hidden));
  }
}

// The cell ops as plain loops and fixed blocks: the same bits wherever their memory lies (an
// Eigen map's scalar head computes i g + f c with one rounding where its vector body takes two).
void cell_forward(const OpCall& c) {
  const unsigned hh = c.y.d.rows();
  for_each_cell(c, [&](unsigned t, const eig::Vector& c_tm1, const eig::Vector& g) {
    float* y = c.y.batch_ptr(t);
    const float *gate = g.data(), *cell = c_tm1.data();
    for (unsigned r = 0; r < hh; ++r) y[r] = gate[r] * gate[3 * hh + r] + gate[hh + r] * cell[r];
  });
}
void cell_backward(const OpCall& c, unsigned i) {
  const unsigned hh = c.y.d.rows();
  for_each_cell(c, [&](unsigned t, const eig::Vector& c_tm1, const eig::Vector& g) {
    const float *dy = c.dy.batch_ptr(t), *gate = g.data(), *cell = c_tm1.data();
    float* dx = c.dx.batch_ptr(t);
    if (i == 0) {
      for (unsigned r = 0; r < hh; ++r) dx[r] += dy[r] * gate[hh + r];
      return;
    }
    for (unsigned r = 0; r < hh; ++r) {
      dx[r] += dy[r] * gate[3 * hh + r];
      dx[hh + r] += dy[r] * cell[r];
      dx[3 * hh + r] += dy[r] * gate[r];
    }
  });
}
OpDef VanillaLstmCOp =
    OpRow("vanilla_lstm_c")
        .arity(2)
        .infer(infer_cell)
        .forward(cell_forward)
        .backward(cell_backward)
        .saves(kSavesInputs)
        .batch(ConcatBatch().broadcasts_all())
        .check([](CheckCase& c) {
          const unsigned hidden = c.uniform(1, 4), bd = c.batch();
          return vanilla_lstm_c(c.input(Dim({hidden}, c.uniform(0, 1) ? bd : 1)), c.input(Dim({4 * hidden}, bd)));
        });

/// tanh(c_t) of a batch element, in fixed blocks, into `out`.
void cell_tanh(const float* cell, unsigned hh, float* out) {
  map_in_blocks(cell, out, hh, [](const auto& v) { return v.tanh(); });
}
void hidden_forward(const OpCall& c) {
  const unsigned hh = c.y.d.rows();
  for_each_cell(c, [&](unsigned t, const eig::Vector& cell, const eig::Vector& g) {
    float* y = c.y.batch_ptr(t);
    cell_tanh(cell.data(), hh, y);
    const float* o = g.data() + 2 * hh;
    for (unsigned r = 0; r < hh; ++r) y[r] *= o[r];
  });
}
void hidden_backward(const OpCall& c, unsigned i) {
  const unsigned hh = c.y.d.rows();
  float* th = c.scratch_floats(hh);
  for_each_cell(c, [&](unsigned t, const eig::Vector& cell, const eig::Vector& g) {
    const float* dy = c.dy.batch_ptr(t);
    cell_tanh(cell.data(), hh, th);
    if (i == 0) {
      const float* o = g.data() + 2 * hh;
      float* dx = c.dx.batch_ptr(t);
      for (unsigned r = 0; r < hh; ++r) dx[r] += dy[r] * o[r] * (1.f - th[r] * th[r]);
    } else {
      float* dx = c.dx.batch_ptr(t) + 2 * hh;
      for (unsigned r = 0; r < hh; ++r) dx[r] += dy[r] * th[r];
    }
  });
}
OpDef VanillaLstmHOp = OpRow("vanilla_lstm_h")
                           .arity(2)
                           .infer(infer_cell)
                           .forward(hidden_forward)
                           .backward(hidden_backward)
                           .saves(kSavesInputs)
                           .batch(ConcatBatch().broadcasts_all())
                           .check([](CheckCase& c) {
                             const unsigned hidden = c.uniform(1, 4), bd = c.batch();
                             return vanilla_lstm_h(c.input(Dim({hidden}, bd), -2.f, 2.f),
                                                   c.input(Dim({4 * hidden}, c.uniform(0, 1) ? bd : 1)));
                           });

/// The pre-activations {4H}.
Dim infer_activations(const DimArgs& xs, const void*) {
  require_vector(xs[0], "the pre-activations");
  if (xs[0].rows() % 4 != 0)
    dims::fail("the pre-activations must have 4 x hidden rows, got " + to_string(xs[0].single_batch()));
  return xs[0];
}
void activations_forward(const OpCall& c) { activate_gates(c.xs[0], c.y, c.op_data<float>()); }
void activations_backward(const OpCall& c, unsigned) { gate_gradients(c.y, c.dy, c.dx, true); }
OpDef VanillaLstmActivationsOp =
    OpRow("vanilla_lstm_activations")
        .arity(1)
        .infer(infer_activations)
        .forward(activations_forward)
        .backward(activations_backward)
        .saves(kSavesOutput)
        .batch(ConcatBatch().sig_bytes(sizeof(float)))
        .check([](CheckCase& c) {
          return vanilla_lstm_activations(c.input(Dim({4 * c.uniform(1, 4)}, c.batch()), -3.f, 3.f),
                                          c.uniform(0, 1) ? 1.f : 0.f);
        });

/// A node of `op` for the public function `function` (the _concat forms share their op with the
/// single-input ones), which errors name.
Expression gates_node(const char* function, const OpDef& op, const std::vector<Expression>& x_t,
                      const Expression& h_tm1, Expression wx, Expression wh, Expression b, const Expression* masks,
                      float weightnoise_std) {
  return called_as(function, [&] {
    if (x_t.empty()) throw std::invalid_argument(std::string(function) + ": no inputs x_t given");
    ComputationGraph& g = graph_of(h_tm1, function);
    if (weightnoise_std < 0.f)
      throw std::invalid_argument(std::string(function) + ": weightnoise_std " + std::to_string(weightnoise_std) +
                                  " must be >= 0");
    if (weightnoise_std > 0.f) {
      wx = noise(wx, weightnoise_std);
      wh = noise(wh, weightnoise_std);
      b = noise(b, weightnoise_std);
    }
    std::vector<Expression> args(x_t);
    for (const Expression& e : {h_tm1, wx, wh, b}) args.push_back(e);
    if (masks) args.insert(args.end(), masks, masks + 2);
    const GatesData data{static_cast<unsigned>(x_t.size()), masks ? 1u : 0u};
    return g.append(op, args.data(), static_cast<unsigned>(args.size()), g.store(data));
  });
}

}  // namespace

Expression vanilla_lstm_gates(const Expression& x_t, const Expression& h_tm1, const Expression& Wx,
                              const Expression& Wh, const Expression& b, float weightnoise_std) {
  return gates_node("vanilla_lstm_gates", VanillaLstmGatesOp, {x_t}, h_tm1, Wx, Wh, b, nullptr, weightnoise_std);
}
Expression vanilla_lstm_gates_concat(const std::vector<Expression>& x_t, const Expression& h_tm1, const Expression& Wx,
                                     const Expression& Wh, const Expression& b, float weightnoise_std) {
  return gates_node("vanilla_lstm_gates_concat", VanillaLstmGatesOp, x_t, h_tm1, Wx, Wh, b, nullptr, weightnoise_std);
}
Expression vanilla_lstm_gates_dropout(const Expression& x_t, const Expression& h_tm1, const Expression& Wx,
                                      const Expression& Wh, const Expression& b, const Expression& dropout_mask_x,
                                      const Expression& dropout_mask_h, float weightnoise_std) {
  const Expression masks[2] = {dropout_mask_x, dropout_mask_h};
  return gates_node("vanilla_lstm_gates_dropout", VanillaLstmGatesDropoutOp, {x_t}, h_tm1, Wx, Wh, b, masks,
                    weightnoise_std);
}
Expression vanilla_lstm_gates_dropout_concat(const std::vector<Expression>& x_t, const Expression& h_tm1,
                                             const Expression& Wx, const Expression& Wh, const Expression& b,
                                             const Expression& dropout_mask_x, const Expression& dropout_mask_h,
                                             float weightnoise_std) {
  const Expression masks[2] = {dropout_mask_x, dropout_mask_h};
  return gates_node("vanilla_lstm_gates_dropout_concat", VanillaLstmGatesDropoutOp, x_t, h_tm1, Wx, Wh, b, masks,
                    weightnoise_std);
}
Expression vanilla_lstm_activations(const Expression& a, float forget_bias) {
  ComputationGraph& g = graph_of(a, "vanilla_lstm_activations");
  return g.append(VanillaLstmActivationsOp, {a}, g.store(forget_bias));
}
Expression vanilla_lstm_c(const Expression& c_tm1, const Expression& gates_t) {
  return graph_of(c_tm1, "vanilla_lstm_c").append(VanillaLstmCOp, {c_tm1, gates_t});
}
Expression vanilla_lstm_h(const Expression& c_t, const Expression& gates_t) {
  return graph_of(c_t, "vanilla_lstm_h").append(VanillaLstmHOp, {c_t, gates_t});
}

void register_lstm_ops() {
  register_ops(
      {&VanillaLstmGatesOp, &VanillaLstmGatesDropoutOp, &VanillaLstmActivationsOp, &VanillaLstmCOp, &VanillaLstmHOp});
}

}  // namespace dynet
