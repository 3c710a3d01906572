#include "autobatch/tagger_model.h"

#include <stdexcept>

namespace bench {

using namespace dynet;

TaggerModel::TaggerModel(ParameterCollection& pc, const TaggerShape& shape, const TaggerVocabulary& vocabulary)
    : sentence_rnn_(1, shape.embedding, 2 * shape.hidden, pc, builder_factory<VanillaLSTMBuilder>()) {
  const unsigned tags = vocabulary.tags.size();
  if (vocabulary.words.size() == 0 || tags == 0)
    throw std::invalid_argument("TaggerModel: no words or no tags to learn");
  word_embeddings_ = pc.add_lookup_parameters(vocabulary.words.size(), {shape.embedding});
  if (vocabulary.spell_rare) {
    if (shape.char_embedding == 0)
      throw std::invalid_argument("TaggerModel: spelling rare words needs a char embedding size");
    char_embeddings_ = pc.add_lookup_parameters(vocabulary.chars.size(), {shape.char_embedding});
    char_rnn_ = std::make_unique<BiRNNBuilder>(1, shape.char_embedding, shape.embedding, pc,
                                               builder_factory<VanillaLSTMBuilder>());
  }
  hidden_w_ = pc.add_parameters({shape.mlp, 2 * shape.hidden}, 0.f);
  hidden_b_ = pc.add_parameters({shape.mlp}, ParameterInitConst(0.f));
  out_w_ = pc.add_parameters({tags, shape.mlp}, 0.f);
  out_b_ = pc.add_parameters({tags}, ParameterInitConst(0.f));
}

TaggerModel::TaggerModel(const TaggerModel& other)
    : word_embeddings_(other.word_embeddings_),
      char_embeddings_(other.char_embeddings_),
      sentence_rnn_(other.sentence_rnn_),
      char_rnn_(other.char_rnn_ ? std::make_unique<BiRNNBuilder>(*other.char_rnn_) : nullptr),
      hidden_w_(other.hidden_w_),
      hidden_b_(other.hidden_b_),
      out_w_(other.out_w_),
      out_b_(other.out_b_) {}

Expression TaggerModel::word_representation(ComputationGraph& cg, const EncodedSentence& s, std::size_t i) {
  if (s.spellings[i].empty() || !char_rnn_) return lookup(cg, word_embeddings_, s.words[i]);
  std::vector<Expression> letters;
  for (unsigned c : s.spellings[i]) letters.push_back(lookup(cg, char_embeddings_, c));
  // The forward state after the last letter and the backward state after the first.
  const auto states = char_rnn_->add_inputs(letters);
  return concatenate({states.back().first, states.front().second});
}

Expression TaggerModel::loss(ComputationGraph& cg, const std::vector<const EncodedSentence*>& sentences) {
  sentence_rnn_.new_graph(cg, true);
  if (char_rnn_) char_rnn_->new_graph(cg, true);
  const Expression hw = parameter(cg, hidden_w_), hb = parameter(cg, hidden_b_);
  const Expression ow = parameter(cg, out_w_), ob = parameter(cg, out_b_);
  std::vector<Expression> losses;
  for (const EncodedSentence* s : sentences) {
    std::vector<Expression> reps;
    for (std::size_t i = 0; i < s->words.size(); ++i) reps.push_back(word_representation(cg, *s, i));
    const std::vector<Expression> states = sentence_rnn_.transduce(reps);
    for (std::size_t i = 0; i < states.size(); ++i)
      if (s->tags[i] >= 0)
        losses.push_back(pickneglogsoftmax(affine_transform({ob, ow, tanh(affine_transform({hb, hw, states[i]}))}),
                                           static_cast<unsigned>(s->tags[i])));
  }
  if (losses.empty()) throw std::invalid_argument("TaggerModel: a minibatch without known tags");
  return sum(losses);
}

}  // namespace bench
