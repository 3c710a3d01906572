// The vertex-function executor against the sequential engine, one interaction at a time: values
// and gradients must not change with --dynet-vertex, whatever cuts an instance.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "autobatch/vertex/instance_discovery.h"
#include "autobatch/vertex/instance_plan.h"
#include "autobatch/vertex/lazy_weight_gradients.h"
#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"
#include "dynet_core/random_engine.h"
#include "dynet_core/vertex_scope.h"
#include "support/device_values.h"
#include "trainers/parallel/data_parallel.h"

using namespace dynet;

namespace {

constexpr unsigned kHidden = 6, kVocab = 30;

struct CellModel {
  CellModel() {
    emb = pc.add_lookup_parameters(kVocab, {kHidden});
    W = pc.add_parameters({kHidden, kHidden});
    U = pc.add_parameters({kHidden, kHidden});
    b = pc.add_parameters({kHidden});
    T = pc.add_parameters({5 * kHidden, 2 * kHidden});
    bT = pc.add_parameters({5 * kHidden});
    L = pc.add_parameters({2 * kHidden, kHidden});
    bL = pc.add_parameters({2 * kHidden});
    O = pc.add_parameters({3, kHidden});
    bO = pc.add_parameters({3});
  }
  std::vector<float> gradients() const {
    std::vector<float> g;
    for (const auto& p : pc.parameters_list()) append_values(g, p->g);
    append_values(g, pc.lookup_parameters_list()[0]->all_grads);
    return g;
  }
  ParameterCollection pc;
  LookupParameter emb;
  Parameter W, U, b;
  Parameter T, bT, L, bL, O, bO;  // the tree cells of plain ops
};

/// How a chain's cell is built: parameters once or at every use, dropout on the state or not.
struct CellOptions {
  bool per_use = false;
  float dropout = 0.f;
  const char* key = "test-cell";
};

/// One step of a gated cell inside a VertexScope: x is a pull, h the gather.
Expression cell(ComputationGraph& cg, CellModel& m, const Expression& x, const Expression& h, const CellOptions& o) {
  const VertexScope scope(cg, o.key);
  const Expression W = parameter(cg, m.W), U = parameter(cg, m.U), b = parameter(cg, m.b);
  const Expression wx = affine_transform({b, W, x});  // reads only a pull: hoisted
  const Expression hh = o.dropout > 0.f ? dropout(h, o.dropout) : h;
  const Expression gate = logistic(U * hh + wx);
  return cmult(gate, tanh(wx)) + cmult(1.f - gate, hh);
}

/// `chains` chains of `steps` cells; returns every state.
std::vector<std::vector<Expression>> build_chains(ComputationGraph& cg, CellModel& m, unsigned chains, unsigned steps,
                                                  unsigned batch, const CellOptions& o = {}) {
  std::vector<std::vector<Expression>> states(chains);
  for (unsigned k = 0; k < chains; ++k) {
    std::vector<unsigned> first(batch);
    for (unsigned j = 0; j < batch; ++j) first[j] = (k + j) % kVocab;
    Expression h = tanh(lookup(cg, m.emb, first));
    for (unsigned t = 0; t < steps; ++t) {
      std::vector<unsigned> words(batch);
      for (unsigned j = 0; j < batch; ++j) words[j] = (3 * k + 5 * t + j + 1) % kVocab;
      h = cell(cg, m, lookup(cg, m.emb, words), h, o);
      states[k].push_back(h);
    }
  }
  return states;
}

Expression total(const std::vector<std::vector<Expression>>& states) {
  std::vector<Expression> finals;
  for (const auto& chain : states) finals.push_back(sum_batches(sum_elems(chain.back())));
  return sum(finals);
}

struct Outcome {
  std::vector<float> values;  ///< the loss and whatever the scenario read
  std::vector<float> gradients;
  EngineStats stats;
};

/// Runs scenario(cg, values) on a fresh graph under the sequential engine and under each
/// autobatching policy with the executor; it returns the loss expression, which is then
/// differentiated. Values and gradients must agree within 1e-4 relative.
std::vector<Outcome> expect_agreement(CellModel& m,
                                      const std::function<Expression(ComputationGraph&, std::vector<float>&)>& scenario,
                                      bool full_loss = true) {
  auto run = [&](int strategy) {
    random_engine().seed(7);
    m.pc.reset_gradient();
    ComputationGraph cg;
    cg.set_autobatch(strategy);
    cg.set_vertex(2);
    cg.engine().reset_stats();
    Outcome o;
    const Expression loss = scenario(cg, o.values);
    o.values.push_back(as_scalar(full_loss ? cg.forward(loss) : cg.incremental_forward(loss)));
    cg.backward(loss);
    o.gradients = m.gradients();
    o.stats = cg.engine().stats();
    return o;
  };
  const Outcome ref = run(0);
  float scale = 0.f;
  for (float g : ref.gradients) scale = std::max(scale, std::fabs(g));
  std::vector<Outcome> got;
  for (int strategy : {1, 2}) {
    INFO("--dynet-autobatch " << strategy);
    got.push_back(run(strategy));
    const Outcome& o = got.back();
    REQUIRE(o.values.size() == ref.values.size());
    for (std::size_t k = 0; k < ref.values.size(); ++k) REQUIRE(o.values[k] == Approx(ref.values[k]).epsilon(1e-4));
    REQUIRE(o.gradients.size() == ref.gradients.size());
    for (std::size_t k = 0; k < ref.gradients.size(); ++k)
      REQUIRE(o.gradients[k] == Approx(ref.gradients[k]).epsilon(1e-4).margin(1e-6 + 1e-5 * scale));
  }
  return got;
}

/// A TreeLSTM as users write it, with plain ops and no VertexScope (the autobatch benchmark's
/// reference): `trees` complete binary trees of `depth` levels, built in post-order, with a loss at
/// every node, or at each root only. Leaves and nodes are made with parameter() at every use when
/// `per_use`.
Expression raw_tree_lstm(ComputationGraph& cg, CellModel& m, unsigned trees, unsigned depth, bool per_use,
                         bool loss_at_every_node = true) {
  const unsigned h = kHidden;
  std::vector<Expression> once;
  for (Parameter* p : {&m.T, &m.bT, &m.L, &m.bL, &m.O, &m.bO}) once.push_back(parameter(cg, *p));
  auto p = [&](unsigned k, Parameter& param) { return per_use ? parameter(cg, param) : once[k]; };
  std::vector<Expression> losses;
  unsigned word = 0;
  struct State {
    Expression h, c;
  };
  std::function<State(unsigned)> node = [&](unsigned level) {
    State s;
    if (level == 0) {
      const Expression g = affine_transform({p(3, m.bL), p(2, m.L), lookup(cg, m.emb, word++ % kVocab)});
      s.c = cmult(logistic(pick_range(g, 0, h)), tanh(pick_range(g, h, 2 * h)));
    } else {
      const State l = node(level - 1), r = node(level - 1);
      const Expression g = affine_transform({p(1, m.bT), p(0, m.T), concatenate({l.h, r.h})});
      s.c = cmult(logistic(pick_range(g, 0, h)), tanh(pick_range(g, h, 2 * h))) +
            cmult(logistic(pick_range(g, 2 * h, 3 * h)), l.c) + cmult(logistic(pick_range(g, 3 * h, 4 * h)), r.c);
      s.c = cmult(logistic(pick_range(g, 4 * h, 5 * h)), s.c);
    }
    s.h = tanh(s.c);
    if (loss_at_every_node || level == depth)
      losses.push_back(pickneglogsoftmax(affine_transform({p(5, m.bO), p(4, m.O), s.h}), word % 3));
    return s;
  };
  for (unsigned t = 0; t < trees; ++t) node(depth);
  return sum(losses);
}

/// `chains` LSTM chains of `steps` steps as users write them, with plain ops and no VertexScope:
/// each gate an affine over the input and the previous state.
/// With `odd_step`, step 2 of chain 1 scales its state: a structure no other step has.
Expression raw_lstm(ComputationGraph& cg, CellModel& m, unsigned chains, unsigned steps, bool odd_step = false) {
  const Expression W = parameter(cg, m.W), U = parameter(cg, m.U), b = parameter(cg, m.b);
  std::vector<Expression> finals;
  for (unsigned k = 0; k < chains; ++k) {
    Expression h = zeros(cg, {kHidden}), c = zeros(cg, {kHidden});
    for (unsigned t = 0; t < steps; ++t) {
      const Expression x = lookup(cg, m.emb, (3 * k + 5 * t + 1) % kVocab);
      const Expression i = logistic(affine_transform({b, W, x, U, h}));
      const Expression f = logistic(affine_transform({b, U, x, W, h}));
      const Expression o = logistic(affine_transform({b, W, x, W, h}));
      const Expression g = tanh(affine_transform({b, U, x, U, h}));
      c = cmult(f, c) + cmult(i, g);
      h = cmult(o, tanh(c));
      if (odd_step && k == 1 && t == 2) h = h * 0.5f;
    }
    finals.push_back(sum_elems(h));
  }
  return sum(finals);
}

}  // namespace

