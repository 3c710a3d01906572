// The sequential engine (--dynet-autobatch 0) under --dynet-vertex 1 or 2: a node's part of a
// trainable parameter's gradient waits, and the parts of one signature are added as one product
// at the end of backward (lazy_weight_gradients.h); under 0 each node adds its own. Affine
// transforms over inputs known in advance take b + W1 x1 from one product computed ahead, and
// add their x1 gradients as one (leading_products.h).

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <vector>

#include "autobatch/two_directions.h"
#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"
#include "dynet_core/tensor.h"

using namespace dynet;

namespace {

struct Gradients {
  std::vector<float> w, u, b;
  EngineStats stats;  // of backward
};

/// A tanh recurrence of six steps, h = tanh(b + U x_t + W h), summed, through the sequential engine.
Gradients recurrence(ParameterCollection& pc, Parameter& W, Parameter& U, Parameter& b, int vertex) {
  pc.reset_gradient();
  ComputationGraph cg;
  cg.set_autobatch(0);
  cg.set_vertex(vertex);
  const Expression w = parameter(cg, W), u = parameter(cg, U), bias = parameter(cg, b);
  std::vector<float> first(5);
  for (unsigned e = 0; e < 5; ++e) first[e] = std::cos(0.7f * float(e));
  Expression h = input(cg, {5}, first);
  std::vector<Expression> states;
  for (unsigned t = 0; t < 6; ++t) {
    std::vector<float> xt(3);
    for (unsigned e = 0; e < 3; ++e) xt[e] = std::sin(1.3f * float(t * 3 + e));
    h = tanh(affine_transform({bias, u, input(cg, {3}, xt), w, h}));
    states.push_back(h);
  }
  const Expression loss = sum_elems(sum(states));
  cg.forward(loss);
  cg.engine().reset_stats();
  cg.backward(loss);
  return {as_vector(W.get_storage().g), as_vector(U.get_storage().g), as_vector(b.get_storage().g),
          cg.engine().stats()};
}

}  // namespace

TEST_CASE("the sequential engine adds a recurrence's weight gradients as one product per weight under "
          "--dynet-vertex 1 and 2, as 0 adds them step by step",
          "[autobatch]") {
  ParameterCollection pc;
  Parameter W = pc.add_parameters({5, 5}), U = pc.add_parameters({5, 3}), b = pc.add_parameters({5});
  const Gradients each = recurrence(pc, W, U, b, 0);
  CHECK(each.stats.lazy_weight_calls == 0);
  for (int vertex : {1, 2}) {
    INFO("--dynet-vertex " << vertex);
    const Gradients lazy = recurrence(pc, W, U, b, vertex);
    // b, U and W of the six affine transforms: one call each, over all six steps.
    CHECK(lazy.stats.lazy_weight_calls == 3);
    CHECK(lazy.stats.backward_batches < each.stats.backward_batches);
    for (const auto& [got, want] : {std::pair(lazy.w, each.w), std::pair(lazy.u, each.u), std::pair(lazy.b, each.b)}) {
      REQUIRE(got.size() == want.size());
      for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(want[i]).epsilon(1e-4).margin(1e-5));
    }
    // Every weight received a gradient at all.
    float norm = 0;
    for (float g : lazy.w) norm += g * g;
    CHECK(norm > 0);
  }
}

TEST_CASE("the sequential engine computes affine transforms' input products ahead, one product a weight, and "
          "their input gradients as one, under --dynet-vertex 1 and 2",
          "[autobatch]") {
  Recurrence m;
  const bool computed_weight = GENERATE(false, true);
  INFO((computed_weight ? "the weight computed from U (its gradient must be whole before that node's backward)"
                        : "the weight U itself"));
  for (bool computed : {false, true}) {
    INFO((computed ? "inputs computed before the steps" : "inputs looked up as the steps are built"));
    const Run each = two_directions(m, computed, 0, 0, computed_weight);
    CHECK(each.forward.leading_products == 0);
    CHECK(each.backward.leading_gradients == 0);
    for (int vertex : {1, 2}) {
      INFO("--dynet-vertex " << vertex);
      const Run ahead = two_directions(m, computed, 0, vertex, computed_weight);
      // All fourteen steps share b and U: one product ahead for their U x_t, one for their gradients
      // (and one for the computed weight's, which waits with them; U's own waits elsewhere).
      CHECK(ahead.forward.leading_products == 1);
      CHECK(ahead.backward.leading_gradients == (computed_weight ? 2 : 1));
      check_agree(ahead, each);
    }
  }
}

