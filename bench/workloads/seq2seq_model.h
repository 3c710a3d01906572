#pragma once
// The attention encoder-decoder of the seq2seq workloads (seq2seq-mixed, seq2seq-equal): a BiLSTM
// (a VanillaLSTMBuilder each way, `hidden` units each) reads the source tokens' embeddings, and
// its states [forward_i; backward_i] are the columns of H. A VanillaLSTM decoder (`hidden` units)
// reads at step t the previous target token's embedding (<s> first) beside the previous context
// (zeros at step 0); additive attention scores every source token, v tanh(W1 H_i + W2 h_t), the
// context is H softmax(scores), and one affine layer over [h_t; context] predicts the target token
// (teacher forcing). Each pair is its own sequence of unbatched expressions, as a dybatch user
// writes pairs of their own lengths: the autobatcher joins the steps that are alike, so no padded
// position is computed and no attention score is masked.

#include <vector>

#include "builders/bi_rnn_builder.h"
#include "builders/vanilla_lstm_builder.h"
#include "dynet_core/expression.h"
#include "dynet_core/param_collection.h"
#include "workloads/datasets.h"
#include "workloads/measurement.h"

namespace bench {

class Seq2SeqModel {
 public:
  /// Source and target tokens below `data.vocabulary`, the decoder starting from `data.start`.
  Seq2SeqModel(dynet::ParameterCollection& pc, const PairData& data, unsigned embedding, unsigned hidden);
  /// Over the same parameters, with graph state of its own: one per training thread.
  Seq2SeqModel(const Seq2SeqModel& other);
  Seq2SeqModel& operator=(const Seq2SeqModel&) = delete;

  /// -log p of every target token given the source and the target tokens before it, summed over
  /// the pairs.
  dynet::Expression loss(dynet::ComputationGraph& cg, const std::vector<const SequencePair*>& pairs);
  /// The model on `pairs`, in one graph of its own. A pair whose every token scores best under
  /// teacher forcing is also what greedy decoding gives: each step then reads the right token.
  HeldOutScore score(const std::vector<SequencePair>& pairs);

 private:
  void new_graph(dynet::ComputationGraph& cg);
  /// The output layer's scores for each target token of `pair`.
  std::vector<dynet::Expression> target_scores(dynet::ComputationGraph& cg, const SequencePair& pair);

  unsigned start_, hidden_;
  dynet::LookupParameter source_embeddings_, target_embeddings_;
  dynet::BiRNNBuilder encoder_;
  dynet::VanillaLSTMBuilder decoder_;
  dynet::Parameter p_w1_, p_w2_, p_v_, p_out_w_, p_out_b_;
  dynet::Expression w1_, w2_, v_, out_w_, out_b_;
};

}  // namespace bench
