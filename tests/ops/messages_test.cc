// Every public expression function, misused: the message must start with the name the user called,
// say it once, and name no other function or op (no "pick: pick:", no internal op's name).

#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/ops/registry.h"
#include "dynet_core/param_collection.h"
#include "support/message_check.h"

using namespace dynet;

namespace {

struct Misuse {
  std::string function;  // as the user wrote it
  std::string how;
  std::function<void()> call;
};

/// What a message must not name as its subject: every op, every public function and the
/// Expression members a function might call on its arguments.
std::set<std::string> subjects(const std::vector<Misuse>& misuses) {
  std::set<std::string> names = test_support::op_names();
  names.insert({"Expression::dim", "Expression::value", "Expression::gradient", "Dim"});
  for (const Misuse& m : misuses) names.insert(m.function);
  return names;
}

void check_messages(const std::vector<Misuse>& misuses) {
  const std::set<std::string> others = subjects(misuses);
  for (const Misuse& m : misuses) test_support::check_message(m.function, m.how, m.call, others);
}

/// A graph with live expressions of a few shapes and two dead ones.
struct Scene {
  ParameterCollection model;
  Parameter p = model.add_parameters({3});
  LookupParameter table = model.add_lookup_parameters(5, {3});
  LookupParameter named_table = model.add_lookup_parameters(5, {3}, "embeddings");
  ComputationGraph cg, other;
  Expression stale, empty;
  Expression v3, v4, m33, m34, m43, batch2, batch3, foreign;
  Expression h1, m41, v2, t223;  // an LSTM of one hidden unit (with v3, m43, v4); a tensor and its middle size
  std::vector<unsigned> indices{0, 1}, far{0, 9}, first{0};
  unsigned one = 0, nine = 9;

