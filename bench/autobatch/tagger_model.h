#pragma once
// The BiLSTM tagger reference program of ../shared/BENCHMARKS.md (the bilstm-tagger example's
// model, words only): every word's embedding (emb) is read by a BiLSTM (hidden each way), and an
// MLP (mlp, tanh) and an output layer score the tags of every word; the loss of a minibatch is
// the summed pickneglogsoftmax of every word's tag, in one graph.

#include <vector>

#include "dynet_core/dybatch.h"
#include "examples/common/tagged_corpus.h"

namespace bench {

/// A sentence as ids: every word's and every tag's.
struct EncodedSentence {
  std::vector<unsigned> words, tags;
};

class TaggerModel {
 public:
  static constexpr unsigned kEmbedding = 128, kHidden = 50, kMlp = 32;

  /// Vocabularies of every word and tag of `sentences` (which it encodes), then the parameters.
  TaggerModel(dynet::ParameterCollection& pc, const std::vector<examples::TaggedSentence>& sentences);

  /// The summed loss of the sentences, built in cg.
  dynet::Expression loss(dynet::ComputationGraph& cg, const std::vector<const EncodedSentence*>& sentences);
  /// Floating-point operations per word, forward (GEMMs only).
  double flops_per_word() const;

  std::vector<EncodedSentence> encoded;

 private:
  dynet::Dict words_, tags_;
  dynet::LookupParameter embeddings_;
  dynet::BiRNNBuilder rnn_;
  dynet::Parameter hidden_w_, hidden_b_, out_w_, out_b_;
};

}  // namespace bench
