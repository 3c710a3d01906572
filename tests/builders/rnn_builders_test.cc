// The recurrent builders: gradients through every builder, batched against unbatched inputs,
// the position API (rewind, branches, set_h / set_s), variational dropout and bad input.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "builders/compact_vanilla_lstm_builder.h"
#include "builders/coupled_lstm_builder.h"
#include "builders/deep_lstm_builder.h"
#include "builders/gru_builder.h"
#include "builders/simple_rnn_builder.h"
#include "builders/vanilla_lstm_builder.h"
#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "support/gradient_check.h"

using namespace dynet;
using test_support::check_gradients;
using test_support::weighted_sum;

namespace {

constexpr unsigned kInput = 3, kHidden = 4, kLayers = 2;

/// A builder over a model that also holds an input table and a table of initial states.
template <class Builder>
struct Sequences {
  template <class... Options>
  explicit Sequences(unsigned words, Options... options)
      : rnn(kLayers, kInput, kHidden, model, options...),
        table(model.add_lookup_parameters(words, {kInput})),
        states(model.add_lookup_parameters(2 * kLayers, {kHidden})) {}

  /// Runs `steps` inputs (rows of the table, one index per batch element at each step) through
  /// `builder` (rnn or a clone) from an initial state made of table rows, and returns every state
  /// it went through.
  template <class B>
  std::vector<Expression> run(B& builder, ComputationGraph& cg, const std::vector<std::vector<unsigned>>& steps,
                              bool with_initial_state) const {
    builder.new_graph(cg);
    std::vector<Expression> h0;
    if (with_initial_state)
      for (unsigned k = 0; k < builder.num_h0_components(); ++k)
        h0.push_back(lookup(cg, states, std::vector<unsigned>(steps[0].size(), k)));
    builder.start_new_sequence(h0);
    std::vector<Expression> seen;
    for (const auto& indices : steps) {
      builder.add_input(lookup(cg, table, indices));
      for (const Expression& s : builder.final_s()) seen.push_back(s);
    }
    return seen;
  }

  ParameterCollection model;
  Builder rnn;
  LookupParameter table, states;
};

}  // namespace

TEMPLATE_TEST_CASE("gradients flow through every recurrent builder", "[builders][rnn]", SimpleRNNBuilder,
                   VanillaLSTMBuilder, CompactVanillaLSTMBuilder, CoupledLSTMBuilder, GRUBuilder) {
  Sequences<TestType> s(5);
  const bool batched = GENERATE(false, true);
  const bool with_initial_state = GENERATE(false, true);
  const bool with_dropout = GENERATE(false, true);
  INFO("batched " << batched << ", initial state " << with_initial_state << ", dropout " << with_dropout);
  if (with_dropout) s.rnn.set_dropout(0.3f, 0.2f);
  const std::vector<std::vector<unsigned>> steps = batched ? std::vector<std::vector<unsigned>>{{0, 1}, {2, 3}, {4, 0}}
                                                           : std::vector<std::vector<unsigned>>{{0}, {2}, {4}};
  ComputationGraph cg;
  const std::vector<Expression> seen = s.run(s.rnn, cg, steps, with_initial_state);
  check_gradients(s.model, cg, weighted_sum(cg, seen, 7));
}

TEST_CASE("gradients flow through a layer-normalized VanillaLSTM", "[builders][rnn]") {
  Sequences<VanillaLSTMBuilder> s(5, true);
  for (const auto& layer : s.rnn.layer_parameters())  // gains and biases away from 1 and 0
    for (const Parameter& p : layer) {
      std::vector<float> v = as_vector(p.get_storage().values);
      for (std::size_t k = 0; k < v.size(); ++k) v[k] += 0.1f * std::sin(float(k));
      Parameter(p).set_value(v);
    }
  // Inputs and initial states of fixed values, not an initializer's draws: over 4 normalized units
  // some draws make the normalization too steep for a finite difference of 1e-2 to follow.
  for (LookupParameter* table : {&s.table, &s.states})
    for (unsigned r = 0; r < table->size(); ++r) {
      std::vector<float> row(table->dim().size());
      for (std::size_t k = 0; k < row.size(); ++k) row[k] = std::cos(1.7f * float(r * row.size() + k));
      table->initialize(r, row);
    }
  ComputationGraph cg;
  const std::vector<Expression> seen = s.run(s.rnn, cg, {{0, 1}, {2, 3}}, true);
  check_gradients(s.model, cg, weighted_sum(cg, seen, 11));
}