TEST_CASE("a TreeLSTM of plain ops is found without scopes and agrees", "[autobatch][vertex][discovery]") {
  CellModel m;
  for (bool per_use : {false, true}) {
    INFO("parameter() per use " << per_use);
    const auto got = expect_agreement(
        m, [&](ComputationGraph& cg, std::vector<float>&) { return raw_tree_lstm(cg, m, 3, 3, per_use); });
    for (const Outcome& g : got) {
      // Cells and losses are cut apart, all kept: 24 leaves, 21 nodes, 45 losses (the first leaf
      // without the graph's leading parameters, the last loss without the sum of all losses).
      CHECK(g.stats.vertex_marked == 90);
      // Leaves read no other instance: hoisted whole.
      CHECK(g.stats.vertex_instances == 66);
    }
    // Agenda: one task per level of nodes, all losses in one; depth: the losses of each level too.
    CHECK(got[0].stats.vertex_tasks == 4);
    CHECK(got[1].stats.vertex_tasks == 7);
    CHECK(vertex_key_name(discovered_key()) == "unscoped");  // the name profiles print
  }
}

TEST_CASE("a TreeLSTM of plain ops with a loss at its roots only runs one task per level",
          "[autobatch][vertex][discovery]") {
  // Built in post-order, a node's concat of its children's states comes right after its right
  // child's cell: it must open the node's instance, not close the right child's, or right and
  // left children are cells of two structures, each with tasks of its own.
  CellModel m;
  const auto got = expect_agreement(
      m, [&](ComputationGraph& cg, std::vector<float>&) { return raw_tree_lstm(cg, m, 3, 3, false, false); });
  for (const Outcome& g : got) {
    INFO("marked " << g.stats.vertex_marked << ", units " << g.stats.vertex_instances << ", tasks "
                   << g.stats.vertex_tasks);
    // 24 leaves (hoisted whole), 21 nodes and the 3 roots' losses.
    CHECK(g.stats.vertex_marked == 48);
    CHECK(g.stats.vertex_instances == 24);
    CHECK(g.stats.vertex_tasks == 4);  // the nodes of each level, then the losses, under both policies
  }
}

