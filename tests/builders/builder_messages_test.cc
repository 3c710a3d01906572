// Every builder, misused: the message starts with the method the user called ("GRUBuilder::add_input"),
// names it once, names no op (a batch mismatch is the builder's, not affine_transform's) and is a
// std::invalid_argument, as every other misuse.

#include <catch2/catch.hpp>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "builders/bi_rnn_builder.h"
#include "builders/child_sum_tree_lstm_builder.h"
#include "builders/class_factored_softmax_builder.h"
#include "builders/compact_vanilla_lstm_builder.h"
#include "builders/coupled_lstm_builder.h"
#include "builders/gru_builder.h"
#include "builders/nary_tree_lstm_builder.h"
#include "builders/sequence_tree_lstm_builders.h"
#include "builders/simple_rnn_builder.h"
#include "builders/standard_softmax_builder.h"
#include "builders/vanilla_lstm_builder.h"
#include "dynet_core/graph.h"
#include "dynet_core/io/dict.h"
#include "dynet_core/ops/all_ops.h"
#include "support/message_check.h"

using namespace dynet;

namespace {

constexpr unsigned kInput = 3, kHidden = 4;

struct Misuse {
  std::string function;
  std::string how;
  std::function<void()> call;
};

void check_all(const std::vector<Misuse>& misuses) {
  std::set<std::string> others = test_support::op_names();
  others.insert({"Expression::dim", "Expression::value"});
  for (const Misuse& m : misuses) {
    others.insert(m.function);
    others.insert(m.function.substr(0, m.function.find("::")));
  }
  for (const Misuse& m : misuses) test_support::check_message(m.function, m.how, m.call, others);
}

Expression vector_of(ComputationGraph& cg, unsigned rows, unsigned batch = 1) {
  return input(cg, Dim({rows}, batch), std::vector<float>(rows * batch, 0.5f));
}

/// Adds misuses of `method` of a Builder made by `make` in a graph of its own (after new_graph
/// unless `bound` is false).
template <class Builder>
auto misuses_of(std::vector<Misuse>& m, const std::string& name, std::function<Builder(ParameterCollection&)> make) {
  return [&m, name, make](const std::string& method, const std::string& how,
                          std::function<void(Builder&, ComputationGraph&)> f, bool bound = true) {
    m.push_back({name + "::" + method, how, [make, f, bound] {
                   ParameterCollection model;
                   Builder builder = make(model);
                   ComputationGraph cg;
                   if (bound) builder.new_graph(cg);
                   f(builder, cg);
                 }});
  };
}

template <class Builder>
void recurrent_misuses(std::vector<Misuse>& m, const std::string& name) {
  auto with = misuses_of<Builder>(m, name, [](ParameterCollection& pc) { return Builder(2, kInput, kHidden, pc); });
  m.push_back({name, "no layers", [] {
                 ParameterCollection model;
                 Builder(0, kInput, kHidden, model);
               }});
  with(
      "add_input", "no new_graph", [](Builder& b, ComputationGraph& cg) { b.add_input(vector_of(cg, kInput)); }, false);
  with(
      "start_new_sequence", "no new_graph", [](Builder& b, ComputationGraph&) { b.start_new_sequence(); }, false);
  with(
      "set_dropout_masks", "no new_graph", [](Builder& b, ComputationGraph&) { b.set_dropout_masks(2); }, false);
  with("add_input", "an input of other rows", [](Builder& b, ComputationGraph& cg) { b.add_input(vector_of(cg, 5)); });
  with("add_input", "an empty expression", [](Builder& b, ComputationGraph&) { b.add_input(Expression()); });
  with("add_input", "an input of another graph", [](Builder& b, ComputationGraph&) {
    ComputationGraph other;
    b.add_input(vector_of(other, kInput));
  });
  with("add_input", "a batch of 3 after an initial state of batch 2", [](Builder& b, ComputationGraph& cg) {
    b.start_new_sequence(std::vector<Expression>(b.num_h0_components(), vector_of(cg, kHidden, 2)));
    b.add_input(vector_of(cg, kInput, 3));
  });
  with("add_input", "a batch of 3 after a batch of 2", [](Builder& b, ComputationGraph& cg) {
    b.add_input(vector_of(cg, kInput, 2));
    b.add_input(vector_of(cg, kInput, 3));
  });
  with("add_input", "a batch of 3 after a state of batch 2 set by set_s", [](Builder& b, ComputationGraph& cg) {
    b.set_s(-1, std::vector<Expression>(b.num_h0_components(), vector_of(cg, kHidden, 2)));
    b.add_input(vector_of(cg, kInput, 3));
  });
  with("add_input", "a position that does not exist",
       [](Builder& b, ComputationGraph& cg) { b.add_input(3, vector_of(cg, kInput)); });
  with("add_input", "a batch other than its dropout masks'", [](Builder& b, ComputationGraph& cg) {
    b.set_dropout(0.5f, 0.5f);
    b.set_dropout_masks(2);
    b.add_input(vector_of(cg, kInput, 3));
  });
  with("start_new_sequence", "one initial vector",
       [](Builder& b, ComputationGraph& cg) { b.start_new_sequence({vector_of(cg, kHidden)}); });
  with("rewind_one_step", "the initial state", [](Builder& b, ComputationGraph&) { b.rewind_one_step(); });
  with("back", "no input", [](Builder& b, ComputationGraph&) { b.back(); });
  with("set_dropout", "a rate of 1", [](Builder& b, ComputationGraph&) { b.set_dropout(1.f, 0.f); });
  with("set_dropout_masks", "a batch of 0", [](Builder& b, ComputationGraph&) { b.set_dropout_masks(0); });
  with("set_h", "one vector for two layers",
       [](Builder& b, ComputationGraph& cg) { b.set_h(-1, {vector_of(cg, kHidden)}); });
  with("set_s", "one vector", [](Builder& b, ComputationGraph& cg) { b.set_s(-1, {vector_of(cg, kHidden)}); });
  with("get_head", "a position that does not exist", [](Builder& b, ComputationGraph&) { b.get_head(5); });
  with("get_h", "a position that does not exist", [](Builder& b, ComputationGraph&) { b.get_h(5); });
}

template <class Builder>
void tree_misuses(std::vector<Misuse>& m, const std::string& name, std::function<Builder(ParameterCollection&)> make) {
  auto with = misuses_of<Builder>(m, name, make);
  with(
      "add_input", "no new_graph", [](Builder& t, ComputationGraph& cg) { t.add_input(0, {}, vector_of(cg, kInput)); },
      false);
  with("add_input", "children of batch 2 and 3", [](Builder& t, ComputationGraph& cg) {
    t.add_input(0, {}, vector_of(cg, kInput, 2));
    t.add_input(1, {}, vector_of(cg, kInput, 3));
    t.add_input(2, {0, 1}, Expression());
  });
  with("add_input", "an input of batch 3 over children of batch 2", [](Builder& t, ComputationGraph& cg) {
    t.add_input(0, {}, vector_of(cg, kInput, 2));
    t.add_input(1, {0}, vector_of(cg, kInput, 3));
  });
  with("add_input", "an input of other rows",
       [](Builder& t, ComputationGraph& cg) { t.add_input(0, {}, vector_of(cg, 5)); });
  with("add_input", "a negative id",
       [](Builder& t, ComputationGraph& cg) { t.add_input(-1, {}, vector_of(cg, kInput)); });
  with("add_input", "a child never added", [](Builder& t, ComputationGraph&) { t.add_input(0, {4}, Expression()); });
  with("add_input", "neither input nor children",
       [](Builder& t, ComputationGraph&) { t.add_input(0, {}, Expression()); });
  with("back", "no node", [](Builder& t, ComputationGraph&) { t.back(); });
  with("get_h", "a node never added", [](Builder& t, ComputationGraph&) { t.get_h(5); });
}

template <class Builder>
void softmax_misuses(std::vector<Misuse>& m, const std::string& name,
                     std::function<Builder(ParameterCollection&)> make) {
  auto with = misuses_of<Builder>(m, name, make);
  with(
      "neg_log_softmax", "no new_graph",
      [](Builder& b, ComputationGraph& cg) { b.neg_log_softmax(vector_of(cg, kHidden), 0); }, false);
  with("neg_log_softmax", "a class out of range",
       [](Builder& b, ComputationGraph& cg) { b.neg_log_softmax(vector_of(cg, kHidden), 99); });
  with("neg_log_softmax", "a representation of other rows",
       [](Builder& b, ComputationGraph& cg) { b.neg_log_softmax(vector_of(cg, 5), 0); });
  with("neg_log_softmax", "classes for another batch size", [](Builder& b, ComputationGraph& cg) {
    b.neg_log_softmax(vector_of(cg, kHidden, 2), std::vector<unsigned>{0, 1, 0});
  });
  with("full_log_distribution", "an empty expression",
       [](Builder& b, ComputationGraph&) { b.full_log_distribution(Expression()); });
  with("sample", "a batch", [](Builder& b, ComputationGraph& cg) { b.sample(vector_of(cg, kHidden, 2)); });
}

}  // namespace