TEMPLATE_TEST_CASE("a batch of sequences gives the states of each sequence on its own", "[builders][rnn]",
                   SimpleRNNBuilder, VanillaLSTMBuilder, CompactVanillaLSTMBuilder, CoupledLSTMBuilder, GRUBuilder) {
  Sequences<TestType> s(6);
  const std::vector<std::vector<unsigned>> batch{{0, 1, 2}, {3, 4, 5}, {5, 0, 3}, {1, 1, 4}};
  const bool with_initial_state = GENERATE(false, true);

  ComputationGraph cg;
  const std::vector<Expression> together = s.run(s.rnn, cg, batch, with_initial_state);
  std::vector<std::vector<float>> batched_values;
  for (const Expression& e : together) batched_values.push_back(as_vector(cg.incremental_forward(e)));

  for (unsigned b = 0; b < 3; ++b) {
    std::vector<std::vector<unsigned>> one;
    for (const auto& step : batch) one.push_back({step[b]});
    ComputationGraph single;
    const std::vector<Expression> alone = s.run(s.rnn, single, one, with_initial_state);
    REQUIRE(alone.size() == together.size());
    for (std::size_t k = 0; k < alone.size(); ++k) {
      const std::vector<float> v = as_vector(single.incremental_forward(alone[k]));
      for (unsigned r = 0; r < kHidden; ++r) CHECK(v[r] == Approx(batched_values[k][b * kHidden + r]).margin(1e-6));
    }
  }
}

TEMPLATE_TEST_CASE("masks drawn for a batch take an input of one element as that batch of copies", "[builders][rnn]",
                   SimpleRNNBuilder, VanillaLSTMBuilder, CompactVanillaLSTMBuilder, CoupledLSTMBuilder, GRUBuilder) {
  // As DyNet's builders, whose cmult broadcasts the input over the masks' batch.
  Sequences<TestType> s(6);
  s.rnn.set_dropout(0.5f, 0.4f);
  ComputationGraph cg;
  s.rnn.new_graph(cg);
  s.rnn.start_new_sequence();
  s.rnn.set_dropout_masks(3);
  const std::vector<float> v{0.5f, -1.f, 2.f};
  std::vector<float> v3;
  for (unsigned b = 0; b < 3; ++b) v3.insert(v3.end(), v.begin(), v.end());
  const Expression x = input(cg, Dim({kInput}), v), x3 = input(cg, Dim({kInput}, 3), v3);
  // Two steps from the start with one element, two with three copies of it: the same masks.
  s.rnn.add_input(-1, x);
  const Expression broadcast = s.rnn.add_input(s.rnn.state(), x);
  s.rnn.add_input(-1, x3);
  const Expression copies = s.rnn.add_input(s.rnn.state(), x3);
  REQUIRE(broadcast.dim() == Dim({kHidden}, 3));
  const std::vector<float> a = as_vector(cg.incremental_forward(broadcast));
  const std::vector<float> b = as_vector(cg.incremental_forward(copies));
  REQUIRE(a.size() == b.size());
  for (std::size_t k = 0; k < a.size(); ++k) CHECK(a[k] == Approx(b[k]).margin(1e-6));
}