namespace {

/// The tagger-like recurrence of two_directions, read in the middle of the first direction and
/// cut back after it: the second direction is built, computed, dropped and built again with other
/// words. Returns the states of the last graph and every gradient.
Run read_and_revert(Recurrence& m, int vertex) {
  ComputationGraph cg;
  m.start(cg, 0, vertex);
  const Expression w = parameter(cg, m.W), u = parameter(cg, m.U), bias = parameter(cg, m.b);
  auto direction = [&](const std::vector<unsigned>& words, std::vector<Expression>& states, int read_at) {
    Expression h;
    for (unsigned t = 0; t < words.size(); ++t) {
      const Expression x = lookup(cg, m.E, words[t]);
      h = tanh(t == 0 ? affine_transform({bias, u, x}) : affine_transform({bias, u, x, w, h}));
      states.push_back(h);
      if (int(t) == read_at) cg.incremental_forward(h);  // a value read while the graph grows
    }
  };
  std::vector<Expression> states;
  direction({3, 1, 4, 1, 5, 9}, states, 2);
  cg.checkpoint();
  std::vector<Expression> dropped = states;
  direction({2, 6, 5, 3}, dropped, -1);
  cg.forward(concatenate(dropped));
  cg.revert();
  direction({8, 7, 0, 2, 8}, states, -1);
  const Expression all = concatenate(states);
  const Expression loss = sum_elems(cmult(all, all));
  Run r;
  r.states = as_vector(cg.forward(all));
  cg.backward(loss);
  m.read_gradients(r);
  return r;
}

}  // namespace

TEST_CASE("the sequential engine's products ahead agree when values are read as the graph grows and the graph "
          "is cut back",
          "[autobatch]") {
  Recurrence m;
  const Run each = read_and_revert(m, 0);
  for (int vertex : {1, 2}) {
    INFO("--dynet-vertex " << vertex);
    check_agree(read_and_revert(m, vertex), each);
  }
}

namespace {

/// A language model over `batch` sequences at once: h_t = tanh(b + U x_t + W h_{t-1}) and, at
/// every step, the loss of an MLP, pickneglogsoftmax(c + V tanh(d + M h_t)), summed over the batch
/// and the steps, as a program writes it: each step's output inside the loop.
struct LanguageModel {
  static constexpr unsigned kSteps = 6, kInput = 3;
  unsigned hidden, vocabulary, batch;
  ParameterCollection pc;
  Parameter W, U, b, M, d, V, c;

  LanguageModel(unsigned hidden_units, unsigned words, unsigned sequences)
      : hidden(hidden_units),
        vocabulary(words),
        batch(sequences),
        W(pc.add_parameters({hidden, hidden})),
        U(pc.add_parameters({hidden, kInput})),
        b(pc.add_parameters({hidden})),
        M(pc.add_parameters({hidden, hidden})),
        d(pc.add_parameters({hidden})),
        V(pc.add_parameters({vocabulary, hidden})),
        c(pc.add_parameters({vocabulary})) {}

  struct Result {
    float loss = 0, first_loss = 0;
    std::vector<std::pair<const char*, std::vector<float>>> gradients;  // of every parameter
    EngineStats forward, backward;
  };

  /// Forward (reading the first step's loss while the graph grows when `read_early`) and
  /// backward through the sequential engine under `vertex`.
  Result run(int vertex, bool read_early) {
    pc.reset_gradient();
    ComputationGraph cg;
    cg.set_autobatch(0);
    cg.set_vertex(vertex);
    const Expression w = parameter(cg, W), u = parameter(cg, U), bias = parameter(cg, b);
    const Expression m = parameter(cg, M), mlp_bias = parameter(cg, d);
    const Expression v = parameter(cg, V), out_bias = parameter(cg, c);
    Expression h;
    std::vector<Expression> losses;
    for (unsigned t = 0; t < kSteps; ++t) {
      std::vector<float> xt(kInput * batch);
      for (std::size_t e = 0; e < xt.size(); ++e) xt[e] = std::sin(0.9f * float(t * xt.size() + e));
      const Expression x = input(cg, Dim({kInput}, batch), xt);
      h = tanh(t == 0 ? affine_transform({bias, u, x}) : affine_transform({bias, u, x, w, h}));
      std::vector<unsigned> targets(batch);
      for (unsigned s = 0; s < batch; ++s) targets[s] = (7 * t + 3 * s + 1) % vocabulary;
      const Expression mlp = tanh(affine_transform({mlp_bias, m, h}));
      losses.push_back(sum_batches(pickneglogsoftmax(affine_transform({out_bias, v, mlp}), targets)));
    }
    Result r;
    cg.engine().reset_stats();
    if (read_early) r.first_loss = as_scalar(cg.incremental_forward(losses[0]));
    const Expression loss = sum(losses);
    r.loss = as_scalar(cg.incremental_forward(loss));
    if (!read_early) r.first_loss = as_scalar(losses[0].value());
    r.forward = cg.engine().stats();
    cg.engine().reset_stats();
    cg.backward(loss);
    r.backward = cg.engine().stats();
    for (const auto& [name, p] : {std::pair("W", &W), std::pair("U", &U), std::pair("b", &b), std::pair("M", &M),
                                  std::pair("d", &d), std::pair("V", &V), std::pair("c", &c)})
      r.gradients.emplace_back(name, as_vector(p->get_storage().g));
    return r;
  }
};

void check_agree(const LanguageModel::Result& got, const LanguageModel::Result& want) {
  CHECK(got.loss == Approx(want.loss).epsilon(1e-5));
  CHECK(got.first_loss == Approx(want.first_loss).epsilon(1e-5));
  REQUIRE(got.gradients.size() == want.gradients.size());
  for (std::size_t i = 0; i < got.gradients.size(); ++i)
    check_close(got.gradients[i].second, want.gradients[i].second, got.gradients[i].first);
}

}  // namespace