TEST_CASE("a misused builder's message names the method called, once, and no op", "[builders][errors]") {
  std::vector<Misuse> m;
  recurrent_misuses<SimpleRNNBuilder>(m, "SimpleRNNBuilder");
  recurrent_misuses<VanillaLSTMBuilder>(m, "VanillaLSTMBuilder");
  recurrent_misuses<CompactVanillaLSTMBuilder>(m, "CompactVanillaLSTMBuilder");
  m.push_back({"CompactVanillaLSTMBuilder::set_weightnoise", "a negative deviation", [] {
                 ParameterCollection model;
                 CompactVanillaLSTMBuilder(1, kInput, kHidden, model).set_weightnoise(-0.5f);
               }});
  recurrent_misuses<CoupledLSTMBuilder>(m, "CoupledLSTMBuilder");
  recurrent_misuses<GRUBuilder>(m, "GRUBuilder");
  tree_misuses<NaryTreeLSTMBuilder>(
      m, "NaryTreeLSTMBuilder", [](ParameterCollection& pc) { return NaryTreeLSTMBuilder(2, 2, kInput, kHidden, pc); });
  tree_misuses<ChildSumTreeLSTMBuilder>(m, "ChildSumTreeLSTMBuilder", [](ParameterCollection& pc) {
    return ChildSumTreeLSTMBuilder(2, kInput, kHidden, pc);
  });
  tree_misuses<UnidirectionalTreeLSTMBuilder>(m, "UnidirectionalTreeLSTMBuilder", [](ParameterCollection& pc) {
    return UnidirectionalTreeLSTMBuilder(2, kInput, kInput, pc);
  });
  tree_misuses<BidirectionalTreeLSTMBuilder>(m, "BidirectionalTreeLSTMBuilder", [](ParameterCollection& pc) {
    return BidirectionalTreeLSTMBuilder(2, kInput, kHidden, pc);
  });
  m.push_back({"BidirectionalTreeLSTMBuilder", "an odd hidden_dim", [] {
                 ParameterCollection model;
                 BidirectionalTreeLSTMBuilder(1, kInput, 5, model);
               }});
  m.push_back({"UnidirectionalTreeLSTMBuilder::add_input", "children when input_dim != hidden_dim", [] {
                 ParameterCollection model;
                 UnidirectionalTreeLSTMBuilder t(1, kInput, kHidden, model);
                 ComputationGraph cg;
                 t.new_graph(cg);
                 t.add_input(0, {}, vector_of(cg, kInput));
                 t.add_input(1, {0}, Expression());
               }});
  m.push_back({"NaryTreeLSTMBuilder", "N = 0", [] {
                 ParameterCollection model;
                 NaryTreeLSTMBuilder(0, 1, kInput, kHidden, model);
               }});
  softmax_misuses<StandardSoftmaxBuilder>(
      m, "StandardSoftmaxBuilder", [](ParameterCollection& pc) { return StandardSoftmaxBuilder(kHidden, 5, pc); });
  Dict words;
  softmax_misuses<ClassFactoredSoftmaxBuilder>(m, "ClassFactoredSoftmaxBuilder", [&words](ParameterCollection& pc) {
    return ClassFactoredSoftmaxBuilder(kHidden, {{"x", "a"}, {"x", "b"}, {"y", "c"}}, words, pc);
  });

  auto bi = [&m](const std::string& method, const std::string& how,
                 std::function<void(BiRNNBuilder&, ComputationGraph&)> f) {
    m.push_back({"BiRNNBuilder::" + method, how, [f] {
                   ParameterCollection model;
                   BiRNNBuilder b(2, kInput, kHidden, model, builder_factory<GRUBuilder>());
                   ComputationGraph cg;
                   b.new_graph(cg);
                   f(b, cg);
                 }});
  };
  bi("transduce", "inputs of other rows",
     [](BiRNNBuilder& b, ComputationGraph& cg) { b.transduce({vector_of(cg, 5)}); });
  bi("add_inputs", "inputs of batch 2 and 3", [](BiRNNBuilder& b, ComputationGraph& cg) {
    b.add_inputs({vector_of(cg, kInput, 2), vector_of(cg, kInput, 3)});
  });
  bi("set_dropout", "a rate of 2", [](BiRNNBuilder& b, ComputationGraph&) { b.set_dropout(2.f, 0.f); });
  check_all(m);
}

TEST_CASE("a batch mismatch in a builder says what the user passed", "[builders][errors]") {
  ParameterCollection model;
  VanillaLSTMBuilder lstm(1, kInput, kHidden, model);
  ComputationGraph cg;
  lstm.new_graph(cg);
  lstm.start_new_sequence(std::vector<Expression>(2, vector_of(cg, kHidden, 2)));
  CHECK_THROWS_WITH(lstm.add_input(vector_of(cg, kInput, 3)),
                    Catch::Equals("VanillaLSTMBuilder::add_input: the input has batch size 3, but the initial state "
                                  "given to start_new_sequence has batch size 2 (batch sizes must agree, or be 1)"));
  CHECK(lstm.state() == -1);
  lstm.add_input(vector_of(cg, kInput));
  CHECK_THROWS_WITH(lstm.add_input(vector_of(cg, kInput, 3)),
                    Catch::Contains("the state at position 0 has batch size 2"));
}
