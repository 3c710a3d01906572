// bilstm-tagger: a BiLSTM named-entity tagger on WikiNER sentences, with word embeddings or,
// with --char-embedding, character BiLSTMs for rare words (DyNet's bilstm-tagger-withchar);
// reports development tag accuracy after every epoch.

#include <cstdio>
#include <iostream>
#include <vector>

#include "dynet_core/init.h"
#include "dynet_core/io.h"
#include "dynet_core/param_collection.h"
#include "examples/bilstm-tagger/bilstm_tagger_model.h"
#include "examples/common/command_line.h"
#include "examples/common/data_flags.h"
#include "examples/common/example_main.h"
#include "examples/common/minibatches.h"
#include "examples/common/training_epoch.h"
#include "examples/common/training_flags.h"
#include "examples/common/training_group.h"

using namespace examples;

namespace {

struct Settings {
  DataFlags data{"tags/train.txt", "tags/dev.txt"};
  unsigned min_count = 0;
  TaggerShape shape;
  TrainingFlags training;
};

int run(int argc, char** argv) {
  Settings s;
  s.training.epochs = 5;
  CommandLine cl("bilstm-tagger", "Trains a BiLSTM tagger on word|TAG sentences; reports development tag accuracy.");
  s.data.declare(cl, "sentences");
  cl.add("embedding", &s.shape.embedding, "word embedding size (even)");
  cl.add("hidden", &s.shape.hidden, "state size of each direction of the BiLSTM");
  cl.add("mlp", &s.shape.mlp, "hidden size of the tag scorer");
  cl.add("char-embedding", &s.shape.char_embedding, "character embedding size; > 0 spells rare words with a char BiLSTM");
  cl.add("min-count", &s.min_count, "words seen fewer times are rare (0: 5 with characters, else 2)");
  s.training.declare(cl, "sentences", true);
  if (!cl.parse(argc, argv)) return 0;
  s.training.check();
  TrainingGroup group(s.training);
  const bool spell = s.shape.char_embedding > 0;
  if (s.min_count == 0) s.min_count = spell ? 5 : 2;

  std::vector<TaggedSentence> train_text = read_tagged_sentences(s.data.train);
  std::vector<TaggedSentence> dev_text = read_tagged_sentences(s.data.dev);
  s.data.limit(train_text, dev_text);

  TaggerVocabulary vocabulary;
  const std::vector<dynet::NamedDict> vocabularies{{"words", &vocabulary.words}, {"tags", &vocabulary.tags}, {"chars", &vocabulary.chars}};
  if (!s.training.load.empty()) {
    dynet::load_dicts(s.training.load + ".vocab", vocabularies);
    vocabulary.spell_rare = spell;
  } else {
    vocabulary = TaggerVocabulary(train_text, s.min_count, spell);
  }
  std::vector<EncodedSentence> train, dev;
  std::size_t spelled = 0, train_words = 0;
  for (const TaggedSentence& t : train_text) {
    train.push_back(vocabulary.encode(t));
    train_words += t.words.size();
    for (const auto& letters : train.back().spellings) spelled += !letters.empty();
  }
  for (const TaggedSentence& t : dev_text) dev.push_back(vocabulary.encode(t));

  dynet::ParameterCollection model;
  BiLSTMTagger tagger(model, s.shape, vocabulary);
  if (!s.training.load.empty()) dynet::TextFileLoader(s.training.load).populate(model);
  tagger.set_reducer(&group.share(model));
  auto trainer = s.training.make_trainer(model);
  std::cout << "bilstm-tagger: " << train.size() << " training sentences (" << train_words << " words, " << spelled
            << " spelled by characters), " << dev.size() << " development sentences; " << vocabulary.words.size()
            << " words, " << vocabulary.tags.size() << " tags; autobatch " << dynet::current_params().autobatch << "\n";

  std::mt19937 rng(1);
  std::printf("learning curve\n%6s %12s %10s %10s\n", "epoch", "train loss", "words/s", "dev acc");
  std::printf("%6u %12s %10s %10.4f\n", 0u, "-", "-", tagger.evaluate(dev, 64).value());
  train_epochs(
      s.training, "sent", train, [&] { return shuffled_minibatches(train.size(), s.training.batch, rng); },
      [&](const std::vector<const EncodedSentence*>& sentences) { return tagger.train(sentences, *trainer); },
      [](const EncodedSentence& sentence) { return sentence.words.size(); },
      [&](unsigned epoch, const EpochSummary& e) {
        std::printf("%6u %12.4f %10.1f %10.4f\n", epoch, e.mean_loss(), e.units_per_second(),
                    tagger.evaluate(dev, 64).value());
        std::fflush(stdout);
      });
  if (!s.training.save.empty()) {
    group.on_root([&] {
      dynet::save_dicts(s.training.save + ".vocab", vocabularies);
      dynet::TextFileSaver(s.training.save).save(model);
    });
    std::cout << "saved the model to " << s.training.save << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return run_example("bilstm-tagger", argc, argv, run); }
