#pragma once
// The one GEMM entry point of the CPU kernels: JIT kernels (jit_gemm.h) where they serve the
// shape, Eigen otherwise. Batch rules: an operand with one batch element broadcasts, also to
// every batch element of a y that has more than both operands; when y has one batch element and
// the product has more, the products are summed (a shared weight's gradient). Shapes that allow it run as a single large GEMM over all batch elements side by side.

#include "dynet_core/tensor.h"

namespace dynet {

class TransposeCache;

/// From this many columns a^T b gains from a transposed copy of a even as the pass's only product
/// over it, which a caller that makes one product a weight hands gemm its TransposeCache for.
/// Measured with the copy's cost, one core (AVX-512): 10,000 x 256 and 1,024 x 128 at 350 columns
/// 0.77x and 0.71x the time without it, 384 x 128 and 200 x 178 at 52 level, 200 x 128 at 24 1.25x.
constexpr unsigned kOneProductCopyColumns = 64;

/// y = op(a) * op(b), or y += ... when `accumulate`; op transposes when ta / tb is set.
/// `transposes`, when given, may supply a^T for a shared a (one batch element) with ta set, so
/// that the product runs through a JIT kernel; it must hold only values that stay unchanged
/// while it lives.
void gemm(const Tensor& y, const Tensor& a, bool ta, const Tensor& b, bool tb, bool accumulate,
          TransposeCache* transposes = nullptr);

}  // namespace dynet
