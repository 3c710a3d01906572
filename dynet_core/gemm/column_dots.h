#pragma once
// y = a^T b over a few columns of b, as dot products that stream a once: each output is the dot
// product of a column of a with a column of b, blocked so that a column of a read into L1 serves
// every column of b. Where b has few columns this keeps a^T b at the speed of a * x over the same
// weight; the JIT kernels, which vectorize along the output's rows, would spend whole vectors on
// the one or two rows of (b^T a), and Eigen's GEMM packs all of a for each call.
//
// Every output is summed the same way whatever the block it falls in and however many columns
// the call has: one column of a group gives the same bits as the same column alone.

namespace dynet {

/// Columns of b up to which column_dots beats a^T b through a transposed copy or (b^T a)^T.
constexpr unsigned kColumnDotsMaxColumns = 8;

/// y (m x n, leading dimension ldy) = a^T b, or += when `accumulate`; a is k x m (lda), b is
/// k x n (ldb), all column-major.
void column_dots(unsigned m, unsigned n, unsigned k, const float* a, unsigned lda, const float* b, unsigned ldb,
                 float* y, unsigned ldy, bool accumulate);

}  // namespace dynet
