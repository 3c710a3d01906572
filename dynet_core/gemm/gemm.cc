#include "dynet_core/gemm/gemm.h"

#include <algorithm>
#include <vector>

#include <Eigen/Core>

#include "dynet_core/device/device.h"
#include "dynet_core/device/thread_pool.h"
#include "dynet_core/gemm/column_dots.h"
#include "dynet_core/gemm/jit_gemm.h"
#include "dynet_core/gemm/transpose_cache.h"

namespace dynet {

namespace {

// Below this many floating-point operations a product runs on one thread: waking another costs
// about as much as it saves.
constexpr double kParallelFlops = 4e6;

// A transposed copy of a weight larger than one kernel block costs 0.3-0.75 ns an element (measured
// on 640 x 256 to 10,000 x 256), which the kernels' speed over Eigen's repays after 64-217 columns,
// and their speed over dot products or (b^T a)^T after 40-300 columns of products of 2-64 columns
// (1,024 x 256 at 16 columns: 36 us a product on the copy, 161 without, for a copy of 127 us; a
// leading dimension of a multiple of 4 KiB slows (b^T a)^T most). It is made once the pass's
// products over the weight reach this many columns in all (a tree's levels, or a sequence's
// steps, are many small products over one weight), and then serves the rest of the pass.
constexpr unsigned kColumnsToTranspose = 128;
// Products of up to kTransposedProductColumns count towards a copy only over a weight of this many
// floats or fewer: a larger one is streamed from memory with or without it (10,000 x 256 at 16-64
// columns: 0.93-1.06x the time on a copy that costs 1.2 ms).
constexpr std::size_t kNarrowCopyMaxFloats = std::size_t(1) << 20;

// Where no transposed copy of a serves, a^T b over up to kColumnDotsMaxColumns columns runs as
// dot products (column_dots.h), and over up to kTransposedProductColumns as (b^T a)^T: b^T and the
// result are small, and the kernel streams a once. Measured against Eigen's a^T b (one core,
// AVX-512): 10,000 x 256 at 16-64 columns 0.59-0.71 ms against 0.82-3.3 (at 16 columns, 0.71 against
// 0.99 on a transposed copy, before the copy's cost), 2,048 x 1,024 and 5,000 x 512 at 16 columns
// 1.9-3.1x. From 128 columns on, the copy is faster. Below 8 columns (b^T a) has a row or a few,
// and the kernels, which vectorize along rows, waste most of each vector: 640 x 256 takes 23 us
// at 1 to 8 columns that way, 5.4-20 us as dot products (one core of the 2026-12-06 EPYC VM).
constexpr unsigned kTransposedProductColumns = 64;

using Strided = Eigen::Map<Eigen::MatrixXf, Eigen::Unaligned, Eigen::OuterStride<>>;
using ConstStrided = Eigen::Map<const Eigen::MatrixXf, Eigen::Unaligned, Eigen::OuterStride<>>;

/// A column-major matrix in memory: `rows` x `cols` with leading dimension `ld`.
struct Operand {
  const float* v;
  unsigned rows, cols, ld;
  ConstStrided map() const { return ConstStrided(v, rows, cols, Eigen::OuterStride<>(ld)); }
};

template <class Y, class A, class B>
void product(Y&& y, const A& a, const B& b, bool accumulate) {
  if (accumulate)
    y.noalias() += a * b;
  else
    y.noalias() = a * b;
}

template <class B>
void eigen_product_op_a(Strided& y, const Operand& a, bool ta, const B& b, bool accumulate) {
  if (ta)
    product(y, a.map().transpose(), b, accumulate);
  else
    product(y, a.map(), b, accumulate);
}

// Up to this many columns a^T b also runs as dot products where a's leading dimension is a multiple
// of kAliasedLeadingFloats (4 KiB): (b^T a)^T is then 2-4x slower than column_dots at 9-16 columns
// and level or faster from 20 on (one core of the EPYC VM, `narrow_products --at`: 1,024 x 1,024,
// 2,048 x 512 and 3,072 x 256 at 9 and 16 columns 426-650 us against 130-377; 512 x 512, 2,000 x 500
// and 10,000 x 256, whose leading dimensions are not, are as fast or faster as (b^T a)^T).
constexpr unsigned kAliasedColumns = 16;
constexpr unsigned kAliasedLeadingFloats = 1024;

/// Whether a^T b, for a (k x m, leading dimension lda) with no transposed copy, over n columns
/// runs as dot products.
bool takes_column_dots(unsigned n, unsigned lda) {
  return n <= kColumnDotsMaxColumns || (n <= kAliasedColumns && lda % kAliasedLeadingFloats == 0);
}

/// Whether a^T b, for a (k x m) with no transposed copy, over n columns (more than column_dots
/// takes) runs as (b^T a)^T.
bool takes_transposed_product(unsigned m, unsigned n, unsigned k) {
  return n <= kTransposedProductColumns && jit_gemm_serves(n, m, k);
}

/// y (m x n, ldy) = a^T b, or += when accumulate, as (b^T a)^T; false, leaving y alone, when no
/// kernel serves it.
bool transposed_product(float* y, unsigned ldy, const Operand& a, const Operand& b, bool accumulate) {
  const unsigned m = a.cols, k = a.rows, n = b.cols;
  // Per thread, grown to the largest product and then reused: a pass allocates nothing.
  thread_local std::vector<float> bt, yt;
  if (bt.size() < std::size_t(n) * k) bt.resize(std::size_t(n) * k);
  if (yt.size() < std::size_t(n) * m) yt.resize(std::size_t(n) * m);
  Eigen::Map<Eigen::MatrixXf>(bt.data(), n, k) = b.map().transpose();
  if (!jit_gemm(n, m, k, bt.data(), n, a.v, a.ld, false, yt.data(), n, false)) return false;
  Strided ym(y, m, n, Eigen::OuterStride<>(ldy));
  const Eigen::Map<const Eigen::MatrixXf> ytm(yt.data(), n, m);
  if (accumulate)
    ym += ytm.transpose();
  else
    ym = ytm.transpose();
  return true;
}

/// y (m x n, ldy) = op(a) * op(b), or += when accumulate.
void block_product(float* y, unsigned ldy, const Operand& a, bool ta, const Operand& b, bool tb, bool accumulate) {
  const unsigned m = ta ? a.cols : a.rows, k = ta ? a.rows : a.cols, n = tb ? b.rows : b.cols;
  if (!ta && jit_gemm(m, n, k, a.v, a.ld, b.v, b.ld, tb, y, ldy, accumulate)) return;
  if (ta && !tb && takes_column_dots(n, a.ld)) return column_dots(m, n, k, a.v, a.ld, b.v, b.ld, y, ldy, accumulate);
  if (ta && !tb && takes_transposed_product(m, n, k) && transposed_product(y, ldy, a, b, accumulate)) return;
  Strided ym(y, m, n, Eigen::OuterStride<>(ldy));
  if (tb)
    eigen_product_op_a(ym, a, ta, b.map().transpose(), accumulate);
  else
    eigen_product_op_a(ym, a, ta, b.map(), accumulate);
}

/// Batch element k of t as a matrix (rows x the product of the other dims). Column counts fit
/// in 32 bits: a tensor has at most Dim::kMaxElements elements.
Operand batch_matrix(const Tensor& t, unsigned k) {
  return {t.batch_ptr(k), t.d.rows(), static_cast<unsigned>(t.d.batch_size() / t.d.rows()), t.d.rows()};
}
/// All batch elements of t side by side: rows x (cols * batches). Valid because batches are outermost.
Operand column_batch(const Tensor& t) {
  return {t.v, t.d.rows(), static_cast<unsigned>(t.d.size() / t.d.rows()), t.d.rows()};
}

/// The pool to split a product of `flops` over, or null to run it here.
ThreadPool* pool_for(const Tensor& y, double flops) {
  if (flops < kParallelFlops || !y.device || ThreadPool::in_task()) return nullptr;
  ThreadPool* pool = y.device->thread_pool();
  return pool && pool->threads() > 1 ? pool : nullptr;
}

/// Runs part(p) for every part p: on the pool's threads, or as the one part here without a pool.
template <class Part>
void run_parts(ThreadPool* pool, Part&& part) {
  if (pool)
    pool->run(part);
  else
    part(0);
}

/// [begin, end) of part p of n items split into `parts` nearly equal ranges.
inline unsigned part_begin(unsigned n, unsigned p, unsigned parts) {
  return static_cast<unsigned>(std::size_t(n) * p / parts);
}

}  // namespace

void gemm(const Tensor& y, const Tensor& a, bool ta, const Tensor& b, bool tb, bool accumulate,
          TransposeCache* transposes) {
  // A shared left operand times every batch element: one GEMM over all columns, split by columns.
  if (a.d.bd == 1 && !tb && b.d.bd == y.d.bd) {
    Operand am = batch_matrix(a, 0);
    const Operand bc = column_batch(b);
    // The copy pays only where a JIT kernel then takes the product; Eigen reads a^T in place, and
    // over a few columns the product runs as (b^T a)^T instead.
    if (ta && transposes && jit_gemm_serves(am.cols, bc.cols, am.rows)) {
      const float* t = nullptr;
      if (jit_gemm_one_block(am.cols, am.rows) || transposes->holds(am.v, am.rows, am.cols))
        t = transposes->get(am.v, am.rows, am.cols);
      else if (bc.cols > kTransposedProductColumns || std::size_t(am.rows) * am.cols <= kNarrowCopyMaxFloats)
        t = transposes->get_after(am.v, am.rows, am.cols, bc.cols, kColumnsToTranspose);
      if (t) {
        am = {t, am.cols, am.rows, am.cols};
        ta = false;
      }
    }
    const unsigned m = ta ? am.cols : am.rows, cols = bc.cols;
    ThreadPool* pool = pool_for(y, 2.0 * m * cols * bc.rows);
    const unsigned parts = pool ? pool->threads() : 1;
    auto part = [&](unsigned p) {
      const unsigned c0 = part_begin(cols, p, parts), c1 = part_begin(cols, p + 1, parts);
      if (c1 == c0) return;
      const Operand bp{bc.v + std::size_t(c0) * bc.ld, bc.rows, c1 - c0, bc.ld};
      block_product(y.v + std::size_t(c0) * m, m, am, ta, bp, false, accumulate);
    };
    run_parts(pool, part);
    return;
  }
  // Gradient of a shared weight: sum over the batch of dy_b * x_b^T is one GEMM, split by rows.
  if (y.d.bd == 1 && !ta && tb && a.d.bd == b.d.bd) {
    const Operand ac = column_batch(a), bc = column_batch(b);
    const unsigned rows = ac.rows;
    ThreadPool* pool = pool_for(y, 2.0 * rows * bc.rows * ac.cols);
    const unsigned parts = pool ? pool->threads() : 1;
    auto part = [&](unsigned p) {
      const unsigned r0 = part_begin(rows, p, parts), r1 = part_begin(rows, p + 1, parts);
      if (r1 == r0) return;
      const Operand ap{ac.v + r0, r1 - r0, ac.cols, ac.ld};
      block_product(y.v + r0, rows, ap, false, bc, true, accumulate);
    };
    run_parts(pool, part);
    return;
  }
  // Operands of one batch element each still give every batch element of y their product (an
  // affine transform whose bias alone is batched).
  const unsigned batches = std::max({a.d.bd, b.d.bd, y.d.bd});
  const bool sum_batches = y.d.bd == 1 && batches > 1;
  const Operand y0 = batch_matrix(y, 0);
  if (sum_batches && !accumulate) Strided(y.v, y0.rows, y0.cols, Eigen::OuterStride<>(y0.ld)).setZero();
  const double flops = 2.0 * y0.rows * y0.cols * (ta ? a.d.rows() : a.d.cols()) * batches;
  // Batch elements are independent unless they are summed into one y.
  ThreadPool* pool = sum_batches ? nullptr : pool_for(y, flops);
  const unsigned parts = pool ? pool->threads() : 1;
  auto part = [&](unsigned p) {
    for (unsigned k = p; k < batches; k += parts)
      block_product(y.batch_ptr(k), y0.rows, batch_matrix(a, k), ta, batch_matrix(b, k), tb, accumulate || sum_batches);
  };
  run_parts(pool, part);
}

}  // namespace dynet
