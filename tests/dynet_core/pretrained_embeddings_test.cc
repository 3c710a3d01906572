// DyNet's pretrain.h (word vectors as text) and str-util.h.

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "dynet_core/io/pretrained_embeddings.h"
#include "dynet_core/param_collection.h"
#include "dynet_core/string_util.h"
#include "support/temp_file.h"

using namespace dynet;
using test_support::TempFile;

namespace {

std::string contents(const std::string& path) {
  std::ostringstream s;
  s << std::ifstream(path).rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("pretrained embeddings are written one word a line and read back exactly", "[io][pretrain]") {
  ParameterCollection model;
  LookupParameter lp = model.add_lookup_parameters(4, {3});
  lp.initialize(0, {1.f, -2.5f, 0.f});
  lp.initialize(1, {0.1f, 1e-7f, 3.14159274f});
  Dict d;
  d.convert("the");
  d.convert("cat");
  TempFile file("vectors.txt", "");
  save_pretrained_embeddings(file.path(), d, lp);
  CHECK(contents(file.path()).rfind("the 1 -2.5 0\ncat 0.100000001 ", 0) == 0);

  Dict read;
  read.convert("<unk>");
  std::unordered_map<int, std::vector<float>> vectors;
  read_pretrained_embeddings(file.path(), read, vectors);
  CHECK(read.size() == 3);
  REQUIRE(vectors.size() == 2);
  CHECK(vectors.at(read.convert("the")) == std::vector<float>{1.f, -2.5f, 0.f});
  CHECK(vectors.at(read.convert("cat")) == std::vector<float>{0.1f, 1e-7f, 3.14159274f});
}

TEST_CASE("reading pretrained embeddings into a frozen dictionary skips its unknown words", "[io][pretrain]") {
  TempFile file("vectors.txt", "the 1 2\n\nzebra 3 4\ncat 5 6\n");
  Dict d;
  d.convert("cat");
  d.convert("the");
  d.set_unk("<unk>");
  d.freeze();
  std::unordered_map<int, std::vector<float>> vectors;
  read_pretrained_embeddings(file.path(), &d, &vectors);
  CHECK(d.size() == 3);
  REQUIRE(vectors.size() == 2);
  CHECK(vectors.at(0) == std::vector<float>{5.f, 6.f});
  CHECK(vectors.at(1) == std::vector<float>{1.f, 2.f});
}

TEST_CASE("pretrained embedding files with bad lines are refused with the line", "[io][pretrain]") {
  auto refused = [](const std::string& text, const std::string& expected) {
    TempFile file("bad-vectors.txt", text);
    Dict d;
    std::unordered_map<int, std::vector<float>> vectors;
    CHECK_THROWS_WITH(read_pretrained_embeddings(file.path(), d, vectors),
                      Catch::Contains("read_pretrained_embeddings") && Catch::Contains(expected));
  };
  refused("the 1 2\ncat 3\n", ":2: 'cat' has 1 values, expected 2");
  refused("the 1 2 x\n", ":1: a value of 'the' is not a number");
  refused("the\n", ":1: 'the' has 0 values, expected at least one");
  Dict d;
  std::unordered_map<int, std::vector<float>> vectors;
  CHECK_THROWS_AS(read_pretrained_embeddings("/nonexistent/vectors.txt", d, vectors), std::runtime_error);

  ParameterCollection model;
  LookupParameter lp = model.add_lookup_parameters(1, {2});
  d.convert("a");
  d.convert("b");
  TempFile out("vectors.txt", "");
  CHECK_THROWS_WITH(save_pretrained_embeddings(out.path(), d, lp),
                    Catch::Contains("2 words but the lookup parameter only 1 rows"));
}

TEST_CASE("DyNet's string helpers", "[str_util]") {
  CHECK(startswith("--dynet-mem", "--dynet"));
  CHECK(startswith("abc", ""));
  CHECK_FALSE(startswith("ab", "abc"));
  CHECK(endswith("model.txt", ".txt"));
  CHECK_FALSE(endswith("txt", ".txt"));
  CHECK_FALSE(endswith("a.txt.gz", ".txt"));
  CHECK(str_split("a,,b,", ',') == std::vector<std::string>{"a", "b"});
  CHECK(str_split(",x", ',') == std::vector<std::string>{"x"});
  CHECK(str_split("", ',').empty());
  CHECK(str_split("one two", ' ') == std::vector<std::string>{"one", "two"});
}
