#include <catch2/catch.hpp>

#include <stdexcept>

#include "dynet_core/dim.h"

using namespace dynet;

TEST_CASE("Dim sizes, batch and printing", "[dim]") {
  const Dim d({3, 4}, 5);
  CHECK(d.rows() == 3);
  CHECK(d.cols() == 4);
  CHECK(d.batch_size() == 12);
  CHECK(d.size() == 60);
  CHECK(d.bd == 5);
  CHECK(to_string(d) == "{3,4X5}");
  CHECK(to_string(Dim({7})) == "{7}");
  CHECK(Dim({3}) == Dim({3, 1}));
  CHECK(Dim({3}) != Dim({3}, 2));
  CHECK(Dim({3}).same_shape(Dim({3}, 2)));
  CHECK(Dim({2, 3}).transpose() == Dim({3, 2}));
  CHECK(Dim({4}).transpose() == Dim({1, 4}));
  Dim e({2, 3, 4});
  e.delete_dim(1);
  CHECK(e == Dim({2, 4}));
  CHECK(Dim({5, 1, 1}).truncate().ndims() == 1);
  CHECK(Dim().size() == 1);
}

TEST_CASE("Dim rejects bad shapes", "[dim][errors]") {
  CHECK_THROWS_AS(Dim({3, 0}), std::invalid_argument);
  CHECK_THROWS_WITH(Dim({1, 2, 3, 4, 5, 6, 7, 8}), Catch::Contains("at most 7"));
  CHECK_THROWS_AS(Dim({3}, 0), std::invalid_argument);
  Dim d({2});
  CHECK_THROWS_AS(d.set(7, 2), std::invalid_argument);
  CHECK(d == Dim({2}));
}
