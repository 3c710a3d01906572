#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "autobatch/group_scheduler.h"
#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"

using namespace dynet;

namespace {

using Groups = std::vector<std::vector<VariableIndex>>;

/// Every group the scheduler hands out for nodes [begin, size), each sorted.
Groups schedule(const ComputationGraph& cg, GroupScheduler::Policy policy, VariableIndex begin = 0) {
  GroupScheduler s(policy);
  s.start(cg, begin, cg.size());
  Groups groups;
  for (;;) {
    const std::vector<VariableIndex>& g = s.next();
    if (g.empty()) break;
    groups.emplace_back(g.begin(), g.end());
    std::sort(groups.back().begin(), groups.back().end());
    s.computed(g.data(), static_cast<std::uint32_t>(g.size()));
  }
  return groups;
}

/// Each node of [begin, size) other than parameter leaves is handed out once, after its arguments.
void check_order(const ComputationGraph& cg, const Groups& groups, VariableIndex begin = 0) {
  std::vector<int> when(cg.size(), -1);
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (VariableIndex n : groups[g]) {
      REQUIRE(when[n] == -1);
      when[n] = int(g);
    }
  for (VariableIndex n = begin; n < cg.size(); ++n) {
    const Node& nd = cg.node(n);
    CHECK((when[n] == -1) == (nd.op->value_alias != nullptr));
    for (unsigned i = 0; i < nd.nargs; ++i)
      if (nd.arg(i) >= begin && !cg.node(nd.arg(i)).op->value_alias) CHECK(when[nd.arg(i)] < when[n]);
  }
}

}  // namespace

TEST_CASE("the scheduler groups the steps of identical chains, one group per step", "[autobatch][scheduler]") {
  ComputationGraph cg;
  std::vector<VariableIndex> steps[3];
  for (unsigned k = 0; k < 4; ++k) {
    Expression h = input(cg, Dim({3}), std::vector<float>(3, float(k)));
    steps[0].push_back(h.i);
    h = tanh(h);
    steps[1].push_back(h.i);
    h = exp(h);
    steps[2].push_back(h.i);
  }
  for (auto policy : {GroupScheduler::Policy::Agenda, GroupScheduler::Policy::Depth}) {
    const Groups groups = schedule(cg, policy);
    check_order(cg, groups);
    CHECK(groups == Groups{steps[0], steps[1], steps[2]});
  }
}

TEST_CASE("agenda waits to group a signature at several depths, depth does not", "[autobatch][scheduler]") {
  ComputationGraph cg;
  const Expression a = input(cg, Dim({2}), {1.f, 2.f}), b = input(cg, Dim({2}), {3.f, 4.f});
  const Expression shallow = tanh(a);    // depth 1
  const Expression deep = tanh(exp(b));  // depth 2, the same signature
  const Groups agenda = schedule(cg, GroupScheduler::Policy::Agenda);
  check_order(cg, agenda);
  CHECK(agenda.size() == 3);  // the inputs, exp, then both tanh
  CHECK(agenda.back() == std::vector<VariableIndex>{shallow.i, deep.i});
  const Groups depth = schedule(cg, GroupScheduler::Policy::Depth);
  check_order(cg, depth);
  CHECK(depth.size() == 4);
  CHECK(std::find(depth.begin(), depth.end(), std::vector<VariableIndex>{shallow.i}) != depth.end());
  CHECK(std::find(depth.begin(), depth.end(), std::vector<VariableIndex>{deep.i}) != depth.end());
}

TEST_CASE("agenda runs a chain's per-step outputs as one group when a later-starting cell op ends each step",
          "[autobatch][scheduler]") {
  // Like a language model's output layer: the cell's last op (square) exists from the second
  // step on, so its average depth lies above the outputs' (exp) although each square precedes
  // the next step's exp; ordering by average depth ran every exp alone.
  ComputationGraph cg;
  Expression h = tanh(input(cg, Dim({2}), {0.1f, 0.2f}));
  std::vector<Expression> outputs{exp(h)};
  std::vector<VariableIndex> exps{outputs.back().i};
  for (int t = 1; t < 8; ++t) {
    h = square(cos(sin(logistic(h))));
    outputs.push_back(exp(h));
    exps.push_back(outputs.back().i);
  }
  const Expression loss = sum(outputs);
  const Groups agenda = schedule(cg, GroupScheduler::Policy::Agenda);
  check_order(cg, agenda);
  CHECK(std::find(agenda.begin(), agenda.end(), exps) != agenda.end());
  CHECK(agenda.back() == std::vector<VariableIndex>{loss.i});
}

TEST_CASE("the scheduler runs unbatchable nodes alone and skips parameter leaves and computed nodes",
          "[autobatch][scheduler]") {
  ParameterCollection pc;
  Parameter W = pc.add_parameters({2, 2});
  ComputationGraph cg;
  const Expression done = input(cg, Dim({2}), {1.f, 2.f});  // below begin: computed already
  const VariableIndex begin = cg.size();
  const Expression w = parameter(cg, W);
  std::vector<Expression> xs;
  for (unsigned k = 0; k < 3; ++k) xs.push_back(w * tanh(done));
  const Expression joined = concatenate_to_batch(xs);
  const Expression again = concatenate_to_batch({xs[0], xs[1]});
  REQUIRE(cg.node(joined.i).signature == 0);
  for (auto policy : {GroupScheduler::Policy::Agenda, GroupScheduler::Policy::Depth}) {
    const Groups groups = schedule(cg, policy, begin);
    check_order(cg, groups, begin);
    CHECK(groups.size() == 4);  // tanh, the products, and each concatenation alone
    CHECK(std::find(groups.begin(), groups.end(), std::vector<VariableIndex>{joined.i}) != groups.end());
    CHECK(std::find(groups.begin(), groups.end(), std::vector<VariableIndex>{again.i}) != groups.end());
    GroupScheduler s(policy);
    s.start(cg, begin, cg.size());
    CHECK(s.parameter_leaves() == std::vector<VariableIndex>{w.i});
  }
}