TEMPLATE_TEST_CASE("a clone shares the parameters and keeps graph state of its own", "[builders][rnn]",
                   SimpleRNNBuilder, VanillaLSTMBuilder, CompactVanillaLSTMBuilder, CoupledLSTMBuilder, GRUBuilder) {
  Sequences<TestType> s(6);
  TestType& rnn = s.rnn;
  const std::unique_ptr<RNNBuilder> copy = rnn.clone();
  REQUIRE(copy->layer_parameters().size() == rnn.layer_parameters().size());
  for (std::size_t l = 0; l < rnn.layer_parameters().size(); ++l)
    for (std::size_t k = 0; k < rnn.layer_parameters()[l].size(); ++k)
      CHECK(copy->layer_parameters()[l][k].p == rnn.layer_parameters()[l][k].p);
  // Both build at once, into two graphs, from one sequence each; each reads its own states.
  const std::vector<std::vector<unsigned>> a{{0}, {1}, {2}}, b{{3}, {4}};
  ComputationGraph cg_a, cg_b;
  const std::vector<Expression> from_original = s.run(rnn, cg_a, a, false);
  const std::vector<Expression> from_copy = s.run(*copy, cg_b, b, false);
  ComputationGraph cg_ref;
  const std::vector<Expression> reference = s.run(rnn, cg_ref, b, false);
  CHECK(as_vector(cg_b.forward(from_copy.back())) == as_vector(cg_ref.forward(reference.back())));
  CHECK(rnn.final_h().back().pg == &cg_ref);
  CHECK(copy->final_h().back().pg == &cg_b);
  // Gradients from the copy's graph reach the shared parameters.
  s.model.reset_gradient();
  cg_b.backward(sum_elems(from_copy.back()));
  CHECK(s.model.gradient_l2_norm() > 0.f);
}

TEST_CASE("CompactVanillaLSTM computes VanillaLSTM's cell from the same parameter values", "[builders][rnn]") {
  Sequences<VanillaLSTMBuilder> vanilla(6);
  Sequences<CompactVanillaLSTMBuilder> compact(6);
  REQUIRE(compact.rnn.params.size() == kLayers);
  for (unsigned l = 0; l < kLayers; ++l) {
    REQUIRE(compact.rnn.params[l].size() == vanilla.rnn.params[l].size());
    for (std::size_t k = 0; k < compact.rnn.params[l].size(); ++k) {
      // Away from the initial values, biases included, so that every gate block is told apart.
      std::vector<float> v = as_vector(vanilla.rnn.params[l][k].get_storage().values);
      for (std::size_t e = 0; e < v.size(); ++e) v[e] += 0.3f * std::sin(float(e * 7 + k));
      vanilla.rnn.params[l][k].set_value(v);
      compact.rnn.params[l][k].set_value(v);
    }
  }
  for (auto tables : {std::make_pair(vanilla.table, compact.table), std::make_pair(vanilla.states, compact.states)}) {
    set_from_host(tables.second.get_storage().all_values, as_vector(tables.first.get_storage().all_values).data());
  }
  const bool with_initial_state = GENERATE(false, true);
  const std::vector<std::vector<unsigned>> steps{{0, 1}, {2, 3}, {4, 5}, {1, 0}};
  ComputationGraph cg_v, cg_c;
  const std::vector<Expression> v = vanilla.run(vanilla.rnn, cg_v, steps, with_initial_state);
  const std::vector<Expression> c = compact.run(compact.rnn, cg_c, steps, with_initial_state);
  REQUIRE(v.size() == c.size());
  for (std::size_t k = 0; k < v.size(); ++k) {
    const std::vector<float> a = as_vector(cg_v.incremental_forward(v[k])),
                             b = as_vector(cg_c.incremental_forward(c[k]));
    REQUIRE(a.size() == b.size());
    for (std::size_t e = 0; e < a.size(); ++e) CHECK(b[e] == Approx(a[e]).margin(1e-6));
  }
}

