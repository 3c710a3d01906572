#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "autobatch/two_directions.h"
#include "autobatch/vertex/leading_products.h"
#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"
#include "support/device_values.h"

using namespace dynet;

namespace {

struct ChainModel {
  ChainModel() {
    emb = pc.add_lookup_parameters(50, {hidden});
    W = pc.add_parameters({hidden, hidden});
    U = pc.add_parameters({hidden, hidden});
    b = pc.add_parameters({hidden});
  }
  static constexpr unsigned hidden = 8;
  ParameterCollection pc;
  LookupParameter emb;
  Parameter W, U, b;
};

/// K chains of T steps h_t = tanh(b + W x_t + U h_{t-1}); returns sum_elems(sum of final states).
Expression chains(ComputationGraph& cg, ChainModel& m, unsigned K, unsigned T) {
  Expression W = parameter(cg, m.W), U = parameter(cg, m.U), b = parameter(cg, m.b);
  std::vector<Expression> finals;
  for (unsigned k = 0; k < K; ++k) {
    Expression h;
    for (unsigned t = 0; t < T; ++t) {
      Expression x = lookup(cg, m.emb, (7 * k + t) % 50);
      h = tanh(t == 0 ? affine_transform({b, W, x}) : affine_transform({b, W, x, U, h}));
    }
    finals.push_back(h);
  }
  return sum_elems(sum(finals));
}

/// Builds a loss with build(cg) on a fresh graph under each engine, runs forward and backward,
/// then after_backward(strategy) (the graph still alive); the batched engines must give the
/// sequential engine's loss and gradients of every parameter and table.
template <class Build, class AfterBackward>
void expect_engines_agree(ChainModel& m, Build&& build, AfterBackward&& after_backward) {
  auto run = [&](int strategy) {
    m.pc.reset_gradient();
    ComputationGraph cg;
    cg.set_autobatch(strategy);
    Expression loss = build(cg);
    const float value = as_scalar(cg.forward(loss));
    cg.backward(loss);
    after_backward(strategy);
    std::vector<float> g{value};
    for (const auto& p : m.pc.parameters_list()) append_values(g, p->g);
    append_values(g, m.pc.lookup_parameters_list()[0]->all_grads);
    return g;
  };
  const std::vector<float> ref = run(0);
  // Gradients are sums of many terms that partly cancel, so a small one differs after reassociation
  // by an amount that scales with the largest, not with itself.
  float scale = 0.f;
  for (float r : ref) scale = std::max(scale, std::fabs(r));
  for (int strategy : {1, 2}) {
    INFO("strategy " << strategy);
    const std::vector<float> got = run(strategy);
    REQUIRE(got.size() == ref.size());
    for (std::size_t k = 0; k < ref.size(); ++k)
      REQUIRE(got[k] == Approx(ref[k]).epsilon(1e-4).margin(1e-6 + 1e-5 * scale));
  }
}
template <class Build>
void expect_engines_agree(ChainModel& m, Build&& build) {
  expect_engines_agree(m, build, [](int) {});
}

}  // namespace

TEST_CASE("identical chains run as one group per step and signature", "[autobatch]") {
  ChainModel m;
  // Six chains' steps are narrow: their input products are computed ahead, for all steps at once.
  // Sixteen chains' steps are as wide as LeadingProducts::kBelowColumns, and chains of one step
  // take all their input products in one group: each group runs its own.
  for (const auto& [K, T] : {std::pair(6u, 5u), std::pair(16u, 5u), std::pair(6u, 1u)}) {
    const unsigned ahead = K < LeadingProducts::kBelowColumns && T > 1 ? 1 : 0;
    for (int strategy : {1, 2}) {
      ComputationGraph cg;
      cg.set_autobatch(strategy);
      cg.engine().reset_stats();
      Expression loss = chains(cg, m, K, T);
      cg.forward(loss);
      const EngineStats s = cg.engine().stats();
      INFO("--dynet-autobatch " << strategy << ", " << K << " chains of " << T << " steps");
      CHECK(s.nodes == K * T * 3 + 2);
      // All lookups; the input products computed ahead; affine and tanh per step; sum; sum_elems.
      CHECK(s.leading_products == ahead);
      CHECK(s.batches == 1 + ahead + 2 * T + 2);
      CHECK(s.mean_batch_size() >= 4.0);
      // Each step's tanh reads its affine group's output block in place.
      CHECK(s.bytes_in_place > s.bytes_gathered);
    }
  }
}