TEST_CASE("the sequential engine runs a recurrence's per-step output layers after it, layer by layer, where "
          "they hold products over a weight too large for the cache, those products as one, under "
          "--dynet-vertex 1 and 2",
          "[autobatch]") {
  // One sequence a graph and small weights, whose output layers keep their place; 16 at once and
  // an output weight of TailOrder::kStreamedWeight floats, whose products and gradient then come
  // from one call each. The steps' chains to the loss (six of five nodes) run in step
  // (TailOrder::kInStep): the products over V read tanh(d + M h_t), computed in the chains.
  const bool wide = GENERATE(false, true);
  INFO((wide ? "16 sequences, a 4096 x 256 output weight" : "one sequence, a 7 x 5 output weight"));
  LanguageModel m = wide ? LanguageModel(256, 4096, 16) : LanguageModel(5, 7, 1);
  const LanguageModel::Result each = m.run(0, false);
  CHECK(each.forward.leading_products == 0);
  CHECK(each.backward.leading_gradients == 0);
  for (int vertex : {1, 2})
    for (bool read_early : {false, true}) {
      INFO("--dynet-vertex " << vertex << (read_early ? ", the first loss read first" : ""));
      const LanguageModel::Result late = m.run(vertex, read_early);
      // Wide: the six products over V, one call (read early, the first step's runs alone), and
      // backward one for their input gradients and one for V's (at 16 columns and small weights
      // the other products run step by step). Narrow: only the input products, one call, which
      // take no gradient.
      CHECK(late.forward.leading_products == 1u);
      CHECK(late.backward.leading_gradients == (wide ? 2u : 0u));
      check_agree(late, each);
    }
}

TEST_CASE("the sequential engine cuts a group of output products whose outputs would pass "
          "LeadingProducts::kGroupFloats",
          "[autobatch]") {
  // 65,536 classes over 64 sequences: 2^22 floats a step's output, so the six steps' products run
  // as groups of four and two, forward, and backward for the input and the weight gradients.
  LanguageModel m(16, 65536, 64);
  const LanguageModel::Result each = m.run(0, false), late = m.run(1, false);
  CHECK(late.forward.leading_products == 2);
  CHECK(late.backward.leading_gradients == 4);
  check_agree(late, each);
}

namespace {

/// A tree of cells h = tanh(g) * logistic(g), g = b + U [h_l; h_r] at inner nodes and
/// g = c + V e(word) at leaves (two readers of g, as in a tree LSTM), balanced over eight words,
/// its loss the sum of the root's h.
/// A tree LSTM-like model over eight words: one product a node over U (read by both halves of the
/// cell), or, with `gates`, one a gate over Ui and Uu (each read by its gate's nonlinearity alone,
/// over the concatenation both read), as DyNet's benchmark treenn writes its cell.
struct TreeModel {
  explicit TreeModel(bool gates = false) : gates(gates) {}
  const bool gates;
  ParameterCollection pc;
  Parameter U = pc.add_parameters({4, 8}), b = pc.add_parameters({4}), V = pc.add_parameters({4, 3}),
            c = pc.add_parameters({4}), Ui = pc.add_parameters({4, 8}), Uu = pc.add_parameters({4, 8});
  LookupParameter E = pc.add_lookup_parameters(10, {3});

  struct Result {
    std::vector<float> root;
    std::vector<std::pair<const char*, std::vector<float>>> gradients;
    EngineStats forward, backward;
  };

