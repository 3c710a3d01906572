// The tree builders: gradients, the N-ary and child-sum equations on a small tree, the role of
// child order, batched trees, and bad input.

#include <catch2/catch.hpp>

#include <Eigen/Core>
#include <memory>
#include <vector>

#include "builders/child_sum_tree_lstm_builder.h"
#include "builders/nary_tree_lstm_builder.h"
#include "dynet_core/expr.h"
#include "dynet_core/graph.h"
#include "dynet_core/tensor_eigen.h"
#include "support/device_values.h"
#include "support/gradient_check.h"

using namespace dynet;
using Eigen::VectorXf;

namespace {

constexpr unsigned kInput = 3, kHidden = 2;

/// Builds the tree ((0 1) 2) with leaves read from `table` (one row per batch element), plus a
/// unary node over the root; returns every node's full state.
std::vector<Expression> build_tree(TreeLSTMBuilder& tree, ComputationGraph& cg, LookupParameter table,
                                   const std::vector<std::vector<unsigned>>& leaves) {
  tree.new_graph(cg);
  tree.start_new_sequence();
  for (int k = 0; k < 3; ++k) tree.add_input(k, {}, lookup(cg, table, leaves[unsigned(k)]));
  tree.add_input(3, {0, 1}, Expression());
  tree.add_input(4, {3, 2}, lookup(cg, table, leaves[0]));
  tree.add_input(5, {4}, Expression());
  std::vector<Expression> seen;
  for (int k = 0; k < 6; ++k)
    for (const Expression& s : tree.get_s(k)) seen.push_back(s);
  return seen;
}

Eigen::MatrixXf value(const Parameter& p) { return host_matrix(p.get_storage().values); }
VectorXf sigmoid(const VectorXf& a) { return (1.f + (-a.array()).exp()).inverse().matrix(); }
VectorXf tanh_of(const VectorXf& a) { return a.array().tanh().matrix(); }
VectorXf cwise(const VectorXf& a, const VectorXf& b) { return a.cwiseProduct(b); }
VectorXf get(ComputationGraph& cg, const Expression& e) {
  const std::vector<float> v = as_vector(cg.incremental_forward(e));
  return Eigen::Map<const VectorXf>(v.data(), v.size());
}
void randomize(const TreeLSTMBuilder& tree) {
  for (const auto& layer : tree.layer_parameters())
    for (Parameter p : layer) {
      std::vector<float> v(p.get_storage().size());
      for (std::size_t k = 0; k < v.size(); ++k) v[k] = 0.7f * std::sin(1.3f * k + 0.5f * v.size());
      p.set_value(v);
    }
}

}  // namespace

TEST_CASE("gradients flow through the tree builders", "[builders][tree]") {
  ParameterCollection model;
  LookupParameter table = model.add_lookup_parameters(4, {kInput});
  const bool nary = GENERATE(true, false);
  const bool batched = GENERATE(false, true);
  INFO((nary ? "N-ary" : "child-sum") << (batched ? ", batched" : ""));
  NaryTreeLSTMBuilder nary_tree(2, 2, kInput, kHidden, model);
  ChildSumTreeLSTMBuilder child_sum(2, kInput, kHidden, model);
  TreeLSTMBuilder& tree = nary ? static_cast<TreeLSTMBuilder&>(nary_tree) : child_sum;
  ComputationGraph cg;
  const std::vector<std::vector<unsigned>> leaves =
      batched ? std::vector<std::vector<unsigned>>{{0, 3}, {1, 2}, {2, 0}} : std::vector<std::vector<unsigned>>{{0}, {1}, {2}};
  const std::vector<Expression> seen = build_tree(tree, cg, table, leaves);
  test_support::check_gradients(model, cg, test_support::weighted_sum(cg, seen, 13));
}