TEST_CASE("the batched engines compute narrow affine transforms' input products ahead, one product a weight, "
          "and their input gradients as one, under --dynet-vertex 1",
          "[autobatch]") {
  Recurrence m;
  const bool computed_weight = GENERATE(false, true);
  INFO((computed_weight ? "the weight computed from U" : "the weight U itself"));
  for (bool computed : {false, true}) {
    // Computed inputs join when a forward pass of their own computed them: backward must add the
    // steps' x1 gradients before it reaches the groups that computed the inputs.
    INFO((computed ? "inputs computed by an earlier forward pass" : "inputs looked up as the steps are built"));
    const Run each = two_directions(m, computed, 0, 0, computed_weight, computed);
    for (int strategy : {1, 2}) {
      INFO("--dynet-autobatch " << strategy);
      const Run plain = two_directions(m, computed, strategy, 0, computed_weight, computed);
      CHECK(plain.forward.leading_products == 0);
      CHECK(plain.backward.leading_gradients == 0);
      check_agree(plain, each);
      // The two directions' steps run in groups of two; all fourteen share b and U: one product
      // ahead for their U x_t, one for their gradients.
      const Run ahead = two_directions(m, computed, strategy, 1, computed_weight, computed);
      CHECK(ahead.forward.leading_products == 1);
      CHECK(ahead.backward.leading_gradients == 1);
      check_agree(ahead, each);
    }
  }
}

TEST_CASE("a step whose input is not computed when the batched engine starts its products ahead runs on its own",
          "[autobatch]") {
  // The first step reads a word of one table, the others words of another. The agenda runs the
  // first step (its own signature, every node of it ready) before the second table's lookups, whose
  // height is lower: of the seven steps sharing b and W, only the first could start a product
  // ahead, and one product is what it would take alone.
  ChainModel m;
  LookupParameter later = m.pc.add_lookup_parameters(50, {ChainModel::hidden});
  auto run = [&](int strategy) {
    m.pc.reset_gradient();
    ComputationGraph cg;
    cg.set_autobatch(strategy);
    const Expression W = parameter(cg, m.W), U = parameter(cg, m.U), b = parameter(cg, m.b);
    Expression h = tanh(affine_transform({b, W, lookup(cg, m.emb, 3)}));
    for (unsigned t = 1; t < 7; ++t) h = tanh(affine_transform({b, W, lookup(cg, later, 5 * t), U, h}));
    const Expression loss = sum_elems(h);
    std::vector<float> values{as_scalar(cg.forward(loss))};
    const EngineStats s = cg.engine().stats();
    cg.backward(loss);
    for (const auto& p : m.pc.parameters_list()) append_values(values, p->g);
    for (const auto& t : m.pc.lookup_parameters_list()) append_values(values, t->all_grads);
    return std::pair(values, s);
  };
  const auto [want, sequential] = run(0);
  for (int strategy : {1, 2}) {
    INFO("--dynet-autobatch " << strategy);
    const auto [got, s] = run(strategy);
    // The depth policy runs every leaf first: all seven steps start one product ahead.
    CHECK(s.leading_products == (strategy == 1 ? 0 : 1));
    REQUIRE(got.size() == want.size());
    for (std::size_t k = 0; k < got.size(); ++k) CHECK(got[k] == Approx(want[k]).epsilon(1e-4).margin(1e-6));
  }
}

TEST_CASE("a product ahead never reads an input that the group starting it has yet to compute", "[autobatch]") {
  // p and s run as one group of two affine transforms; s (its x1 an input) starts the products
  // ahead of {r, s}, where r's x1 is p: p is recorded by then but not computed, so r runs alone.
  ChainModel m;
  std::vector<float> u(ChainModel::hidden), v(ChainModel::hidden);
  for (unsigned k = 0; k < ChainModel::hidden; ++k) u[k] = 0.3f * float(k) - 1.f, v[k] = 0.5f - 0.2f * float(k);
  expect_engines_agree(m, [&](ComputationGraph& cg) {
    const Expression b = parameter(cg, m.b), W = parameter(cg, m.W);
    const Expression p = affine_transform({b, W, tanh(input(cg, Dim({ChainModel::hidden}), u))});
    const Expression r = affine_transform({b, W, p});
    const Expression s = affine_transform({b, W, input(cg, Dim({ChainModel::hidden}), v)});
    return sum_elems(r) + sum_elems(s);
  });
}

