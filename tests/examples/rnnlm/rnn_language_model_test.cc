#include <catch2/catch.hpp>

#include <random>

#include "dynet_core/graph.h"
#include "examples/rnnlm/frequency_classes.h"
#include "examples/rnnlm/rnn_language_model.h"
#include "support/sharded_training_check.h"
#include "trainers/simple_sgd_trainer.h"

using namespace examples;

namespace {

LanguageModelShape small_shape() {
  LanguageModelShape shape;
  shape.embedding = 8;
  shape.hidden = 16;
  return shape;
}

/// Sentences that count up from a random digit: "3 4 5 6", "7 8 9".
std::vector<WordIds> counting_sentences(dynet::Dict& words, unsigned n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<WordIds> sentences;
  for (unsigned k = 0; k < n; ++k) {
    const unsigned start = rng() % 6, length = 2 + rng() % 4;
    WordIds s;
    for (unsigned w = start; w < std::min(10u, start + length); ++w) s.push_back(static_cast<unsigned>(words.convert(std::to_string(w))));
    sentences.push_back(s);
  }
  return sentences;
}

}  // namespace

TEST_CASE("a padded, masked minibatch costs what its sentences cost one by one", "[examples][rnnlm]") {
  dynet::Dict words;
  const std::vector<WordIds> sentences = counting_sentences(words, 4, 1);
  dynet::ParameterCollection model;
  RNNLanguageModel lm(model, small_shape(), words, "<s>");
  std::vector<const WordIds*> all;
  double one_by_one = 0;
  for (const WordIds& s : sentences) {
    all.push_back(&s);
    dynet::ComputationGraph cg;
    one_by_one += as_scalar(cg.forward(lm.loss(cg, {&s}, false)));
  }
  dynet::ComputationGraph cg;
  CHECK(as_scalar(cg.forward(lm.loss(cg, all, false))) == Approx(one_by_one).epsilon(1e-5));
  CHECK(lm.evaluate(sentences, 3) == Approx(one_by_one).epsilon(1e-5));
}

TEST_CASE("an LSTM language model learns to count", "[examples][rnnlm]") {
  dynet::Dict words;
  const std::vector<WordIds> sentences = counting_sentences(words, 48, 2);
  std::size_t predicted = 0;
  for (const WordIds& s : sentences) predicted += RNNLanguageModel::predicted_words(s);
  dynet::ParameterCollection model;
  RNNLanguageModel lm(model, small_shape(), words, "<s>");
  dynet::SimpleSGDTrainer trainer(model, 0.5f);
  const double initial = lm.evaluate(sentences, 16) / predicted;
  for (int epoch = 0; epoch < 40; ++epoch)
    for (std::size_t first = 0; first < sentences.size(); first += 8) {
      std::vector<const WordIds*> batch;
      for (std::size_t k = first; k < first + 8; ++k) batch.push_back(&sentences[k]);
      lm.train(batch, trainer);
    }
  const double trained = lm.evaluate(sentences, 16) / predicted;
  INFO("loss per word: initial " << initial << ", trained " << trained);
  CHECK(initial > 2.0);  // about log 11
  CHECK(trained < 1.0);  // only the first word and the length are uncertain
}

TEST_CASE("a class-factored language model learns to count too", "[examples][rnnlm]") {
  dynet::Dict words;
  const std::vector<WordIds> sentences = counting_sentences(words, 48, 2);
  words.convert("<s>");
  std::vector<std::size_t> counts(words.size(), 1);
  LanguageModelShape shape = small_shape();
  shape.word_classes = frequency_classes(words, counts, 3);
  dynet::ParameterCollection model;
  RNNLanguageModel lm(model, shape, words, "<s>");
  dynet::SimpleSGDTrainer trainer(model, 0.5f);
  std::size_t predicted = 0;
  for (const WordIds& s : sentences) predicted += RNNLanguageModel::predicted_words(s);
  for (int epoch = 0; epoch < 40; ++epoch)
    for (std::size_t first = 0; first < sentences.size(); first += 8) {
      std::vector<const WordIds*> batch;
      for (std::size_t k = first; k < first + 8; ++k) batch.push_back(&sentences[k]);
      lm.train(batch, trainer);
    }
  CHECK(lm.evaluate(sentences, 16) / predicted < 1.0);

  LanguageModelShape partial = small_shape();
  partial.word_classes = {{"0", "1"}};
  dynet::ParameterCollection other;
  CHECK_THROWS_WITH(RNNLanguageModel(other, partial, words, "<s>"), Catch::Contains("cover 1 words"));
}

TEST_CASE("a language model trains the same on one thread and in parallel shards", "[examples][rnnlm][threads]") {
  const bool factored = GENERATE(false, true);
  dynet::Dict words;
  const std::vector<WordIds> sentences = counting_sentences(words, 24, 3);
  words.convert("<s>");
  LanguageModelShape shape = small_shape();
  if (factored) shape.word_classes = frequency_classes(words, std::vector<std::size_t>(words.size(), 1), 3);
  test_support::check_sharded_training<RNNLanguageModel, WordIds>(
      sentences, 0.5f,
      [&](dynet::ParameterCollection& model) { return std::make_unique<RNNLanguageModel>(model, shape, words, "<s>"); },
      [](RNNLanguageModel& lm, const std::vector<const WordIds*>& batch, dynet::Trainer& trainer) {
        return lm.train(batch, trainer);
      });
}

TEST_CASE("a language model refuses words outside its vocabulary", "[examples][rnnlm]") {
  dynet::Dict words;
  words.convert("a");
  dynet::ParameterCollection model;
  RNNLanguageModel lm(model, small_shape(), words, "<s>");
  const WordIds bad{7};
  dynet::ComputationGraph cg;
  CHECK_THROWS_WITH(lm.loss(cg, {&bad}, true), Catch::Contains("word id 7"));
  CHECK_THROWS_AS(lm.loss(cg, {}, true), std::invalid_argument);
}
