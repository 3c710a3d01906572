// CompactVanillaLSTMBuilder's dropout is fused as DyNet's: the gates op multiplies by the masks,
// and the result is the standard LSTM's with the same masks.

#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "builders/compact_vanilla_lstm_builder.h"
#include "builders/vanilla_lstm_builder.h"
#include "dynet_core/graph.h"
#include "dynet_core/node.h"
#include "dynet_core/op_def.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/random_engine.h"
#include "support/gradient_check.h"

using namespace dynet;

namespace {

unsigned count_nodes(const ComputationGraph& cg, const char* op) {
  unsigned n = 0;
  for (unsigned i = 0; i < cg.size(); ++i) n += std::strcmp(cg.node(i).op->name, op) == 0;
  return n;
}

/// Three steps of a batch of two from a zero state; returns the outputs and leaves the graph in cg.
std::vector<float> run(RNNBuilder& rnn, ComputationGraph& cg, unsigned seed) {
  random_engine().seed(seed);
  rnn.new_graph(cg);
  rnn.start_new_sequence();
  std::vector<float> out;
  for (float step : {0.5f, -1.f, 2.f}) {
    const Expression x = input(cg, Dim({3}, 2), {step, 1.f, -step, 0.3f, step, 0.7f});
    for (float v : as_vector(cg.forward(rnn.add_input(x)))) out.push_back(v);
  }
  return out;
}

}  // namespace

TEST_CASE("CompactVanillaLSTMBuilder fuses dropout into its gates and computes VanillaLSTMBuilder's values",
          "[builders][rnn]") {
  const float d = GENERATE(0.4f, 0.f), d_h = GENERATE(0.3f, 0.f);
  if (d == 0.f && d_h == 0.f) return;
  INFO("dropout " << d << ", recurrent " << d_h);
  ParameterCollection model;
  CompactVanillaLSTMBuilder compact(2, 3, 4, model);
  VanillaLSTMBuilder vanilla(2, 3, 4, model);
  for (unsigned l = 0; l < 2; ++l)
    for (unsigned k = 0; k < 3; ++k) {
      Parameter from = compact.params[l][k];
      std::vector<float> v = as_vector(from.get_storage().values);
      for (unsigned j = 0; j < v.size(); ++j) v[j] = 0.1f * float((j * 7 + k * 3 + l) % 11) - 0.5f;
      from.set_value(v);
      Parameter(vanilla.params[l][k]).set_value(v);
    }
  compact.set_dropout(d, d_h);
  vanilla.set_dropout(d, d_h);

  ComputationGraph compact_cg, vanilla_cg;
  const std::vector<float> got = run(compact, compact_cg, 5);
  const std::vector<float> expected = run(vanilla, vanilla_cg, 5);
  // Masks drawn from the same seed, in the same order, where both draw one.
  if (d > 0.f && d_h > 0.f) {
    REQUIRE(got.size() == expected.size());
    for (unsigned k = 0; k < got.size(); ++k) CHECK(got[k] == Approx(expected[k]).margin(1e-5));
  }
  CHECK(count_nodes(compact_cg, "vanilla_lstm_gates_dropout") == 6);
  CHECK(count_nodes(compact_cg, "vanilla_lstm_gates") == 0);
  CHECK(count_nodes(compact_cg, "cmult") == 0);
  CHECK(count_nodes(compact_cg, "random_bernoulli") == 4);  // x and h of each layer, once per sequence
  ComputationGraph other_masks;
  CHECK(got != run(compact, other_masks, 6));
}

TEST_CASE("CompactVanillaLSTMBuilder gradients with fused dropout match central differences",
          "[builders][rnn][gradient]") {
  random_engine().seed(3);
  ParameterCollection model;
  CompactVanillaLSTMBuilder rnn(2, 3, 4, model);
  LookupParameter words = model.add_lookup_parameters(4, {3});
  rnn.set_dropout(0.3f, 0.3f);
  ComputationGraph cg;
  const std::vector<Expression> outputs = test_support::run_sequence(rnn, cg, words, {{0, 1}, {2, 3}, {1, 0}});
  CHECK(count_nodes(cg, "vanilla_lstm_gates_dropout") == 6);
  test_support::check_gradients(model, cg, test_support::weighted_sum(cg, outputs, 4));
}
