#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <numeric>
#include <vector>

#include "builders/class_factored_softmax_builder.h"
#include "builders/standard_softmax_builder.h"
#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "support/gradient_check.h"
#include "support/temp_file.h"

using namespace dynet;
using test_support::TempFile;

namespace {

constexpr unsigned kRep = 3;

// Classes: "x" has three words, "y" two, "z" one.
const char* const kClusters = "x the 10\nx a 7\n\ny cat\nz sat\ny dog\nx on\n";

std::vector<float> log_distribution(ComputationGraph& cg, SoftmaxBuilder& sm, const Expression& rep) {
  return as_vector(cg.incremental_forward(sm.full_log_distribution(rep)));
}

double probability_mass(const std::vector<float>& log_p) {
  double total = 0;
  for (float v : log_p) total += std::exp(double(v));
  return total;
}

}  // namespace

TEST_CASE("the standard softmax builder scores every class", "[builders][softmax]") {
  ParameterCollection model;
  StandardSoftmaxBuilder sm(kRep, 5, model);
  LookupParameter reps = model.add_lookup_parameters(2, {kRep});
  ComputationGraph cg;
  sm.new_graph(cg);
  const Expression rep = lookup(cg, reps, 0u);
  const std::vector<float> log_p = log_distribution(cg, sm, rep);
  CHECK(log_p.size() == 5);
  CHECK(probability_mass(log_p) == Approx(1.0).epsilon(1e-5));
  for (unsigned c = 0; c < 5; ++c)
    CHECK(as_scalar(cg.incremental_forward(sm.neg_log_softmax(rep, c))) == Approx(-log_p[c]));

  const Expression batch = lookup(cg, reps, std::vector<unsigned>{0, 1});
  const std::vector<float> losses = as_vector(cg.incremental_forward(sm.neg_log_softmax(batch, {2, 4})));
  CHECK(losses[0] == Approx(-log_p[2]));
  CHECK(losses[1] == Approx(as_scalar(cg.incremental_forward(sm.neg_log_softmax(lookup(cg, reps, 1u), 4)))));
  test_support::check_gradients(model, cg, sum_batches(sm.neg_log_softmax(batch, {2, 4})));

  CHECK_THROWS_WITH(sm.neg_log_softmax(rep, 5), Catch::Contains("class 5"));
  CHECK_THROWS_WITH(sm.neg_log_softmax(batch, std::vector<unsigned>{1}), Catch::Contains("batch size 2, expected 1"));
  CHECK_THROWS_WITH(sm.neg_log_softmax(zeros(cg, Dim({kRep + 1})), 0), Catch::Contains("expected {3}"));
  CHECK_THROWS_WITH(sm.sample(batch), Catch::Contains("batch size"));
}

TEST_CASE("softmax builders sample from their distribution", "[builders][softmax]") {
  ParameterCollection model;
  StandardSoftmaxBuilder sm(1, 3, model);
  const auto& params = sm.get_parameter_collection().parameters_list();
  Parameter(params[0]).set_value({0.f, 1.f, 2.f});
  Parameter(params[1]).set_value({0.f, 0.f, 0.f});
  ComputationGraph cg;
  sm.new_graph(cg);
  const Expression rep = input(cg, Dim({1}), {2.f});
  std::vector<unsigned> counts(3, 0);
  for (int k = 0; k < 2000; ++k) ++counts[sm.sample(rep)];
  const double logits[3] = {0, 2, 4};
  const double total = std::exp(logits[0]) + std::exp(logits[1]) + std::exp(logits[2]);
  for (unsigned c = 0; c < 3; ++c) CHECK(counts[c] / 2000.0 == Approx(std::exp(logits[c]) / total).margin(0.04));
}

TEST_CASE("the class-factored softmax is a distribution over the clustered words", "[builders][softmax]") {
  TempFile clusters("clusters.txt", kClusters);
  Dict words;
  words.convert("the");
  ParameterCollection model;
  ClassFactoredSoftmaxBuilder sm(kRep, clusters.path(), words, model);
  CHECK(words.size() == 6);
  CHECK(sm.num_classes() == 3);
  CHECK(sm.class_of(static_cast<unsigned>(words.convert("dog"))) == 1);
  CHECK(sm.class_words(0).size() == 3);
  CHECK(model.parameters_list().size() == 2 + 2 * 2);  // no word scores for the one-word class

  LookupParameter reps = model.add_lookup_parameters(2, {kRep});
  ComputationGraph cg;
  sm.new_graph(cg);
  const Expression rep = lookup(cg, reps, 1u);
  const std::vector<float> log_p = log_distribution(cg, sm, rep);
  REQUIRE(log_p.size() == 6);
  CHECK(probability_mass(log_p) == Approx(1.0).epsilon(1e-5));
  for (unsigned w = 0; w < 6; ++w)
    CHECK(as_scalar(cg.incremental_forward(sm.neg_log_softmax(rep, w))) == Approx(-log_p[w]));

  const Expression batch = lookup(cg, reps, std::vector<unsigned>{1, 0, 1});
  const std::vector<unsigned> targets{static_cast<unsigned>(words.convert("sat")), 0,
                                      static_cast<unsigned>(words.convert("dog"))};
  const Expression losses = sm.neg_log_softmax(batch, targets);
  const std::vector<float> v = as_vector(cg.incremental_forward(losses));
  CHECK(v[0] == Approx(-log_p[targets[0]]));
  CHECK(v[2] == Approx(-log_p[targets[2]]));
  CHECK(v[1] == Approx(as_scalar(cg.incremental_forward(sm.neg_log_softmax(lookup(cg, reps, 0u), 0)))));
  test_support::check_gradients(model, cg, sum_batches(losses));

  std::vector<unsigned> counts(6, 0);
  for (int k = 0; k < 3000; ++k) ++counts[sm.sample(rep)];
  for (unsigned w = 0; w < 6; ++w) CHECK(counts[w] / 3000.0 == Approx(std::exp(log_p[w])).margin(0.04));
}