TEST_CASE("an N-ary TreeLSTM node follows Tai et al.'s equations, one U per child position", "[builders][tree]") {
  ParameterCollection model;
  NaryTreeLSTMBuilder tree(2, 1, kInput, kHidden, model);
  randomize(tree);
  const auto& p = tree.layer_parameters()[0];  // W, b, U_0, U_1; rows i, o, u, f_0, f_1
  const unsigned n = kHidden;
  ComputationGraph cg;
  tree.new_graph(cg);
  tree.start_new_sequence();
  const VectorXf xl = VectorXf::LinSpaced(kInput, -0.5f, 0.8f), xr = VectorXf::LinSpaced(kInput, 0.9f, -0.2f);
  auto vec = [&](const VectorXf& v) { return input(cg, Dim({kInput}), std::vector<float>(v.data(), v.data() + v.size())); };
  tree.add_input(0, {}, vec(xl));
  tree.add_input(1, {}, vec(xr));
  tree.add_input(2, {0, 1}, Expression());

  auto leaf = [&](const VectorXf& x, VectorXf& h, VectorXf& c) {
    const VectorXf a = value(p[1]).topRows(3 * n) + value(p[0]).topRows(3 * n) * x;
    c = cwise(sigmoid(a.segment(0, n)), tanh_of(a.segment(2 * n, n)));
    h = cwise(sigmoid(a.segment(n, n)), tanh_of(c));
  };
  VectorXf hl, cl, hr, cr;
  leaf(xl, hl, cl);
  leaf(xr, hr, cr);
  const VectorXf a = value(p[1]) + value(p[2]) * hl + value(p[3]) * hr;
  const VectorXf c = cwise(sigmoid(a.segment(0, n)), tanh_of(a.segment(2 * n, n))) +
                     cwise(sigmoid(a.segment(3 * n, n)), cl) + cwise(sigmoid(a.segment(4 * n, n)), cr);
  const VectorXf h = cwise(sigmoid(a.segment(n, n)), tanh_of(c));
  const std::vector<Expression> s = tree.get_s(2);
  CHECK((get(cg, s[0]) - c).cwiseAbs().maxCoeff() < 1e-5f);
  CHECK((get(cg, s[1]) - h).cwiseAbs().maxCoeff() < 1e-5f);
  CHECK((get(cg, tree.get_h(0)[0]) - hl).cwiseAbs().maxCoeff() < 1e-5f);
}

TEST_CASE("a child-sum TreeLSTM node follows Tai et al.'s equations", "[builders][tree]") {
  ParameterCollection model;
  ChildSumTreeLSTMBuilder tree(1, kInput, kHidden, model);
  randomize(tree);
  const auto& p = tree.layer_parameters()[0];  // W_iou, U_iou, b_iou, W_f, U_f, b_f
  const unsigned n = kHidden;
  ComputationGraph cg;
  tree.new_graph(cg);
  tree.start_new_sequence();
  const VectorXf x0 = VectorXf::LinSpaced(kInput, -0.5f, 0.8f), x1 = VectorXf::LinSpaced(kInput, 0.9f, -0.2f);
  const VectorXf x2 = VectorXf::LinSpaced(kInput, 0.3f, 0.1f);
  auto vec = [&](const VectorXf& v) { return input(cg, Dim({kInput}), std::vector<float>(v.data(), v.data() + v.size())); };
  tree.add_input(0, {}, vec(x0));
  tree.add_input(1, {}, vec(x1));
  tree.add_input(2, {0, 1}, vec(x2));

  auto node = [&](const VectorXf& x, const std::vector<std::pair<VectorXf, VectorXf>>& children, VectorXf& h, VectorXf& c) {
    VectorXf h_sum = VectorXf::Zero(n);
    for (const auto& hc : children) h_sum += hc.first;
    const VectorXf a = value(p[2]) + value(p[0]) * x + value(p[1]) * h_sum;
    c = cwise(sigmoid(a.segment(0, n)), tanh_of(a.segment(2 * n, n)));
    for (const auto& hc : children) c += cwise(sigmoid(value(p[5]) + value(p[3]) * x + value(p[4]) * hc.first), hc.second);
    h = cwise(sigmoid(a.segment(n, n)), tanh_of(c));
  };
  VectorXf h0, c0, h1, c1, h, c;
  node(x0, {}, h0, c0);
  node(x1, {}, h1, c1);
  node(x2, {{h0, c0}, {h1, c1}}, h, c);
  const std::vector<Expression> s = tree.get_s(2);
  CHECK((get(cg, s[0]) - c).cwiseAbs().maxCoeff() < 1e-5f);
  CHECK((get(cg, s[1]) - h).cwiseAbs().maxCoeff() < 1e-5f);
}

TEST_CASE("child order matters to the N-ary TreeLSTM only", "[builders][tree]") {
  ParameterCollection model;
  LookupParameter table = model.add_lookup_parameters(2, {kInput});
  NaryTreeLSTMBuilder nary(2, 1, kInput, kHidden, model);
  ChildSumTreeLSTMBuilder child_sum(1, kInput, kHidden, model);
  for (TreeLSTMBuilder* tree : {static_cast<TreeLSTMBuilder*>(&nary), static_cast<TreeLSTMBuilder*>(&child_sum)}) {
    ComputationGraph cg;
    tree->new_graph(cg);
    tree->add_input(0, {}, lookup(cg, table, 0u));
    tree->add_input(1, {}, lookup(cg, table, 1u));
    const VectorXf in_order = get(cg, tree->add_input(2, {0, 1}, Expression()));
    const VectorXf swapped = get(cg, tree->add_input(3, {1, 0}, Expression()));
    const bool same = (in_order - swapped).cwiseAbs().maxCoeff() < 1e-6f;
    CHECK(same == (tree == &child_sum));
  }
}

