#include "workloads/seq2seq_model.h"

#include <algorithm>
#include <stdexcept>

#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"

namespace bench {

using namespace dynet;

Seq2SeqModel::Seq2SeqModel(ParameterCollection& pc, const PairData& data, unsigned embedding, unsigned hidden)
    : start_(data.start),
      hidden_(hidden),
      source_embeddings_(pc.add_lookup_parameters(data.vocabulary, {embedding}, "source_embeddings")),
      target_embeddings_(pc.add_lookup_parameters(data.vocabulary, {embedding}, "target_embeddings")),
      encoder_(1, embedding, 2 * hidden, pc, builder_factory<VanillaLSTMBuilder>()),
      decoder_(1, embedding + 2 * hidden, hidden, pc),
      p_w1_(pc.add_parameters({hidden, 2 * hidden})),
      p_w2_(pc.add_parameters({hidden, hidden})),
      p_v_(pc.add_parameters({1, hidden})),
      p_out_w_(pc.add_parameters({data.vocabulary, 3 * hidden})),
      p_out_b_(pc.add_parameters({data.vocabulary}, ParameterInitConst(0.f))) {}

Seq2SeqModel::Seq2SeqModel(const Seq2SeqModel& other)
    : start_(other.start_),
      hidden_(other.hidden_),
      source_embeddings_(other.source_embeddings_),
      target_embeddings_(other.target_embeddings_),
      encoder_(other.encoder_),
      decoder_(other.decoder_),
      p_w1_(other.p_w1_),
      p_w2_(other.p_w2_),
      p_v_(other.p_v_),
      p_out_w_(other.p_out_w_),
      p_out_b_(other.p_out_b_) {}

void Seq2SeqModel::new_graph(ComputationGraph& cg) {
  encoder_.new_graph(cg, true);
  decoder_.new_graph(cg, true);
  w1_ = parameter(cg, p_w1_);
  w2_ = parameter(cg, p_w2_);
  v_ = parameter(cg, p_v_);
  out_w_ = parameter(cg, p_out_w_);
  out_b_ = parameter(cg, p_out_b_);
}

std::vector<Expression> Seq2SeqModel::target_scores(ComputationGraph& cg, const SequencePair& pair) {
  if (pair.source.empty() || pair.target.empty())
    throw std::invalid_argument("Seq2SeqModel: an empty source or target");
  std::vector<Expression> embedded;
  for (unsigned w : pair.source) embedded.push_back(lookup(cg, source_embeddings_, w));
  const Expression states = concatenate_cols(encoder_.transduce(embedded));
  // The source half of every attention score, once a pair rather than once a target step.
  const Expression keys = w1_ * states;
  decoder_.start_new_sequence();
  Expression context = zeros(cg, {2 * hidden_});
  unsigned previous = start_;
  std::vector<Expression> scores;
  for (unsigned next : pair.target) {
    const Expression h = decoder_.add_input(concatenate({lookup(cg, target_embeddings_, previous), context}));
    const Expression attention = softmax(transpose(v_ * tanh(colwise_add(keys, w2_ * h))));
    context = states * attention;
    scores.push_back(affine_transform({out_b_, out_w_, concatenate({h, context})}));
    previous = next;
  }
  return scores;
}

Expression Seq2SeqModel::loss(ComputationGraph& cg, const std::vector<const SequencePair*>& pairs) {
  if (pairs.empty()) throw std::invalid_argument("Seq2SeqModel: an empty minibatch");
  new_graph(cg);
  std::vector<Expression> losses;
  for (const SequencePair* p : pairs) {
    const std::vector<Expression> scores = target_scores(cg, *p);
    for (std::size_t t = 0; t < scores.size(); ++t) losses.push_back(pickneglogsoftmax(scores[t], p->target[t]));
  }
  return sum(losses);
}

HeldOutScore Seq2SeqModel::score(const std::vector<SequencePair>& pairs) {
  ComputationGraph cg;
  new_graph(cg);
  std::vector<std::vector<Expression>> scores;
  std::vector<Expression> losses;
  for (const SequencePair& p : pairs) {
    scores.push_back(target_scores(cg, p));
    for (std::size_t t = 0; t < p.target.size(); ++t)
      losses.push_back(pickneglogsoftmax(scores.back()[t], p.target[t]));
  }
  HeldOutScore s;
  s.examples = pairs.size();
  s.loss = as_scalar(cg.forward(sum(losses))) / double(losses.size());
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    bool right = true;
    for (std::size_t t = 0; t < pairs[k].target.size(); ++t) {
      const std::vector<float> v = as_vector(scores[k][t].value());
      right = right && std::max_element(v.begin(), v.end()) - v.begin() == std::ptrdiff_t(pairs[k].target[t]);
    }
    s.exact += right ? 1.0 / double(pairs.size()) : 0.0;
  }
  return s;
}

}  // namespace bench
