#pragma once
// The BiLSTM tagger of ../shared/BENCHMARKS.md (DyNet's bilstm-tagger and bilstm-tagger-withchar,
// and the tagger reference program): each word is represented by its embedding (emb), or, in the
// word+char variant, rare words by the final states of a character BiLSTM over their spelling; a
// BiLSTM (hidden each way) reads the sentence, and an MLP (mlp, tanh) and an output layer score
// the tags of every word. The loss of a minibatch is the summed pickneglogsoftmax of every known
// tag, in one graph.

#include <memory>
#include <vector>

#include "dynet_core/dybatch.h"
#include "workloads/tagger_vocabulary.h"

namespace bench {

struct TaggerShape {
  unsigned embedding = 128;  ///< word embedding size (also the char BiLSTM's output size)
  unsigned hidden = 50;      ///< state size of each direction of the sentence BiLSTM
  unsigned mlp = 32;
  unsigned char_embedding = 0;  ///< 0: words only
};

class TaggerModel {
 public:
  TaggerModel(dynet::ParameterCollection& pc, const TaggerShape& shape, const TaggerVocabulary& vocabulary);
  /// Over the same parameters, with graph state of its own: one per training thread.
  TaggerModel(const TaggerModel& other);
  TaggerModel& operator=(const TaggerModel&) = delete;

  /// The summed loss of the sentences, built in cg.
  dynet::Expression loss(dynet::ComputationGraph& cg, const std::vector<const EncodedSentence*>& sentences);

 private:
  dynet::Expression word_representation(dynet::ComputationGraph& cg, const EncodedSentence& s, std::size_t i);

  dynet::LookupParameter word_embeddings_, char_embeddings_;
  dynet::BiRNNBuilder sentence_rnn_;
  std::unique_ptr<dynet::BiRNNBuilder> char_rnn_;  ///< only in the word+char variant
  dynet::Parameter hidden_w_, hidden_b_, out_w_, out_b_;
};

}  // namespace bench
