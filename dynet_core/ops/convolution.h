#pragma once
// Convolutions and poolings over images (conv2d, maxpooling2d), over sequences of columns
// (filter1d_narrow, kmax_pooling, fold_rows, kmh_ngram) and circular ones over vectors.

#include <vector>

#include "dynet_core/expression.h"

namespace dynet {

/// 2D cross-correlation of feature maps x {H, W, Ci} (batched) with filters f {FH, FW, Ci, Co}:
/// y {YH, YW, Co}. stride = {row stride, column stride}. VALID: YH = ceil((H - FH + 1) / s0), no
/// padding; SAME: YH = ceil(H / s0), zero padding split as TensorFlow does (the extra row at the
/// bottom). Likewise for the width.
Expression conv2d(const Expression& x, const Expression& f, const std::vector<unsigned>& stride, bool is_valid = true);
/// The same plus a bias b {Co} per output channel.
Expression conv2d(const Expression& x, const Expression& f, const Expression& b, const std::vector<unsigned>& stride,
                  bool is_valid = true);
/// Maximum over ksize = {rows, columns} windows of each channel of x {H, W, C}, with conv2d's
/// strides and VALID / SAME geometry (padding never wins). The gradient goes to the first maximum.
Expression maxpooling2d(const Expression& x, const std::vector<unsigned>& ksize, const std::vector<unsigned>& stride,
                        bool is_valid = true);
/// y[n, j] = sum over r, k of x[r, j + k] f[r, k, n]: x {R, C}, filters f {R, FC} or {R, FC, N};
/// y {N, C - FC + 1}.
Expression filter1d_narrow(const Expression& x, const Expression& f);
/// The k largest elements along dimension d, kept in their original order.
Expression kmax_pooling(const Expression& x, unsigned k, unsigned d = 1);
/// y[i, j] = sum over r < nrows of x[i nrows + r, j]: sums each group of nrows consecutive rows.
Expression fold_rows(const Expression& x, unsigned nrows = 2);
/// y[:, j] = sum over k < n of x[:, j + k]: sums of n consecutive columns; x {R, C}, y {R, C - n + 1}.
Expression kmh_ngram(const Expression& x, unsigned n);
/// y_k = sum_i u_i v_{(k - i) mod n} for vectors u, v of size n.
Expression circ_conv(const Expression& u, const Expression& v);
/// y_k = sum_i u_i v_{(k + i) mod n}.
Expression circ_corr(const Expression& u, const Expression& v);

}  // namespace dynet
