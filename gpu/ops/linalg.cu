// matmul and affine_transform through cuBLAS (gpu/gemm.h); transpose; inverse and logdet from
// the LU rules of dynet_core/ops/linalg.h, a thread block per matrix (its threads eliminate the
// rows of each pivot step side by side).

#include "dynet_core/ops/linalg.h"
#include "gpu/device_operations.h"
#include "gpu/gemm.h"
#include "gpu/kernel_table.h"
#include "gpu/launch.cuh"

namespace dynet {
namespace gpu {

namespace {

void matmul_forward(const OpCall& c) { gemm(c.y, c.xs[0], false, c.xs[1], false, false); }

void matmul_backward(const OpCall& c, unsigned i) {
  if (i == 0)
    gemm(c.dx, c.dy, false, c.xs[1], true, !c.overwrite);
  else
    gemm(c.dx, c.xs[0], true, c.dy, false, !c.overwrite);
}

/// Where element (r, col, bi) of y finds its bias: a bias of one column serves every column, a
/// bias of one batch element every batch element.
struct BiasMap {
  unsigned rows, cols, bias_cols, bias_bd;
  __device__ std::size_t at(std::size_t iy) const {
    const std::size_t per_batch = std::size_t(rows) * cols;
    const std::size_t bi = iy / per_batch, e = iy % per_batch;
    const std::size_t r = e % rows, col = e / rows;
    const std::size_t in_batch = bias_cols == cols ? r + rows * col : r;
    return (bias_bd == 1 ? 0 : bi * std::size_t(rows) * bias_cols) + in_batch;
  }
};

BiasMap bias_map(const OpCall& c) {
  return {c.y.d.rows(), unsigned(c.y.d.batch_size() / c.y.d.rows()), unsigned(c.xs[0].d.batch_size() / c.y.d.rows()),
          c.xs[0].d.bd};
}

__global__ void bias_forward_kernel(BiasMap m, const float* b, float* y, std::size_t n) {
  DYBATCH_GRID_STRIDE(i, n) y[i] = b[m.at(i)];
}

// One thread per bias element, summing every element of dy that it fed.
__global__ void bias_backward_kernel(BiasMap m, const float* dy, float* db, unsigned y_bd, bool overwrite) {
  const std::size_t n = std::size_t(m.rows) * m.bias_cols * m.bias_bd;
  DYBATCH_GRID_STRIDE(j, n) {
    const std::size_t per_bias = std::size_t(m.rows) * m.bias_cols;
    const std::size_t bb = j / per_bias, e = j % per_bias, r = e % m.rows, bc = e / m.rows;
    float s = 0.f;
    for (unsigned bi = (m.bias_bd == 1 ? 0u : unsigned(bb)); bi < (m.bias_bd == 1 ? y_bd : unsigned(bb) + 1); ++bi)
      for (unsigned col = (m.bias_cols == m.cols ? unsigned(bc) : 0u);
           col < (m.bias_cols == m.cols ? unsigned(bc) + 1 : m.cols); ++col)
        s += dy[bi * std::size_t(m.rows) * m.cols + col * std::size_t(m.rows) + r];
    db[j] = overwrite ? s : db[j] + s;
  }
}

void affine_forward(const OpCall& c) {
  const std::size_t n = c.y.d.size();
  bias_forward_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(bias_map(c), c.xs[0].v, c.y.v, n);
  check_launch("affine_transform forward");
  for (unsigned k = 1; k < c.nargs; k += 2) gemm(c.y, c.xs[k], false, c.xs[k + 1], false, true);
}

void affine_backward(const OpCall& c, unsigned i) {
  if (i == 0) {
    const std::size_t n = c.dx.d.size();
    bias_backward_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(bias_map(c), c.dy.v, c.dx.v, c.y.d.bd,
                                                                       c.overwrite);
    check_launch("affine_transform bias backward");
  } else if (i % 2 == 1) {
    gemm(c.dx, c.dy, false, c.xs[i + 1], true, !c.overwrite);
  } else {
    gemm(c.dx, c.xs[i - 1], true, c.dy, false, !c.overwrite);
  }
}

/// Where element iy of y = transpose(x) is in x.
struct Permuted {
  unsigned ydims[Dim::kMaxDims];
  unsigned xstride[Dim::kMaxDims];  // x's stride along y's dimension k
  unsigned n, per_batch;

