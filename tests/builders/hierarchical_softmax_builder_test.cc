// HierarchicalSoftmaxBuilder (DyNet's hsm-builder.h): the cluster tree file, p(w | rep) as the
// product of the branch probabilities along w's path, against the formulas written out by hand.

#include <catch2/catch.hpp>

#include <Eigen/Core>
#include <cmath>
#include <memory>
#include <vector>

#include "builders/hierarchical_softmax_builder.h"
#include "dynet_core/graph.h"
#include "dynet_core/io/savers_and_loaders.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/random_engine.h"
#include "support/device_values.h"
#include "support/gradient_check.h"
#include "support/scramble.h"
#include "support/temp_file.h"

using namespace dynet;
using Eigen::VectorXf;
using test_support::scramble;
using test_support::TempFile;

namespace {

constexpr unsigned kRep = 3;

// The root has three branches (softmax): "0" holds one word, "1" two subclusters (a binary node)
// and "2" one word; "1 0" holds two words (binary), "1 1" three (softmax).
const char* const kTree = "0\tthe\t10\n"
                          "1 0\tcat\n"
                          "\n"
                          "1 1\ta\t3\n"
                          "1 0\tdog\n"
                          "1 1\tan\n"
                          "2\tsat\n"
                          "1 1\tof\n";

using Storage = std::shared_ptr<ParameterStorage>;
VectorXf value(const Storage& p) { return host_matrix(p->values); }
Eigen::MatrixXf matrix(const Storage& p) { return host_matrix(p->values); }

struct Fixture {
  TempFile file{"clusters.txt", kTree};
  ParameterCollection model;
  Dict dict;
  HierarchicalSoftmaxBuilder hsm;
  Fixture() : hsm(kRep, file.path(), dict, model) {}
  unsigned id(const char* w) { return static_cast<unsigned>(dict.convert(w)); }
};

double log_softmax_at(const VectorXf& a, unsigned k) { return a(k) - std::log(a.array().exp().sum()); }
double log_sigmoid(float a) { return -std::log1p(std::exp(-double(a))); }

}  // namespace

TEST_CASE("the cluster file gives the tree, its words and DyNet's parameters, root first", "[builders][softmax]") {
  Fixture f;
  CHECK(f.dict.size() == 7);
  CHECK(f.hsm.num_clusters() == 6);  // the root, 0, 1, 1 0, 1 1, 2
  const auto& params = f.hsm.get_parameter_collection().parameters_list();
  REQUIRE(params.size() == 8);
  CHECK(params[0]->dim == Dim({3, kRep}));  // root: three branches
  CHECK(params[1]->dim == Dim({3}));
  CHECK(params[2]->dim == Dim({1, kRep}));  // "1": two branches
  CHECK(params[4]->dim == Dim({1, kRep}));  // "1 0": two words
  CHECK(params[6]->dim == Dim({3, kRep}));  // "1 1": three words
  CHECK(as_vector(params[1]->values) == std::vector<float>(3, 0.f));
}

TEST_CASE("hierarchical softmax losses are the branch losses along the path", "[builders][softmax]") {
  Fixture f;
  scramble(f.model);
  const auto& p = f.hsm.get_parameter_collection().parameters_list();
  const VectorXf rep = VectorXf::LinSpaced(kRep, -0.7f, 1.1f);
  const VectorXf root = value(p[1]) + matrix(p[0]) * rep;
  const float a1 = (value(p[3]) + matrix(p[2]) * rep)(0);
  const float a10 = (value(p[5]) + matrix(p[4]) * rep)(0);
  const VectorXf leaf11 = value(p[7]) + matrix(p[6]) * rep;
  // log p(w | rep) by hand: a binary node's branch 0 has probability logistic(a).
  const std::vector<std::pair<const char*, double>> expected = {
      {"the", log_softmax_at(root, 0)},
      {"cat", log_softmax_at(root, 1) + log_sigmoid(a1) + log_sigmoid(a10)},
      {"dog", log_softmax_at(root, 1) + log_sigmoid(a1) + log_sigmoid(-a10)},
      {"a", log_softmax_at(root, 1) + log_sigmoid(-a1) + log_softmax_at(leaf11, 0)},
      {"an", log_softmax_at(root, 1) + log_sigmoid(-a1) + log_softmax_at(leaf11, 1)},
      {"of", log_softmax_at(root, 1) + log_sigmoid(-a1) + log_softmax_at(leaf11, 2)},
      {"sat", log_softmax_at(root, 2)}};

  ComputationGraph cg;
  f.hsm.new_graph(cg);
  const Expression r = input(cg, Dim({kRep}), std::vector<float>(rep.data(), rep.data() + kRep));
  const std::vector<float> full = as_vector(cg.forward(f.hsm.full_log_distribution(r)));
  REQUIRE(full.size() == 7);
  // The same values, up to rounding: the engine may take the two graphs' products in other groups.
  const std::vector<float> logits = as_vector(cg.forward(static_cast<SoftmaxBuilder&>(f.hsm).full_logits(r)));
  REQUIRE(logits.size() == full.size());
  for (std::size_t w = 0; w < full.size(); ++w) CHECK(logits[w] == Approx(full[w]).epsilon(1e-6));
  double mass = 0;
  for (const auto& e : expected) {
    INFO(e.first);
    const unsigned w = f.id(e.first);
    CHECK(as_scalar(cg.forward(f.hsm.neg_log_softmax(r, w))) == Approx(-e.second).epsilon(1e-5));
    CHECK(full[w] == Approx(e.second).epsilon(1e-5));
    mass += std::exp(e.second);
  }
  CHECK(mass == Approx(1.0).epsilon(1e-5));

  // A batch of representations, one word each.
  const Expression batch = concatenate_to_batch({r, 2.f * r});
  const std::vector<float> losses = as_vector(cg.forward(f.hsm.neg_log_softmax(batch, {f.id("dog"), f.id("of")})));
  REQUIRE(losses.size() == 2);
  CHECK(losses[0] == Approx(as_scalar(cg.forward(f.hsm.neg_log_softmax(r, f.id("dog"))))));
  CHECK(losses[1] == Approx(as_scalar(cg.forward(f.hsm.neg_log_softmax(2.f * r, f.id("of"))))));
}

