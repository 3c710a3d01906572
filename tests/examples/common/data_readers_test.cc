// The readers of the examples' data formats: plain text, word|TAG sentences and SST trees.

#include <catch2/catch.hpp>

#include <string>

#include "examples/common/sentiment_treebank.h"
#include "examples/common/tagged_corpus.h"
#include "examples/common/text_corpus.h"
#include "support/temp_file.h"

using namespace examples;
using test_support::TempFile;

TEST_CASE("text corpora are sentences of blank-separated tokens", "[examples][data]") {
  TempFile file("text.txt", " the cat  sat\n\n<unk> on\tmats \n");
  const std::vector<Sentence> s = read_sentences(file.path());
  REQUIRE(s.size() == 2);
  CHECK(s[0] == Sentence{"the", "cat", "sat"});
  CHECK(s[1] == Sentence{"<unk>", "on", "mats"});
  CHECK_THROWS_WITH(read_sentences("/nonexistent/text.txt"), Catch::Contains("'/nonexistent/text.txt'"));
}

TEST_CASE("tagged corpora split each token at its last bar", "[examples][data]") {
  TempFile file("tags.txt", "Paris|I-LOC is|O\n\na|b|O\n");
  const std::vector<TaggedSentence> s = read_tagged_sentences(file.path());
  REQUIRE(s.size() == 2);
  CHECK(s[0].words == std::vector<std::string>{"Paris", "is"});
  CHECK(s[0].tags == std::vector<std::string>{"I-LOC", "O"});
  CHECK(s[1].words == std::vector<std::string>{"a|b"});
  TempFile bad("bad-tags.txt", "fine|O\nbroken token|O\n");
  CHECK_THROWS_WITH(read_tagged_sentences(bad.path()), Catch::Contains(":2:") && Catch::Contains("'broken'"));
}

TEST_CASE("SST trees are parsed children first, with a label on every node", "[examples][data]") {
  const LabeledTree t = parse_sentiment_tree("(3 (2 (2 The) (2 Rock)) (4 is))");
  REQUIRE(t.size() == 5);
  CHECK(t.nodes[0].word == "The");
  CHECK(t.nodes[1].word == "Rock");
  CHECK(t.nodes[2].children == std::vector<int>{0, 1});
  CHECK(t.nodes[2].word.empty());
  CHECK(t.nodes[3].word == "is");
  CHECK(t.nodes[3].label == 4);
  CHECK(t.root().children == std::vector<int>{2, 3});
  CHECK(t.root().label == 3);
  for (const LabeledTree::Node& n : t.nodes) CHECK(n.token == -1);

  CHECK_THROWS_WITH(parse_sentiment_tree("(3 (2 a) (2 b)"), Catch::Contains("expected ')'"));
  CHECK_THROWS_WITH(parse_sentiment_tree("(7 a)"), Catch::Contains("'7' is not 0-4"));
  CHECK_THROWS_WITH(parse_sentiment_tree("(2 a) (2 b)"), Catch::Contains("after the end"));
  TempFile file("trees.txt", "(2 fine)\n\n(1 (2 broken)\n");
  CHECK_THROWS_WITH(read_sentiment_trees(file.path()), Catch::Contains(":3:"));
}