TEST_CASE("an LSTM of plain ops is found without scopes and agrees", "[autobatch][vertex][discovery]") {
  CellModel m;
  const auto got =
      expect_agreement(m, [&](ComputationGraph& cg, std::vector<float>&) { return raw_lstm(cg, m, 5, 4); });
  for (const Outcome& g : got) {
    // Steps are cut apart, all kept (chain 0's first without the graph's leading parameters, chain
    // 4's last without the sum over chains).
    CHECK(g.stats.vertex_marked == 20);
    CHECK(g.stats.vertex_instances == 15);  // first steps read no other instance: hoisted whole
    // Middle steps are one function, last steps (with their chain's sum) another: one task per
    // later step, the chains together.
    CHECK(g.stats.vertex_tasks == 3);
  }
}

TEST_CASE("a candidate whose structure is seen once runs op by op and agrees", "[autobatch][vertex][discovery]") {
  CellModel m;
  const auto got =
      expect_agreement(m, [&](ComputationGraph& cg, std::vector<float>&) { return raw_lstm(cg, m, 5, 4, true); });
  for (const Outcome& g : got) {
    CHECK(g.stats.vertex_marked == 19);     // the odd step is not kept
    CHECK(g.stats.vertex_instances == 13);  // nor run as a unit, and the step after it is hoisted whole
  }
}

