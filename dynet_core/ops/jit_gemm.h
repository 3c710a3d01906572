#pragma once
// Column-major single-precision products through kernels compiled at run time for their exact
// shape (libxsmm), where the build has them. On an AVX-512 core they run at 1.3-1.9x the speed
// of Eigen's GEMM for the shapes batched models make: a weight times a group's columns, and the
// weight's gradient over a group. They take no transposed left operand.

namespace dynet {

/// Whether this build has the JIT kernels.
bool jit_gemm_available();

/// c (m x n, leading dimension ldc) = a * op(b), or += when `accumulate`. a is m x k (lda);
/// op(b) is b (k x n, ldb), or b^T when tb (b: n x k, ldb). Returns false, leaving c alone, when
/// no kernel serves the shape; the caller then computes the product itself.
bool jit_gemm(unsigned m, unsigned n, unsigned k, const float* a, unsigned lda, const float* b, unsigned ldb,
              bool tb, float* c, unsigned ldc, bool accumulate);

/// t (cols x rows) = a^T for a dense column-major a (rows x cols); libxsmm's cache-blocked
/// routine where the build has it (a plain transposed copy writes with a stride of `cols`).
void transpose_matrix(const float* a, unsigned rows, unsigned cols, float* t);

}  // namespace dynet
