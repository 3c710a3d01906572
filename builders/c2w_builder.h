#pragma once
// DyNet's C2WBuilder (Ling et al., 2015): a word's representation composed from its characters.
// One LSTM reads the characters left to right, another right to left; the representation is their
// final outputs joined, [fwd; rev] ({2 hidden}). Within one graph a word id is composed once and
// its representation reused (ids name word types).
//
//   C2WBuilder c2w(num_chars, 1, 16, 32, model);
//   c2w.new_graph(cg);
//   Expression w = c2w.add_word(word_id, chars_of_word, cg);   // {64}
//
// Parameters, all in the builder's own collection: the character embeddings {input_dim} per
// character, then the forward LSTM's, then the reverse LSTM's.

#include <map>
#include <vector>

#include "builders/vanilla_lstm_builder.h"
#include "dynet_core/expression.h"
#include "dynet_core/param_collection.h"

namespace dynet {

class ComputationGraph;

struct C2WBuilder {
  ParameterCollection local_model;
  LookupParameter p_lookup;  ///< the character embeddings
  LSTMBuilder fc2w;          ///< reads the characters left to right
  LSTMBuilder rc2w;          ///< reads them right to left

  C2WBuilder(int vocab_size, unsigned layers, unsigned input_dim, unsigned hidden_dim, ParameterCollection& m);

  /// Binds both LSTMs to `cg` and forgets the words composed in the previous graph.
  void new_graph(ComputationGraph& cg);
  void new_graph(ComputationGraph* cg) { new_graph(*cg); }
  /// The representation of word `word_id` spelled by `chars` (character ids, at least one):
  /// composed at its first call in the graph, the same Expression afterwards. Throws
  /// std::invalid_argument for an empty spelling, a character id out of range or a graph other
  /// than new_graph's.
  Expression add_word(int word_id, const std::vector<int>& chars, ComputationGraph& cg);
  Expression add_word(int word_id, const std::vector<int>& chars, ComputationGraph* cg) {
    return add_word(word_id, chars, *cg);
  }
  ParameterCollection& get_parameter_collection() { return local_model; }

 private:
  unsigned vocab_size_;
  ComputationGraph* cg_ = nullptr;
  std::map<int, Expression> composed_;  ///< per word id, in the bound graph
};

}  // namespace dynet
