#include "workloads/rnn_language_model.h"

#include <algorithm>
#include <stdexcept>

#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"

namespace bench {

using namespace dynet;

RNNLanguageModel::RNNLanguageModel(ParameterCollection& pc, unsigned embedding, unsigned hidden, Dict& words,
                                   const std::string& boundary)
    : boundary_(static_cast<unsigned>(words.convert(boundary))),
      lstm_(1, embedding, hidden, pc),
      embeddings_(pc.add_lookup_parameters(words.size(), {embedding}, "embeddings")),
      softmax_(hidden, words.size(), pc) {}

Expression RNNLanguageModel::loss(ComputationGraph& cg, const std::vector<const WordIds*>& sentences, Layout layout) {
  if (sentences.empty()) throw std::invalid_argument("RNNLanguageModel: an empty minibatch");
  for (const WordIds* s : sentences)
    for (unsigned w : *s)
      if (w >= embeddings_.size())
        throw std::invalid_argument("RNNLanguageModel: word id " + std::to_string(w) + " is outside the vocabulary");

  lstm_.new_graph(cg, true);
  softmax_.new_graph(cg, true);
  if (layout == Layout::kPadded) return padded_loss(cg, sentences);
  std::vector<Expression> losses;
  for (const WordIds* s : sentences) losses.push_back(sentence_loss(cg, *s));
  return sum(losses);
}

Expression RNNLanguageModel::padded_loss(ComputationGraph& cg, const std::vector<const WordIds*>& sentences) {
  const unsigned batch = static_cast<unsigned>(sentences.size());
  std::size_t longest = 0;
  for (const WordIds* s : sentences) longest = std::max(longest, s->size());
  lstm_.start_new_sequence();

  // Step t reads word t - 1 (the boundary at t = 0) and predicts word t; a sentence of n words
  // predicts n words and its end. Ended sentences keep reading the boundary, masked out.
  std::vector<Expression> losses;
  std::vector<unsigned> inputs(batch, boundary_), targets(batch);
  std::vector<float> mask(batch);
  for (std::size_t t = 0; t <= longest; ++t) {
    bool masked = false;
    for (unsigned b = 0; b < batch; ++b) {
      const WordIds& s = *sentences[b];
      targets[b] = t < s.size() ? s[t] : boundary_;
      mask[b] = t <= s.size() ? 1.f : 0.f;
      masked = masked || mask[b] == 0.f;
    }
    Expression step_loss = softmax_.neg_log_softmax(lstm_.add_input(lookup(cg, embeddings_, inputs)), targets);
    if (masked) step_loss = cmult(step_loss, input(cg, Dim({1}, batch), mask));
    losses.push_back(sum_batches(step_loss));
    inputs = targets;
  }
  return sum(losses);
}

Expression RNNLanguageModel::sentence_loss(ComputationGraph& cg, const WordIds& sentence) {
  lstm_.start_new_sequence();
  std::vector<Expression> losses;
  unsigned input = boundary_;
  for (std::size_t t = 0; t <= sentence.size(); ++t) {
    const unsigned target = t < sentence.size() ? sentence[t] : boundary_;
    losses.push_back(softmax_.neg_log_softmax(lstm_.add_input(lookup(cg, embeddings_, input)), target));
    input = target;
  }
  return sum(losses);
}

}  // namespace bench