  Scene() {
    cg.checkpoint();
    stale = input(cg, Dim({3}), {1.f, 2.f, 3.f});
    cg.revert();
    v3 = input(cg, Dim({3}), {1.f, 2.f, 3.f});
    v4 = zeros(cg, Dim({4}));
    m33 = zeros(cg, Dim({3, 3}));
    m34 = zeros(cg, Dim({3, 4}));
    m43 = zeros(cg, Dim({4, 3}));
    batch2 = zeros(cg, Dim({3}, 2));
    batch3 = zeros(cg, Dim({3}, 3));
    foreign = zeros(other, Dim({3}));
    h1 = zeros(cg, Dim({1}));
    m41 = zeros(cg, Dim({4, 1}));
    v2 = zeros(cg, Dim({2}));
    t223 = zeros(cg, Dim({2, 2, 3}));
  }
};

using Unary = std::function<Expression(const Expression&)>;
using Binary = std::function<Expression(const Expression&, const Expression&)>;
using Nary = std::function<Expression(const std::vector<Expression>&)>;

/// A function of one expression given a dead one: empty, and of a reverted graph.
void dead_argument(std::vector<Misuse>& out, Scene& s, const std::string& name, Unary f) {
  out.push_back({name, "an empty expression", [f, &s] { f(s.empty); }});
  out.push_back({name, "a stale expression", [f, &s] { f(s.stale); }});
}

void binary_misuses(std::vector<Misuse>& out, Scene& s, const std::string& name, Binary f) {
  dead_argument(out, s, name, [f, &s](const Expression& x) { return f(x, s.v3); });
  dead_argument(out, s, name, [f, &s](const Expression& x) { return f(s.v3, x); });
  out.push_back({name, "an expression of another graph", [f, &s] { f(s.v3, s.foreign); }});
}

void nary_misuses(std::vector<Misuse>& out, Scene& s, const std::string& name, Nary f) {
  out.push_back({name, "no expressions", [f] { f({}); }});
  dead_argument(out, s, name, [f, &s](const Expression& x) { return f({x, s.v3}); });
  dead_argument(out, s, name, [f, &s](const Expression& x) { return f({s.v3, x}); });
}

std::vector<Misuse> expression_misuses(Scene& s) {
  std::vector<Misuse> m;
  const std::vector<std::pair<std::string, Unary>> unary = {
      {"operator-", [](const Expression& x) { return -x; }},
      {"tanh", [](const Expression& x) { return tanh(x); }},
      {"logistic", [](const Expression& x) { return logistic(x); }},
      {"rectify", [](const Expression& x) { return rectify(x); }},
      {"elu", [](const Expression& x) { return elu(x); }},
      {"selu", [](const Expression& x) { return selu(x); }},
      {"silu", [](const Expression& x) { return silu(x); }},
      {"softsign", [](const Expression& x) { return softsign(x); }},
      {"exp", [](const Expression& x) { return exp(x); }},
      {"log", [](const Expression& x) { return log(x); }},
      {"log_sigmoid", [](const Expression& x) { return log_sigmoid(x); }},
      {"square", [](const Expression& x) { return square(x); }},
      {"cube", [](const Expression& x) { return cube(x); }},
      {"sqrt", [](const Expression& x) { return sqrt(x); }},
      {"abs", [](const Expression& x) { return abs(x); }},
      {"sin", [](const Expression& x) { return sin(x); }},
      {"cos", [](const Expression& x) { return cos(x); }},
      {"erf", [](const Expression& x) { return erf(x); }},
      {"operator+", [](const Expression& x) { return x + 1.f; }},
      {"operator+", [](const Expression& x) { return 1.f + x; }},
      {"operator-", [](const Expression& x) { return x - 1.f; }},
      {"operator-", [](const Expression& x) { return 1.f - x; }},
      {"operator*", [](const Expression& x) { return x * 2.f; }},
      {"operator*", [](const Expression& x) { return 2.f * x; }},
      {"operator/", [](const Expression& x) { return x / 2.f; }},
      {"nobackprop", [](const Expression& x) { return nobackprop(x); }},
      {"scale_gradient", [](const Expression& x) { return scale_gradient(x, 0.5f); }},
      {"flip_gradient", [](const Expression& x) { return flip_gradient(x); }},
      {"transpose", [](const Expression& x) { return transpose(x); }},
      {"hinge", [](const Expression& x) { return hinge(x, 0u); }},
      {"dropout", [](const Expression& x) { return dropout(x, 0.5f); }},
      {"dropout_batch", [](const Expression& x) { return dropout_batch(x, 0.5f); }},
      {"block_dropout", [](const Expression& x) { return block_dropout(x, 0.5f); }},
      {"noise", [](const Expression& x) { return noise(x, 1.f); }},
      {"sum_elems", [](const Expression& x) { return sum_elems(x); }},
      {"mean_elems", [](const Expression& x) { return mean_elems(x); }},
      {"sum_batches", [](const Expression& x) { return sum_batches(x); }},
      {"mean_batches", [](const Expression& x) { return mean_batches(x); }},
      {"sum_dim", [](const Expression& x) { return sum_dim(x, {0}); }},
      {"squared_norm", [](const Expression& x) { return squared_norm(x); }},
      {"l2_norm", [](const Expression& x) { return l2_norm(x); }},
      {"logsumexp_dim", [](const Expression& x) { return logsumexp_dim(x); }},
      {"max_dim", [](const Expression& x) { return max_dim(x); }},
      {"min_dim", [](const Expression& x) { return min_dim(x); }},
      {"pick", [](const Expression& x) { return pick(x, 0u); }},
      {"pick_range", [](const Expression& x) { return pick_range(x, 0, 1); }},
      {"pick_batch_elem", [](const Expression& x) { return pick_batch_elem(x, 0u); }},
      {"pick_batch_elems", [](const Expression& x) { return pick_batch_elems(x, {0}); }},
      {"select_rows", [](const Expression& x) { return select_rows(x, {0}); }},
      {"select_cols", [](const Expression& x) { return select_cols(x, {0}); }},
      {"reshape", [](const Expression& x) { return reshape(x, Dim({3})); }},
      {"softmax", [](const Expression& x) { return softmax(x); }},
      {"log_softmax", [](const Expression& x) { return log_softmax(x); }},
      {"pickneglogsoftmax", [](const Expression& x) { return pickneglogsoftmax(x, 0u); }},
      {"tan", [](const Expression& x) { return tan(x); }},
      {"asin", [](const Expression& x) { return asin(x); }},
      {"acos", [](const Expression& x) { return acos(x); }},
      {"atan", [](const Expression& x) { return atan(x); }},
      {"sinh", [](const Expression& x) { return sinh(x); }},
      {"cosh", [](const Expression& x) { return cosh(x); }},
      {"asinh", [](const Expression& x) { return asinh(x); }},
      {"acosh", [](const Expression& x) { return acosh(x); }},
      {"atanh", [](const Expression& x) { return atanh(x); }},
      {"lgamma", [](const Expression& x) { return lgamma(x); }},
      {"round", [](const Expression& x) { return round(x, zero_gradient); }},
      {"ceil", [](const Expression& x) { return ceil(x, straight_through_gradient); }},
      {"floor", [](const Expression& x) { return floor(x, zero_gradient); }},
      {"argmax", [](const Expression& x) { return argmax(x, zero_gradient); }},
      {"inverse", [](const Expression& x) { return inverse(x); }},
      {"logdet", [](const Expression& x) { return logdet(x); }},
      {"sum_rows", [](const Expression& x) { return sum_rows(x); }},
      {"sum_cols", [](const Expression& x) { return sum_cols(x); }},
      {"moment_dim", [](const Expression& x) { return moment_dim(x, {0}, 2); }},
      {"mean_dim", [](const Expression& x) { return mean_dim(x, {0}); }},
      {"std_dim", [](const Expression& x) { return std_dim(x, {0}); }},
      {"moment_elems", [](const Expression& x) { return moment_elems(x, 2); }},
      {"std_elems", [](const Expression& x) { return std_elems(x); }},
      {"moment_batches", [](const Expression& x) { return moment_batches(x, 2); }},
      {"std_batches", [](const Expression& x) { return std_batches(x); }},
      {"average_cols", [](const Expression& x) { return average_cols(x); }},
      {"cumsum", [](const Expression& x) { return cumsum(x, 0); }},
      {"pickrange", [](const Expression& x) { return pickrange(x, 0, 1); }},
      {"strided_select", [](const Expression& x) { return strided_select(x, {1}); }},
      {"log_softmax", [](const Expression& x) { return log_softmax(x, {0}); }},
      {"sparsemax", [](const Expression& x) { return sparsemax(x); }},
      {"sparsemax_loss", [](const Expression& x) { return sparsemax_loss(x, {0}); }},
      {"hinge_dim", [](const Expression& x) { return hinge_dim(x, std::vector<unsigned>{0}); }},
      {"poisson_loss", [](const Expression& x) { return poisson_loss(x, 1u); }},
      {"dropout_dim", [](const Expression& x) { return dropout_dim(x, 0, 0.5f); }},
      {"maxpooling2d",
       [](const Expression& x) {
         return maxpooling2d(x, {1, 1}, {1, 1});
       }},
      {"kmax_pooling", [](const Expression& x) { return kmax_pooling(x, 1, 0); }},
      {"fold_rows", [](const Expression& x) { return fold_rows(x, 1); }},
  };
  for (const auto& [name, f] : unary) dead_argument(m, s, name, f);

  const std::vector<std::pair<std::string, Binary>> binary = {
      {"operator+", [](const Expression& a, const Expression& b) { return a + b; }},
      {"operator-", [](const Expression& a, const Expression& b) { return a - b; }},
      {"operator*", [](const Expression& a, const Expression& b) { return a * b; }},
      {"cmult", [](const Expression& a, const Expression& b) { return cmult(a, b); }},
      {"cdiv", [](const Expression& a, const Expression& b) { return cdiv(a, b); }},
      {"min", [](const Expression& a, const Expression& b) { return min(a, b); }},
      {"max", [](const Expression& a, const Expression& b) { return max(a, b); }},
      {"pow", [](const Expression& a, const Expression& b) { return pow(a, b); }},
      {"colwise_add", [](const Expression& a, const Expression& b) { return colwise_add(a, b); }},
      {"dot_product", [](const Expression& a, const Expression& b) { return dot_product(a, b); }},
      {"squared_distance", [](const Expression& a, const Expression& b) { return squared_distance(a, b); }},
      {"binary_log_loss", [](const Expression& a, const Expression& b) { return binary_log_loss(a, b); }},
      {"layer_norm", [&s](const Expression& a, const Expression& b) { return layer_norm(a, b, s.v3); }},
      {"trace_of_product", [](const Expression& a, const Expression& b) { return trace_of_product(a, b); }},
      {"l1_distance", [](const Expression& a, const Expression& b) { return l1_distance(a, b); }},
      {"huber_distance", [](const Expression& a, const Expression& b) { return huber_distance(a, b); }},
      {"pairwise_rank_loss", [](const Expression& a, const Expression& b) { return pairwise_rank_loss(a, b); }},
      {"circ_conv", [](const Expression& a, const Expression& b) { return circ_conv(a, b); }},
      {"circ_corr", [](const Expression& a, const Expression& b) { return circ_corr(a, b); }},
      {"filter1d_narrow", [](const Expression& a, const Expression& b) { return filter1d_narrow(a, b); }},
      {"conv2d",
       [](const Expression& a, const Expression& b) {
         return conv2d(a, b, {1, 1});
       }},
      {"weight_norm", [](const Expression& a, const Expression& b) { return weight_norm(a, b); }},
      {"vanilla_lstm_c", [](const Expression& a, const Expression& b) { return vanilla_lstm_c(a, b); }},
      {"vanilla_lstm_h", [](const Expression& a, const Expression& b) { return vanilla_lstm_h(a, b); }},
      {"contract3d_1d", [](const Expression& a, const Expression& b) { return contract3d_1d(a, b); }},
  };
  for (const auto& [name, f] : binary) binary_misuses(m, s, name, f);
  dead_argument(m, s, "layer_norm", [&s](const Expression& b) { return layer_norm(s.v3, s.v3, b); });

  const std::vector<std::pair<std::string, Nary>> nary = {
      {"sum", [](const std::vector<Expression>& xs) { return sum(xs); }},
      {"average", [](const std::vector<Expression>& xs) { return average(xs); }},
      {"affine_transform", [](const std::vector<Expression>& xs) { return affine_transform(xs); }},
      {"logsumexp", [](const std::vector<Expression>& xs) { return logsumexp(xs); }},
      {"concatenate", [](const std::vector<Expression>& xs) { return concatenate(xs); }},
      {"concatenate_cols", [](const std::vector<Expression>& xs) { return concatenate_cols(xs); }},
      {"concatenate_to_batch", [](const std::vector<Expression>& xs) { return concatenate_to_batch(xs); }},
      {"vanilla_lstm_gates_concat",
       [&s](const std::vector<Expression>& xs) { return vanilla_lstm_gates_concat(xs, s.h1, s.m43, s.m41, s.v4); }},
      {"vanilla_lstm_gates_dropout_concat",
       [&s](const std::vector<Expression>& xs) {
         return vanilla_lstm_gates_dropout_concat(xs, s.h1, s.m43, s.m41, s.v4, s.v3, s.h1);
       }},
  };
  for (const auto& [name, f] : nary) nary_misuses(m, s, name, f);
  dead_argument(m, s, "vanilla_lstm_gates",
                [&s](const Expression& x) { return vanilla_lstm_gates(x, s.h1, s.m43, s.m41, s.v4); });
  dead_argument(m, s, "vanilla_lstm_gates",
                [&s](const Expression& h) { return vanilla_lstm_gates(s.v3, h, s.m43, s.m41, s.v4); });
  dead_argument(m, s, "vanilla_lstm_gates_dropout", [&s](const Expression& mask) {
    return vanilla_lstm_gates_dropout(s.v3, s.h1, s.m43, s.m41, s.v4, mask, s.h1);
  });
  dead_argument(m, s, "conv2d", [&s](const Expression& b) { return conv2d(s.m34, s.t223, b, {1, 1}); });
  dead_argument(m, s, "contract3d_1d", [&s](const Expression& b) { return contract3d_1d(s.t223, s.v3, b); });
  dead_argument(m, s, "contract3d_1d_1d", [&s](const Expression& z) { return contract3d_1d_1d(s.t223, s.v3, z); });

  // Shapes, indices and values each function refuses.
  auto add = [&m](const std::string& name, const std::string& how, std::function<void()> f) {
    m.push_back({name, how, std::move(f)});
  };
  add("operator+", "shapes that do not broadcast", [&s] { s.v3 + s.v4; });
  add("operator+", "batch sizes 2 and 3", [&s] { s.batch2 + s.batch3; });
  add("operator-", "shapes that do not broadcast", [&s] { s.v3 - s.v4; });
  add("operator*", "a product of {3} and {3,4}", [&s] { s.v3* s.m34; });
  add("operator/", "the constant 0", [&s] { s.v3 / 0.f; });
  add("cmult", "shapes that do not broadcast", [&s] { cmult(s.v3, s.v4); });
  add("cdiv", "shapes that do not broadcast", [&s] { cdiv(s.v3, s.v4); });
  add("min", "shapes that do not broadcast", [&s] { min(s.v3, s.v4); });
  add("max", "shapes that do not broadcast", [&s] { max(s.v3, s.v4); });
  add("pow", "shapes that do not broadcast", [&s] { pow(s.v3, s.v4); });
  add("colwise_add", "a bias of other rows", [&s] { colwise_add(s.m34, s.v4); });
  add("colwise_add", "a matrix bias", [&s] { colwise_add(s.m34, s.m34); });
  add("sum", "different shapes", [&s] { sum({s.v3, s.v4}); });
  add("average", "different shapes", [&s] { average({s.v3, s.v4}); });
  add("affine_transform", "an even argument count", [&s] { affine_transform({s.v3, s.m34}); });
  add("affine_transform", "a product of other rows", [&s] { affine_transform({s.v3, s.m43, s.v3}); });
  add("affine_transform", "batch sizes 2 and 3", [&s] { affine_transform({s.batch2, s.m33, s.batch3}); });
  add("transpose", "no permutation", [&s] { transpose(s.m34, {0, 0}); });
  add("transpose", "a permutation longer than x's dimensions", [&s] { transpose(s.m34, {2, 1, 0}); });
  add("hinge", "a class out of range", [&s] { hinge(s.v3, 7u); });
  add("hinge", "classes for another batch size", [&s] { hinge(s.batch2, std::vector<unsigned>{0, 1, 2}); });
  // As DyNet's: a vector of classes, even of one, holds one per batch element.
  add("hinge", "a vector of one class for a batch of 3", [&s] { hinge(s.batch3, std::vector<unsigned>{0}); });
  add("hinge", "a pointer to one class in a vector for a batch of 3", [&s] { hinge(s.batch3, &s.first); });
  add("hinge", "a null pointer", [&s] { hinge(s.v3, static_cast<const unsigned*>(nullptr)); });
  add("hinge", "a null vector pointer", [&s] { hinge(s.v3, static_cast<const std::vector<unsigned>*>(nullptr)); });
  add("hinge", "no classes", [&s] { hinge(s.v3, std::vector<unsigned>{}); });
  add("hinge", "a matrix", [&s] { hinge(s.m34, 0u); });
  add("binary_log_loss", "shapes that differ", [&s] { binary_log_loss(s.v3, s.v4); });
  add("layer_norm", "a gain that does not broadcast over x", [&s] { layer_norm(s.m34, s.m33, s.v3); });
  add("layer_norm", "a gain of other rows", [&s] { layer_norm(s.v3, s.v4, s.v3); });
  add("dropout", "a rate of 1", [&s] { dropout(s.v3, 1.f); });
  add("dropout_batch", "a rate of -1", [&s] { dropout_batch(s.v3, -1.f); });
  add("block_dropout", "a rate of 2", [&s] { block_dropout(s.v3, 2.f); });
  add("noise", "a negative stddev", [&s] { noise(s.v3, -1.f); });
  add("sum_dim", "a dimension index of 9", [&s] { sum_dim(s.v3, {9}); });
  add("sum_dim", "a dimension a matrix lacks", [&s] { sum_dim(s.m34, {4}); });
  add("dot_product", "shapes that differ", [&s] { dot_product(s.v3, s.v4); });
  add("squared_distance", "shapes that differ", [&s] { squared_distance(s.v3, s.v4); });
  add("logsumexp", "different shapes", [&s] { logsumexp({s.v3, s.v4}); });
  add("logsumexp_dim", "a dimension index of 9", [&s] { logsumexp_dim(s.v3, 9); });
  add("max_dim", "a dimension index of 9", [&s] { max_dim(s.v3, 9); });
  add("min_dim", "a dimension index of 9", [&s] { min_dim(s.v3, 9); });
  // As DyNet's: the dimension reduced is one the input has.
  add("logsumexp_dim", "a dimension a vector lacks", [&s] { logsumexp_dim(s.v3, 1); });
  add("max_dim", "a dimension a vector lacks", [&s] { max_dim(s.v3, 1); });
  add("min_dim", "a dimension a matrix lacks", [&s] { min_dim(s.m34, 2); });
  add("pick", "an index out of range", [&s] { pick(s.v3, 7u); });
  add("pick", "indices out of range", [&s] { pick(s.v3, s.far); });
  add("pick", "indices for another batch size", [&s] { pick(s.batch3, s.indices); });
  add("pick", "a dimension index of 9", [&s] { pick(s.v3, 0u, 9); });
  add("pick", "a dimension a matrix lacks", [&s] { pick(s.m34, 0u, 5); });
  // As DyNet's: a vector of indices, even of one, holds one per batch element.
  add("pick", "a vector of one index for a batch of 3", [&s] { pick(s.batch3, std::vector<unsigned>{0}); });
  add("pick", "a pointer to one index in a vector for a batch of 3", [&s] { pick(s.batch3, &s.first); });
  add("pick", "a null pointer", [&s] { pick(s.v3, static_cast<const unsigned*>(nullptr)); });
  add("pick", "a null vector pointer", [&s] { pick(s.v3, static_cast<const std::vector<unsigned>*>(nullptr)); });
  // DyNet reads a pointer's index first at forward: a placeholder may hold anything before. (On a
  // graph of its own: forward computes every node before the one asked for.)
  add("pick", "a pointer to an index out of range at forward", [&s] {
    ComputationGraph cg;
    cg.forward(pick(input(cg, Dim({3}), {1.f, 2.f, 3.f}), &s.nine));
  });
  add("pick", "no indices", [&s] { pick(s.v3, std::vector<unsigned>{}); });
  add("pick_range", "an empty range", [&s] { pick_range(s.v3, 2, 2); });
  add("pick_range", "a range past the end", [&s] { pick_range(s.v3, 1, 9); });
  add("pick_batch_elem", "an element out of range", [&s] { pick_batch_elem(s.batch2, 5); });
  add("pick_batch_elems", "elements out of range", [&s] { pick_batch_elems(s.batch2, {0, 5}); });
  add("pick_batch_elems", "no elements", [&s] { pick_batch_elems(s.batch2, {}); });
  add("select_rows", "a row out of range", [&s] { select_rows(s.m34, {7}); });
  add("select_rows", "no rows", [&s] { select_rows(s.m34, {}); });
  add("select_cols", "a column out of range", [&s] { select_cols(s.m34, {7}); });
  add("select_cols", "no columns", [&s] { select_cols(s.m34, {}); });
  add("reshape", "another size", [&s] { reshape(s.v3, Dim({4})); });
  add("concatenate", "rows that differ in columns", [&s] { concatenate({s.m34, s.m43}); });
  add("concatenate_cols", "columns of other rows", [&s] { concatenate_cols({s.v3, s.v4}); });
  add("concatenate_to_batch", "different shapes", [&s] { concatenate_to_batch({s.v3, s.v4}); });
  add("softmax", "a dimension index of 9", [&s] { softmax(s.v3, 9); });
  add("softmax", "a dimension a matrix lacks", [&s] { softmax(s.m34, 2); });
  add("pickneglogsoftmax", "a class out of range", [&s] { pickneglogsoftmax(s.v3, 7u); });
  add("pickneglogsoftmax", "classes out of range", [&s] { pickneglogsoftmax(s.v3, s.far); });
  add("pickneglogsoftmax", "classes for another batch size", [&s] { pickneglogsoftmax(s.batch2, s.far); });
  add("pickneglogsoftmax", "a vector of one class for a batch of 3",
      [&s] { pickneglogsoftmax(s.batch3, std::vector<unsigned>{0}); });
  add("pickneglogsoftmax", "a pointer to one class in a vector for a batch of 3",
      [&s] { pickneglogsoftmax(s.batch3, &s.first); });
  add("pickneglogsoftmax", "a null pointer", [&s] { pickneglogsoftmax(s.v3, static_cast<const unsigned*>(nullptr)); });
  add("pickneglogsoftmax", "a matrix", [&s] { pickneglogsoftmax(s.m34, 0u); });
  add("pickneglogsoftmax", "no classes", [&s] { pickneglogsoftmax(s.v3, std::vector<unsigned>{}); });
  add("inverse", "a matrix that is not square", [&s] { inverse(s.m34); });
  add("logdet", "a matrix that is not square", [&s] { logdet(s.m34); });
  add("trace_of_product", "shapes that differ", [&s] { trace_of_product(s.v3, s.v4); });
  add("contract3d_1d", "a vector of another size", [&s] { contract3d_1d(s.t223, s.v4); });
  add("contract3d_1d", "a bias of another shape", [&s] { contract3d_1d(s.t223, s.v3, s.v3); });
  add("contract3d_1d_1d", "a z of another size", [&s] { contract3d_1d_1d(s.t223, s.v3, s.v3); });
  add("contract3d_1d_1d", "a bias of another size", [&s] { contract3d_1d_1d(s.t223, s.v3, s.v2, s.m33); });
  add("weight_norm", "a vector gain", [&s] { weight_norm(s.v3, s.v3); });
  add("hinge_dim", "a d of 2", [&s] { hinge_dim(s.m34, std::vector<unsigned>{0}, 2); });
  add("hinge_dim", "a tensor", [&s] { hinge_dim(s.t223, std::vector<unsigned>{0}); });
  add("hinge_dim", "too few indices", [&s] { hinge_dim(s.m34, std::vector<unsigned>{0}); });
  add("hinge_dim", "an index out of range", [&s] { hinge_dim(s.m34, {0, 0, 0, 9}); });
  add("hinge_dim", "a null pointer", [&s] { hinge_dim(s.m34, static_cast<const std::vector<unsigned>*>(nullptr)); });
  add("hinge_dim", "a pointer to too few indices", [&s] { hinge_dim(s.m34, &s.indices); });
  add("hinge_dim", "one vector of indices too few", [&s] { hinge_dim(s.m34, std::vector<std::vector<unsigned>>{}); });
  add("l1_distance", "shapes that differ", [&s] { l1_distance(s.v3, s.v4); });
  add("l1_distance", "batch sizes 2 and 3", [&s] { l1_distance(s.batch2, s.batch3); });
  add("huber_distance", "shapes that differ", [&s] { huber_distance(s.v3, s.v4); });
  add("huber_distance", "a c of 0", [&s] { huber_distance(s.v3, s.v3, 0.f); });
  add("pairwise_rank_loss", "column vectors", [&s] { pairwise_rank_loss(s.v3, s.v3); });
  add("pairwise_rank_loss", "shapes that differ", [&s] { pairwise_rank_loss(s.v3, s.v4); });
  add("poisson_loss", "a vector", [&s] { poisson_loss(s.v3, 1u); });
  add("poisson_loss", "a null pointer", [&s] { poisson_loss(s.v3, static_cast<const unsigned*>(nullptr)); });
  add("log_softmax", "an empty restriction", [&s] { log_softmax(s.v3, std::vector<unsigned>{}); });
  add("log_softmax", "a restriction out of range", [&s] { log_softmax(s.v3, s.far); });
  add("log_softmax", "a restricted matrix", [&s] { log_softmax(s.m34, s.indices); });
  add("sparsemax", "a matrix", [&s] { sparsemax(s.m34); });
  add("constrained_softmax", "bounds of another shape", [&s] { constrained_softmax(s.v3, s.v4); });
  add("constrained_softmax", "a matrix", [&s] { constrained_softmax(s.m34, s.m34); });
  add("constrained_softmax", "batch sizes 2 and 3", [&s] { constrained_softmax(s.batch2, s.batch3); });
  add("sparsemax_loss", "a support out of range", [&s] { sparsemax_loss(s.v3, s.far); });
  add("sparsemax_loss", "an empty support", [&s] { sparsemax_loss(s.v3, std::vector<unsigned>{}); });
  add("sparsemax_loss", "a matrix", [&s] { sparsemax_loss(s.m34, s.indices); });
  add("sparsemax_loss", "a null pointer",
      [&s] { sparsemax_loss(s.v3, static_cast<const std::vector<unsigned>*>(nullptr)); });
  add("moment_dim", "a dimension index of 9", [&s] { moment_dim(s.v3, {9}, 2); });
  add("moment_dim", "an order of 0", [&s] { moment_dim(s.m34, {0}, 0, false); });
  add("moment_elems", "an order of 0", [&s] { moment_elems(s.m34, 0); });
  add("moment_batches", "an order of 0", [&s] { moment_batches(s.batch3, 0); });
  add("mean_dim", "a dimension index of 9", [&s] { mean_dim(s.v3, {9}); });
  add("mean_dim", "a dimension a matrix lacks", [&s] { mean_dim(s.m34, {3}, false); });
  add("std_dim", "a dimension index of 9", [&s] { std_dim(s.v3, {9}); });
  add("cumsum", "a dimension index of 9", [&s] { cumsum(s.v3, 9); });
  add("cumsum", "a dimension past a matrix's", [&s] { cumsum(s.m34, 4); });
  add("pickrange", "a range past the end", [&s] { pickrange(s.v3, 1, 9); });
  add("strided_select", "a stride of 0", [&s] { strided_select(s.v3, {0}); });
  add("strided_select", "more dimensions than x has", [&s] { strided_select(s.v3, {1, 1, 1}); });
  add("strided_select", "a range past the end", [&s] { strided_select(s.v3, {1}, {0}, {9}); });
  add("dropout_dim", "a dimension index of 9", [&s] { dropout_dim(s.v3, 9, 0.5f); });
  add("dropout_dim", "a rate of 1", [&s] { dropout_dim(s.v3, 0, 1.f); });
  add("vanilla_lstm_gates", "an input of another size", [&s] { vanilla_lstm_gates(s.v4, s.h1, s.m43, s.m41, s.v4); });
  add("vanilla_lstm_gates", "a negative weightnoise_std",
      [&s] { vanilla_lstm_gates(s.v3, s.h1, s.m43, s.m41, s.v4, -1.f); });
  add("vanilla_lstm_gates_concat", "inputs of other sizes", [&s] {
    vanilla_lstm_gates_concat({s.v3, s.v3}, s.h1, s.m43, s.m41, s.v4);
  });
  add("vanilla_lstm_gates_concat", "a negative weightnoise_std",
      [&s] { vanilla_lstm_gates_concat({s.v3}, s.h1, s.m43, s.m41, s.v4, -1.f); });
  add("vanilla_lstm_gates_dropout", "a mask of another size",
      [&s] { vanilla_lstm_gates_dropout(s.v3, s.h1, s.m43, s.m41, s.v4, s.v4, s.h1); });
  add("vanilla_lstm_gates_dropout_concat", "a mask of another size",
      [&s] { vanilla_lstm_gates_dropout_concat({s.v3}, s.h1, s.m43, s.m41, s.v4, s.v3, s.v3); });
  add("vanilla_lstm_activations", "rows that are not 4 x hidden", [&s] { vanilla_lstm_activations(s.v3, 1.f); });
  add("vanilla_lstm_activations", "a matrix", [&s] { vanilla_lstm_activations(s.m34, 1.f); });
  add("vanilla_lstm_c", "gates of another size", [&s] { vanilla_lstm_c(s.v3, s.v4); });
  add("vanilla_lstm_h", "gates of another size", [&s] { vanilla_lstm_h(s.v3, s.v4); });
  add("conv2d", "filters of other input channels", [&s] { conv2d(s.m34, s.t223, {1, 1}); });
  add("conv2d", "one stride", [&s] { conv2d(s.m34, s.m33, {1}); });
  add("conv2d", "a bias of other output channels", [&s] { conv2d(s.m34, s.m33, s.v3, {1, 1}); });
  add("maxpooling2d", "one window size", [&s] { maxpooling2d(s.m34, {1}, {1, 1}); });
  add("maxpooling2d", "a window larger than x", [&s] { maxpooling2d(s.m34, {9, 9}, {1, 1}); });
  add("filter1d_narrow", "filters wider than x", [&s] { filter1d_narrow(s.m34, s.t223); });
  add("kmax_pooling", "a k of 9", [&s] { kmax_pooling(s.m34, 9); });
  add("kmax_pooling", "a dimension index of 9", [&s] { kmax_pooling(s.m34, 1, 9); });
  add("fold_rows", "rows that do not divide", [&s] { fold_rows(s.v3, 2); });
  add("circ_conv", "vectors of other sizes", [&s] { circ_conv(s.v3, s.v4); });
  add("circ_corr", "vectors of other sizes", [&s] { circ_corr(s.v3, s.v4); });

  // Leaves.
  add("input", "too few values", [&s] { input(s.cg, Dim({3}), {1.f}); });
  add("input", "a null pointer", [&s] { input(s.cg, static_cast<const float*>(nullptr)); });
  add("input", "a null vector pointer",
      [&s] { input(s.cg, Dim({3}), static_cast<const std::vector<float>*>(nullptr)); });
  add("parameter", "an empty Parameter", [&s] { parameter(s.cg, Parameter()); });
  add("parameter", "an empty LookupParameter", [&s] { parameter(s.cg, LookupParameter()); });
  add("const_parameter", "an empty Parameter", [&s] { const_parameter(s.cg, Parameter()); });
  add("const_parameter", "an empty LookupParameter", [&s] { const_parameter(s.cg, LookupParameter()); });
  add("parameter", "a table row out of range", [&s] { parameter(s.cg, s.table, 7u); });
  add("const_parameter", "an empty LookupParameter's row", [&s] { const_parameter(s.cg, LookupParameter(), 0u); });
  add("lookup", "an empty LookupParameter", [&s] { lookup(s.cg, LookupParameter(), 0u); });
  add("lookup", "a row out of range", [&s] { lookup(s.cg, s.table, 7u); });
  add("lookup", "rows out of range", [&s] { lookup(s.cg, s.named_table, s.far); });
  add("lookup", "no rows", [&s] { lookup(s.cg, s.table, std::vector<unsigned>{}); });
  add("lookup", "a null pointer", [&s] { lookup(s.cg, s.table, static_cast<const unsigned*>(nullptr)); });
  add("lookup", "a pointer to a row out of range at forward", [&s] {
    ComputationGraph cg;
    cg.forward(lookup(cg, s.table, &s.nine));
  });
  add("const_lookup", "a row out of range", [&s] { const_lookup(s.cg, s.table, 7u); });
  add("const_lookup", "a null vector pointer",
      [&s] { const_lookup(s.cg, s.table, static_cast<const std::vector<unsigned>*>(nullptr)); });
  add("random_normal", "a negative stddev", [&s] { random_normal(s.cg, Dim({3}), 0.f, -1.f); });
  add("random_uniform", "left above right", [&s] { random_uniform(s.cg, Dim({3}), 1.f, 0.f); });
  add("random_bernoulli", "a probability of 2", [&s] { random_bernoulli(s.cg, Dim({3}), 2.f); });
  add("random_gumbel", "a beta of 0", [&s] { random_gumbel(s.cg, Dim({3}), 0.f, 0.f); });
  add("input", "more sparse ids than values", [&s] { input(s.cg, Dim({3}), s.indices, {1.f}); });
  add("input", "a sparse id out of range", [&s] { input(s.cg, Dim({3}), s.far, {1.f, 2.f}); });
  add("one_hot", "an index out of range", [&s] { one_hot(s.cg, 3, 9u); });
  add("one_hot", "indices out of range", [&s] { one_hot(s.cg, 3, s.far); });
  add("one_hot", "no indices", [&s] { one_hot(s.cg, 3, std::vector<unsigned>{}); });

  // Indices and values read by pointer are checked again by every forward, in a graph of their own.
  auto at_forward = [&add, &s](const std::string& name, const std::string& how,
                               std::function<Expression(ComputationGraph&, unsigned&, std::vector<unsigned>&)> f) {
    add(name, how, [f] {
      ComputationGraph cg;
      unsigned index = 0;
      std::vector<unsigned> indices{0};
      const Expression e = f(cg, index, indices);
      index = 9;
      indices = {0, 1};
      cg.forward(e);
    });
  };
  auto x3 = [](ComputationGraph& cg) { return input(cg, Dim({3}), {1.f, 2.f, 3.f}); };
  at_forward("pick", "a pointer to an index that left the range",
             [x3](ComputationGraph& cg, unsigned& i, std::vector<unsigned>&) { return pick(x3(cg), &i); });
  at_forward("pick", "a vector that changed size",
             [x3](ComputationGraph& cg, unsigned&, std::vector<unsigned>& v) { return pick(x3(cg), &v); });
  at_forward("hinge", "a pointer to a class that left the range",
             [x3](ComputationGraph& cg, unsigned& i, std::vector<unsigned>&) { return hinge(x3(cg), &i); });
  at_forward("hinge_dim", "a vector that changed size",
             [x3](ComputationGraph& cg, unsigned&, std::vector<unsigned>& v) { return hinge_dim(x3(cg), &v); });
  at_forward("pickneglogsoftmax", "a vector that changed size",
             [x3](ComputationGraph& cg, unsigned&, std::vector<unsigned>& v) { return pickneglogsoftmax(x3(cg), &v); });
  at_forward("lookup", "a pointer to a row that left the range",
             [&s](ComputationGraph& cg, unsigned& i, std::vector<unsigned>&) { return lookup(cg, s.table, &i); });
  at_forward("const_lookup", "a vector that changed size",
             [&s](ComputationGraph& cg, unsigned&, std::vector<unsigned>& v) { return const_lookup(cg, s.table, &v); });
  add("input", "a vector that changed size", [] {
    ComputationGraph cg;
    std::vector<float> values{1.f};
    const Expression e = input(cg, Dim({1}), &values);
    values.push_back(2.f);
    cg.forward(e);
  });
  add("sparsemax_loss", "a support that left the range", [x3] {
    ComputationGraph cg;
    std::vector<unsigned> support{0};
    const Expression e = sparsemax_loss(x3(cg), &support);
    support = {9};
    cg.forward(e);
  });
  return m;
}

}  // namespace

