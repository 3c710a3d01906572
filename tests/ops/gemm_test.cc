// gemm() against a plain triple loop on every path (JIT kernels where the build has them, Eigen,
// transposed copies, a^T b as dot products or as (b^T a)^T), and split over a thread pool against
// one thread.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "dynet_core/device/aligned_memory_pool.h"
#include "dynet_core/device/device.h"
#include "dynet_core/device/thread_pool.h"
#include "dynet_core/gemm/column_dots.h"
#include "dynet_core/gemm/gemm.h"
#include "dynet_core/gemm/jit_gemm.h"
#include "dynet_core/gemm/transpose_cache.h"

using namespace dynet;

namespace {

struct Operand {
  Operand(const Dim& d, Device* dev, std::mt19937& rng) : v(d.size()), t(d, nullptr, dev) {
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (float& x : v) x = u(rng);
    t.v = v.data();
  }
  std::vector<float> v;
  Tensor t;
};

std::vector<float> product(Device* dev, const Dim& yd, const Dim& ad, bool ta, const Dim& bd, bool tb) {
  std::mt19937 rng(7);
  Operand a(ad, dev, rng), b(bd, dev, rng), y(yd, dev, rng);
  gemm(y.t, a.t, ta, b.t, tb, true);
  return y.v;
}

}  // namespace

TEST_CASE("gemm split over threads equals gemm on one thread", "[ops][threads]") {
  const MemorySizes sizes{1 << 20, 1 << 20, 1 << 20, 1 << 20};
  Device_CPU one(sizes, false, 1), two(sizes, false, 2);
  REQUIRE(two.thread_pool() != nullptr);
  struct Case {
    Dim y, a;
    bool ta;
    Dim b;
    bool tb;
  };
  const std::vector<Case> cases = {
      {Dim({200, 150}, 4), Dim({200, 120}), false, Dim({120, 150}, 4), false},  // shared weight, split columns
      {Dim({120, 150}, 4), Dim({200, 120}), true, Dim({200, 150}, 4), false},   // transposed weight
      {Dim({200, 120}), Dim({200, 150}, 4), false, Dim({120, 150}, 4), true},   // weight gradient, split rows
      {Dim({90, 80}, 6), Dim({90, 100}, 6), false, Dim({100, 80}, 6), false},   // batched on both sides
  };
  for (const Case& c : cases) {
    const std::vector<float> serial = product(&one, c.y, c.a, c.ta, c.b, c.tb);
    const std::vector<float> parallel = product(&two, c.y, c.a, c.ta, c.b, c.tb);
    REQUIRE(serial.size() == parallel.size());
    for (std::size_t k = 0; k < serial.size(); ++k)
      REQUIRE(parallel[k] == Approx(serial[k]).epsilon(1e-5).margin(1e-4));
  }
}

TEST_CASE("a thread pool runs every part once", "[threads]") {
  ThreadPool pool(3);
  std::vector<int> hits(pool.threads(), 0);
  for (int round = 0; round < 100; ++round) {
    auto part = [&](unsigned p) { ++hits[p]; };
    pool.run(part);
  }
  for (int h : hits) CHECK(h == 100);
}

namespace {

/// Element (i, j) of batch element k of op(t), with broadcasting of a single batch element.
float at(const Tensor& t, bool transposed, unsigned i, unsigned j, unsigned k) {
  const unsigned rows = t.d.rows();
  return transposed ? t.batch_ptr(k)[j + std::size_t(i) * rows] : t.batch_ptr(k)[i + std::size_t(j) * rows];
}

/// y = op(a) * op(b) by the batch rules of gemm(), summed over the batch when y has one element.
std::vector<float> reference(const Tensor& y, const Tensor& a, bool ta, const Tensor& b, bool tb,
                             const std::vector<float>& y0, bool accumulate) {
  std::vector<float> r(y.d.size());
  const unsigned m = y.d.rows(), n = y.d.batch_size() / m, k = ta ? a.d.rows() : a.d.batch_size() / a.d.rows();
  const unsigned batches = std::max(a.d.bd, b.d.bd);
  for (std::size_t e = 0; e < r.size(); ++e) r[e] = accumulate ? y0[e] : 0.f;
  for (unsigned bi = 0; bi < batches; ++bi) {
    const unsigned yb = y.d.bd == 1 ? 0 : bi;
    for (unsigned j = 0; j < n; ++j)
      for (unsigned i = 0; i < m; ++i) {
        double s = 0;
        for (unsigned l = 0; l < k; ++l) s += double(at(a, ta, i, l, bi)) * at(b, tb, l, j, bi);
        r[std::size_t(yb) * m * n + i + std::size_t(j) * m] += float(s);
      }
  }
  return r;
}

}  // namespace

