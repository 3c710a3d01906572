#pragma once
// The one GEMM entry point of the CPU kernels (Eigen). Batch rules: an operand with one batch
// element broadcasts; when y has one batch element and the product has more, the products are
// summed (a shared weight's gradient). Shapes that allow it run as a single large GEMM over all
// batch elements side by side.

#include "dynet_core/tensor.h"

namespace dynet {

/// y = op(a) * op(b), or y += ... when `accumulate`; op transposes when ta / tb is set.
void gemm(const Tensor& y, const Tensor& a, bool ta, const Tensor& b, bool tb, bool accumulate);

}  // namespace dynet
