// Every builder DyNet has puts DyNet's parameters in the collection: the same number, order, kinds,
// shapes and names (keys), so that a file DyNet saved populates it. The expected records are those
// a real DyNet 2.1 build wrote for this program (record kind, key, dims, in file order: every
// parameter, then every lookup parameter); the builders missing from that file are checked against
// DyNet's constructors (cfsm-builder.cc, hsm-builder.cc, deep-lstm.cc).

#include <catch2/catch.hpp>

#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "builders/class_factored_softmax_builder.h"
#include "builders/compact_vanilla_lstm_builder.h"
#include "builders/coupled_lstm_builder.h"
#include "builders/deep_lstm_builder.h"
#include "builders/fast_lstm_builder.h"
#include "builders/gru_builder.h"
#include "builders/hierarchical_softmax_builder.h"
#include "builders/nary_tree_lstm_builder.h"
#include "builders/sequence_tree_lstm_builders.h"
#include "builders/simple_rnn_builder.h"
#include "builders/standard_softmax_builder.h"
#include "builders/vanilla_lstm_builder.h"
#include "dynet_core/io/dict.h"
#include "support/temp_file.h"

using namespace dynet;

namespace {

/// The records of `model` from parameter `first_param` and lookup parameter `first_lookup` on,
/// as DyNet's file header lines without byte count and gradient flag.
std::vector<std::string> records(const ParameterCollection& model, std::size_t first_param = 0,
                                 std::size_t first_lookup = 0) {
  std::vector<std::string> lines;
  const auto& params = model.parameters_list();
  for (std::size_t k = first_param; k < params.size(); ++k)
    lines.push_back("#Parameter# " + params[k]->name + " " + to_string(params[k]->dim));
  const auto& lookups = model.lookup_parameters_list();
  for (std::size_t k = first_lookup; k < lookups.size(); ++k)
    lines.push_back("#LookupParameter# " + lookups[k]->name + " " + to_string(lookups[k]->all_dim));
  return lines;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

/// One builder of DyNet's program and the records it added to DyNet's file.
struct Entry {
  const char* builder;
  std::function<void(ParameterCollection&)> make;
  const char* dynet_records;
};

// model-files.md's program: one collection, input 6, hidden 5, the builders in this order.
const std::vector<Entry> kDyNetProgram = {
    {"SimpleRNNBuilder(2, 6, 5)", [](ParameterCollection& pc) { SimpleRNNBuilder(2, 6, 5, pc); }, R"(
#Parameter# /simple-rnn-builder/_0 {5,6}
#Parameter# /simple-rnn-builder/_1 {5,5}
#Parameter# /simple-rnn-builder/_2 {5}
#Parameter# /simple-rnn-builder/_3 {5,5}
#Parameter# /simple-rnn-builder/_4 {5,5}
#Parameter# /simple-rnn-builder/_5 {5}
)"},
    {"GRUBuilder(2, 6, 5)", [](ParameterCollection& pc) { GRUBuilder(2, 6, 5, pc); }, R"(
#Parameter# /gru-builder/_0 {5,6}
#Parameter# /gru-builder/_1 {5,5}
#Parameter# /gru-builder/_2 {5}
#Parameter# /gru-builder/_3 {5,6}
#Parameter# /gru-builder/_4 {5,5}
#Parameter# /gru-builder/_5 {5}
#Parameter# /gru-builder/_6 {5,6}
#Parameter# /gru-builder/_7 {5,5}
#Parameter# /gru-builder/_8 {5}
#Parameter# /gru-builder/_9 {5,5}
#Parameter# /gru-builder/_10 {5,5}
#Parameter# /gru-builder/_11 {5}
#Parameter# /gru-builder/_12 {5,5}
#Parameter# /gru-builder/_13 {5,5}
#Parameter# /gru-builder/_14 {5}
#Parameter# /gru-builder/_15 {5,5}
#Parameter# /gru-builder/_16 {5,5}
#Parameter# /gru-builder/_17 {5}
)"},
    {"VanillaLSTMBuilder(2, 6, 5)", [](ParameterCollection& pc) { VanillaLSTMBuilder(2, 6, 5, pc); }, R"(
#Parameter# /vanilla-lstm-builder/_0 {20,6}
#Parameter# /vanilla-lstm-builder/_1 {20,5}
#Parameter# /vanilla-lstm-builder/_2 {20}
#Parameter# /vanilla-lstm-builder/_3 {20,5}
#Parameter# /vanilla-lstm-builder/_4 {20,5}
#Parameter# /vanilla-lstm-builder/_5 {20}
)"},
    {"VanillaLSTMBuilder(1, 6, 5, ln_lstm)", [](ParameterCollection& pc) { VanillaLSTMBuilder(1, 6, 5, pc, true); },
     R"(
#Parameter# /vanilla-lstm-builder_1/_0 {20,6}
#Parameter# /vanilla-lstm-builder_1/_1 {20,5}
#Parameter# /vanilla-lstm-builder_1/_2 {20}
#Parameter# /_0 {20}
#Parameter# /_1 {20}
#Parameter# /_2 {20}
#Parameter# /_3 {20}
#Parameter# /_4 {5}
#Parameter# /_5 {5}
)"},
    {"CoupledLSTMBuilder(2, 6, 5)", [](ParameterCollection& pc) { CoupledLSTMBuilder(2, 6, 5, pc); }, R"(
#Parameter# /lstm-builder/_0 {5,6}
#Parameter# /lstm-builder/_1 {5,5}
#Parameter# /lstm-builder/_2 {5,5}
#Parameter# /lstm-builder/_3 {5}
#Parameter# /lstm-builder/_4 {5,6}
#Parameter# /lstm-builder/_5 {5,5}
#Parameter# /lstm-builder/_6 {5,5}
#Parameter# /lstm-builder/_7 {5}
#Parameter# /lstm-builder/_8 {5,6}
#Parameter# /lstm-builder/_9 {5,5}
#Parameter# /lstm-builder/_10 {5}
#Parameter# /lstm-builder/_11 {5,5}
#Parameter# /lstm-builder/_12 {5,5}
#Parameter# /lstm-builder/_13 {5,5}
#Parameter# /lstm-builder/_14 {5}
#Parameter# /lstm-builder/_15 {5,5}
#Parameter# /lstm-builder/_16 {5,5}
#Parameter# /lstm-builder/_17 {5,5}
#Parameter# /lstm-builder/_18 {5}
#Parameter# /lstm-builder/_19 {5,5}
#Parameter# /lstm-builder/_20 {5,5}
#Parameter# /lstm-builder/_21 {5}
)"},
    {"CompactVanillaLSTMBuilder(2, 6, 5)", [](ParameterCollection& pc) { CompactVanillaLSTMBuilder(2, 6, 5, pc); },
     R"(
#Parameter# /compact-vanilla-lstm-builder/_0 {20,6}
#Parameter# /compact-vanilla-lstm-builder/_1 {20,5}
#Parameter# /compact-vanilla-lstm-builder/_2 {20}
#Parameter# /compact-vanilla-lstm-builder/_3 {20,5}
#Parameter# /compact-vanilla-lstm-builder/_4 {20,5}
#Parameter# /compact-vanilla-lstm-builder/_5 {20}
)"},
    {"FastLSTMBuilder(2, 6, 5)", [](ParameterCollection& pc) { FastLSTMBuilder(2, 6, 5, pc); }, R"(
#Parameter# /fast-lstm-builder/_0 {5,6}
#Parameter# /fast-lstm-builder/_1 {5,5}
#Parameter# /fast-lstm-builder/_2 {5,1}
#Parameter# /fast-lstm-builder/_3 {5}
#Parameter# /fast-lstm-builder/_4 {5,6}
#Parameter# /fast-lstm-builder/_5 {5,5}
#Parameter# /fast-lstm-builder/_6 {5,1}
#Parameter# /fast-lstm-builder/_7 {5}
#Parameter# /fast-lstm-builder/_8 {5,6}
#Parameter# /fast-lstm-builder/_9 {5,5}
#Parameter# /fast-lstm-builder/_10 {5}
#Parameter# /fast-lstm-builder/_11 {5,5}
#Parameter# /fast-lstm-builder/_12 {5,5}
#Parameter# /fast-lstm-builder/_13 {5,1}
#Parameter# /fast-lstm-builder/_14 {5}
#Parameter# /fast-lstm-builder/_15 {5,5}
#Parameter# /fast-lstm-builder/_16 {5,5}
#Parameter# /fast-lstm-builder/_17 {5,1}
#Parameter# /fast-lstm-builder/_18 {5}
#Parameter# /fast-lstm-builder/_19 {5,5}
#Parameter# /fast-lstm-builder/_20 {5,5}
#Parameter# /fast-lstm-builder/_21 {5}
)"},
    {"NaryTreeLSTMBuilder(N = 2, 2, 6, 5)", [](ParameterCollection& pc) { NaryTreeLSTMBuilder(2, 2, 6, 5, pc); }, R"(
#Parameter# /nary-tree-lstm-builder/_0 {5,6}
#Parameter# /nary-tree-lstm-builder/_3 {5}
#Parameter# /nary-tree-lstm-builder/_4 {5,6}
#Parameter# /nary-tree-lstm-builder/_7 {5}
#Parameter# /nary-tree-lstm-builder/_8 {5,6}
#Parameter# /nary-tree-lstm-builder/_11 {5}
#Parameter# /nary-tree-lstm-builder/_12 {5,6}
#Parameter# /nary-tree-lstm-builder/_14 {5}
#Parameter# /nary-tree-lstm-builder/_15 {5,5}
#Parameter# /nary-tree-lstm-builder/_18 {5}
#Parameter# /nary-tree-lstm-builder/_19 {5,5}
#Parameter# /nary-tree-lstm-builder/_22 {5}
#Parameter# /nary-tree-lstm-builder/_23 {5,5}
#Parameter# /nary-tree-lstm-builder/_26 {5}
#Parameter# /nary-tree-lstm-builder/_27 {5,5}
#Parameter# /nary-tree-lstm-builder/_29 {5}
#LookupParameter# /nary-tree-lstm-builder/_1 {5,5,2}
#LookupParameter# /nary-tree-lstm-builder/_2 {5,5,2}
#LookupParameter# /nary-tree-lstm-builder/_5 {5,5,4}
#LookupParameter# /nary-tree-lstm-builder/_6 {5,5,4}
#LookupParameter# /nary-tree-lstm-builder/_9 {5,5,2}
#LookupParameter# /nary-tree-lstm-builder/_10 {5,5,2}
#LookupParameter# /nary-tree-lstm-builder/_13 {5,5,2}
#LookupParameter# /nary-tree-lstm-builder/_16 {5,5,2}
#LookupParameter# /nary-tree-lstm-builder/_17 {5,5,2}
#LookupParameter# /nary-tree-lstm-builder/_20 {5,5,4}
#LookupParameter# /nary-tree-lstm-builder/_21 {5,5,4}
#LookupParameter# /nary-tree-lstm-builder/_24 {5,5,2}
#LookupParameter# /nary-tree-lstm-builder/_25 {5,5,2}
#LookupParameter# /nary-tree-lstm-builder/_28 {5,5,2}
)"},
    {"UnidirectionalTreeLSTMBuilder(2, 6, 5)",
     [](ParameterCollection& pc) { UnidirectionalTreeLSTMBuilder(2, 6, 5, pc); }, R"(
#Parameter# /unidirectional-tree-lstm-builder/vanilla-lstm-builder/_0 {20,6}
#Parameter# /unidirectional-tree-lstm-builder/vanilla-lstm-builder/_1 {20,5}
#Parameter# /unidirectional-tree-lstm-builder/vanilla-lstm-builder/_2 {20}
#Parameter# /unidirectional-tree-lstm-builder/vanilla-lstm-builder/_3 {20,5}
#Parameter# /unidirectional-tree-lstm-builder/vanilla-lstm-builder/_4 {20,5}
#Parameter# /unidirectional-tree-lstm-builder/vanilla-lstm-builder/_5 {20}
)"},
    // DyNet's program passed hidden_dim 5, which its release build halves to 2 unchecked; here
    // an odd hidden_dim is refused, and 4 gives the same two LSTMs of 2.
    {"BidirectionalTreeLSTMBuilder(2, 6, 4)",
     [](ParameterCollection& pc) { BidirectionalTreeLSTMBuilder(2, 6, 4, pc); }, R"(
#Parameter# /bidirectional-tree-lstm-builder/vanilla-lstm-builder/_0 {8,6}
#Parameter# /bidirectional-tree-lstm-builder/vanilla-lstm-builder/_1 {8,2}
#Parameter# /bidirectional-tree-lstm-builder/vanilla-lstm-builder/_2 {8}
#Parameter# /bidirectional-tree-lstm-builder/vanilla-lstm-builder/_3 {8,2}
#Parameter# /bidirectional-tree-lstm-builder/vanilla-lstm-builder/_4 {8,2}
#Parameter# /bidirectional-tree-lstm-builder/vanilla-lstm-builder/_5 {8}
#Parameter# /bidirectional-tree-lstm-builder/vanilla-lstm-builder_1/_0 {8,6}
#Parameter# /bidirectional-tree-lstm-builder/vanilla-lstm-builder_1/_1 {8,2}
#Parameter# /bidirectional-tree-lstm-builder/vanilla-lstm-builder_1/_2 {8}
#Parameter# /bidirectional-tree-lstm-builder/vanilla-lstm-builder_1/_3 {8,2}
#Parameter# /bidirectional-tree-lstm-builder/vanilla-lstm-builder_1/_4 {8,2}
#Parameter# /bidirectional-tree-lstm-builder/vanilla-lstm-builder_1/_5 {8}
)"},
    {"StandardSoftmaxBuilder(5, 7)", [](ParameterCollection& pc) { StandardSoftmaxBuilder(5, 7, pc); }, R"(
#Parameter# /standard-softmax-builder/_0 {7,5}
#Parameter# /standard-softmax-builder/_1 {7}
)"},
    {"SimpleRNNBuilder(1, 6, 5, support_lags)", [](ParameterCollection& pc) { SimpleRNNBuilder(1, 6, 5, pc, true); },
     R"(
#Parameter# /simple-rnn-builder_1/_0 {5,6}
#Parameter# /simple-rnn-builder_1/_1 {5,5}
#Parameter# /simple-rnn-builder_1/_2 {5}
#Parameter# /simple-rnn-builder_1/_3 {5,5}
)"},
};

}  // namespace

TEST_CASE("every builder adds the parameters DyNet 2.1's adds, in its order, with its keys and dims",
          "[builders][layout]") {
  ParameterCollection pc;
  for (const Entry& e : kDyNetProgram) {
    INFO(e.builder);
    const std::size_t params = pc.parameters_list().size(), lookups = pc.lookup_parameters_list().size();
    e.make(pc);
    CHECK(records(pc, params, lookups) == lines_of(e.dynet_records));
  }
}

TEST_CASE("the builders missing from DyNet's file add what DyNet's constructors add", "[builders][layout]") {
  test_support::TempFile clusters("clusters.txt", "0\ta\n0\tb\n1 0\tc\n1 1\td\n1 1\te\n1 1\tf\n");
  Dict words;
  // cfsm-builder.cc: class scores, then the word scores of every class of more than one word;
  // hsm-builder.cc: per cluster, root first, {1, rep} and {1} for two branches, {k, rep} and {k}
  // for k > 2, nothing for one; deep-lstm.cc: CoupledLSTMBuilder's eleven a layer, the upper
  // layers reading {hidden + input}.
  const std::vector<Entry> sources = {
      {"ClassFactoredSoftmaxBuilder(4, 3 classes)",
       [&words](ParameterCollection& pc) {
         ClassFactoredSoftmaxBuilder(4, {{"a", "w1"}, {"a", "w2"}, {"b", "w3"}, {"c", "w4"}, {"c", "w5"}, {"c", "w6"}},
                                     words, pc);
       },
       R"(
#Parameter# /class-factored-softmax-builder/_0 {3,4}
#Parameter# /class-factored-softmax-builder/_1 {3}
#Parameter# /class-factored-softmax-builder/_2 {2,4}
#Parameter# /class-factored-softmax-builder/_3 {2}
#Parameter# /class-factored-softmax-builder/_4 {3,4}
#Parameter# /class-factored-softmax-builder/_5 {3}
)"},
      {"HierarchicalSoftmaxBuilder(4, 5 clusters)",
       [&](ParameterCollection& pc) { HierarchicalSoftmaxBuilder(4, clusters.path(), words, pc); }, R"(
#Parameter# /hsm-builder/_0 {1,4}
#Parameter# /hsm-builder/_1 {1}
#Parameter# /hsm-builder/_2 {1,4}
#Parameter# /hsm-builder/_3 {1}
#Parameter# /hsm-builder/_4 {1,4}
#Parameter# /hsm-builder/_5 {1}
#Parameter# /hsm-builder/_6 {3,4}
#Parameter# /hsm-builder/_7 {3}
)"},
      {"DeepLSTMBuilder(2, 6, 5)", [](ParameterCollection& pc) { DeepLSTMBuilder(2, 6, 5, pc); }, R"(
#Parameter# /deep-lstm-builder/_0 {5,6}
#Parameter# /deep-lstm-builder/_1 {5,5}
#Parameter# /deep-lstm-builder/_2 {5,5}
#Parameter# /deep-lstm-builder/_3 {5}
#Parameter# /deep-lstm-builder/_4 {5,6}
#Parameter# /deep-lstm-builder/_5 {5,5}
#Parameter# /deep-lstm-builder/_6 {5,5}
#Parameter# /deep-lstm-builder/_7 {5}
#Parameter# /deep-lstm-builder/_8 {5,6}
#Parameter# /deep-lstm-builder/_9 {5,5}
#Parameter# /deep-lstm-builder/_10 {5}
#Parameter# /deep-lstm-builder/_11 {5,11}
#Parameter# /deep-lstm-builder/_12 {5,5}
#Parameter# /deep-lstm-builder/_13 {5,5}
#Parameter# /deep-lstm-builder/_14 {5}
#Parameter# /deep-lstm-builder/_15 {5,11}
#Parameter# /deep-lstm-builder/_16 {5,5}
#Parameter# /deep-lstm-builder/_17 {5,5}
#Parameter# /deep-lstm-builder/_18 {5}
#Parameter# /deep-lstm-builder/_19 {5,11}
#Parameter# /deep-lstm-builder/_20 {5,5}
#Parameter# /deep-lstm-builder/_21 {5}
)"},
  };
  for (const Entry& e : sources) {
    INFO(e.builder);
    ParameterCollection pc;
    e.make(pc);
    CHECK(records(pc) == lines_of(e.dynet_records));
  }
}