  Permuted(const Dim& y, const Dim& x, const Permutation& p) : n(p.n), per_batch(unsigned(y.batch_size())) {
    unsigned stride[Dim::kMaxDims], s = 1;
    for (unsigned k = 0; k < Dim::kMaxDims; ++k) {
      stride[k] = s;
      s *= x[k];
    }
    for (unsigned k = 0; k < Dim::kMaxDims; ++k) {
      ydims[k] = y[k];
      xstride[k] = k < p.n ? stride[p.perm[k]] : 0;
    }
  }
  __device__ std::size_t x_of(std::size_t iy) const {
    std::size_t e = iy % per_batch, ix = iy - e;
    for (unsigned k = 0; k < n; ++k) {
      ix += (e % ydims[k]) * xstride[k];
      e /= ydims[k];
    }
    return ix;
  }
};

__global__ void transpose_kernel(Permuted p, const float* x, float* y, std::size_t n, bool backward) {
  DYBATCH_GRID_STRIDE(i, n) {
    if (backward)
      y[p.x_of(i)] += x[i];
    else
      y[i] = x[p.x_of(i)];
  }
}

void transpose_forward(const OpCall& c) {
  const std::size_t n = c.y.d.size();
  transpose_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(Permuted(c.y.d, c.xs[0].d, c.op_data<Permutation>()),
                                                                 c.xs[0].v, c.y.v, n, false);
  check_launch("transpose forward");
}

void transpose_backward(const OpCall& c, unsigned) {
  const std::size_t n = c.y.d.size();
  transpose_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(Permuted(c.y.d, c.xs[0].d, c.op_data<Permutation>()),
                                                                 c.dy.v, c.dx.v, n, true);
  check_launch("transpose backward");
}

// lu_factor (partial pivoting) of matrix b by its block: at pivot step k the block finds the
// pivot (the first largest |lu(i, k)|, i >= k, as lu_factor), swaps rows, divides column k, then
// updates the trailing submatrix, a thread per element. Each element sees the same operations in
// the same order as in lu_factor.
__device__ void block_lu_factor(float* f, unsigned n, unsigned* perm) {
  for (unsigned i = threadIdx.x; i < n; i += blockDim.x) perm[i] = i;
  __syncthreads();
  for (unsigned k = 0; k < n; ++k) {
    Found best{-1.f, k};
    for (unsigned i = k + threadIdx.x; i < n; i += blockDim.x) {
      const float v = fabsf(f[i + std::size_t(n) * k]);
      if (v > best.v) best = {v, i};
    }
    const unsigned p = block_reduce(best, Extreme<true>()).at;  // block_reduce synchronizes
    if (p != k) {
      for (unsigned j = threadIdx.x; j < n; j += blockDim.x) {
        const float t = f[k + std::size_t(n) * j];
        f[k + std::size_t(n) * j] = f[p + std::size_t(n) * j];
        f[p + std::size_t(n) * j] = t;
      }
      if (threadIdx.x == 0) {
        const unsigned t = perm[k];
        perm[k] = perm[p];
        perm[p] = t;
      }
      __syncthreads();
    }
    const float pivot = f[k + std::size_t(n) * k];
    for (unsigned i = k + 1 + threadIdx.x; i < n; i += blockDim.x) f[i + std::size_t(n) * k] /= pivot;
    __syncthreads();
    const std::size_t rows = n - k - 1;
    for (std::size_t e = threadIdx.x; e < rows * rows; e += blockDim.x) {
      const std::size_t i = k + 1 + e % rows, j = k + 1 + e / rows;
      f[i + n * j] -= f[i + n * k] * f[k + n * j];
    }
    __syncthreads();
  }
}

// A thread block per matrix b: its LU factors (in lu, n x n per matrix, with perm), then its
// inverse (when `inverse` is given; a thread per column) and its log |det| (when `logdet` is).
__global__ void lu_kernel(const float* x, unsigned n, unsigned count, float* lu, unsigned* perm, float* inverse,
                          float* logdet) {
  const std::size_t m = std::size_t(n) * n;
  for (std::size_t b = blockIdx.x; b < count; b += gridDim.x) {
    float* f = lu + b * m;
    for (std::size_t e = threadIdx.x; e < m; e += blockDim.x) f[e] = x[b * m + e];
    __syncthreads();
    block_lu_factor(f, n, perm + b * n);
    if (inverse)
      for (unsigned col = threadIdx.x; col < n; col += blockDim.x)
        lu_invert_column(f, perm + b * n, n, col, inverse + b * m);
    if (logdet) {
      float sum = 0.f;
      for (unsigned i = threadIdx.x; i < n; i += blockDim.x) sum += logf(fabsf(f[i + n * i]));
      sum = block_reduce(sum, Sum());
      if (threadIdx.x == 0) logdet[b] = sum;
    }
    __syncthreads();
  }
}

void factor(const OpCall& c, const float* x, float* inverse, float* logdet) {
  const unsigned n = c.xs[0].d.rows(), count = c.xs[0].d.bd;
  float* lu = c.scratch_floats(std::size_t(n) * n * count);
  unsigned* perm = c.scratch->allocate_array<unsigned>(std::size_t(n) * count);
  lu_kernel<<<grid_of(count), kThreads, 0, stream_of(c)>>>(x, n, count, lu, perm, inverse, logdet);
  check_launch("LU factorization");
}

void inverse_forward(const OpCall& c) { factor(c, c.xs[0].v, c.y.v, nullptr); }

// dx -= y^T dy y^T, batch element by batch element.
void inverse_backward(const OpCall& c, unsigned) {
  const Tensor dy_yt(c.y.d, c.scratch_floats(c.y.d.size()), c.y.device);
  const Tensor yt_dy_yt(c.y.d, c.scratch_floats(c.y.d.size()), c.y.device);
  gemm(dy_yt, c.dy, false, c.y, true, false);
  gemm(yt_dy_yt, c.y, true, dy_yt, false, false);
  launch_scaled_add(c.dx.v, -1.f, yt_dy_yt.v, c.y.d.size(), false, stream_of(c));
}

void logdet_forward(const OpCall& c) { factor(c, c.xs[0].v, nullptr, c.y.v); }

// dx += dy (x^-1)^T.
__global__ void add_transposed_kernel(const float* inv, const float* dy, unsigned n, float* dx, std::size_t total) {
  DYBATCH_GRID_STRIDE(i, total) {
    const std::size_t m = std::size_t(n) * n, b = i / m, e = i % m, r = e % n, col = e / n;
    dx[i] += dy[b] * inv[b * m + col + n * r];
  }
}

void logdet_backward(const OpCall& c, unsigned) {
  const std::size_t total = c.xs[0].d.size();
  float* inv = c.scratch_floats(total);
  factor(c, c.xs[0].v, inv, nullptr);
  add_transposed_kernel<<<blocks_for(total), kThreads, 0, stream_of(c)>>>(inv, c.dy.v, c.xs[0].d.rows(), c.dx.v, total);
  check_launch("logdet backward");
}

}  // namespace

void add_linalg_kernels(KernelTable& t) {
  t.add({kernel_for("matmul", matmul_forward, matmul_backward),
         kernel_for("affine_transform", affine_forward, affine_backward),
         kernel_for("transpose", transpose_forward, transpose_backward),
         kernel_for("inverse", inverse_forward, inverse_backward),
         kernel_for("logdet", logdet_forward, logdet_backward)});
}

}  // namespace gpu
}  // namespace dynet