TEST_CASE("a value read mid-graph limits discovery to each pass's nodes", "[autobatch][vertex][discovery]") {
  CellModel m;
  expect_agreement(
      m,
      [&](ComputationGraph& cg, std::vector<float>& values) {
        const Expression loss = raw_lstm(cg, m, 4, 4);
        const std::vector<float> v = as_vector(cg.get_value(cg.size() / 2));  // inside a step of chain 1 or 2
        values.insert(values.end(), v.begin(), v.end());
        return loss;
      },
      false);
}

TEST_CASE("chains of marked cells run as tasks over all chains and agree", "[autobatch][vertex]") {
  CellModel m;
  for (unsigned batch : {1u, 3u})
    for (bool per_use : {false, true}) {
      INFO("batch " << batch << ", parameter() per use " << per_use);
      CellOptions o;
      o.per_use = per_use;
      const auto got = expect_agreement(
          m, [&](ComputationGraph& cg, std::vector<float>&) { return total(build_chains(cg, m, 5, 4, batch, o)); });
      for (const Outcome& g : got) {
        CHECK(g.stats.vertex_marked == 20);
        CHECK(g.stats.vertex_instances == 15);  // first cells read no other instance: hoisted whole
        CHECK(g.stats.vertex_tasks == 3);       // one per later step: the five chains run together
        // U's gradient: one call over the three tasks; b's and W's: one each for the hoisted
        // products, a group of 20 nodes, small enough to wait as well.
        CHECK(g.stats.lazy_weight_calls == 3);
        CHECK(g.stats.fused_chains == 3);           // each task's sum, gate and state update: one pass
        CHECK(g.stats.fused_backward_chains == 3);  // and their backward too
      }
    }
}

TEST_CASE("weight gradients of small groups wait for one product and large groups add theirs at once",
          "[autobatch][vertex]") {
  CellModel m;
  for (unsigned chains : {LazyWeightGradients::kWaitBelow - 1, LazyWeightGradients::kWaitBelow}) {
    INFO(chains << " chains: groups of " << chains << " nodes");
    const auto got = expect_agreement(m, [&](ComputationGraph& cg, std::vector<float>&) {
      return total(build_chains(cg, m, chains, 4, 1, CellOptions{}));
    });
    for (const Outcome& g : got) {
      CHECK(g.stats.vertex_tasks == 3);
      CHECK(g.stats.lazy_weight_calls == (chains < LazyWeightGradients::kWaitBelow ? 1u : 0u));
    }
  }
}

// The waiting parts were once added in the order of their signatures' values, which hold the
// weight's address: a seeded program's gradients then differed from run to run.
TEST_CASE("a weight's waiting parts from several signatures add up the same wherever the weight lies",
          "[autobatch][vertex]") {
  const unsigned hidden = 6;
  std::vector<float> first;
  // Each collection puts v elsewhere; the products of each length are a signature of their own.
  for (unsigned shift = 0; shift < 8; ++shift) {
    ParameterCollection pc;
    for (unsigned k = 0; k < shift; ++k) pc.add_parameters({7 * (k + 1)});
    Parameter v = pc.add_parameters({1, hidden});
    std::vector<float> values(hidden);
    for (unsigned e = 0; e < hidden; ++e) values[e] = 0.37f * float(e) - 0.9f;
    v.set_value(values);
    ComputationGraph cg;
    cg.set_autobatch(1);
    cg.set_vertex(1);
    std::vector<Expression> losses;
    for (unsigned length = 2; length <= 7; ++length)
      for (unsigned example = 0; example < 2; ++example) {
        std::vector<float> x(hidden * length);
        for (std::size_t e = 0; e < x.size(); ++e) x[e] = std::sin(1.3f * float(e + 7 * length + 31 * example));
        losses.push_back(sum_elems(parameter(cg, v) * input(cg, {hidden, length}, x)));
      }
    const Expression loss = sum(losses);
    cg.engine().reset_stats();
    cg.forward(loss);
    cg.backward(loss);
    CHECK(cg.engine().stats().lazy_weight_calls == 6);
    const std::vector<float> grad = as_vector(v.get_storage().g);
    if (shift == 0)
      first = grad;
    else
      CHECK(grad == first);  // bit for bit
  }
}