TEST_CASE("classes given in memory build the same softmax as a cluster file", "[builders][softmax]") {
  TempFile clusters("memory-clusters.txt", kClusters);
  Dict from_file_words, in_memory_words;
  ParameterCollection a, b;
  ClassFactoredSoftmaxBuilder from_file(kRep, clusters.path(), from_file_words, a);
  ClassFactoredSoftmaxBuilder in_memory(
      kRep, {{"x", "the"}, {"x", "a"}, {"y", "cat"}, {"z", "sat"}, {"y", "dog"}, {"x", "on"}}, in_memory_words, b);
  CHECK(in_memory_words.get_words() == from_file_words.get_words());
  CHECK(in_memory.num_classes() == from_file.num_classes());
  for (unsigned c = 0; c < from_file.num_classes(); ++c) CHECK(in_memory.class_words(c) == from_file.class_words(c));
  CHECK(b.parameter_count() == a.parameter_count());
}

TEST_CASE("a softmax builder's clone scores the same in a graph of its own", "[builders][softmax]") {
  Dict words;
  ParameterCollection model;
  StandardSoftmaxBuilder standard(kRep, 5, model);
  ClassFactoredSoftmaxBuilder factored(
      kRep, {{"x", "the"}, {"x", "a"}, {"y", "cat"}, {"z", "sat"}, {"y", "dog"}, {"x", "on"}}, words, model);
  LookupParameter reps = model.add_lookup_parameters(2, {kRep});
  for (SoftmaxBuilder* original : {static_cast<SoftmaxBuilder*>(&standard), static_cast<SoftmaxBuilder*>(&factored)}) {
    const std::unique_ptr<SoftmaxBuilder> copy = original->clone();
    ComputationGraph cg_a, cg_b;
    original->new_graph(cg_a);
    copy->new_graph(cg_b);  // the original stays bound to cg_a
    const std::vector<float> a = log_distribution(cg_a, *original, lookup(cg_a, reps, 1u));
    const std::vector<float> b = log_distribution(cg_b, *copy, lookup(cg_b, reps, 1u));
    CHECK(a == b);
    // Gradients from the copy's graph reach the shared parameters.
    model.reset_gradient();
    cg_b.backward(copy->neg_log_softmax(lookup(cg_b, reps, 0u), 2u));
    CHECK(model.gradient_l2_norm() > 0.f);
  }
}

TEST_CASE("the class-factored softmax reports bad cluster files and unclustered words", "[builders][softmax]") {
  ParameterCollection model;
  Dict words;
  CHECK_THROWS_WITH(ClassFactoredSoftmaxBuilder(kRep, "/nonexistent/clusters.txt", words, model),
                    Catch::Contains("/nonexistent/clusters.txt"));
  TempFile malformed("malformed.txt", "x the\nlonely\n");
  CHECK_THROWS_WITH(ClassFactoredSoftmaxBuilder(kRep, malformed.path(), words, model), Catch::Contains(":2:"));
  TempFile twice("twice.txt", "x the\ny the\n");
  CHECK_THROWS_WITH(ClassFactoredSoftmaxBuilder(kRep, twice.path(), words, model),
                    Catch::Contains("'the'") && Catch::Contains("twice.txt:1"));
  TempFile empty("empty.txt", "\n");
  CHECK_THROWS_WITH(ClassFactoredSoftmaxBuilder(kRep, empty.path(), words, model), Catch::Contains("no words"));
  Dict frozen;
  frozen.convert("the");
  frozen.freeze();
  TempFile good("good.txt", kClusters);
  CHECK_THROWS_WITH(ClassFactoredSoftmaxBuilder(kRep, good.path(), frozen, model),
                    Catch::Contains("'a'") && Catch::Contains("frozen"));
  CHECK(words.size() == 0);
  CHECK(frozen.size() == 1);
  CHECK(model.parameters_list().empty());

  CHECK_THROWS_WITH(ClassFactoredSoftmaxBuilder(kRep, ClassFactoredSoftmaxBuilder::WordClasses{}, words, model),
                    Catch::Contains("no word"));
  CHECK_THROWS_WITH(ClassFactoredSoftmaxBuilder(kRep, {{"x", "a"}, {"y", "a"}}, words, model),
                    Catch::Contains("class entry 2") && Catch::Contains("class entry 1"));
  Dict vocabulary;
  vocabulary.convert("unclustered");
  ClassFactoredSoftmaxBuilder sm(kRep, good.path(), vocabulary, model);
  ComputationGraph cg;
  sm.new_graph(cg);
  const Expression rep = zeros(cg, Dim({kRep}));
  CHECK_THROWS_WITH(sm.neg_log_softmax(rep, 0), Catch::Contains("'unclustered'") && Catch::Contains("no class"));
  // As DyNet's full_logits: a word in no class gets -10000, the clustered words their distribution.
  const std::vector<float> full = as_vector(cg.forward(sm.full_log_distribution(rep)));
  REQUIRE(full.size() == vocabulary.size());
  CHECK(full[0] == -10000.f);
  double total = 0;
  for (std::size_t w = 1; w < full.size(); ++w) total += std::exp(full[w]);
  CHECK(total == Approx(1.0).epsilon(1e-5));
  CHECK_THROWS_WITH(sm.neg_log_softmax(rep, 99), Catch::Contains("word 99"));
}

