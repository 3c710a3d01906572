#include "dynet_core/gemm/jit_gemm.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include <Eigen/Core>

#ifdef DYBATCH_HAVE_XSMM
#include <unistd.h>

#include <libxsmm.h>
#endif

namespace dynet {

#ifdef DYBATCH_HAVE_XSMM
namespace {

// The kernels stream the left operand without packing it, so it must stay in L2 beside the
// columns: half of L2 (measured on a core with 512 KiB: a left operand of 256 x 256 runs 1.0-1.4x
// Eigen's speed, 512 x 256 0.8-0.9x, 10,000 x 256 0.4-0.7x). A larger one is cut into blocks that
// fit (measured on a core with 1 MiB: 1.1-3.8x Eigen on left operands of 640 x 256 to
// 10,000 x 256 and 2,048 x 1,024, from 2 to 2,048 columns).
std::size_t max_left_floats() {
  static const std::size_t floats = [] {
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return std::size_t(l2 > 0 ? l2 : 512 * 1024) / 2 / sizeof(float);
  }();
  return floats;
}

/// Rows of the left operand a block takes at most: a tall operand is cut by rows first, and its
/// blocks then take as much of k as fits.
constexpr unsigned kBlockRows = 512;
/// Blocks are whole vectors of rows and of k, but for the last.
constexpr unsigned kBlockAlign = 16;
/// A product over this many columns or fewer streams the left operand instead: blocks of
/// kNarrowDepth columns of it and up to kNarrowRows rows (a quarter of half of L2 at most), each
/// read as long runs down its columns, which the hardware prefetches. Measured on one core with
/// 2 MiB of L2 (AVX-512), against 512-row blocks over all of k: 10,000 x 256 at 4, 16 and 64
/// columns 1.10x, 1.31x and 1.17x, 2,048 x 1,024 at 16 and 64 1.77x and 2.1x, 1,024 x 384 and
/// 4,096 x 256 at 16 1.27-1.29x; 1,024-row blocks came out 0.99-1.9x.
constexpr unsigned kNarrowColumns = 64;
constexpr unsigned kNarrowDepth = 32;
constexpr unsigned kNarrowRows = 4096;

/// A kernel's shape: what libxsmm's dispatch is asked for.
struct KernelShape {
  unsigned m, n, k, lda, ldb, ldc;
  bool tb, accumulate;
  bool operator==(const KernelShape& o) const {
    return m == o.m && n == o.n && k == o.k && lda == o.lda && ldb == o.ldb && ldc == o.ldc && tb == o.tb &&
           accumulate == o.accumulate;
  }
};

libxsmm_smmfunction kernel(unsigned m, unsigned n, unsigned k, unsigned lda, unsigned ldb, bool tb, unsigned ldc,
                           bool accumulate) {
  // libxsmm's dispatch hashes and compares its whole descriptor on every call (about 1% of a tree
  // LSTM's step at one tree a graph, where products are small and many); the shapes a program
  // multiplies are found here first. A tree LSTM's levels and weight gradients ask for some 400
  // shapes (every column count over every weight, forward and backward), which thrashed a table of
  // 64: 13 of libxsmm's look-ups a tree, 1.0% of DyNet's treenn at autobatch 1 in perf, 0.08% with
  // this one of 1,024, two-way, the one found last first in its set. It is on the heap, as a shared
  // library's static thread-local block is small. Kernels live until the process ends.
  struct Entry {
    KernelShape shape;
    libxsmm_smmfunction kernel;
  };
  constexpr unsigned kSetBits = 9;
  thread_local std::unique_ptr<Entry[][2]> table;
  if (!table) table.reset(new Entry[std::size_t(1) << kSetBits][2]());
  const KernelShape shape{m, n, k, lda, ldb, ldc, tb, accumulate};
  std::uint64_t h = (std::uint64_t(m) << 32 | n) * 0x9E3779B97F4A7C15ull;
  h = (h ^ (std::uint64_t(k) << 32 | lda)) * 0xC2B2AE3D27D4EB4Full;
  h = (h ^ (std::uint64_t(ldb) << 32 | ldc) ^ (std::uint64_t(tb) << 1 | accumulate)) * 0x165667B19E3779F9ull;
  Entry* set = table[h >> (64 - kSetBits)];
  if (set[0].kernel && set[0].shape == shape) return set[0].kernel;
  if (set[1].kernel && set[1].shape == shape) {
    std::swap(set[0], set[1]);
    return set[0].kernel;
  }
  const libxsmm_blasint mm = m, nn = n, kk = k, la = lda, lb = ldb, lc = ldc;
  const float alpha = 1.f, beta = accumulate ? 1.f : 0.f;
  const int flags = tb ? LIBXSMM_GEMM_FLAG_TRANS_B : LIBXSMM_GEMM_FLAG_NONE;
  const libxsmm_smmfunction f = libxsmm_smmdispatch(mm, nn, kk, &la, &lb, &lc, &alpha, &beta, &flags, nullptr);
  if (f) {
    set[1] = set[0];
    set[0] = {shape, f};
  }
  return f;
}

}  // namespace
#endif

bool jit_gemm_serves(unsigned m, unsigned n, unsigned k) {
#ifdef DYBATCH_HAVE_XSMM
  // One column is a matrix-vector product, where Eigen's GEMV is 1.3-2x faster.
  return m > 0 && n > 1 && k > 0;
#else
  (void)m, (void)n, (void)k;
  return false;
#endif
}

bool jit_gemm_one_block(unsigned m, unsigned k) {
#ifdef DYBATCH_HAVE_XSMM
  return std::size_t(m) * k <= max_left_floats();
#else
  (void)m, (void)k;
  return false;
#endif
}

bool jit_gemm(unsigned m, unsigned n, unsigned k, const float* a, unsigned lda, const float* b, unsigned ldb, bool tb,
              float* c, unsigned ldc, bool accumulate) {
#ifdef DYBATCH_HAVE_XSMM
  if (!jit_gemm_serves(m, n, k)) return false;
  // A block of `rows` x `depth` of a, the last ones smaller: the kernels of the block shapes
  // (the first of each row block overwrites unless accumulating, the others add), all found
  // before any runs so that a refused one leaves c alone.
  const bool whole = jit_gemm_one_block(m, k);
  unsigned rows = m, depth = k;
  if (!whole && n <= kNarrowColumns) {
    depth = std::min(k, kNarrowDepth);
    rows = static_cast<unsigned>(std::min<std::size_t>(
        {m, kNarrowRows,
         std::max<std::size_t>(kBlockAlign, max_left_floats() / depth / 2 / kBlockAlign * kBlockAlign)}));
  } else if (!whole) {
    rows = std::min(m, kBlockRows);
    depth = static_cast<unsigned>(std::min<std::size_t>(
        k, std::max<std::size_t>(kBlockAlign, max_left_floats() / rows / kBlockAlign * kBlockAlign)));
  }
  libxsmm_smmfunction kernels[2][3] = {};  // [last row block][first, middle or last part of k]
  for (unsigned last_rows = 0; last_rows < 2; ++last_rows) {
    const unsigned mm = last_rows ? m % rows : rows;
    if (mm == 0) continue;
    kernels[last_rows][0] = kernel(mm, n, depth, lda, ldb, tb, ldc, accumulate);
    if (k > depth) {
      kernels[last_rows][1] = kernel(mm, n, depth, lda, ldb, tb, ldc, true);
      kernels[last_rows][2] = k % depth ? kernel(mm, n, k % depth, lda, ldb, tb, ldc, true) : kernels[last_rows][1];
    }
    if (!kernels[last_rows][0] || (k > depth && (!kernels[last_rows][1] || !kernels[last_rows][2]))) return false;
  }
  for (unsigned r = 0; r < m; r += rows) {
    const auto* row_kernels = kernels[m - r < rows];
    for (unsigned p = 0; p < k; p += depth) {
      const libxsmm_smmfunction run = row_kernels[p == 0 ? 0 : p + depth < k ? 1 : 2];
      run(a + r + std::size_t(p) * lda, tb ? b + std::size_t(p) * ldb : b + p, c + r);
    }
  }
  return true;
#else
  (void)m, (void)n, (void)k, (void)a, (void)lda, (void)b, (void)ldb, (void)tb, (void)c, (void)ldc, (void)accumulate;
  return false;
#endif
}

void transpose_matrix(const float* a, unsigned rows, unsigned cols, float* t) {
#ifdef DYBATCH_HAVE_XSMM
  // In panels of rows: over a tall matrix at once, libxsmm's routine took 3.3-3.8 ns an element
  // (10,000 x 256, 5,000 x 512), in panels 0.57-0.69; 0.34-0.75 on every shape measured.
  constexpr unsigned kPanelRows = 256;
  for (unsigned r = 0; r < rows; r += kPanelRows)
    libxsmm_otrans(t + std::size_t(r) * cols, a + r, sizeof(float), std::min(kPanelRows, rows - r), cols, rows, cols);
#else
  using Map = Eigen::Map<Eigen::MatrixXf, Eigen::Unaligned>;
  using ConstMap = Eigen::Map<const Eigen::MatrixXf, Eigen::Unaligned>;
  Map(t, cols, rows) = ConstMap(a, rows, cols).transpose();
#endif
}

}  // namespace dynet
