#include "examples/rnnlm/rnn_language_model.h"

#include <algorithm>
#include <stdexcept>

#include "builders/class_factored_softmax_builder.h"
#include "builders/standard_softmax_builder.h"
#include "dynet_core/expr.h"
#include "dynet_core/graph.h"

namespace examples {

using namespace dynet;

RNNLanguageModel::RNNLanguageModel(ParameterCollection& model, const LanguageModelShape& shape, Dict& words,
                                   const std::string& boundary)
    : shape_(shape),
      boundary_(static_cast<unsigned>(words.convert(boundary))),
      lstm_(shape.layers, shape.embedding, shape.hidden, model) {
  embeddings_ = model.add_lookup_parameters(words.size(), {shape.embedding}, "embeddings");
  if (shape.word_classes.empty()) {
    softmax_ = std::make_unique<StandardSoftmaxBuilder>(shape.hidden, words.size(), model);
    return;
  }
  for (const auto& class_word : shape.word_classes)
    if (!words.contains(class_word.second))
      throw std::invalid_argument("RNNLanguageModel: the word classes name '" + class_word.second +
                                  "', which is not in the vocabulary");
  if (shape.word_classes.size() != words.size())
    throw std::invalid_argument("RNNLanguageModel: the word classes cover " + std::to_string(shape.word_classes.size()) +
                                " words of a vocabulary of " + std::to_string(words.size()));
  softmax_ = std::make_unique<ClassFactoredSoftmaxBuilder>(shape.hidden, shape.word_classes, words, model);
}

Expression RNNLanguageModel::loss(ComputationGraph& cg, const std::vector<const WordIds*>& sentences, bool training) {
  if (sentences.empty()) throw std::invalid_argument("RNNLanguageModel: an empty minibatch");
  const unsigned batch = static_cast<unsigned>(sentences.size());
  std::size_t longest = 0;
  for (const WordIds* s : sentences) longest = std::max(longest, s->size());
  for (const WordIds* s : sentences)
    for (unsigned w : *s)
      if (w >= embeddings_.size())
        throw std::invalid_argument("RNNLanguageModel: word id " + std::to_string(w) + " is outside the vocabulary");

  if (training && shape_.dropout > 0.f)
    lstm_.set_dropout(shape_.dropout, shape_.dropout);
  else
    lstm_.disable_dropout();
  lstm_.new_graph(cg, training);
  softmax_->new_graph(cg, training);
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
    const Expression x = training ? lookup(cg, embeddings_, inputs) : const_lookup(cg, embeddings_, inputs);
    Expression step_loss = softmax_->neg_log_softmax(lstm_.add_input(x), targets);
    if (masked) step_loss = cmult(step_loss, input(cg, Dim({1}, batch), mask));
    losses.push_back(sum_batches(step_loss));
    inputs = targets;
  }
  return sum(losses);
}

RNNLanguageModel::RNNLanguageModel(const RNNLanguageModel& other)
    : shape_(other.shape_),
      boundary_(other.boundary_),
      embeddings_(other.embeddings_),
      lstm_(other.lstm_),
      softmax_(other.softmax_->clone()),
      sharded_(1) {}

double RNNLanguageModel::train(const std::vector<const WordIds*>& sentences, Trainer& trainer) {
  return sharded_.step(*this, sentences.size(), trainer,
                       [&](RNNLanguageModel& m, ComputationGraph& cg, std::size_t first, std::size_t end) {
                         return m.loss(cg, {sentences.begin() + first, sentences.begin() + end}, true);
                       });
}

double RNNLanguageModel::evaluate(const std::vector<WordIds>& sentences, unsigned batch) {
  if (batch == 0) throw std::invalid_argument("RNNLanguageModel::evaluate: the batch size must be positive");
  // Sentences of similar length share a graph, so little is padded; the sum is the same in any order.
  std::vector<const WordIds*> by_length;
  for (const WordIds& s : sentences) by_length.push_back(&s);
  std::stable_sort(by_length.begin(), by_length.end(), [](const WordIds* a, const WordIds* b) { return a->size() < b->size(); });
  double total = 0;
  for (std::size_t first = 0; first < by_length.size(); first += batch) {
    const std::vector<const WordIds*> group(by_length.begin() + static_cast<std::ptrdiff_t>(first),
                                            by_length.begin() + static_cast<std::ptrdiff_t>(std::min(by_length.size(), first + batch)));
    ComputationGraph cg;
    total += as_scalar(cg.forward(loss(cg, group, false)));
  }
  return total;
}

}  // namespace examples
