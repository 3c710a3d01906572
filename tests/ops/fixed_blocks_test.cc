// fixed_blocks.h: the same values give the same bits wherever they lie, which Eigen's loops over
// maps of dynamic size do not promise (they peel scalars up to the first aligned element).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <vector>

#include "dynet_core/ops/fixed_blocks.h"

using namespace dynet;

TEST_CASE("elementwise functions and sums in fixed blocks give the same bits at every address", "[ops]") {
  for (const std::size_t n : {1u, 15u, 16u, 37u, 100u}) {
    INFO(n << " values");
    std::vector<float> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = 0.173f * float(i) - 2.9f;
    std::vector<float> buffer(n + 32), first(n);
    float first_sum = 0.f;
    for (std::size_t offset = 0; offset < 16; ++offset) {
      float* x = buffer.data() + offset;
      std::memcpy(x, values.data(), n * sizeof(float));
      map_in_blocks(x, x, n, [](const auto& v) { return v.exp(); });
      const float sum = ordered_sum(n, [x](std::size_t i) { return x[i]; });
      if (offset == 0) {
        std::memcpy(first.data(), x, n * sizeof(float));
        first_sum = sum;
        double exact = 0.0;
        for (std::size_t i = 0; i < n; ++i) {
          const double v = values[i];
          const double want = std::exp(v);
          CHECK(x[i] == Approx(want).epsilon(1e-5));
          exact += x[i];
        }
        CHECK(sum == Approx(exact).epsilon(1e-5));
        continue;
      }
      INFO("offset " << offset);
      CHECK(std::memcmp(x, first.data(), n * sizeof(float)) == 0);
      CHECK(sum == first_sum);
    }
  }
}
