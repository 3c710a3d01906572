// C2WBuilder (DyNet's c2w.h): a word's representation from its characters, read by one LSTM left
// to right and one right to left.

#include <catch2/catch.hpp>

#include <vector>

#include "builders/c2w_builder.h"
#include "dynet_core/graph.h"
#include "dynet_core/io/savers_and_loaders.h"
#include "dynet_core/ops/all_ops.h"
#include "support/gradient_check.h"
#include "support/temp_file.h"

using namespace dynet;

namespace {

constexpr unsigned kChars = 5, kInput = 3, kHidden = 4;

std::vector<float> representation(C2WBuilder& c2w, const std::vector<int>& chars) {
  ComputationGraph cg;
  c2w.new_graph(cg);
  return as_vector(cg.forward(c2w.add_word(0, chars, cg)));
}

}  // namespace

TEST_CASE("a C2W representation is [forward LSTM's last output, reverse LSTM's last output]", "[builders][c2w]") {
  ParameterCollection model;
  C2WBuilder c2w(kChars, 2, kInput, kHidden, model);
  const std::vector<int> chars = {3, 0, 4, 0};

  // The same computation written out with the builder's own parts.
  std::vector<float> expected;
  {
    ComputationGraph cg;
    c2w.fc2w.new_graph(cg);
    c2w.rc2w.new_graph(cg);
    c2w.fc2w.start_new_sequence();
    c2w.rc2w.start_new_sequence();
    for (int c : chars) c2w.fc2w.add_input(lookup(cg, c2w.p_lookup, unsigned(c)));
    for (auto c = chars.rbegin(); c != chars.rend(); ++c) c2w.rc2w.add_input(lookup(cg, c2w.p_lookup, unsigned(*c)));
    expected = as_vector(cg.forward(concatenate({c2w.fc2w.back(), c2w.rc2w.back()})));
  }
  const std::vector<float> got = representation(c2w, chars);
  REQUIRE(got.size() == 2 * kHidden);
  for (unsigned k = 0; k < got.size(); ++k) CHECK(got[k] == Approx(expected[k]).margin(1e-6));
  CHECK(representation(c2w, {0, 4, 0, 3}) != got);
}

TEST_CASE("C2W composes a word id once per graph", "[builders][c2w]") {
  ParameterCollection model;
  C2WBuilder c2w(kChars, 1, kInput, kHidden, model);
  ComputationGraph cg;
  c2w.new_graph(cg);
  const Expression first = c2w.add_word(7, {1, 2}, cg);
  const unsigned nodes = cg.size();
  const Expression again = c2w.add_word(7, {1, 2}, &cg);
  CHECK(again.i == first.i);
  CHECK(cg.size() == nodes);
  CHECK(c2w.add_word(8, {1, 2}, cg).i != first.i);

  ComputationGraph next;
  c2w.new_graph(&next);
  const Expression in_next = c2w.add_word(7, {1, 2}, next);
  CHECK(in_next.pg == &next);
  CHECK(as_vector(next.forward(in_next)) == as_vector(cg.forward(first)));
}

TEST_CASE("C2W gradients reach the character embeddings and both LSTMs", "[builders][c2w][gradient]") {
  ParameterCollection model;
  C2WBuilder c2w(kChars, 2, kInput, kHidden, model);
  ComputationGraph cg;
  c2w.new_graph(cg);
  const std::vector<Expression> words = {c2w.add_word(0, {1, 2, 3}, cg), c2w.add_word(1, {4, 0}, cg)};
  test_support::check_gradients(model, cg, test_support::weighted_sum(cg, words, 9));
}

TEST_CASE("a C2W builder's collection holds all its parameters and loads into another",
          "[builders][c2w][persistence]") {
  test_support::TempFile file("c2w.model", "");
  ParameterCollection a_model, b_model;
  b_model.add_parameters({2}, 0.f, "unrelated");
  C2WBuilder a(kChars, 1, kInput, kHidden, a_model), b(kChars, 1, kInput, kHidden, b_model);
  CHECK(a.get_parameter_collection().lookup_parameters_list().size() == 1);
  CHECK(representation(a, {1, 3}) != representation(b, {1, 3}));
  TextFileSaver(file.path()).save(a.get_parameter_collection());
  TextFileLoader(file.path()).populate(b.get_parameter_collection());
  CHECK(representation(a, {1, 3}) == representation(b, {1, 3}));
}

TEST_CASE("C2W rejects empty words, unknown characters and other graphs", "[builders][c2w]") {
  ParameterCollection model;
  CHECK_THROWS_WITH(C2WBuilder(0, 1, kInput, kHidden, model), Catch::Contains("vocab_size must be positive, got 0"));
  C2WBuilder c2w(kChars, 1, kInput, kHidden, model);
  ComputationGraph cg, other;
  CHECK_THROWS_WITH(c2w.add_word(0, {1}, cg), Catch::Contains("C2WBuilder::add_word: call new_graph"));
  c2w.new_graph(cg);
  const unsigned nodes = cg.size();
  CHECK_THROWS_WITH(c2w.add_word(0, {}, cg), Catch::Contains("word 0 has no characters"));
  CHECK_THROWS_WITH(c2w.add_word(0, {1, 5}, cg), Catch::Contains("character id 5 is out of range for 5 characters"));
  CHECK_THROWS_WITH(c2w.add_word(0, {-1}, cg), Catch::Contains("character id -1"));
  CHECK_THROWS_WITH(c2w.add_word(0, {1}, other), Catch::Contains("not the one given to new_graph"));
  CHECK(cg.size() == nodes);
}