TEST_CASE("gemm equals the plain product on every path, accumulating or overwriting", "[ops]") {
  const MemorySizes sizes{1 << 20, 1 << 20, 1 << 20, 1 << 20};
  Device_CPU one(sizes, false, 1), two(sizes, false, 2);
  AlignedMemoryPool pool("transposes", 1 << 20);
  TransposeCache transposes;
  std::mt19937 rng(11);
  auto pick = [&](unsigned lo, unsigned hi) { return std::uniform_int_distribution<unsigned>(lo, hi)(rng); };
  for (int round = 0; round < 300; ++round) {
    Device* dev = round % 3 == 0 ? static_cast<Device*>(&two) : &one;
    // Sizes up to 300 reach the threaded split; small ones the kernels' edge cases.
    const unsigned m = pick(1, round % 5 == 0 ? 300 : 40), n = pick(1, round % 7 == 0 ? 300 : 40), k = pick(1, 60);
    const unsigned bd = pick(1, 4);
    const unsigned form = round % 5;
    const bool ta = form == 1 || (form == 4 && pick(0, 1)), tb = form == 2 || (form == 4 && pick(0, 1));
    const unsigned abd = form == 0 || form == 1 ? 1 : bd;
    const unsigned bbd = form == 3 && pick(0, 1) ? 1 : bd;
    const unsigned ybd = form == 2 ? 1 : std::max(abd, bbd);
    Operand a(ta ? Dim({k, m}, abd) : Dim({m, k}, abd), dev, rng);
    Operand b(tb ? Dim({n, k}, bbd) : Dim({k, n}, bbd), dev, rng);
    Operand y(Dim({m, n}, ybd), dev, rng);
    const bool accumulate = pick(0, 1);
    const bool cached = pick(0, 1);
    const std::vector<float> y0 = y.v;
    if (!accumulate) std::fill(y.v.begin(), y.v.end(), std::numeric_limits<float>::quiet_NaN());
    pool.reset();
    transposes.reset(pool);
    INFO("round " << round << ": y " << to_string(y.t.d) << " = " << (ta ? "a^T " : "a ") << to_string(a.t.d) << " * "
                  << (tb ? "b^T " : "b ") << to_string(b.t.d) << (accumulate ? " (accumulating)" : "")
                  << (cached ? " with transposes" : ""));
    const std::vector<float> expected = reference(y.t, a.t, ta, b.t, tb, y0, accumulate);
    gemm(y.t, a.t, ta, b.t, tb, accumulate, cached ? &transposes : nullptr);
    for (std::size_t e = 0; e < expected.size(); ++e) REQUIRE(y.v[e] == Approx(expected[e]).epsilon(1e-4).margin(1e-4));
  }
}