TEST_CASE("CompactVanillaLSTM's weight noise perturbs every step, and only while set", "[builders][rnn]") {
  Sequences<CompactVanillaLSTMBuilder> s(4);
  auto output = [&s] {
    ComputationGraph cg;
    const std::vector<Expression> seen = s.run(s.rnn, cg, {{0}, {1}}, false);
    return as_vector(cg.forward(seen.back()));
  };
  const std::vector<float> clean = output();
  CHECK(output() == clean);
  s.rnn.set_weightnoise(0.5f);
  const std::vector<float> noisy = output();
  CHECK(noisy != clean);
  CHECK(output() != noisy);
  s.rnn.set_weightnoise(0.f);
  CHECK(output() == clean);
  CHECK_THROWS_AS(s.rnn.set_weightnoise(-1.f), std::invalid_argument);
}

TEST_CASE("positions: rewind, branches, set_h and set_s", "[builders][rnn]") {
  ParameterCollection model;
  VanillaLSTMBuilder rnn(kLayers, kInput, kHidden, model);
  ComputationGraph cg;
  rnn.new_graph(cg);
  rnn.start_new_sequence();
  CHECK(rnn.state() == -1);
  CHECK(rnn.get_h(-1).empty());
  CHECK(rnn.num_h0_components() == 2 * kLayers);
  const Expression x0 = input(cg, Dim({kInput}), {0.1f, -0.2f, 0.3f});
  const Expression x1 = input(cg, Dim({kInput}), {0.5f, 0.4f, -0.1f});
  const Expression x2 = input(cg, Dim({kInput}), {-0.3f, 0.2f, 0.9f});

  const Expression h0 = rnn.add_input(x0);
  const Expression h1 = rnn.add_input(x1);
  CHECK(rnn.state() == 1);
  CHECK(rnn.get_head(1) == 0);
  CHECK(rnn.final_h().size() == kLayers);
  CHECK(rnn.final_s().size() == 2 * kLayers);
  CHECK(rnn.final_s()[kLayers].i == rnn.final_h()[0].i);  // cells first, then outputs
  CHECK(rnn.back().i == h1.i);

  rnn.rewind_one_step();
  CHECK(rnn.state() == 0);
  CHECK(rnn.back().i == h0.i);
  // As DyNet's (h.back()): final_h and final_s read the last position added, not the current one.
  CHECK(rnn.final_h().back().i == h1.i);
  CHECK(rnn.final_s()[0].i == rnn.get_s(1)[0].i);
  const Expression h2 = rnn.add_input(x2);
  CHECK(rnn.get_head(2) == 0);
  const Expression branch = rnn.add_input(0, x2);  // the same step again, built explicitly
  CHECK(as_vector(cg.incremental_forward(branch)) == as_vector(cg.incremental_forward(h2)));
  rnn.rewind_one_step();
  CHECK(rnn.state() == 0);
  CHECK(rnn.final_h().back().i == branch.i);

  // set_h keeps the cells of the position it continues from.
  const Expression h_new = input(cg, Dim({kHidden}), {1.f, 2.f, 3.f, 4.f});
  rnn.set_h(1, {h_new, h_new});
  CHECK(rnn.final_s()[0].i == rnn.get_s(1)[0].i);
  CHECK(rnn.back().i == h_new.i);
  // set_s with cells only keeps the outputs.
  rnn.set_s(1, {h_new, h_new});
  CHECK(rnn.final_h()[1].i == rnn.get_h(1)[1].i);
  CHECK(rnn.final_s()[1].i == h_new.i);
  // A state set at the start: the cells are zero.
  rnn.set_h(-1, {h_new, h_new});
  CHECK(as_vector(cg.incremental_forward(rnn.final_s()[0])) == std::vector<float>(kHidden, 0.f));

  // Starting from a given state makes the initial position that state.
  rnn.start_new_sequence({h_new, h_new, h1, h1});
  CHECK(rnn.back().i == h1.i);
  CHECK(rnn.get_s(-1)[0].i == h_new.i);
}

