#pragma once
// An LSTM language model: each word is embedded, read by a VanillaLSTM, and the next word is
// predicted by a softmax over the vocabulary (a full one, or class-factored). A minibatch of sentences runs as one batch: at step t every sentence feeds its t-th
// word at once, sentences that already ended are padded and their losses masked out.

#include <memory>
#include <string>
#include <vector>

#include "builders/class_factored_softmax_builder.h"
#include "builders/softmax_builder.h"
#include "builders/vanilla_lstm_builder.h"
#include "dynet_core/dict.h"
#include "dynet_core/expression.h"
#include "dynet_core/param_collection.h"
#include "trainers/sharded_training.h"
#include "trainers/trainer.h"

namespace examples {

/// Word ids of one sentence, without boundary markers.
using WordIds = std::vector<unsigned>;

struct LanguageModelShape {
  unsigned layers = 1, embedding = 128, hidden = 256;
  float dropout = 0.f;       ///< variational dropout on the LSTM's inputs and state, while training
  /// Classes of a class-factored softmax, covering the whole vocabulary; none: a full softmax.
  dynet::ClassFactoredSoftmaxBuilder::WordClasses word_classes;
};

class RNNLanguageModel {
 public:
  /// `words` holds the sentence boundary `boundary` (added here if missing) and must not grow
  /// afterwards; word classes, if any, must cover every word, the boundary too.
  RNNLanguageModel(dynet::ParameterCollection& model, const LanguageModelShape& shape, dynet::Dict& words,
                   const std::string& boundary);
  /// A language model over the same parameters with graph state of its own.
  RNNLanguageModel(const RNNLanguageModel& other);
  RNNLanguageModel& operator=(const RNNLanguageModel&) = delete;

  /// -log p of every word of the sentences and of each sentence's end, summed over the batch.
  dynet::Expression loss(dynet::ComputationGraph& cg, const std::vector<const WordIds*>& sentences, bool training);
  /// One update on a minibatch — in one graph, or in one graph per training thread over a share
  /// of the sentences, run at once; returns its summed loss.
  double train(const std::vector<const WordIds*>& sentences, dynet::Trainer& trainer);
  /// Graphs built at once per update (default: --dynet-threads).
  void set_training_threads(unsigned n) { sharded_.set_threads(n); }
  /// Shares each update's sentences with the other ranks of an MPI job (null: trains alone).
  void set_reducer(dynet::DistributedReducer* reducer) { sharded_.set_reducer(reducer); }
  /// The summed loss of the sentences, `batch` per graph.
  double evaluate(const std::vector<WordIds>& sentences, unsigned batch);
  /// Words to predict in a sentence: its words and its end.
  static std::size_t predicted_words(const WordIds& s) { return s.size() + 1; }

 private:
  LanguageModelShape shape_;
  unsigned boundary_;
  dynet::LookupParameter embeddings_;
  dynet::VanillaLSTMBuilder lstm_;
  std::unique_ptr<dynet::SoftmaxBuilder> softmax_;
  dynet::ShardedTraining<RNNLanguageModel> sharded_;
};

}  // namespace examples