TEST_CASE("products over more shapes than jit_gemm's table of kernels holds each run their own shape's kernel",
          "[ops]") {
  // jit_gemm finds the kernels of the shapes a thread asked for before in a table of its own (two
  // kernels a set, the one found last first), in front of libxsmm's dispatch. 640 shapes, more
  // than it holds, each asked for three times in different orders, move kernels between the places
  // of a set, evict them and find them anew; a kernel of another shape would write other columns
  // or rows.
  if (!jit_gemm_serves(2, 2, 2)) return;  // a build without JIT kernels
  const MemorySizes sizes{1 << 20, 1 << 20, 1 << 20, 1 << 20};
  Device_CPU one(sizes, false, 1);
  std::mt19937 rng(23);
  struct Shape {
    unsigned m, n, k;
    bool accumulate;
  };
  std::vector<Shape> shapes;
  for (unsigned m = 1; m <= 32; ++m)
    for (unsigned n = 2; n <= 21; ++n) shapes.push_back({m, n, 1 + (m * 7 + n * 3) % 9, (m + n) % 2 == 0});
  for (int pass = 0; pass < 3; ++pass) {
    if (pass == 1) std::reverse(shapes.begin(), shapes.end());
    if (pass == 2) std::shuffle(shapes.begin(), shapes.end(), rng);
    for (const Shape& s : shapes) {
      Operand a(Dim({s.m, s.k}), &one, rng), b(Dim({s.k, s.n}), &one, rng), y(Dim({s.m, s.n}), &one, rng);
      const std::vector<float> y0 = y.v;
      INFO("pass " << pass << ": " << s.m << " x " << s.k << " by " << s.n << " columns"
                   << (s.accumulate ? ", accumulating" : ""));
      const std::vector<float> expected = reference(y.t, a.t, false, b.t, false, y0, s.accumulate);
      REQUIRE(jit_gemm(s.m, s.n, s.k, a.v.data(), s.m, b.v.data(), s.k, false, y.v.data(), s.m, s.accumulate));
      for (std::size_t e = 0; e < expected.size(); ++e)
        REQUIRE(y.v[e] == Approx(expected[e]).epsilon(1e-4).margin(1e-4));
    }
  }
}

TEST_CASE("a^T b over 9 to 17 columns, a of a leading dimension of a multiple of 4 KiB, equals the plain product",
          "[ops]") {
  // Dot products take these from (b^T a)^T up to 16 columns (gemm.cc, kAliasedColumns).
  const MemorySizes sizes{1 << 20, 1 << 20, 1 << 20, 1 << 20};
  Device_CPU one(sizes, false, 1);
  std::mt19937 rng(17);
  for (const unsigned n : {9u, 12u, 16u, 17u})
    for (const bool accumulate : {false, true}) {
      Operand a(Dim({1024, 37}), &one, rng), b(Dim({1024, n}), &one, rng), y(Dim({37, n}), &one, rng);
      const std::vector<float> y0 = y.v;
      INFO(n << " columns" << (accumulate ? ", accumulating" : ""));
      const std::vector<float> expected = reference(y.t, a.t, true, b.t, false, y0, accumulate);
      gemm(y.t, a.t, true, b.t, false, accumulate);
      for (std::size_t e = 0; e < expected.size(); ++e)
        REQUIRE(y.v[e] == Approx(expected[e]).epsilon(1e-4).margin(1e-4));
    }
}

TEST_CASE("a left operand larger than one kernel block runs block by block and equals the plain product", "[ops]") {
  if (!jit_gemm_serves(2, 2, 2)) return;  // a build without JIT kernels: Eigen takes every product
  // More rows than a block takes and more depth than fits beside them on any L2 of up to 16 MiB,
  // neither a multiple of a block: row blocks and parts of k both end short. Over up to 64
  // columns blocks are narrow and up to 4,096 rows tall (the second shape cuts those rows too);
  // over more, 512 rows and as deep as fits.
  struct Shape {
    unsigned m, k, n;
  };
  for (const Shape shape : {Shape{1100, 4500, 2}, Shape{1100, 4500, 19}, Shape{1100, 4500, 70}, Shape{9000, 300, 3}})
    for (const bool tb : {false, true})
      for (const bool accumulate : {false, true}) {
        const unsigned m = shape.m, k = shape.k, n = shape.n, lda = m + 3, ldc = m + 1;
        REQUIRE_FALSE(jit_gemm_one_block(m, k));
        std::mt19937 rng(3);
        std::uniform_real_distribution<float> u(-1.f, 1.f);
        std::vector<float> a(std::size_t(lda) * k);
        for (float& x : a) x = u(rng);
        const unsigned ldb = tb ? n + 3 : k + 5;
        std::vector<float> b(std::size_t(ldb) * (tb ? k : n)), c(std::size_t(ldc) * n);
        for (float& x : b) x = u(rng);
        for (float& x : c) x = u(rng);
        std::vector<float> expected = c;
        for (unsigned j = 0; j < n; ++j)
          for (unsigned i = 0; i < m; ++i) {
            double s = accumulate ? c[i + std::size_t(j) * ldc] : 0.0;
            for (unsigned l = 0; l < k; ++l)
              s += double(a[i + std::size_t(l) * lda]) *
                   (tb ? b[j + std::size_t(l) * ldb] : b[l + std::size_t(j) * ldb]);
            expected[i + std::size_t(j) * ldc] = float(s);
          }
        INFO(m << " x " << k << ", " << n << " columns" << (tb ? ", b transposed" : "")
               << (accumulate ? ", accumulating" : ""));
        REQUIRE(jit_gemm(m, n, k, a.data(), lda, b.data(), ldb, tb, c.data(), ldc, accumulate));
        for (std::size_t e = 0; e < c.size(); ++e) REQUIRE(c[e] == Approx(expected[e]).epsilon(1e-4).margin(1e-3));
      }
}

