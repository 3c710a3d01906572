#include <catch2/catch.hpp>

#include <map>

#include "builders/frequency_classes.h"

using namespace dynet;

TEST_CASE("frequency binning gives frequent words small classes and every word one class", "[builders][softmax]") {
  Dict words;
  for (const char* w : {"rare", "the", "of", "cat", "dog", "unseen"}) words.convert(w);
  // "the" and "cat" make up over half the text: the middle of their shares falls in the first class.
  const std::vector<std::size_t> counts{1, 30, 20, 25, 24};
  const auto classes = frequency_classes(words, counts, 2);
  REQUIRE(classes.size() == words.size());
  std::map<std::string, std::string> class_of;
  for (const auto& cw : classes) class_of[cw.second] = cw.first;
  CHECK(class_of["the"] == "0");
  CHECK(class_of["cat"] == "0");
  CHECK(class_of["dog"] == "1");
  CHECK(class_of["rare"] == "1");
  CHECK(class_of["unseen"] == "1");
  CHECK(classes.front().second == "the");
  CHECK_THROWS_AS(frequency_classes(words, counts, 0), std::invalid_argument);
}