  Result run(int vertex) {
    pc.reset_gradient();
    ComputationGraph cg;
    cg.set_autobatch(0);
    cg.set_vertex(vertex);
    const Expression u = parameter(cg, U), bias = parameter(cg, b), v = parameter(cg, V), leaf_bias = parameter(cg, c),
                     ui = parameter(cg, Ui), uu = parameter(cg, Uu);
    const std::vector<unsigned> words = {3, 1, 4, 1, 5, 9, 2, 6};
    auto cell = [](const Expression& g) { return cmult(tanh(g), logistic(g)); };
    // In post-order, as a program that recurses over the tree builds it.
    std::function<Expression(unsigned, unsigned)> subtree = [&](unsigned first, unsigned count) {
      if (count == 1) return cell(affine_transform({leaf_bias, v, lookup(cg, E, words[first])}));
      const Expression left = subtree(first, count / 2), right = subtree(first + count / 2, count / 2);
      const Expression both = concatenate({left, right});
      if (gates) return cmult(logistic(affine_transform({bias, ui, both})), tanh(affine_transform({bias, uu, both})));
      return cell(affine_transform({bias, u, both}));
    };
    const Expression root = subtree(0, unsigned(words.size()));
    const Expression loss = sum_elems(root);
    Result r;
    cg.engine().reset_stats();
    r.root = as_vector(cg.forward(root));
    cg.incremental_forward(loss);
    r.forward = cg.engine().stats();
    cg.engine().reset_stats();
    cg.backward(loss);
    r.backward = cg.engine().stats();
    std::vector<std::pair<const char*, Parameter*>> used = {{"b", &b}, {"V", &V}, {"c", &c}};
    if (gates)
      used.insert(used.end(), {{"Ui", &Ui}, {"Uu", &Uu}});
    else
      used.emplace_back("U", &U);
    for (const auto& [name, p] : used) r.gradients.emplace_back(name, as_vector(p->get_storage().g));
    r.gradients.emplace_back("E", as_vector(E.get_storage().all_grads));
    return r;
  }
};

}  // namespace

TEST_CASE("the sequential engine runs a tree level by level where that joins its nodes' products, one a node "
          "or one a gate, under --dynet-vertex 1 and 2",
          "[autobatch]") {
  // One product a node: the eight leaves', then the four inner nodes' above them and the two
  // above those, one call each (the root's runs alone). A weight a gate, each gate's product read
  // by its nonlinearity alone over the concatenation both gates read: the leaves', then each
  // gate's at the two inner levels. Forward, and for their input gradients.
  for (const auto& [gates, calls] : {std::pair(false, 3), std::pair(true, 5)}) {
    INFO((gates ? "a weight a gate" : "one product a node"));
    TreeModel m(gates);
    const TreeModel::Result each = m.run(0);
    CHECK(each.forward.leading_products == 0);
    for (int vertex : {1, 2}) {
      INFO("--dynet-vertex " << vertex);
      const TreeModel::Result levels = m.run(vertex);
      CHECK(levels.forward.leading_products == std::uint64_t(calls));
      CHECK(levels.backward.leading_gradients == std::uint64_t(calls));
      check_close(levels.root, each.root, "root");
      for (std::size_t i = 0; i < levels.gradients.size(); ++i)
        check_close(levels.gradients[i].second, each.gradients[i].second, levels.gradients[i].first);
    }
  }
}

TEST_CASE("backward zeroes every gradient it allocates, runs of adjacent ones at a time, in memory the last pass "
          "left full",
          "[autobatch]") {
  // Without debug memory (whose canaries between allocations make each gradient zeroed alone), and
  // with a backward pool of 4 KiB blocks, so that the gradients fill several: each block holds a
  // run of its own (a device of its own for each graph: a pool that was reset holds one block). The
  // second backward gets the first's memory, its gradients still in it.
  for (int vertex : {0, 1}) {
    INFO("--dynet-vertex " << vertex);
    Device_CPU device(MemorySizes{1 << 20, 1 << 12, 1 << 20, 1 << 20}, false);
    ParameterCollection pc;
    Parameter W = pc.add_parameters({4, 4}, 0.f, "", &device);
    LookupParameter E = pc.add_lookup_parameters(5, {4}, "", &device);
    ComputationGraph cg(&device);
    cg.set_autobatch(0);
    cg.set_vertex(vertex);
    const Expression w = parameter(cg, W);
    Expression h = lookup(cg, E, 0u);
    std::vector<Expression> states;
    for (unsigned t = 0; t < 40; ++t) {
      // Inputs need no gradient and parameters have their own: runs of other sizes between them.
      const Expression x = input(cg, {4}, std::vector<float>(4, 0.05f * float(t)));
      h = tanh(w * h + (t % 4 ? x : lookup(cg, E, t % 5)));
      states.push_back(t % 3 ? h : pick_range(concatenate({h, x, h}), 2, 10));
    }
    const Expression loss = sum_elems(square(concatenate(states)));
    cg.forward(loss);
    cg.backward(loss);
    REQUIRE(cg.memory().backward.blocks() > 2);
    std::vector<std::vector<float>> first;
    for (const Expression& s : states) first.push_back(as_vector(s.gradient()));
    cg.backward(loss);
    for (std::size_t k = 0; k < states.size(); ++k) {
      INFO("state " << k);
      CHECK(as_vector(states[k].gradient()) == first[k]);
    }
  }
}
