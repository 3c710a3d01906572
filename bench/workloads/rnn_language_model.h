#pragma once
// The LSTM language model of ../shared/BENCHMARKS.md (DyNet's rnnlm-batch, Cavs' fixed-lstm and
// var-lstm): each word is embedded, read by a VanillaLSTM, and the next word is predicted by a
// softmax over the vocabulary. A minibatch of sentences runs as one batch: at step t every
// sentence feeds its t-th word at once, sentences that already ended are padded and their losses
// masked out.

#include <string>
#include <vector>

#include "builders/standard_softmax_builder.h"
#include "builders/vanilla_lstm_builder.h"
#include "dynet_core/dict.h"
#include "dynet_core/expression.h"
#include "dynet_core/param_collection.h"
#include "workloads/datasets.h"

namespace bench {

class RNNLanguageModel {
 public:
  /// `words` holds the sentence boundary `boundary` (added here if missing) and must not grow
  /// afterwards.
  RNNLanguageModel(dynet::ParameterCollection& pc, unsigned embedding, unsigned hidden, dynet::Dict& words,
                   const std::string& boundary);

  /// -log p of every word of the sentences and of each sentence's end, summed over the batch.
  dynet::Expression loss(dynet::ComputationGraph& cg, const std::vector<const WordIds*>& sentences);
  /// Words to predict in a sentence: its words and its end.
  static std::size_t predicted_words(const WordIds& s) { return s.size() + 1; }

 private:
  unsigned boundary_;
  dynet::VanillaLSTMBuilder lstm_;
  dynet::LookupParameter embeddings_;
  dynet::StandardSoftmaxBuilder softmax_;
};

}  // namespace bench