TEST_CASE("hierarchical softmax gradients match central differences", "[builders][softmax][gradient]") {
  Fixture f;
  scramble(f.model);
  LookupParameter reps = f.model.add_lookup_parameters(2, {kRep});
  ComputationGraph cg;
  f.hsm.new_graph(cg);
  const Expression batch = lookup(cg, reps, std::vector<unsigned>{0, 1});
  const Expression loss = sum_batches(f.hsm.neg_log_softmax(batch, {f.id("an"), f.id("dog")})) +
                          f.hsm.neg_log_softmax(lookup(cg, reps, 1u), f.id("the")) +
                          test_support::weighted_sum(cg, {f.hsm.full_log_distribution(lookup(cg, reps, 0u))}, 5);
  test_support::check_gradients(f.model, cg, loss);
}

TEST_CASE("hierarchical softmax samples words with their probabilities", "[builders][softmax]") {
  Fixture f;
  scramble(f.model);
  random_engine().seed(11);
  ComputationGraph cg;
  f.hsm.new_graph(cg);
  const Expression r = input(cg, Dim({kRep}), {0.4f, -0.2f, 0.9f});
  const std::vector<float> log_p = as_vector(cg.forward(f.hsm.full_log_distribution(r)));
  std::vector<unsigned> counts(log_p.size(), 0);
  const unsigned n = 4000;
  for (unsigned k = 0; k < n; ++k) ++counts.at(f.hsm.sample(r));
  for (unsigned w = 0; w < counts.size(); ++w) {
    INFO("word " << f.dict.convert(static_cast<int>(w)));
    CHECK(double(counts[w]) / n == Approx(std::exp(log_p[w])).margin(0.03));
  }
}

TEST_CASE("a hierarchical softmax's parameters save and load", "[builders][softmax][persistence]") {
  Fixture a, b;
  scramble(a.model);
  TempFile saved("hsm.model", "");
  TextFileSaver(saved.path()).save(a.hsm.get_parameter_collection());
  auto distribution = [](Fixture& f) {
    ComputationGraph cg;
    f.hsm.new_graph(cg);
    return as_vector(cg.forward(f.hsm.full_log_distribution(input(cg, Dim({kRep}), {0.3f, 0.1f, -0.8f}))));
  };
  CHECK(distribution(a) != distribution(b));
  TextFileLoader(saved.path()).populate(b.hsm.get_parameter_collection());
  CHECK(distribution(a) == distribution(b));
}

TEST_CASE("hierarchical softmax rejects bad trees and words outside the tree", "[builders][softmax]") {
  auto refused = [](const std::string& tree, const std::string& expected) {
    TempFile file("bad-clusters.txt", tree);
    ParameterCollection model;
    Dict dict;
    dict.convert("<s>");
    CHECK_THROWS_WITH(HierarchicalSoftmaxBuilder(kRep, file.path(), dict, model),
                      Catch::Contains("HierarchicalSoftmaxBuilder") && Catch::Contains(expected));
    CHECK(dict.size() == 1);
    CHECK(model.parameters_list().empty());
  };
  refused("0\tthe\n1 0 1 the\n", ":2: expected 'cluster path<TAB>word'");
  refused("0\tthe\n1\tthe\n", ":2: the word 'the' was already placed at");
  refused("1 0\tcat\n1\tdog\n", ":2: the word 'dog' is placed in a cluster that has subclusters");
  refused("1\tdog\n1 0\tcat\n", ":2: cluster '0' goes below a cluster that holds words");
  refused("", "lists no words");
  refused("\t\n", "lists no words");

  ParameterCollection model;
  Dict dict;
  CHECK_THROWS_WITH(HierarchicalSoftmaxBuilder(kRep, "/nonexistent/clusters.txt", dict, model),
                    Catch::Contains("cannot read the cluster file"));

  TempFile file("clusters.txt", kTree);
  dict.convert("<s>");
  HierarchicalSoftmaxBuilder hsm(kRep, file.path(), dict, model);
  ComputationGraph cg;
  CHECK_THROWS_WITH(hsm.neg_log_softmax(input(cg, Dim({kRep}), {0.f, 0.f, 0.f}), 1), Catch::Contains("new_graph"));
  hsm.new_graph(cg);
  const Expression r = input(cg, Dim({kRep}), {0.f, 0.f, 0.f});
  CHECK_THROWS_WITH(hsm.neg_log_softmax(r, 0), Catch::Contains("word 0 ('<s>') is not in the cluster tree"));
  CHECK_THROWS_WITH(hsm.neg_log_softmax(r, 9), Catch::Contains("word 9 is not in the cluster tree"));
  CHECK_THROWS_WITH(hsm.full_log_distribution(r), Catch::Contains("full_log_distribution: word 0"));
  CHECK_THROWS_WITH(hsm.neg_log_softmax(input(cg, Dim({kRep + 1}), {0.f, 0.f, 0.f, 0.f}), 1),
                    Catch::Contains("expected {3}"));
}
