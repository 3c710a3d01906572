#include "examples/bilstm-tagger/bilstm_tagger_model.h"

#include <algorithm>
#include <stdexcept>

#include "builders/vanilla_lstm_builder.h"
#include "dynet_core/expr.h"
#include "dynet_core/graph.h"
#include "examples/common/batched_prediction.h"

namespace examples {

using namespace dynet;

BiLSTMTagger::BiLSTMTagger(ParameterCollection& model, const TaggerShape& shape, const TaggerVocabulary& vocabulary)
    : shape_(shape),
      tags_(vocabulary.tags.size()),
      sentence_rnn_(1, shape.embedding, 2 * shape.hidden, model, builder_factory<VanillaLSTMBuilder>()) {
  if (vocabulary.words.size() == 0 || tags_ == 0) throw std::invalid_argument("BiLSTMTagger: no words or no tags to learn");
  word_embeddings_ = model.add_lookup_parameters(vocabulary.words.size(), {shape.embedding}, "word_embeddings");
  if (vocabulary.spell_rare) {
    if (shape.char_embedding == 0) throw std::invalid_argument("BiLSTMTagger: spelling rare words needs a char embedding size");
    char_embeddings_ = model.add_lookup_parameters(vocabulary.chars.size(), {shape.char_embedding}, "char_embeddings");
    char_rnn_ = std::make_unique<BiRNNBuilder>(1, shape.char_embedding, shape.embedding, model,
                                               builder_factory<VanillaLSTMBuilder>());
  }
  p_hidden_w_ = model.add_parameters({shape.mlp, 2 * shape.hidden}, 0.f, "mlp_w");
  p_hidden_b_ = model.add_parameters({shape.mlp}, ParameterInitConst(0.f), "mlp_b");
  p_out_w_ = model.add_parameters({tags_, shape.mlp}, 0.f, "output_w");
  p_out_b_ = model.add_parameters({tags_}, ParameterInitConst(0.f), "output_b");
}

BiLSTMTagger::BiLSTMTagger(const BiLSTMTagger& other)
    : shape_(other.shape_),
      tags_(other.tags_),
      word_embeddings_(other.word_embeddings_),
      char_embeddings_(other.char_embeddings_),
      sentence_rnn_(other.sentence_rnn_),
      char_rnn_(other.char_rnn_ ? std::make_unique<BiRNNBuilder>(*other.char_rnn_) : nullptr),
      p_hidden_w_(other.p_hidden_w_),
      p_hidden_b_(other.p_hidden_b_),
      p_out_w_(other.p_out_w_),
      p_out_b_(other.p_out_b_),
      sharded_(1) {}

void BiLSTMTagger::new_graph(ComputationGraph& cg, bool training) {
  training_ = training;
  sentence_rnn_.new_graph(cg, training);
  if (char_rnn_) char_rnn_->new_graph(cg, training);
  auto param = [&](const Parameter& p) { return training ? parameter(cg, p) : const_parameter(cg, p); };
  hidden_w_ = param(p_hidden_w_);
  hidden_b_ = param(p_hidden_b_);
  out_w_ = param(p_out_w_);
  out_b_ = param(p_out_b_);
}

Expression BiLSTMTagger::word_representation(ComputationGraph& cg, const EncodedSentence& s, std::size_t i) {
  if (s.spellings[i].empty() || !char_rnn_)
    return training_ ? lookup(cg, word_embeddings_, s.words[i]) : const_lookup(cg, word_embeddings_, s.words[i]);
  std::vector<Expression> letters;
  for (unsigned c : s.spellings[i])
    letters.push_back(training_ ? lookup(cg, char_embeddings_, c) : const_lookup(cg, char_embeddings_, c));
  // The forward state after the last letter and the backward state after the first.
  const auto states = char_rnn_->add_inputs(letters);
  return concatenate({states.back().first, states.front().second});
}

std::vector<Expression> BiLSTMTagger::tag_scores(ComputationGraph& cg, const EncodedSentence& s) {
  std::vector<Expression> reps;
  for (std::size_t i = 0; i < s.words.size(); ++i) reps.push_back(word_representation(cg, s, i));
  std::vector<Expression> scores;
  for (const Expression& h : sentence_rnn_.transduce(reps))
    scores.push_back(affine_transform({out_b_, out_w_, tanh(affine_transform({hidden_b_, hidden_w_, h}))}));
  return scores;
}

Expression BiLSTMTagger::loss(ComputationGraph& cg, const std::vector<const EncodedSentence*>& sentences) {
  new_graph(cg, true);
  std::vector<Expression> losses;
  for (const EncodedSentence* s : sentences) {
    const std::vector<Expression> scores = tag_scores(cg, *s);
    for (std::size_t i = 0; i < scores.size(); ++i)
      if (s->tags[i] >= 0) losses.push_back(pickneglogsoftmax(scores[i], static_cast<unsigned>(s->tags[i])));
  }
  if (losses.empty()) throw std::invalid_argument("BiLSTMTagger: a minibatch without known tags");
  return sum(losses);
}

double BiLSTMTagger::train(const std::vector<const EncodedSentence*>& sentences, Trainer& trainer) {
  return sharded_.step(*this, sentences.size(), trainer,
                       [&](BiLSTMTagger& t, ComputationGraph& cg, std::size_t first, std::size_t end) {
                         return t.loss(cg, {sentences.begin() + first, sentences.begin() + end});
                       });
}

TagAccuracy BiLSTMTagger::evaluate(const std::vector<EncodedSentence>& sentences, unsigned batch) {
  TagAccuracy acc;
  predict_in_batches(
      sentences, batch, [&](ComputationGraph& cg) { new_graph(cg, false); },
      [&](ComputationGraph& cg, const EncodedSentence& s) { return tag_scores(cg, s); },
      [&](const EncodedSentence& s, const std::vector<unsigned>& predicted) {
        for (std::size_t i = 0; i < s.tags.size(); ++i) {
          acc.words += 1;
          acc.correct += s.tags[i] >= 0 && predicted[i] == static_cast<unsigned>(s.tags[i]);
        }
      });
  return acc;
}

}  // namespace examples
