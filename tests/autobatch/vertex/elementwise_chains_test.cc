// Which ops fuse, asserted exactly on vertex functions written by hand: the chains union-find
// must find, and the unions it must refuse (shapes that differ, rows that are no elementwise map,
// a path that leaves a chain and comes back).

#include <catch2/catch.hpp>

#include <vector>

#include "autobatch/vertex/fusion.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"
#include "tests/autobatch/vertex/graph_dag.h"

using namespace dynet;
using dynet::vertex::elementwise_chains;
using dynet::vertex::plan_fusion;
using test_support::dag_of;

namespace {

using Chains = std::vector<std::vector<unsigned>>;

Expression vector_input(ComputationGraph& cg, unsigned n) { return input(cg, Dim({n}), std::vector<float>(n, 0.5f)); }

}  // namespace

TEST_CASE("an LSTM cell written with raw ops fuses its nine elementwise ops into one chain", "[autobatch][fusion]") {
  ParameterCollection model;
  ComputationGraph cg;
  const unsigned hidden = 3, in = 4;
  const Expression x = vector_input(cg, in), h_prev = vector_input(cg, hidden), c_prev = vector_input(cg, hidden);
  std::vector<Expression> W, U, b;
  for (unsigned k = 0; k < 4; ++k) {
    W.push_back(parameter(cg, model.add_parameters({hidden, in})));
    U.push_back(parameter(cg, model.add_parameters({hidden, hidden})));
    b.push_back(parameter(cg, model.add_parameters({hidden})));
  }
  const VariableIndex first = cg.size();
  auto gate = [&](unsigned k) { return affine_transform({b[k], W[k], x, U[k], h_prev}); };
  const Expression i = logistic(gate(0)), f = logistic(gate(1)), o = logistic(gate(2)), g = tanh(gate(3));
  const Expression c = cmult(i, g) + cmult(f, c_prev);
  const Expression h = cmult(o, tanh(c));
  const VariableIndex end = cg.size();

  const vertex::OpDag dag = dag_of(cg, first, end, {}, {c.i, h.i});
  REQUIRE(dag.ops.size() == 13);  // four affine transforms and nine elementwise ops
  std::vector<unsigned> expected;
  for (VariableIndex v = first; v < end; ++v)
    if (cg.node(v).op->elementwise.f) expected.push_back(v - first);
  REQUIRE(expected.size() == 9);
  CHECK(elementwise_chains(dag) == Chains{expected});

  const vertex::FusionPlan plan = plan_fusion(dag);
  REQUIRE(plan.chains.size() == 1);
  const vertex::FusedChain& chain = plan.chains[0];
  // Kept for backward as the rows declare: the activations (their own rules and cmult's read
  // them), and c and h, read outside. Not i * g nor f * c_prev: only + reads them, and its
  // gradient needs no values.
  const Expression tanh_c = Expression(&cg, h.i - 1);
  CHECK(chain.writes() == std::vector<unsigned>{i.i - first, f.i - first, o.i - first, g.i - first, c.i - first,
                                                tanh_c.i - first, h.i - first});
  CHECK(chain.reads().size() == 5);  // the four gates' affine transforms and c_prev
  REQUIRE(plan.steps.size() == 5);   // the affine transforms, then the chain
  CHECK(plan.steps.back().chain == 0);
  // Recomputed, only what is read outside stays whole.
  const vertex::FusionPlan lean = plan_fusion(dag, vertex::FusedChain::Values::kRecomputed);
  CHECK(lean.chains.at(0).writes() == std::vector<unsigned>{c.i - first, h.i - first});
}

TEST_CASE("a union whose chain a path would leave and re-enter is refused", "[autobatch][fusion]") {
  ParameterCollection model;
  ComputationGraph cg;
  const Expression x = vector_input(cg, 3);
  const Expression W = parameter(cg, model.add_parameters({3, 3}));
  const VariableIndex first = cg.size();
  const Expression a = tanh(x);      // 0
  const Expression m = W * a;        // 1: no elementwise map
  const Expression s = a + m;        // 2: reads a directly and through m
  const Expression t = logistic(s);  // 3
  const vertex::OpDag dag = dag_of(cg, first, cg.size(), {}, {t.i});
  // Fusing a with s would make the chain both feed m and wait for it.
  CHECK(elementwise_chains(dag) == Chains{{2, 3}});
  (void)a, (void)m, (void)s;
}

TEST_CASE("ops of different shapes and ops that are no elementwise map split chains", "[autobatch][fusion]") {
  ComputationGraph cg;
  const Expression x = vector_input(cg, 3);
  const Expression y = input(cg, Dim({3, 2}), std::vector<float>(6, 0.25f));
  const VariableIndex first = cg.size();
  const Expression a = tanh(x);       // 0: {3}
  const Expression b = cmult(a, y);   // 1: {3, 2}, reads a broadcast
  const Expression c = logistic(b);   // 2
  const Expression s = softmax(c);    // 3: no elementwise map
  const Expression e = exp(s) * 2.f;  // 4, 5
  const Expression r = rectify(-e);   // 6, 7
  const vertex::OpDag dag = dag_of(cg, first, cg.size(), {}, {r.i});
  CHECK(elementwise_chains(dag) == Chains{{1, 2}, {4, 5, 6, 7}});
}

TEST_CASE("steps run a chain after everything it reads, wherever that sits in the DAG", "[autobatch][fusion]") {
  ComputationGraph cg;
  const Expression x = vector_input(cg, 3), y = vector_input(cg, 3);
  const VariableIndex first = cg.size();
  const Expression a = tanh(x);     // 0
  const Expression s = softmax(y);  // 1: read by the chain, after its first op
  const Expression b = a + s;       // 2
  const vertex::OpDag dag = dag_of(cg, first, cg.size(), {}, {b.i});
  const vertex::FusionPlan plan = plan_fusion(dag);
  REQUIRE(plan.chains.size() == 1);
  CHECK(plan.chains[0].ops() == std::vector<unsigned>{0, 2});
  REQUIRE(plan.steps.size() == 2);
  CHECK(plan.steps[0].chain == -1);
  CHECK(plan.steps[0].op == 1);
  CHECK(plan.steps[1].chain == 0);
  CHECK(plan.chain_of == std::vector<int>{0, -1, 0});
}
