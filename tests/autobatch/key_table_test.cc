#include <catch2/catch.hpp>

#include <cstdint>

#include "autobatch/key_table.h"

using namespace dynet;

TEST_CASE("a key table numbers keys in order of first appearance, through growth and clearing",
          "[autobatch][scheduler]") {
  KeyTable t;
  bool added = false;
  // Far more keys than the first table holds, so that it grows several times.
  for (std::uint64_t k = 0; k < 5000; ++k) {
    CHECK(t.id(k * 0x10000, &added) == k);
    CHECK(added);
  }
  CHECK(t.size() == 5000);
  for (std::uint64_t k = 0; k < 5000; ++k) {
    REQUIRE(t.id(k * 0x10000, &added) == k);
    REQUIRE(!added);
  }
  t.clear();
  CHECK(t.size() == 0);
  CHECK(t.id(4999 * 0x10000, &added) == 0);
  CHECK(added);
  CHECK(t.id(7, &added) == 1);
  CHECK(t.id(4999 * 0x10000, &added) == 0);
  CHECK(!added);
}
