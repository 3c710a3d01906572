#pragma once
// The LSTM language model of ../shared/BENCHMARKS.md (DyNet's rnnlm-batch, Cavs' fixed-lstm and
// var-lstm): each word is embedded, read by a VanillaLSTM, and the next word is predicted by a
// softmax over the vocabulary. A minibatch is written one of two ways. Padded, as DyNet's
// rnnlm-batch: at step t every sentence feeds its t-th word at once as one batched expression,
// sentences that already ended are padded and their losses masked out. One sentence at a time, as
// a dybatch user writes sequences of their own lengths: each sentence is its own sequence of
// unbatched expressions, and the autobatcher joins the steps that are alike, so no padded position
// is ever computed.

#include <string>
#include <vector>

#include "builders/standard_softmax_builder.h"
#include "builders/vanilla_lstm_builder.h"
#include "dynet_core/expression.h"
#include "dynet_core/io/dict.h"
#include "dynet_core/param_collection.h"
#include "workloads/datasets.h"

namespace bench {

class RNNLanguageModel {
 public:
  /// `words` holds the sentence boundary `boundary` (added here if missing) and must not grow
  /// afterwards.
  RNNLanguageModel(dynet::ParameterCollection& pc, unsigned embedding, unsigned hidden, dynet::Dict& words,
                   const std::string& boundary);

  enum class Layout { kPadded, kSentenceBySentence };

  /// -log p of every word of the sentences and of each sentence's end, summed over the batch.
  dynet::Expression loss(dynet::ComputationGraph& cg, const std::vector<const WordIds*>& sentences,
                         Layout layout = Layout::kPadded);
  /// Words to predict in a sentence: its words and its end.
  static std::size_t predicted_words(const WordIds& s) { return s.size() + 1; }

 private:
  dynet::Expression padded_loss(dynet::ComputationGraph& cg, const std::vector<const WordIds*>& sentences);
  dynet::Expression sentence_loss(dynet::ComputationGraph& cg, const WordIds& sentence);

  unsigned boundary_;
  dynet::VanillaLSTMBuilder lstm_;
  dynet::LookupParameter embeddings_;
  dynet::StandardSoftmaxBuilder softmax_;
};

}  // namespace bench
