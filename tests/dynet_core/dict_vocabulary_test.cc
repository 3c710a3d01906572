// Vocabularies of the frequent words (WordCounter), saved to a file and loaded back (save_dicts,
// load_dicts).

#include <catch2/catch.hpp>

#include <fstream>

#include "dynet_core/dict.h"
#include "support/temp_file.h"

using namespace dynet;
using test_support::TempFile;

TEST_CASE("frequent words get ids in first-seen order, the rest map to the unknown word", "[dict]") {
  WordCounter counter;
  counter.add_all(std::vector<std::string>{"b", "a", "b", "c", "a", "b"});
  CHECK(counter.count("b") == 3);
  CHECK(counter.count("z") == 0);
  Dict d = counter.frequent(2, "<unk>");
  CHECK(d.is_frozen());
  CHECK(d.get_words() == std::vector<std::string>{"<unk>", "b", "a"});
  CHECK(d.convert("c") == d.get_unk_id());
}

TEST_CASE("vocabularies survive a save and a load", "[dict]") {
  Dict words, tags;
  words.convert("the");
  words.set_unk("<unk>");
  words.freeze();
  tags.convert("O");
  tags.convert("I-PER");
  TempFile file("model.vocab", "");
  save_dicts(file.path(), {{"words", &words}, {"tags", &tags}});

  Dict w2, t2;
  load_dicts(file.path(), {{"tags", &t2}, {"words", &w2}});
  CHECK(w2.get_words() == words.get_words());
  CHECK(w2.get_unk_id() == 1);
  CHECK(w2.convert("unseen") == 1);
  CHECK(t2.get_words() == tags.get_words());
  CHECK(t2.get_unk_id() == -1);
  CHECK(t2.is_frozen());
}

TEST_CASE("a damaged vocabulary file is reported and changes nothing", "[dict]") {
  Dict words;
  words.convert("kept");
  TempFile truncated("truncated.vocab", "dybatch-vocabularies 1\nvocabulary words 3 -1\na\nb\n");
  CHECK_THROWS_WITH(load_dicts(truncated.path(), {{"words", &words}}),
                    Catch::StartsWith("load_dicts: " + truncated.path() + ":5:") && Catch::Contains("ends early"));
  CHECK_THROWS_WITH(load_dicts(truncated.path() + ".absent", {{"words", &words}}),
                    Catch::StartsWith("load_dicts: cannot read"));
  TempFile other("other.vocab", "something else\n");
  CHECK_THROWS_WITH(load_dicts(other.path(), {{"words", &words}}), Catch::Contains("not a vocabulary file"));
  TempFile missing("missing.vocab", "dybatch-vocabularies 1\nvocabulary tags 1 -1\nO\n");
  CHECK_THROWS_WITH(load_dicts(missing.path(), {{"words", &words}}), Catch::Contains("no vocabulary named 'words'"));
  CHECK(words.get_words() == std::vector<std::string>{"kept"});
  Dict spaced;
  spaced.convert("two words");
  CHECK_THROWS_WITH(save_dicts(truncated.path(), {{"bad", &spaced}}), Catch::Contains("blanks"));
}