TEST_CASE("parameters are shared where kernels broadcast, per-node arguments are concatenated", "[autobatch]") {
  ChainModel m;
  ComputationGraph cg;
  cg.set_autobatch(1);
  Expression W = parameter(cg, m.W), b = parameter(cg, m.b);
  std::vector<Expression> with_parameter_bias, with_node_bias;
  for (unsigned k = 0; k < 5; ++k) {
    Expression x = lookup(cg, m.emb, k);
    with_parameter_bias.push_back(affine_transform({b, W, x}) + b);
    with_node_bias.push_back(affine_transform({tanh(x), W, x}));
  }
  for (unsigned k = 1; k < 5; ++k) {
    CHECK(cg.node(with_parameter_bias[k].i).signature == cg.node(with_parameter_bias[0].i).signature);
    CHECK(cg.node(with_node_bias[k].i).signature == cg.node(with_node_bias[0].i).signature);
  }
  cg.engine().reset_stats();
  cg.forward(sum(with_parameter_bias));
  // The bias is read once per group, never copied once per node.
  CHECK(cg.engine().stats().bytes_gathered == 0);
}

TEST_CASE("the weight gradient of a group is one kernel call, whatever the group size", "[autobatch]") {
  ChainModel m;
  auto backward_calls = [&](unsigned K) {
    ComputationGraph cg;
    cg.set_autobatch(1);
    cg.set_vertex(0);  // op by op: under 1 and 2 small groups' weight gradients would wait and run together
    Expression loss = chains(cg, m, K, 4);
    cg.forward(loss);
    cg.engine().reset_stats();
    cg.backward(loss);
    return cg.engine().stats().backward_batches;
  };
  // Only the final n-ary sum grows with K (one call per argument); every group's weight
  // gradients, whatever its size, are one call each.
  CHECK(backward_calls(16) - backward_calls(2) == 14);
}

TEST_CASE("batched engines agree with the sequential one on chains", "[autobatch]") {
  ChainModel m;
  // Over a thousand nodes: several node chunks.
  expect_engines_agree(m, [&](ComputationGraph& cg) { return chains(cg, m, 30, 20); });
}

TEST_CASE("incremental_forward mid-graph batches what is pending", "[autobatch]") {
  ChainModel m;
  for (int strategy : {1, 2}) {
    ComputationGraph cg;
    cg.set_autobatch(strategy);
    Expression W = parameter(cg, m.W);
    Expression a = tanh(W * lookup(cg, m.emb, 1u));
    Expression b = tanh(W * lookup(cg, m.emb, 2u));
    const std::vector<float> va = as_vector(cg.incremental_forward(a));
    CHECK(as_vector(cg.incremental_forward(a)) == va);  // asked again: the same value, nothing rerun
    Expression c = a + b;
    Expression loss = sum_elems(c);
    const std::vector<float> vb = as_vector(b.value());
    CHECK(as_scalar(cg.incremental_forward(loss)) ==
          Approx(std::accumulate(va.begin(), va.end(), 0.f) + std::accumulate(vb.begin(), vb.end(), 0.f)));
    m.pc.reset_gradient();
    cg.backward(loss);
    CHECK(as_vector(m.W.get_storage().g)[0] != 0.f);
  }
}

TEST_CASE("batched engines report bad input like the sequential one", "[autobatch][errors]") {
  ChainModel m;
  for (int strategy : {1, 2}) {
    ComputationGraph cg;
    cg.set_autobatch(strategy);
    Expression v = tanh(parameter(cg, m.W) * lookup(cg, m.emb, 3u));
    CHECK_THROWS_WITH(cg.backward(v), Catch::Contains("backward") && Catch::Contains("{8}"));
    unsigned index = 3;
    Expression e = lookup(cg, m.emb, &index);
    index = 99;
    CHECK_THROWS_WITH(cg.forward(e), Catch::Contains("index 99"));
    index = 4;
    CHECK(as_vector(cg.forward(e)) == as_vector(m.emb.row_value(4)));
  }
}

