// Convolution-family values computed by hand from DyNet's documented geometry (column-major
// {H, W, C} maps, VALID / SAME padding as TensorFlow places it).

#include <catch2/catch.hpp>

#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"

using namespace dynet;

namespace {

/// A 3x3 single-channel map with x[r, c] = 1 + r + 3 c.
Expression map3x3(ComputationGraph& cg) { return input(cg, Dim({3, 3, 1}), {1, 2, 3, 4, 5, 6, 7, 8, 9}); }

}  // namespace

TEST_CASE("conv2d is a cross-correlation over rows and columns", "[ops][conv2d]") {
  ComputationGraph cg;
  // Only f[0, 1] (row 0, column 1) is set: y[r, c] = 2 x[r, c + 1].
  const Expression f = input(cg, Dim({2, 2, 1, 1}), {0, 0, 2, 0});
  const Expression y = conv2d(map3x3(cg), f, {1, 1});
  REQUIRE(y.dim() == Dim({2, 2, 1}));
  CHECK(as_vector(cg.forward(y)) == std::vector<float>{8, 10, 14, 16});
}

TEST_CASE("conv2d SAME pads after the input when the padding is odd, and adds the bias per channel", "[ops][conv2d]") {
  ComputationGraph cg;
  const Expression f = input(cg, Dim({2, 2, 1, 2}), {1, 1, 1, 1, 0, 0, 0, 1});
  const Expression y = conv2d(map3x3(cg), f, input(cg, Dim({2}), {10, 100}), {1, 1}, false);
  REQUIRE(y.dim() == Dim({3, 3, 2}));
  const std::vector<float> v = as_vector(cg.forward(y));
  CHECK(v[0] == 10 + 1 + 2 + 4 + 5);  // window x[0..1, 0..1]
  CHECK(v[8] == 10 + 9);              // the last window hangs over the bottom right
  CHECK(v[9] == 100 + 5);             // second channel: f[1, 1] = 1 picks x[r + 1, c + 1]
  CHECK(v[17] == 100);
}

TEST_CASE("conv2d strides and the sizes DyNet documents", "[ops][conv2d]") {
  ComputationGraph cg;
  const Expression one = input(cg, Dim({1, 1, 1, 1}), {1});
  const Expression y = conv2d(map3x3(cg), one, {2, 2});
  CHECK(as_vector(cg.forward(y)) == std::vector<float>{1, 3, 7, 9});
  const Expression big = zeros(cg, Dim({50, 50, 2}, 2));
  CHECK(conv2d(big, zeros(cg, Dim({2, 2, 2, 3})), {3, 3}).dim() == Dim({17, 17, 3}, 2));         // ceil(49 / 3)
  CHECK(conv2d(big, zeros(cg, Dim({2, 2, 2, 3})), {4, 4}, false).dim() == Dim({13, 13, 3}, 2));  // ceil(50 / 4)
  // A map of two dimensions is one channel (DyNet's conv2d_valid_singlefilter).
  CHECK(conv2d(zeros(cg, Dim({50, 100}, 2)), zeros(cg, Dim({2, 4, 1, 3})), {3, 3}).dim() == Dim({17, 33, 3}, 2));
  CHECK_THROWS_WITH(conv2d(big, zeros(cg, Dim({2, 2, 3, 3})), {1, 1}),
                    Catch::Contains("conv2d") && Catch::Contains("channels"));
  CHECK_THROWS_WITH(conv2d(big, zeros(cg, Dim({2, 2, 2, 3})), {1}),
                    Catch::Contains("conv2d") && Catch::Contains("stride"));
}

TEST_CASE("conv2d of many channels, batched, strided and padded equals the sum over its windows", "[ops][conv2d]") {
  // The CPU kernel runs as products over the input's taps; here every output against the plain sum.
  const unsigned h = 7, w = 6, ci = 3, co = 4, fh = 3, fw = 2, bd = 2;
  std::vector<float> xv(std::size_t(h) * w * ci * bd), fv(std::size_t(fh) * fw * ci * co);
  for (std::size_t k = 0; k < xv.size(); ++k) xv[k] = float((k * 7) % 11) - 5.f;
  for (std::size_t k = 0; k < fv.size(); ++k) fv[k] = float((k * 5) % 7) - 3.f;
  for (const bool valid : {true, false}) {
    INFO("valid " << valid);
    ComputationGraph cg;
    const Expression y =
        conv2d(input(cg, Dim({h, w, ci}, bd), xv), input(cg, Dim({fh, fw, ci, co}), fv), {2, 1}, valid);
    const Dim d = y.dim();
    const unsigned oh = d[0], ow = d[1];
    // SAME pads half of what the windows need beyond the input before it (TensorFlow's placement)
    const auto pad = [valid](unsigned out, unsigned stride, unsigned window, unsigned in) {
      const unsigned need = (out - 1) * stride + window;
      return valid || need <= in ? 0 : int((need - in) / 2);
    };
    const int pad_r = pad(oh, 2, fh, h), pad_c = pad(ow, 1, fw, w);
    const std::vector<float> got = as_vector(cg.forward(y));
    for (unsigned t = 0; t < bd; ++t)
      for (unsigned o = 0; o < co; ++o)
        for (unsigned c = 0; c < ow; ++c)
          for (unsigned r = 0; r < oh; ++r) {
            float want = 0;
            for (unsigned i = 0; i < ci; ++i)
              for (unsigned kc = 0; kc < fw; ++kc)
                for (unsigned kr = 0; kr < fh; ++kr) {
                  const int ir = int(r * 2 + kr) - pad_r, ic = int(c + kc) - pad_c;
                  if (ir < 0 || ic < 0 || ir >= int(h) || ic >= int(w)) continue;
                  want += xv[ir + h * (ic + w * (i + ci * t))] * fv[kr + fh * (kc + fw * (i + ci * o))];
                }
            CHECK(got[r + oh * (c + ow * (o + co * t))] == Approx(want));
          }
  }
}

