#include "autobatch/tagger_model.h"

namespace bench {

using namespace dynet;

TaggerModel::TaggerModel(ParameterCollection& pc, const std::vector<examples::TaggedSentence>& sentences)
    : rnn_(1, kEmbedding, 2 * kHidden, pc, builder_factory<VanillaLSTMBuilder>()) {
  WordCounter counter;
  for (const examples::TaggedSentence& s : sentences) {
    counter.add_all(s.words);
    for (const std::string& t : s.tags) tags_.convert(t);
  }
  words_ = counter.frequent(1, "<unk>");
  tags_.freeze();
  for (const examples::TaggedSentence& s : sentences) {
    EncodedSentence e;
    for (const std::string& w : s.words) e.words.push_back(static_cast<unsigned>(words_.convert(w)));
    for (const std::string& t : s.tags) e.tags.push_back(static_cast<unsigned>(tags_.convert(t)));
    encoded.push_back(std::move(e));
  }
  embeddings_ = pc.add_lookup_parameters(words_.size(), {kEmbedding});
  hidden_w_ = pc.add_parameters({kMlp, 2 * kHidden}, 0.f);
  hidden_b_ = pc.add_parameters({kMlp}, ParameterInitConst(0.f));
  out_w_ = pc.add_parameters({unsigned(tags_.size()), kMlp}, 0.f);
  out_b_ = pc.add_parameters({unsigned(tags_.size())}, ParameterInitConst(0.f));
}

Expression TaggerModel::loss(ComputationGraph& cg, const std::vector<const EncodedSentence*>& sentences) {
  rnn_.new_graph(cg, true);
  const Expression hw = parameter(cg, hidden_w_), hb = parameter(cg, hidden_b_);
  const Expression ow = parameter(cg, out_w_), ob = parameter(cg, out_b_);
  std::vector<Expression> losses;
  for (const EncodedSentence* s : sentences) {
    std::vector<Expression> xs;
    for (unsigned w : s->words) xs.push_back(lookup(cg, embeddings_, w));
    std::vector<Expression> scores;
    for (const Expression& h : rnn_.transduce(xs))
      scores.push_back(affine_transform({ob, ow, tanh(affine_transform({hb, hw, h}))}));
    for (std::size_t i = 0; i < scores.size(); ++i) losses.push_back(pickneglogsoftmax(scores[i], s->tags[i]));
  }
  return sum(losses);
}

double TaggerModel::flops_per_word() const {
  // Both LSTM directions (4h x (e + h) each), the MLP and the output layer.
  return 2.0 * (2 * 4.0 * kHidden * (kEmbedding + kHidden) + kMlp * 2.0 * kHidden + tags_.size() * double(kMlp));
}

}  // namespace bench