TEST_CASE("a^T b over a few columns runs as dot products, and a weight larger than one block is copied "
          "transposed once the pass's products over it reach 128 columns, narrow ones counting up to 2^20 floats",
          "[ops]") {
  CHECK_FALSE(jit_gemm_serves(256, 1, 256));  // a matrix times one vector
  const MemorySizes sizes{1 << 20, 1 << 20, 1 << 20, 1 << 20};
  Device_CPU one(sizes, false, 1);
  AlignedMemoryPool pool("transposes", 1 << 20);
  TransposeCache transposes;
  transposes.reset(pool);
  std::mt19937 rng(5);
  Operand w(Dim({2048, 1024}), &one, rng);
  auto check_over = [&](const Operand& weight, Operand& dx, Operand& dy) {
    const std::vector<float> before = dx.v;
    gemm(dx.t, weight.t, true, dy.t, false, true, &transposes);
    const std::vector<float> expected = reference(dx.t, weight.t, true, dy.t, false, before, true);
    for (std::size_t e = 0; e < expected.size(); ++e)
      REQUIRE(dx.v[e] == Approx(expected[e]).epsilon(1e-4).margin(1e-3));
  };
  auto check = [&](Operand& dx, Operand& dy) { check_over(w, dx, dy); };
  // Products of four columns over more than 2^20 floats, however many: never a copy.
  Operand dy4(Dim({2048, 1}, 4), &one, rng), dx4(Dim({1024, 1}, 4), &one, rng);
  for (int product = 1; product <= 40; ++product) {
    INFO("product " << product << " of four columns");
    check(dx4, dy4);
    REQUIRE(pool.used() == 0);
  }
  // Products of 96 columns: the first runs in place, the second reaches 192 and runs on a copy.
  Operand dy96(Dim({2048, 1}, 96), &one, rng), dx96(Dim({1024, 1}, 96), &one, rng);
  check(dx96, dy96);
  CHECK(pool.used() == 0);
  check(dx96, dy96);
  if (!jit_gemm_serves(1024, 4, 2048)) return;  // a build without JIT kernels never copies
  CHECK(transposes.holds(w.v.data(), 2048, 1024));
  const std::size_t copied = pool.used();
  CHECK(copied >= std::size_t(2048) * 1024 * sizeof(float));
  // Once made, the copy serves every product over the weight, narrow ones too.
  check(dx4, dy4);
  check(dx96, dy96);
  CHECK(pool.used() == copied);  // no second copy
  // A weight of 2^18 floats, larger than one block: products of 16 columns count, the eighth
  // reaching 128 runs on a copy.
  Operand small(Dim({1024, 256}), &one, rng), dy16(Dim({1024, 1}, 16), &one, rng), dx16(Dim({256, 1}, 16), &one, rng);
  REQUIRE_FALSE(jit_gemm_one_block(256, 1024));
  for (int product = 1; product <= 10; ++product) {
    INFO("product " << product << " of 16 columns");
    check_over(small, dx16, dy16);
    CHECK(transposes.holds(small.v.data(), 1024, 256) == (product >= 8));
  }
}