TEST_CASE("maxpooling2d takes each window's maximum, ignoring SAME padding", "[ops][maxpooling2d]") {
  ComputationGraph cg;
  const Expression valid = maxpooling2d(map3x3(cg), {2, 2}, {1, 1});
  CHECK(as_vector(cg.forward(valid)) == std::vector<float>{5, 6, 8, 9});
  const Expression x = input(cg, Dim({3, 3, 1}), {-1, -2, -3, -4, -5, -6, -7, -8, -9});
  const Expression same = maxpooling2d(x, {2, 2}, {2, 2}, false);
  CHECK(as_vector(cg.forward(same)) == std::vector<float>{-1, -3, -7, -9});
  const Expression s = sum_elems(same);
  cg.backward(s, true);
  CHECK(as_vector(x.gradient()) == std::vector<float>{1, 0, 1, 0, 0, 0, 1, 0, 1});
}

TEST_CASE("filter1d_narrow, kmax_pooling and fold_rows", "[ops][convolution]") {
  ComputationGraph cg;
  const Expression x = input(cg, Dim({2, 4}), {1, 3, 5, 0, 2, 6, 4, 1});  // rows (1 5 2 4), (3 0 6 1)
  // Two filters of width 2: y[n, j] = sum_r sum_k x[r, j + k] f[r, k, n].
  const Expression f = input(cg, Dim({2, 2, 2}), {1, 0, 0, 0, 0, 0, 0, 1});
  const Expression y = filter1d_narrow(x, f);
  REQUIRE(y.dim() == Dim({2, 3}));
  CHECK(as_vector(cg.forward(y)) == std::vector<float>{1, 0, 5, 6, 2, 1});
  // The two largest of each row in their order: (5 4) and (3 6), stored column by column.
  CHECK(as_vector(cg.forward(kmax_pooling(x, 2))) == std::vector<float>{5, 3, 4, 6});
  CHECK(as_vector(cg.forward(fold_rows(input(cg, Dim({4, 2}), {1, 2, 3, 4, 5, 6, 7, 8}), 2))) ==
        std::vector<float>{3, 7, 11, 15});
}

TEST_CASE("kmh_ngram sums n consecutive columns, and its gradient reaches each column once per window",
          "[ops][convolution]") {
  ComputationGraph cg;
  const Expression x = input(cg, Dim({2, 4}), {1, 3, 5, 0, 2, 6, 4, 1});  // columns (1 3) (5 0) (2 6) (4 1)
  const Expression y = kmh_ngram(x, 3);
  REQUIRE(y.dim() == Dim({2, 2}));
  CHECK(as_vector(cg.forward(y)) == std::vector<float>{8, 9, 11, 7});
  CHECK(as_vector(cg.forward(kmh_ngram(x, 1))) == as_vector(cg.forward(x)));
  const Expression batched = input(cg, Dim({1, 3}, 2), {1, 2, 3, 10, 20, 30});
  CHECK(as_vector(cg.forward(kmh_ngram(batched, 2))) == std::vector<float>{3, 5, 30, 50});
  cg.backward(sum_elems(y), true);
  // Columns 0 and 3 are in one window of three, columns 1 and 2 in both.
  CHECK(as_vector(x.gradient()) == std::vector<float>{1, 1, 2, 2, 2, 2, 1, 1});
  CHECK_THROWS_WITH(kmh_ngram(x, 5), Catch::Contains("kmh_ngram: x {2,4} must be a matrix of at least n columns"));
  CHECK_THROWS_WITH(kmh_ngram(x, 0), Catch::Contains("(n = 0)"));
  CHECK_THROWS_WITH(kmh_ngram(input(cg, Dim({2, 2, 2}), std::vector<float>(8, 0.f)), 1), Catch::Contains("kmh_ngram"));
}

TEST_CASE("circ_conv and circ_corr", "[ops][convolution]") {
  ComputationGraph cg;
  const Expression u = input(cg, Dim({3}), {1, 2, 3}), v = input(cg, Dim({3}), {0, 1, 0});
  CHECK(as_vector(cg.forward(circ_conv(u, v))) == std::vector<float>{3, 1, 2});
  CHECK(as_vector(cg.forward(circ_corr(u, v))) == std::vector<float>{2, 1, 3});
}