TEST_CASE("a misused function's message names it once, and no other function or op", "[ops][errors]") {
  Scene s;
  check_messages(expression_misuses(s));
}

// A new op needs its misuses above; an op without any says so here, with the reason.
TEST_CASE("every registered op is misused by the message test", "[ops][errors]") {
  const std::set<std::string> without_misuse{
      "constant",  // every Dim is a valid constant
  };
  const std::map<std::string, std::string> called_as{{"add", "operator+"},
                                                     {"subtract", "operator-"},
                                                     {"negate", "operator-"},
                                                     {"add_constant", "operator+"},
                                                     {"constant_minus", "operator-"},
                                                     {"multiply_constant", "operator*"},
                                                     {"matmul", "operator*"},
                                                     {"select_rows_cols", "select_rows"},
                                                     {"lookup_table_parameter", "parameter"},
                                                     {"const_lookup_table_parameter", "const_parameter"},
                                                     {"lookup_row_parameter", "parameter"},
                                                     {"const_lookup_row_parameter", "const_parameter"},
                                                     {"restricted_log_softmax", "log_softmax"}};
  Scene s;
  std::set<std::string> misused;
  for (const Misuse& m : expression_misuses(s)) misused.insert(m.function);
  for (const OpDef* op : registered_ops()) {
    const auto alias = called_as.find(op->name);
    const std::string function = alias == called_as.end() ? op->name : alias->second;
    INFO("op " << op->name << ": add a misuse of " << function << " to tests/ops/messages_test.cc");
    CHECK((misused.count(function) == 1 || without_misuse.count(op->name) == 1));
  }
}