TEST_CASE("a^T b over up to 8 columns: dot products equal to the plain product, each column the same bits alone "
          "as in any group",
          "[ops]") {
  // Depths below, at and beyond a vector, with a remainder; weights of one column to a few more
  // than a block of columns; leading dimensions beyond the rows.
  struct Shape {
    unsigned k, m;
  };
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (const Shape shape : {Shape{640, 256}, Shape{200, 178}, Shape{7, 5}, Shape{16, 1}, Shape{37, 9}, Shape{3000, 6}})
    for (const bool accumulate : {false, true}) {
      const unsigned k = shape.k, m = shape.m, n = kColumnDotsMaxColumns, lda = k + 3, ldb = k + 1, ldy = m + 2;
      std::vector<float> a(std::size_t(lda) * m), b(std::size_t(ldb) * n), y0(std::size_t(ldy) * n);
      for (float& x : a) x = u(rng);
      for (float& x : b) x = u(rng);
      for (float& x : y0) x = u(rng);
      INFO("a " << k << " x " << m << (accumulate ? ", accumulating" : ""));
      std::vector<float> all = y0;
      column_dots(m, n, k, a.data(), lda, b.data(), ldb, all.data(), ldy, accumulate);
      for (unsigned j = 0; j < n; ++j)
        for (unsigned i = 0; i < m; ++i) {
          double s = accumulate ? y0[i + std::size_t(j) * ldy] : 0.0;
          for (unsigned l = 0; l < k; ++l) s += double(a[l + std::size_t(i) * lda]) * b[l + std::size_t(j) * ldb];
          REQUIRE(all[i + std::size_t(j) * ldy] == Approx(s).epsilon(1e-5).margin(1e-4));
        }
      // Every column of a alone: the same bits as at its place among the others.
      for (unsigned i = 0; i < m; ++i) {
        std::vector<float> alone(n);
        for (unsigned j = 0; j < n; ++j) alone[j] = y0[i + std::size_t(j) * ldy];
        column_dots(1, n, k, a.data() + std::size_t(i) * lda, lda, b.data(), ldb, alone.data(), 1, accumulate);
        for (unsigned j = 0; j < n; ++j) {
          INFO("column " << i << " of a alone, column " << j << " of b");
          REQUIRE(alone[j] == all[i + std::size_t(j) * ldy]);
        }
      }
      // Every run of columns [first, first + count) alone, through gemm: the same bits.
      const MemorySizes sizes{1 << 20, 1 << 20, 1 << 20, 1 << 20};
      Device_CPU one(sizes, false, 1);
      Tensor at(Dim({k, m}), nullptr, &one);
      std::vector<float> packed_a(std::size_t(k) * m), packed_b(std::size_t(k) * n);
      for (unsigned i = 0; i < m; ++i) std::copy_n(&a[std::size_t(i) * lda], k, &packed_a[std::size_t(i) * k]);
      for (unsigned j = 0; j < n; ++j) std::copy_n(&b[std::size_t(j) * ldb], k, &packed_b[std::size_t(j) * k]);
      at.v = packed_a.data();
      for (unsigned first = 0; first < n; ++first)
        for (unsigned count = 1; first + count <= n; ++count) {
          std::vector<float> part(std::size_t(m) * count);
          for (unsigned j = 0; j < count; ++j)
            std::copy_n(&y0[std::size_t(first + j) * ldy], m, &part[std::size_t(j) * m]);
          const Tensor bt(Dim({k, count}), packed_b.data() + std::size_t(first) * k, &one);
          const Tensor yt(Dim({m, count}), part.data(), &one);
          gemm(yt, at, true, bt, false, accumulate);
          for (unsigned j = 0; j < count; ++j)
            for (unsigned i = 0; i < m; ++i) {
              INFO("columns " << first << " to " << first + count - 1 << ": output " << i << ", " << j);
              REQUIRE(part[i + std::size_t(j) * m] == all[i + std::size_t(first + j) * ldy]);
            }
        }
    }
}
