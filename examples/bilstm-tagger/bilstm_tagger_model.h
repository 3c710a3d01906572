#pragma once
// A BiLSTM tagger (as DyNet's benchmark bilstm-tagger): each word is represented by its
// embedding, or, in the word+char variant, rare words by the final states of a character
// BiLSTM over their spelling; a BiLSTM reads the sentence, and an MLP (tanh) scores the tags of
// every word. A minibatch of sentences shares one graph.

#include <memory>
#include <string>
#include <vector>

#include "builders/bi_rnn_builder.h"
#include "dynet_core/expression.h"
#include "dynet_core/param_collection.h"
#include "examples/bilstm-tagger/tagger_vocabulary.h"
#include "examples/common/tagged_corpus.h"
#include "trainers/sharded_training.h"
#include "trainers/trainer.h"

namespace examples {

struct TaggerShape {
  unsigned embedding = 128;     ///< word embedding size (also the char BiLSTM's output size)
  unsigned hidden = 50;         ///< state size of each direction of the sentence BiLSTM
  unsigned mlp = 32;
  unsigned char_embedding = 0;  ///< 0: words only
};

/// Correctly tagged words, of all words.
struct TagAccuracy {
  std::size_t correct = 0, words = 0;
  double value() const { return words ? double(correct) / words : 0.0; }
};

class BiLSTMTagger {
 public:
  BiLSTMTagger(dynet::ParameterCollection& model, const TaggerShape& shape, const TaggerVocabulary& vocabulary);
  /// A tagger over the same parameters with graph state of its own.
  BiLSTMTagger(const BiLSTMTagger& other);
  BiLSTMTagger& operator=(const BiLSTMTagger&) = delete;

  /// One update on the summed loss of the sentences, built in one graph — or in one graph per
  /// training thread, each over a share of the sentences, run at once; returns that loss.
  double train(const std::vector<const EncodedSentence*>& sentences, dynet::Trainer& trainer);
  /// Binds the model to `cg` for training and builds the summed loss of the sentences in it.
  dynet::Expression loss(dynet::ComputationGraph& cg, const std::vector<const EncodedSentence*>& sentences);
  /// Tags the sentences, `batch` per graph (one forward each).
  TagAccuracy evaluate(const std::vector<EncodedSentence>& sentences, unsigned batch);

  void new_graph(dynet::ComputationGraph& cg, bool training);
  /// Graphs built at once per update (default: --dynet-threads).
  void set_training_threads(unsigned n) { sharded_.set_threads(n); }
  /// Shares each update's sentences with the other ranks of an MPI job (null: trains alone).
  void set_reducer(dynet::DistributedReducer* reducer) { sharded_.set_reducer(reducer); }
  /// The tag scores of every word of the sentence, built in the bound graph.
  std::vector<dynet::Expression> tag_scores(dynet::ComputationGraph& cg, const EncodedSentence& s);

 private:
  dynet::Expression word_representation(dynet::ComputationGraph& cg, const EncodedSentence& s, std::size_t i);

  TaggerShape shape_;
  unsigned tags_;
  bool training_ = false;
  dynet::LookupParameter word_embeddings_, char_embeddings_;
  dynet::BiRNNBuilder sentence_rnn_;
  std::unique_ptr<dynet::BiRNNBuilder> char_rnn_;  ///< only in the word+char variant
  dynet::Parameter p_hidden_w_, p_hidden_b_, p_out_w_, p_out_b_;
  dynet::Expression hidden_w_, hidden_b_, out_w_, out_b_;
  dynet::ShardedTraining<BiLSTMTagger> sharded_;
};

}  // namespace examples