TEST_CASE("checkpoint and revert under the batched engines", "[autobatch]") {
  ChainModel m;
  for (int strategy : {1, 2}) {
    ComputationGraph cg;
    cg.set_autobatch(strategy);
    Expression x = lookup(cg, m.emb, 5u);
    Expression h = tanh(parameter(cg, m.W) * x);
    const std::vector<float> vh = as_vector(cg.forward(h));
    cg.checkpoint();
    Expression extra = sum_elems(h * 2.f);
    CHECK(as_scalar(cg.forward(extra)) == Approx(2.f * std::accumulate(vh.begin(), vh.end(), 0.f)));
    cg.revert();
    Expression other = sum_elems(h);
    CHECK(as_scalar(cg.incremental_forward(other)) == Approx(std::accumulate(vh.begin(), vh.end(), 0.f)));
    m.pc.reset_gradient();
    cg.backward(other);
    CHECK(as_vector(m.W.get_storage().g)[0] != 0.f);

    // Values computed incrementally before the checkpoint and after it: truncating drops them all
    // (the engine recomputes), and reverting must not rewind the pool it reset.
    ComputationGraph g;
    g.set_autobatch(strategy);
    Expression y = tanh(parameter(g, m.W) * lookup(g, m.emb, 5u));
    const std::vector<float> vy = as_vector(g.incremental_forward(y));
    g.checkpoint();
    g.incremental_forward(tanh(parameter(g, m.W) * y));
    g.revert();
    CHECK(as_scalar(g.incremental_forward(sum_elems(y))) == Approx(std::accumulate(vy.begin(), vy.end(), 0.f)));
  }
}

TEST_CASE("slices of one gradient block: covering, with gaps, overlapping, beside a whole reader", "[autobatch]") {
  // Groups of pick_range write their slices of the producer's gradient block over garbage; the
  // engine must zero what no slice wrote and add where slices overlap or other readers write.
  ChainModel m;
  const unsigned h = ChainModel::hidden;
  struct Slices {
    unsigned a0, a1, b0, b1;
    bool whole_reader;
  };
  const std::vector<Slices> layouts = {{0, h / 2, h / 2, h, false},
                                       {0, 3, 5, h, false},
                                       {0, 5, 3, h, false},
                                       {0, h / 2, h / 2, h, true},
                                       {2, 6, 0, 1, false}};
  for (const Slices& s : layouts) {
    INFO("slices [" << s.a0 << ", " << s.a1 << ") and [" << s.b0 << ", " << s.b1 << ")"
                    << (s.whole_reader ? " and the whole block" : ""));
    expect_engines_agree(m, [&](ComputationGraph& cg) {
      Expression W = parameter(cg, m.W), b = parameter(cg, m.b);
      std::vector<Expression> terms;
      for (unsigned k = 0; k < 12; ++k) {
        Expression g = affine_transform({b, W, lookup(cg, m.emb, (5 * k) % 50)});
        Expression lo = pick_range(g, s.a0, s.a1), hi = pick_range(g, s.b0, s.b1);
        terms.push_back(sum_elems(logistic(lo)) + 2.f * sum_elems(tanh(hi)) + sum_elems(square(hi)));
        if (s.whole_reader) terms.push_back(sum_elems(cmult(g, g)));
      }
      return sum(terms);
    });
  }
}

TEST_CASE("elementwise readers of slices read them where they lie unless backward needs a copy", "[autobatch]") {
  // LSTM-like gates: one group of products, each sliced in two, a reader group per slice.
  ChainModel m;
  const unsigned h = ChainModel::hidden / 2;
  const unsigned K = 5;
  auto gates = [&](ComputationGraph& cg, bool square_one) {
    Expression W = parameter(cg, m.W), b = parameter(cg, m.b);
    std::vector<Expression> terms;
    for (unsigned k = 0; k < K; ++k) {
      Expression g = affine_transform({b, W, lookup(cg, m.emb, 3 * k)});
      Expression i = logistic(pick_range(g, 0, h));
      Expression u = pick_range(g, h, 2 * h);
      terms.push_back(cmult(i, square_one ? square(u) : tanh(u)));
    }
    return sum_elems(sum(terms));
  };
  for (bool square_one : {false, true}) {
    INFO((square_one ? "square" : "tanh") << " reads the second slice");
    expect_engines_agree(m, [&](ComputationGraph& cg) { return gates(cg, square_one); });
    for (int strategy : {1, 2}) {
      INFO("strategy " << strategy);
      ComputationGraph cg;
      cg.set_autobatch(strategy);
      Expression loss = gates(cg, square_one);
      cg.engine().reset_stats();
      cg.forward(loss);
      // logistic and tanh never read their arguments in backward; square does, so its group
      // gathers the slices into a block that lives until then. A device whose kernels are not
      // host code (a GPU) gathers both.
      const EngineStats s = cg.engine().stats();
      const std::size_t slice_bytes = K * h * sizeof(float);
      CHECK(s.bytes_gathered == (!cg.device()->capabilities().host_kernels ? 2 * slice_bytes
                                 : square_one                              ? slice_bytes
                                                                           : 0));
      CHECK(s.bytes_in_place > 0);
    }
  }
}

