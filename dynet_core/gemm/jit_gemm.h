#pragma once
// Column-major single-precision products through kernels compiled at run time for their exact
// shape (libxsmm), where the build has them. The kernels stream the left operand without packing
// it, so a left operand larger than half the core's L2 cache is cut into blocks that fit, each a
// kernel call over all columns (over a few columns, narrow blocks of many rows). So they run at 1.0-1.5x the speed of Eigen's GEMM on an AVX2 core
// (up to 1.9x on AVX-512) for the small shapes batched models make, and 1.1-3.8x on an AVX-512
// core for the large ones (a 10,000 x 256 output layer, a 2,048 x 1,024 cell). A single column
// runs faster as Eigen's GEMV. They take no transposed left operand.

namespace dynet {

/// Whether a kernel serves the product of an m x k left operand and n columns.
bool jit_gemm_serves(unsigned m, unsigned n, unsigned k);

/// Whether an m x k left operand is one block: a product over it runs as one kernel call.
bool jit_gemm_one_block(unsigned m, unsigned k);

/// c (m x n, leading dimension ldc) = a * op(b), or += when `accumulate`. a is m x k (lda);
/// op(b) is b (k x n, ldb), or b^T when tb (b: n x k, ldb). Returns false, leaving c alone, when
/// no kernel serves the shape (jit_gemm_serves); the caller then computes the product itself.
bool jit_gemm(unsigned m, unsigned n, unsigned k, const float* a, unsigned lda, const float* b, unsigned ldb, bool tb,
              float* c, unsigned ldc, bool accumulate);

/// t (cols x rows) = a^T for a dense column-major a (rows x cols); libxsmm's cache-blocked
/// routine, panel by panel, where the build has it (a plain transposed copy writes with a stride
/// of `cols`).
void transpose_matrix(const float* a, unsigned rows, unsigned cols, float* t);

}  // namespace dynet