TEST_CASE("variational dropout: one mask per sequence and batch element, reused at every step", "[builders][rnn]") {
  constexpr unsigned n = 64;
  ParameterCollection model;
  SimpleRNNBuilder rnn(1, n, n, model);
  std::vector<float> identity(n * n, 0.f);
  for (unsigned k = 0; k < n; ++k) identity[k * n + k] = 1.f;
  const auto& params = rnn.layer_parameters()[0];
  Parameter(params[0]).set_value(identity);  // h = tanh(mask * x): the mask shows through
  Parameter(params[1]).zero();
  rnn.set_dropout(0.5f, 0.f);

  ComputationGraph cg;
  rnn.new_graph(cg);
  const Expression x = input(cg, Dim({n}, 2), std::vector<float>(2 * n, 0.25f));
  auto pattern = [&](const Expression& h) {
    std::vector<int> kept;
    for (float v : as_vector(cg.incremental_forward(h))) {
      CHECK((v == 0.f || v == Approx(std::tanh(0.5f))));  // dropped, or kept and scaled by 1 / (1 - d)
      kept.push_back(v != 0.f);
    }
    return kept;
  };
  rnn.start_new_sequence();
  const std::vector<int> first = pattern(rnn.add_input(x));
  CHECK(pattern(rnn.add_input(x)) == first);
  CHECK(pattern(rnn.add_input(x)) == first);
  const std::vector<int> elem0(first.begin(), first.begin() + n), elem1(first.begin() + n, first.end());
  CHECK(elem0 != elem1);
  std::size_t kept = 0;
  for (int k : first) kept += k;
  CHECK(kept > n / 2);
  CHECK(kept < 3 * n / 2);

  rnn.start_new_sequence();
  CHECK(pattern(rnn.add_input(x)) != first);

  rnn.disable_dropout();
  rnn.start_new_sequence();
  for (float v : as_vector(cg.incremental_forward(rnn.add_input(x)))) CHECK(v == Approx(std::tanh(0.25f)));
}

TEST_CASE("the coupled LSTM's cell dropout masks the cells its gates read, as DyNet's dropout_rate_c",
          "[builders][rnn]") {
  constexpr unsigned n = 64;
  ParameterCollection model;
  CoupledLSTMBuilder rnn(1, 1, n, model);
  const auto& params = rnn.layer_parameters()[0];
  for (const Parameter& p : params) Parameter(p).zero();
  std::vector<float> identity(n * n, 0.f);
  for (unsigned k = 0; k < n; ++k) identity[k * n + k] = 1.f;
  Parameter(params[6]).set_value(identity);                     // W_co: o = logistic(c read through the mask)
  Parameter(params[10]).set_value(std::vector<float>(n, 1.f));  // b_c: g = tanh(1), c = g / 2
  const float c = 0.5f * std::tanh(1.f);
  const float dropped = 0.5f * std::tanh(c), kept = (1.f / (1.f + std::exp(-2.f * c))) * std::tanh(c);

  const float unmasked = std::tanh(c) / (1.f + std::exp(-c));

  ComputationGraph cg;
  rnn.new_graph(cg);
  const Expression x = input(cg, 0.f);  // x's mask changes nothing: only the cell's shows
  auto masked_cells = [&] {
    rnn.start_new_sequence();
    unsigned zeros = 0, twos = 0;
    for (float v : as_vector(cg.incremental_forward(rnn.add_input(x)))) {
      CHECK((v == Approx(dropped) || v == Approx(kept)));
      (v == Approx(dropped) ? zeros : twos) += 1;
    }
    return zeros > 0 && twos > 0;
  };
  rnn.set_dropout(0.f, 0.f, 0.5f);
  CHECK(masked_cells());
  // One rate, as DyNet's set_dropout(d), drops the cells too; (d, d_h) does not.
  rnn.set_dropout(0.5f);
  CHECK(masked_cells());
  for (const std::pair<float, float>& rates : {std::pair<float, float>{0.5f, 0.5f}, {0.f, 0.f}}) {
    rnn.set_dropout(rates.first, rates.second);
    rnn.start_new_sequence();
    for (float v : as_vector(cg.incremental_forward(rnn.add_input(x)))) CHECK(v == Approx(unmasked));
  }
  rnn.set_dropout(0.5f);
  rnn.disable_dropout();
  rnn.start_new_sequence();
  for (float v : as_vector(cg.incremental_forward(rnn.add_input(x)))) CHECK(v == Approx(unmasked));

  VanillaLSTMBuilder vanilla(1, 1, 2, model);
  CHECK_THROWS_WITH(vanilla.set_dropout(0.f, 0.f, 0.5f), Catch::Contains("no cell dropout"));
  DeepLSTMBuilder deep(2, 1, 2, model);  // its gates read cells, but DyNet's gives it no cell rate
  CHECK_THROWS_WITH(deep.set_dropout(0.f, 0.f, 0.5f), Catch::Contains("no cell dropout"));
}

