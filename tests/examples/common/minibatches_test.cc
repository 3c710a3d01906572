#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "examples/common/minibatches.h"

using namespace examples;

TEST_CASE("shuffled minibatches cover every example once", "[examples][minibatches]") {
  std::mt19937 rng(3);
  const std::vector<Minibatch> b = shuffled_minibatches(10, 4, rng);
  REQUIRE(b.size() == 3);
  CHECK(b[2].size() == 2);
  std::vector<unsigned> all;
  for (const Minibatch& m : b) all.insert(all.end(), m.begin(), m.end());
  std::sort(all.begin(), all.end());
  for (unsigned k = 0; k < 10; ++k) CHECK(all[k] == k);
  CHECK_THROWS_AS(shuffled_minibatches(10, 0, rng), std::invalid_argument);
}

TEST_CASE("length-sorted minibatches group examples of similar length", "[examples][minibatches]") {
  std::mt19937 rng(5);
  const std::vector<unsigned> lengths{5, 1, 9, 1, 5, 9, 1, 5, 9};
  for (const Minibatch& m : length_sorted_minibatches(lengths, 3, rng)) {
    REQUIRE(m.size() == 3);
    for (unsigned i : m) CHECK(lengths[i] == lengths[m[0]]);
  }
}
