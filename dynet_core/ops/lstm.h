#pragma once
// The LSTM cell as three fused ops (DyNet's vanilla_lstm_*): one node per step for the gates, one
// for the cell and one for the output, so a batch of cells is three kernels. The gates also come
// from an affine transform's output (vanilla_lstm_activations), so that the transform stays one the
// engines can take part of ahead.

#include <vector>

#include "dynet_core/expression.h"

namespace dynet {

/// Gates [i; f; o; g] of an LSTM step (4H rows): i, f, o = logistic(.), g = tanh(.) of
/// Wx x_t + Wh h_tm1 + b, with 1 added to the forget gate's bias. Wx {4H, I}, Wh {4H, H}, b {4H}.
/// weightnoise_std > 0 adds Gaussian noise of that deviation to Wx, Wh and b.
Expression vanilla_lstm_gates(const Expression& x_t, const Expression& h_tm1, const Expression& Wx,
                              const Expression& Wh, const Expression& b, float weightnoise_std = 0.f);
/// The same with the inputs x_t concatenated (their sizes sum to I).
Expression vanilla_lstm_gates_concat(const std::vector<Expression>& x_t, const Expression& h_tm1, const Expression& Wx,
                                     const Expression& Wh, const Expression& b, float weightnoise_std = 0.f);
/// The same with x_t and h_tm1 multiplied by dropout masks {I} and {H} first.
Expression vanilla_lstm_gates_dropout(const Expression& x_t, const Expression& h_tm1, const Expression& Wx,
                                      const Expression& Wh, const Expression& b, const Expression& dropout_mask_x,
                                      const Expression& dropout_mask_h, float weightnoise_std = 0.f);
Expression vanilla_lstm_gates_dropout_concat(const std::vector<Expression>& x_t, const Expression& h_tm1,
                                             const Expression& Wx, const Expression& Wh, const Expression& b,
                                             const Expression& dropout_mask_x, const Expression& dropout_mask_h,
                                             float weightnoise_std = 0.f);
/// The gates [i; f; o; g] from their pre-activations a {4H} (an affine transform of a step's
/// input and state): i, o = logistic(a_i), logistic(a_o), f = logistic(a_f + forget_bias),
/// g = tanh(a_g). VanillaLSTMBuilder's gates in one node, for vanilla_lstm_c and vanilla_lstm_h.
Expression vanilla_lstm_activations(const Expression& a, float forget_bias);
/// c_t = i . g + f . c_tm1, from the gates of vanilla_lstm_gates.
Expression vanilla_lstm_c(const Expression& c_tm1, const Expression& gates_t);
/// h_t = o . tanh(c_t).
Expression vanilla_lstm_h(const Expression& c_t, const Expression& gates_t);

/// The gates op's data, which every device's kernels read. Arguments: x_1..x_k, h_tm1, Wx, Wh, b
/// [, mask_x, mask_h].
struct GatesData {
  unsigned inputs;  // k
  unsigned dropout;
};

/// The argument positions of a gates node.
struct GatesArgs {
  unsigned k, h, wx, wh, b, mask_x, mask_h;
  bool dropout;
  explicit GatesArgs(const GatesData& d)
      : k(d.inputs), h(k), wx(k + 1), wh(k + 2), b(k + 3), mask_x(k + 4), mask_h(k + 5), dropout(d.dropout != 0) {}
};

}  // namespace dynet