TEST_CASE("messages name a parameter as the user did, or say it is unnamed", "[ops][errors]") {
  ParameterCollection model;
  LookupParameter unnamed = model.add_lookup_parameters(5, {3});
  LookupParameter named = model.add_lookup_parameters(5, {3}, "embeddings");
  ParameterCollection sub = model.add_subcollection("encoder");
  LookupParameter nested = sub.add_lookup_parameters(2, {4});
  ComputationGraph cg;
  CHECK_THROWS_WITH(
      lookup(cg, unnamed, 7u),
      Catch::Equals("lookup: index 7 is out of range for an unnamed LookupParameter of 5 rows of dim {3}"));
  CHECK_THROWS_WITH(lookup(cg, named, 7u), Catch::Contains("for the LookupParameter '/embeddings' of 5 rows"));
  CHECK_THROWS_WITH(lookup(cg, nested, 7u),
                    Catch::Contains("an unnamed LookupParameter of the collection '/encoder/' of 2 rows of dim {4}"));
  Parameter p = model.add_parameters({2});
  CHECK_THROWS_WITH(p.set_value({1.f}), Catch::Equals("Parameter::set_value: an unnamed Parameter of dim {2} holds 2 "
                                                      "values, got 1 values"));
  CHECK_THROWS_WITH(unnamed.initialize(0, {1.f}), !Catch::Contains("/_"));
}

TEST_CASE("an empty expression is reported in the same words wherever it is met", "[ops][errors]") {
  ComputationGraph cg;
  const Expression x = input(cg, 1.f), empty;
  CHECK_THROWS_WITH(tanh(empty), Catch::Equals(std::string("tanh: ") + kEmptyExpressionUsed));
  CHECK_THROWS_WITH(x + empty, Catch::Equals(std::string("operator+: ") + kEmptyExpressionUsed));
  CHECK_THROWS_WITH(mean_elems(empty), Catch::Equals(std::string("mean_elems: ") + kEmptyExpressionUsed));
}