TEST_CASE("a batch of trees of one shape gives each tree's states", "[builders][tree]") {
  ParameterCollection model;
  LookupParameter table = model.add_lookup_parameters(4, {kInput});
  NaryTreeLSTMBuilder nary(2, 2, kInput, kHidden, model);
  ChildSumTreeLSTMBuilder child_sum(2, kInput, kHidden, model);
  const std::vector<std::vector<unsigned>> leaves{{0, 3}, {1, 2}, {2, 0}};
  for (TreeLSTMBuilder* tree : {static_cast<TreeLSTMBuilder*>(&nary), static_cast<TreeLSTMBuilder*>(&child_sum)}) {
    ComputationGraph cg;
    const std::vector<Expression> together = build_tree(*tree, cg, table, leaves);
    std::vector<VectorXf> batched;
    for (const Expression& e : together) batched.push_back(get(cg, e));
    for (unsigned b = 0; b < 2; ++b) {
      ComputationGraph single;
      const std::vector<Expression> alone = build_tree(*tree, single, table, {{leaves[0][b]}, {leaves[1][b]}, {leaves[2][b]}});
      for (std::size_t k = 0; k < alone.size(); ++k)
        CHECK((get(single, alone[k]) - batched[k].segment(b * kHidden, kHidden)).cwiseAbs().maxCoeff() < 1e-6f);
    }
  }
}

TEST_CASE("a tree builder's clone shares the parameters and keeps graph state of its own", "[builders][tree]") {
  ParameterCollection model;
  NaryTreeLSTMBuilder nary(2, 2, kInput, kHidden, model);
  ChildSumTreeLSTMBuilder child_sum(1, kInput, kHidden, model);
  LookupParameter table = model.add_lookup_parameters(4, {kInput});
  for (TreeLSTMBuilder* original : {static_cast<TreeLSTMBuilder*>(&nary), static_cast<TreeLSTMBuilder*>(&child_sum)}) {
    const std::unique_ptr<TreeLSTMBuilder> copy = original->clone();
    for (std::size_t l = 0; l < original->layer_parameters().size(); ++l)
      for (std::size_t k = 0; k < original->layer_parameters()[l].size(); ++k)
        CHECK(copy->layer_parameters()[l][k].p == original->layer_parameters()[l][k].p);
    ComputationGraph cg_a, cg_b, cg_ref;
    build_tree(*original, cg_a, table, {{0}, {1}, {2}});
    const std::vector<Expression> from_copy = build_tree(*copy, cg_b, table, {{3}, {2}, {1}});
    const std::vector<Expression> reference = build_tree(*original, cg_ref, table, {{3}, {2}, {1}});
    CHECK(as_vector(cg_b.forward(from_copy.back())) == as_vector(cg_ref.forward(reference.back())));
    CHECK(copy->back().pg == &cg_b);
    CHECK(original->back().pg == &cg_ref);
  }
}

TEST_CASE("tree builders reject bad nodes and keep the tree", "[builders][tree]") {
  ParameterCollection model;
  NaryTreeLSTMBuilder tree(2, 1, kInput, kHidden, model);
  ComputationGraph cg;
  const Expression x = input(cg, Dim({kInput}), {1.f, 2.f, 3.f});
  CHECK_THROWS_WITH(tree.add_input(0, {}, x), Catch::Contains("new_graph"));
  tree.new_graph(cg);
  CHECK_THROWS_WITH(tree.back(), Catch::Contains("no node"));
  tree.add_input(0, {}, x);
  tree.add_input(1, {}, x);
  CHECK_THROWS_WITH(tree.add_input(2, {0, 1, 0}, Expression()), Catch::Contains("3 children") && Catch::Contains("at most 2"));
  CHECK_THROWS_WITH(tree.add_input(2, {0, 7}, Expression()), Catch::Contains("node 7 has not been added"));
  CHECK_THROWS_WITH(tree.add_input(1, {0}, Expression()), Catch::Contains("already added"));
  CHECK_THROWS_WITH(tree.add_input(-1, {0}, Expression()), Catch::Contains("negative"));
  CHECK_THROWS_WITH(tree.add_input(2, {}, Expression()), Catch::Contains("neither an input nor children"));
  CHECK_THROWS_WITH(tree.add_input(2, {0, 1}, zeros(cg, Dim({kInput + 1}))), Catch::Contains("expected {3}"));
  CHECK_THROWS_WITH(tree.add_input(2, {2}, Expression()), Catch::Contains("its own child"));
  CHECK_THROWS_WITH(tree.get_h(5), Catch::Contains("node 5"));
  tree.add_input(2, {0, 1}, Expression());
  CHECK(tree.back().i == tree.get_h(2)[0].i);
  tree.start_new_sequence();
  CHECK_THROWS_AS(tree.get_h(0), std::invalid_argument);
  CHECK_THROWS_AS(NaryTreeLSTMBuilder(0, 1, kInput, kHidden, model), std::invalid_argument);
}
