#include <catch2/catch.hpp>

#include <stdexcept>

#include "dynet_core/io/dict.h"

using namespace dynet;

TEST_CASE("a Dict numbers words in first-seen order and maps them back", "[dict]") {
  Dict d;
  CHECK(d.convert("the") == 0);
  CHECK(d.convert("cat") == 1);
  CHECK(d.convert("the") == 0);
  CHECK(d.size() == 2);
  CHECK(d.convert(1) == "cat");
  CHECK(d.contains("cat"));
  CHECK_FALSE(d.contains("dog"));
  CHECK_THROWS_AS(d.convert(2), std::invalid_argument);
  CHECK_THROWS_WITH(d.convert(-1), Catch::StartsWith("Dict::convert: id -1 is out of range"));
}

TEST_CASE("a frozen Dict maps unknown words to its unknown-word id or refuses them", "[dict]") {
  Dict d;
  d.convert("a");
  d.freeze();
  CHECK_THROWS_WITH(d.convert("b"), Catch::Contains("'b'") && Catch::Contains("set_unk"));
  CHECK(d.size() == 1);
  d.set_unk("<unk>");
  CHECK(d.get_unk_id() == 1);
  CHECK(d.convert("b") == 1);
  CHECK(d.convert("a") == 0);
  CHECK(d.size() == 2);
  d.clear();
  CHECK(d.size() == 0);
  CHECK_FALSE(d.is_frozen());
  CHECK(d.get_unk_id() == -1);
}

TEST_CASE("read_sentence and read_sentence_pair number the words of a line as DyNet's do", "[dict]") {
  Dict source, target;
  CHECK(read_sentence("  the cat\tsat  on the mat \n", source) == std::vector<int>{0, 1, 2, 3, 0, 4});
  CHECK(read_sentence("", source).empty());
  std::vector<int> s{7}, t;
  read_sentence_pair("the dog ||| le chien ||| x", s, source, t, target);
  CHECK(s == std::vector<int>{7, 0, 5});  // appended, as DyNet's
  CHECK(t == std::vector<int>{0, 1, 2});
  CHECK(target.convert(2) == "x");
  source.freeze();
  CHECK_THROWS_AS(read_sentence("unseen", source), std::runtime_error);  // no unknown word set
}