TEST_CASE("fused chains run backward as one pass over tiles and agree with op by op", "[autobatch][vertex][fusion]") {
  // A tree node's chain reads its children's cell states from other tasks (their gradients are
  // scattered back), the gate slices of its own task in place, and a shared constant (1 - gate).
  CellModel m;
  const std::function<Expression(ComputationGraph&)> graphs[] = {
      [&](ComputationGraph& cg) { return raw_tree_lstm(cg, m, 3, 3, false); },
      [&](ComputationGraph& cg) { return total(build_chains(cg, m, 4, 3, 3)); },
  };
  for (const auto& graph : graphs) {
    const auto got = expect_agreement(m, [&](ComputationGraph& cg, std::vector<float>&) { return graph(cg); });
    for (const Outcome& g : got) {
      CHECK(g.stats.fused_chains > 0);
      CHECK(g.stats.fused_backward_chains == g.stats.fused_chains);
    }
  }
}

TEST_CASE("dropout inside an instance draws the masks of op-by-op execution", "[autobatch][vertex]") {
  CellModel m;
  CellOptions o;
  o.dropout = 0.4f;
  const auto got = expect_agreement(
      m, [&](ComputationGraph& cg, std::vector<float>&) { return total(build_chains(cg, m, 4, 3, 2, o)); });
  for (const Outcome& g : got) CHECK(g.stats.vertex_tasks == 2);
}

TEST_CASE("a value read inside an instance cuts it, and it runs op by op", "[autobatch][vertex]") {
  CellModel m;
  const auto got = expect_agreement(
      m,
      [&](ComputationGraph& cg, std::vector<float>& values) {
        const auto states = build_chains(cg, m, 3, 3, 1);
        // A node inside the second cell of chain 0: evaluating up to it cuts that cell.
        const VertexInstance inside = cg.vertex_instances()[1];
        const Tensor v = cg.get_value(inside.begin + (inside.end - inside.begin) / 2);
        append_values(values, v);
        const std::vector<float> h = as_vector(cg.incremental_forward(states[1][0]));
        values.insert(values.end(), h.begin(), h.end());
        return total(states);
      },
      false);
  for (const Outcome& g : got) {
    CHECK(g.stats.vertex_marked == 8);  // all but the cut one
    // Of those, cells that read only values computed before their pass (first cells, and the first
    // of each pass) are hoisted whole.
    CHECK(g.stats.vertex_instances == 3);
  }
}

TEST_CASE("an instance open while a value is read is cut, and it runs op by op", "[autobatch][vertex]") {
  CellModel m;
  expect_agreement(
      m,
      [&](ComputationGraph& cg, std::vector<float>& values) {
        auto states = build_chains(cg, m, 2, 2, 1);
        Expression h;
        {
          const VertexScope scope(cg, "test-cell");
          const Expression x = lookup(cg, m.emb, 3u);
          const Expression gate = logistic(parameter(cg, m.U) * states[0].back() + x);
          values.push_back(as_vector(cg.incremental_forward(gate))[0]);
          h = cmult(gate, tanh(x));
        }
        states[0].push_back(h);
        return total(states);
      },
      false);
}

TEST_CASE("revert drops the instances built after the checkpoint", "[autobatch][vertex]") {
  CellModel m;
  const auto got = expect_agreement(m, [&](ComputationGraph& cg, std::vector<float>&) {
    auto states = build_chains(cg, m, 3, 2, 1);
    cg.checkpoint();
    build_chains(cg, m, 2, 3, 1);
    cg.revert();
    CHECK(cg.vertex_instances().size() == 6);
    const auto more = build_chains(cg, m, 2, 2, 2);
    states.insert(states.end(), more.begin(), more.end());
    return total(states);
  });
  for (const Outcome& g : got) {
    CHECK(g.stats.vertex_marked == 10);
    CHECK(g.stats.vertex_instances == 5);
  }
}