TEST_CASE("the class-factored softmax's class and subclass distributions make up the full one", "[builders][softmax]") {
  TempFile clusters("clusters.txt", kClusters);
  Dict words;
  ParameterCollection model;
  ClassFactoredSoftmaxBuilder sm(kRep, clusters.path(), words, model);
  ComputationGraph cg;
  sm.new_graph(cg);
  const unsigned before = cg.size();
  sm.initialize_expressions();
  CHECK(cg.size() == before + 2 * 2);  // W and b of the two classes of several words
  const Expression rep = input(cg, Dim({kRep}), {0.3f, -0.5f, 0.8f});
  const unsigned nodes = cg.size();
  const Expression class_scores = sm.class_logits(rep);
  CHECK(cg.size() == nodes + 1);  // the parameters were already in the graph
  const std::vector<float> log_pc = as_vector(cg.forward(sm.class_log_distribution(rep)));
  CHECK(log_pc == as_vector(cg.forward(log_softmax(class_scores))));
  const std::vector<float> full = as_vector(cg.forward(sm.full_log_distribution(rep)));
  // The same nodes again, computed into other memory: products through Eigen's GEMV, which peels
  // to an aligned address, may round otherwise in the last bit.
  const std::vector<float> logits = as_vector(cg.forward(static_cast<SoftmaxBuilder&>(sm).full_logits(rep)));
  REQUIRE(logits.size() == full.size());
  for (std::size_t k = 0; k < full.size(); ++k) CHECK(logits[k] == Approx(full[k]).epsilon(1e-6));
  for (unsigned c = 0; c < sm.num_classes(); ++c) {
    const std::vector<unsigned>& members = sm.class_words(c);
    if (members.size() < 2) {
      CHECK(full[members[0]] == Approx(log_pc[c]));
      CHECK_THROWS_WITH(sm.subclass_logits(rep, c), Catch::Contains("subclass_logits: class 2 ('z') holds one word"));
      continue;
    }
    const std::vector<float> log_pw = as_vector(cg.forward(sm.subclass_log_distribution(rep, c)));
    CHECK(log_pw == as_vector(cg.forward(log_softmax(sm.subclass_logits(rep, c)))));
    for (unsigned k = 0; k < members.size(); ++k) CHECK(full[members[k]] == Approx(log_pc[c] + log_pw[k]));
  }
  CHECK_THROWS_WITH(sm.subclass_log_distribution(rep, 3),
                    Catch::Contains("ClassFactoredSoftmaxBuilder::subclass_log_distribution: class 3 is out of range"));
}

TEST_CASE("a standard softmax over existing parameters, as DyNet's", "[builders][softmax]") {
  ParameterCollection model;
  Parameter w = model.add_parameters({4, kRep}), b = model.add_parameters({4}), other = model.add_parameters({3});
  StandardSoftmaxBuilder with_bias(w, b), without(w);
  CHECK(with_bias.rep_dim() == kRep);
  CHECK(with_bias.num_classes() == 4);
  CHECK(with_bias.get_parameter_collection().parameters_list().empty());
  ComputationGraph cg;
  with_bias.new_graph(cg);
  without.new_graph(cg);
  const Expression rep = input(cg, Dim({kRep}), {1.f, -2.f, 0.5f});
  const Expression W = parameter(cg, w), B = parameter(cg, b);
  const std::vector<float> logits = as_vector(cg.forward(with_bias.full_logits(rep)));
  const std::vector<float> expected = as_vector(cg.forward(B + W * rep));
  REQUIRE(logits.size() == 4);
  for (unsigned c = 0; c < 4; ++c) CHECK(logits[c] == Approx(expected[c]));
  CHECK(as_vector(cg.forward(without.full_logits(rep))) == as_vector(cg.forward(W * rep)));
  CHECK_THROWS_WITH(StandardSoftmaxBuilder(w, other), Catch::Contains("p_b has dim {3}, expected {4}"));
  Parameter empty;
  CHECK_THROWS_WITH(StandardSoftmaxBuilder{empty}, Catch::Contains("p_w is an empty Parameter"));
}
