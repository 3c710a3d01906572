// Vocabularies of the frequent words (WordCounter), saved to a file and loaded back (save_dicts,
// load_dicts).

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>

#include "dynet_core/io/dict.h"
#include "dynet_core/io/whole_file.h"
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
  TempFile escape("escape.vocab", "dybatch-vocabularies 2\nvocabulary words 1 -1\nback\\qslash\n");
  CHECK_THROWS_WITH(load_dicts(escape.path(), {{"words", &words}}),
                    Catch::StartsWith("load_dicts: " + escape.path() + ":3:") && Catch::Contains("backslash"));
  CHECK(words.get_words() == std::vector<std::string>{"kept"});
}

// A Dict takes any string as a word; save_dicts once refused a space at the end of a training run.
TEST_CASE("every word a vocabulary accepts survives a save and a load", "[dict]") {
  const std::vector<std::string> odd = {" ",    "a b", "tab\there", "\\", "\\s",     "line\nbreak",
                                        "cr\r", "",    "\\e",       "e",  "  two  ", "end\\"};
  Dict words;
  for (const std::string& w : odd) words.convert(w);
  words.set_unk("<unk>");
  Dict named;
  named.convert("x");
  TempFile file("odd.vocab", "");
  save_dicts(file.path(), {{"odd words", &words}, {"", &named}});
  const std::string text = read_file(file.path());
  CHECK(std::count(text.begin(), text.end(), '\n') == 2 + 1 + static_cast<long>(odd.size()) + 1 + 1);

  Dict loaded, loaded_named;
  load_dicts(file.path(), {{"odd words", &loaded}, {"", &loaded_named}});
  CHECK(loaded.get_words() == words.get_words());
  CHECK(loaded.get_unk_id() == words.get_unk_id());
  CHECK(loaded_named.get_words() == named.get_words());
}

TEST_CASE("a vocabulary file written before words were escaped reads as it did", "[dict]") {
  TempFile old("old.vocab", "dybatch-vocabularies 1\nvocabulary words 3 0\n<unk>\nC:\\dir\nx\\s\n");
  Dict words;
  load_dicts(old.path(), {{"words", &words}});
  CHECK(words.get_words() == std::vector<std::string>{"<unk>", "C:\\dir", "x\\s"});
}