TEST_CASE("recurrent builders reject bad input and keep their state", "[builders][rnn]") {
  ParameterCollection model;
  GRUBuilder rnn(kLayers, kInput, kHidden, model);
  ComputationGraph cg;
  const Expression x = input(cg, Dim({kInput}), {1.f, 2.f, 3.f});
  CHECK_THROWS_WITH(rnn.add_input(x), Catch::StartsWith("GRUBuilder::add_input: ") && Catch::Contains("new_graph"));

  rnn.new_graph(cg);
  CHECK_THROWS_WITH(rnn.add_input(input(cg, Dim({kInput + 1}), std::vector<float>(kInput + 1, 0.f))),
                    Catch::Contains("{4}") && Catch::Contains("expected {3}"));
  CHECK_THROWS_AS(rnn.add_input(Expression()), std::invalid_argument);
  ComputationGraph other;
  CHECK_THROWS_WITH(rnn.add_input(input(other, Dim({kInput}), {1.f, 2.f, 3.f})), Catch::Contains("another graph"));
  CHECK_THROWS_WITH(rnn.start_new_sequence({x}), Catch::Contains("expected 2"));
  CHECK_THROWS_WITH(rnn.rewind_one_step(), Catch::Contains("initial state"));
  CHECK_THROWS_WITH(rnn.back(), Catch::Contains("no input"));
  CHECK_THROWS_WITH(rnn.add_input(3, x), Catch::Contains("position 3"));
  CHECK_THROWS_AS(rnn.set_dropout(1.f, 0.f), std::invalid_argument);
  CHECK_THROWS_AS(rnn.set_dropout(0.f, -0.1f), std::invalid_argument);
  CHECK_THROWS_WITH(rnn.set_h(-1, {x}), Catch::Contains("one per layer"));
  CHECK(rnn.state() == -1);

  rnn.add_input(x);
  CHECK(rnn.state() == 0);
  CHECK_THROWS_AS(GRUBuilder(0, kInput, kHidden, model), std::invalid_argument);

  // Masks drawn for a batch of 2 fit inputs of that batch size only.
  rnn.set_dropout(0.5f, 0.5f);
  rnn.start_new_sequence();
  rnn.set_dropout_masks(2);
  CHECK_THROWS_WITH(rnn.add_input(input(cg, Dim({kInput}, 3), std::vector<float>(3 * kInput, 1.f))),
                    Catch::Contains("batch size 3") && Catch::Contains("batch size 2"));
  rnn.add_input(input(cg, Dim({kInput}, 2), std::vector<float>(2 * kInput, 1.f)));
  // Drawing masks without dropout is harmless.
  rnn.disable_dropout();
  rnn.start_new_sequence();
  rnn.set_dropout_masks(4);
  CHECK(rnn.add_input(x).dim() == Dim({kHidden}));
}