TEST_CASE("backward from a node inside an instance", "[autobatch][vertex]") {
  CellModel m;
  expect_agreement(m, [&](ComputationGraph& cg, std::vector<float>&) {
    const auto states = build_chains(cg, m, 3, 3, 1);
    const VertexInstance inst = cg.vertex_instances()[4];
    Expression inside(&cg, inst.end - 2);
    return sum_elems(inside) + sum_elems(states[2][1]);
  });
}

TEST_CASE("an instance whose structure differs from its key's function runs op by op", "[autobatch][vertex]") {
  CellModel m;
  const auto got = expect_agreement(m, [&](ComputationGraph& cg, std::vector<float>&) {
    auto states = build_chains(cg, m, 3, 2, 1);
    Expression odd;
    {
      const VertexScope scope(cg, "test-cell");  // the same key, another structure
      odd = tanh(parameter(cg, m.W) * states[1].back()) * 2.f;
    }
    states[1].push_back(odd);
    return total(states);
  });
  for (const Outcome& g : got) {
    CHECK(g.stats.vertex_marked == 7);
    CHECK(g.stats.vertex_instances == 4);  // the odd one too: a second function of the key
  }
}

TEST_CASE("each unit's function is the one its instance's structure matches, however many a key names",
          "[autobatch][vertex]") {
  CellModel m;
  ComputationGraph cg;
  auto states = build_chains(cg, m, 3, 3, 1);
  for (unsigned k = 0; k < 2; ++k) {
    const VertexScope scope(cg, "test-cell");  // the same key, another structure
    tanh(parameter(cg, m.W) * states[k].back()) * 2.f;
  }
  InstancePlan plan;
  for (unsigned pass = 0; pass < 2; ++pass) {  // the second finds the functions the first matched
    plan.build(cg, 0, cg.size());
    std::uint32_t odd = 0;
    for (std::uint32_t u = 0; u < plan.size(); ++u) {
      const VariableIndex n = plan.nodes(u)[0];
      for (const VertexInstance& inst : cg.vertex_instances())
        if (inst.begin <= n && n < inst.end) {
          CHECK(plan.function(u).matches(cg, inst));
          odd += inst.end - inst.begin < 5;
        }
    }
    CHECK(odd == 2);
  }
}

TEST_CASE("nested scopes mark the outermost instance only", "[autobatch][vertex]") {
  CellModel m;
  ComputationGraph cg;
  const Expression x = lookup(cg, m.emb, 1u);
  {
    const VertexScope outer(cg, "outer");
    const Expression y = tanh(x);
    {
      const VertexScope inner(cg, "inner");
      tanh(y);
    }
    logistic(y);
  }
  { const VertexScope empty(cg, "empty"); }
  REQUIRE(cg.vertex_instances().size() == 1);
  CHECK(cg.vertex_instances()[0].begin == x.i + 1);
  CHECK(cg.vertex_instances()[0].end == cg.size());
  CHECK(cg.vertex_instances()[0].key == vertex_key("outer"));
  CHECK(vertex_key_name(vertex_key("outer")) == "outer");
}

TEST_CASE("data-parallel shards of marked cells give the gradients of one graph", "[autobatch][vertex][threads]") {
  CellModel m;
  auto shard = [&](ComputationGraph& cg, unsigned k) {
    cg.set_autobatch(1);
    return total(build_chains(cg, m, 2 + k, 3, 1, CellOptions{false, 0.f, "dp-cell"}));
  };
  {
    ComputationGraph cg;
    cg.set_autobatch(0);
    std::vector<Expression> losses;
    for (unsigned k = 0; k < 2; ++k) losses.push_back(total(build_chains(cg, m, 2 + k, 3, 1)));
    cg.backward(sum(losses));
  }
  const std::vector<float> expected = m.gradients();
  m.pc.reset_gradient();
  DataParallel dp(2);
  dp.backward(2, shard);
  const std::vector<float> got = m.gradients();
  REQUIRE(got.size() == expected.size());
  for (std::size_t k = 0; k < got.size(); ++k) REQUIRE(got[k] == Approx(expected[k]).epsilon(1e-4).margin(1e-6));
}