TEST_CASE("gradients reach some nodes of a group through gathered arguments, others not at all", "[autobatch]") {
  // Six tanh nodes run as one group; two of them feed the loss out of order (their gradients
  // come back scattered, node by node), the rest feed nothing: their gradients must be zero.
  ChainModel m;
  std::vector<Expression> t;
  expect_engines_agree(
      m,
      [&](ComputationGraph& cg) {
        Expression W = parameter(cg, m.W);
        t.clear();
        for (unsigned k = 0; k < 6; ++k) t.push_back(tanh(W * lookup(cg, m.emb, 3 * k + 1)));
        return sum_elems(logistic(t[4]) + 3.f * logistic(t[0]));
      },
      [&](int strategy) {
        if (strategy == 0) return;  // the sequential engine gives unreached nodes no gradient at all
        for (unsigned k : {1u, 2u, 3u, 5u})
          for (float v : as_vector(t[k].gradient())) CHECK(v == 0.f);
      });
}

TEST_CASE("slices of a node or of groups' outputs point into them instead of copying", "[autobatch]") {
  // Their gradients are checked against the sequential engine by the slice and random graph tests.
  ChainModel m;
  const unsigned h = ChainModel::hidden;
  const std::vector<float> bias = as_vector(m.b.get_storage().values);
  std::vector<float> reference;  // the sequential engine's slices, which are copies
  for (int strategy : {0, 1, 2}) {
    INFO("strategy " << strategy);
    m.b.set_value(bias);
    ComputationGraph cg;
    cg.set_autobatch(strategy);
    Expression W = parameter(cg, m.W), U = parameter(cg, m.U), b = parameter(cg, m.b);
    std::vector<Expression> gs, slices, terms;
    // Two groups of products (two weights), whose slices are one group: a view of each.
    for (unsigned k = 0; k < 5; ++k) {
      gs.push_back(affine_transform({b, k < 3 ? W : U, lookup(cg, m.emb, k)}));
      slices.push_back(pick_range(gs.back(), 2, h));
      terms.push_back(sum_elems(tanh(slices.back())));
    }
    slices.push_back(pick_range(pick_range(gs[0], 1, h), 1, 4));  // a slice of a slice
    terms.push_back(sum_elems(slices.back()));
    Expression loss = sum(terms);
    cg.forward(loss);
    std::vector<float> values;
    for (const Expression& e : slices) {
      const std::vector<float> v = as_vector(e.value());
      values.insert(values.end(), v.begin(), v.end());
    }
    if (strategy == 0) {
      reference = values;
    } else {
      for (unsigned k = 0; k < 5; ++k) CHECK(slices[k].value().v == gs[k].value().v + 2);
      CHECK(slices[5].value().v == gs[0].value().v + 2);
      REQUIRE(values.size() == reference.size());
      for (std::size_t k = 0; k < values.size(); ++k) CHECK(values[k] == Approx(reference[k]).epsilon(1e-5));
    }

    // A slice of a parameter is a copy: it keeps the value it was computed with.
    Expression bias_part = pick_range(b, 0, 2);
    const std::vector<float> before = as_vector(cg.forward(bias_part));
    m.b.set_value(std::vector<float>(h, 7.f));
    CHECK(as_vector(bias_part.value()) == before);
  }
}

// A group's call holds the batch elements of all its nodes, and a kernel serves one argument to
// all of them only by broadcasting one batch element: a batched matrix that every product of a
// group reads is copied per node, not passed once (which read past it).
TEST_CASE("a batched left operand that every product of a group shares is read per node", "[autobatch]") {
  for (int strategy : {0, 1, 2}) {
    INFO("--dynet-autobatch " << strategy);
    ComputationGraph cg;
    cg.set_autobatch(strategy);
    const Expression a = input(cg, Dim({1, 2}, 2), {1, 2, 3, 4});
    std::vector<Expression> products;
    for (int j = 0; j < 3; ++j)
      products.push_back(a * input(cg, Dim({2, 3}, 2), {1.f + j, 2, 3, 4, 5, 6, 1, 1, 1, 1, 1, 1}));
    cg.engine().reset_stats();
    const std::vector<float> y = as_vector(cg.forward(concatenate_to_batch(products)));
    for (int j = 0; j < 3; ++j) {
      INFO("product " << j);
      const std::vector<float> expected{1 + j + 4.f, 11, 17, 7, 7, 7};
      CHECK(std::vector<float>(y.begin() + 6 * j, y.begin() + 6 * j + 6) == expected);
    }
    if (strategy > 0) CHECK(cg.engine().stats().batches < cg.engine().stats().nodes);
  }
}
