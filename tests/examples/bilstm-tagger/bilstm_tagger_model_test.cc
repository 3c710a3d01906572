#include <catch2/catch.hpp>

#include <random>

#include "dynet_core/rng.h"
#include "examples/bilstm-tagger/bilstm_tagger_model.h"
#include "trainers/simple_sgd_trainer.h"

using namespace examples;

namespace {

/// Random words of 2-5 letters; a word is tagged NAME when capitalized, and a lower-case word
/// right after a name is tagged AFTER (context the BiLSTM must read), else O.
std::vector<TaggedSentence> generated_sentences(unsigned n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<TaggedSentence> sentences;
  for (unsigned k = 0; k < n; ++k) {
    TaggedSentence s;
    const unsigned length = 3 + rng() % 5;
    for (unsigned i = 0; i < length; ++i) {
      const bool name = rng() % 3 == 0;
      std::string w;
      for (unsigned c = 0, letters = 2 + rng() % 4; c < letters; ++c) w += static_cast<char>('a' + rng() % 6);
      if (name) w[0] = static_cast<char>(w[0] - 'a' + 'A');
      s.tags.push_back(name ? "NAME" : (!s.tags.empty() && s.tags.back() == "NAME") ? "AFTER" : "O");
      s.words.push_back(w);
    }
    sentences.push_back(s);
  }
  return sentences;
}

/// Trains a small tagger (on `threads` graphs per update) and returns its development accuracy;
/// appends every minibatch loss to `losses` when given.
double train_and_evaluate(bool spell, unsigned epochs, unsigned threads = 1, std::vector<double>* losses = nullptr) {
  const std::vector<TaggedSentence> train_text = generated_sentences(60, 1), dev_text = generated_sentences(30, 2);
  TaggerVocabulary vocabulary(train_text, 2, spell);
  std::vector<EncodedSentence> train, dev;
  for (const TaggedSentence& s : train_text) train.push_back(vocabulary.encode(s));
  for (const TaggedSentence& s : dev_text) dev.push_back(vocabulary.encode(s));
  TaggerShape shape;
  shape.embedding = 8;
  shape.hidden = 8;
  shape.mlp = 8;
  shape.char_embedding = spell ? 6 : 0;
  dynet::ParameterCollection model;
  BiLSTMTagger tagger(model, shape, vocabulary);
  tagger.set_training_threads(threads);
  dynet::SimpleSGDTrainer trainer(model, 0.1f);
  for (unsigned epoch = 0; epoch < epochs; ++epoch)
    for (std::size_t first = 0; first < train.size(); first += 6) {
      std::vector<const EncodedSentence*> batch;
      for (std::size_t k = first; k < first + 6; ++k) batch.push_back(&train[k]);
      const double loss = tagger.train(batch, trainer);
      if (losses) losses->push_back(loss);
    }
  return tagger.evaluate(dev, 8).value();
}

}  // namespace

TEST_CASE("a BiLSTM tagger reads context, and spells unseen words with characters", "[examples][tagger]") {
  // Development words are mostly unseen: only their spelling tells a name from another word.
  const double words_only = train_and_evaluate(false, 25);
  const double with_chars = train_and_evaluate(true, 25);
  INFO("development accuracy: words only " << words_only << ", with characters " << with_chars);
  CHECK(with_chars > 0.9);
  CHECK(with_chars > words_only + 0.1);
}

TEST_CASE("a BiLSTM tagger trains the same on one thread and in parallel shards", "[examples][tagger][threads]") {
  std::vector<double> one, three;
  dynet::random_engine().seed(5);  // the same initial parameters for both runs
  const double acc_one = train_and_evaluate(true, 2, 1, &one);
  dynet::random_engine().seed(5);
  const double acc_three = train_and_evaluate(true, 2, 3, &three);
  REQUIRE(one.size() == three.size());
  // Every loss after the first is computed after updates, so equal losses mean equal gradients.
  for (std::size_t k = 0; k < one.size(); ++k) CHECK(three[k] == Approx(one[k]).epsilon(1e-4));
  CHECK(acc_three == Approx(acc_one).margin(0.02));
}

TEST_CASE("the tagger vocabulary marks rare words to spell and unseen tags", "[examples][tagger]") {
  TaggedSentence s;
  s.words = {"the", "the", "Zed"};
  s.tags = {"O", "O", "NAME"};
  TaggerVocabulary vocabulary({s}, 2, true);
  TaggedSentence dev;
  dev.words = {"the", "Zed"};
  dev.tags = {"O", "MISC"};
  const EncodedSentence e = vocabulary.encode(dev);
  CHECK(e.words[0] == static_cast<unsigned>(vocabulary.words.convert("the")));
  CHECK(e.spellings[0].empty());
  CHECK(e.words[1] == static_cast<unsigned>(vocabulary.words.get_unk_id()));
  CHECK(e.spellings[1].size() == 3);
  CHECK(e.tags == std::vector<int>{0, -1});
}
