// bilstm-tagger: a BiLSTM named-entity tagger on WikiNER sentences, with word embeddings or,
// with --char-embedding, character BiLSTMs for rare words (DyNet's bilstm-tagger-withchar);
// reports development tag accuracy after every epoch.
//
// Each word is represented by its embedding, or, in the word+char variant, rare words by the
// final states of a character BiLSTM over their spelling; a BiLSTM reads the sentence, and an MLP
// (tanh) scores the tags of every word. A minibatch of sentences shares one graph.

#include <algorithm>
#include <boost/program_options/options_description.hpp>
#include <boost/program_options/value_semantic.hpp>
#include <cstdio>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <vector>

#include "builders/bi_rnn_builder.h"
#include "builders/vanilla_lstm_builder.h"
#include "dynet_core/graph.h"
#include "dynet_core/init.h"
#include "dynet_core/io/dict.h"
#include "dynet_core/io/savers_and_loaders.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"
#include "dynet_core/tensor_tools.h"
#include "examples/common/data_file.h"
#include "examples/common/minibatches.h"
#include "examples/common/tagged_corpus.h"
#include "examples/common/training_epoch.h"
#include "trainers/parallel/sharded_training.h"
#include "trainers/program/training_flags.h"
#include "trainers/program/training_group.h"
#include "trainers/program/training_program.h"

using namespace dynet;
using namespace examples;
namespace po = boost::program_options;

namespace {

const char* const kUnknown = "<unk>";

/// A sentence as ids: every word's id (the unknown word for rare ones), the characters of the
/// words to spell (empty for the others), and the tags (-1 for a tag never seen in training).
struct EncodedSentence {
  std::vector<unsigned> words;
  std::vector<std::vector<unsigned>> spellings;
  std::vector<int> tags;
};

/// The tagger's vocabularies, built from the training sentences.
struct Vocabulary {
  Vocabulary() = default;
  /// Words seen at least min_count times get an embedding; the others (and unseen words) share
  /// the unknown word, and are spelled when `spell_rare`.
  Vocabulary(const std::vector<TaggedSentence>& train, unsigned min_count, bool spell) : spell_rare(spell) {
    WordCounter counter;
    for (const TaggedSentence& s : train) {
      counter.add_all(s.words);
      for (const std::string& t : s.tags) tags.convert(t);
      for (const std::string& w : s.words)
        for (char c : w) chars.convert(std::string(1, c));
    }
    words = counter.frequent(min_count, kUnknown);
    tags.freeze();
    chars.set_unk(kUnknown);
    chars.freeze();
  }

  /// (Looks words up in the frozen vocabularies, which never changes them.)
  EncodedSentence encode(const TaggedSentence& s) {
    EncodedSentence e;
    for (std::size_t i = 0; i < s.words.size(); ++i) {
      const std::string& w = s.words[i];
      const bool known = words.contains(w);
      e.words.push_back(static_cast<unsigned>(words.convert(w)));
      std::vector<unsigned> spelling;
      if (spell_rare && !known)
        for (char c : w) spelling.push_back(static_cast<unsigned>(chars.convert(std::string(1, c))));
      e.spellings.push_back(std::move(spelling));
      e.tags.push_back(tags.contains(s.tags[i]) ? tags.convert(s.tags[i]) : -1);
    }
    return e;
  }

  Dict words, tags, chars;
  bool spell_rare = false;
};

struct Shape {
  unsigned embedding = 128;  ///< word embedding size (also the char BiLSTM's output size)
  unsigned hidden = 50;      ///< state size of each direction of the sentence BiLSTM
  unsigned mlp = 32;
  unsigned char_embedding = 0;  ///< 0: words only
};

class BiLSTMTagger {
 public:
  BiLSTMTagger(ParameterCollection& model, const Shape& shape, const Vocabulary& vocabulary)
      : shape_(shape),
        sentence_rnn_(1, shape.embedding, 2 * shape.hidden, model, builder_factory<VanillaLSTMBuilder>()) {
    word_embeddings_ = model.add_lookup_parameters(vocabulary.words.size(), {shape.embedding}, "word_embeddings");
    if (vocabulary.spell_rare) {
      char_embeddings_ =
          model.add_lookup_parameters(vocabulary.chars.size(), {shape.char_embedding}, "char_embeddings");
      char_rnn_ = std::make_unique<BiRNNBuilder>(1, shape.char_embedding, shape.embedding, model,
                                                 builder_factory<VanillaLSTMBuilder>());
    }
    const unsigned tags = vocabulary.tags.size();
    p_hidden_w_ = model.add_parameters({shape.mlp, 2 * shape.hidden}, 0.f, "mlp_w");
    p_hidden_b_ = model.add_parameters({shape.mlp}, ParameterInitConst(0.f), "mlp_b");
    p_out_w_ = model.add_parameters({tags, shape.mlp}, 0.f, "output_w");
    p_out_b_ = model.add_parameters({tags}, ParameterInitConst(0.f), "output_b");
  }
  /// Over the same parameters, with graph state of its own: one per training thread.
  BiLSTMTagger(const BiLSTMTagger& other)
      : shape_(other.shape_),
        word_embeddings_(other.word_embeddings_),
        char_embeddings_(other.char_embeddings_),
        sentence_rnn_(other.sentence_rnn_),
        char_rnn_(other.char_rnn_ ? std::make_unique<BiRNNBuilder>(*other.char_rnn_) : nullptr),
        p_hidden_w_(other.p_hidden_w_),
        p_hidden_b_(other.p_hidden_b_),
        p_out_w_(other.p_out_w_),
        p_out_b_(other.p_out_b_),
        sharded_(1) {}
  BiLSTMTagger& operator=(const BiLSTMTagger&) = delete;

  void new_graph(ComputationGraph& cg, bool training) {
    training_ = training;
    sentence_rnn_.new_graph(cg, training);
    if (char_rnn_) char_rnn_->new_graph(cg, training);
    auto param = [&](const Parameter& p) { return training ? parameter(cg, p) : const_parameter(cg, p); };
    hidden_w_ = param(p_hidden_w_);
    hidden_b_ = param(p_hidden_b_);
    out_w_ = param(p_out_w_);
    out_b_ = param(p_out_b_);
  }

  /// The tag scores of every word of the sentence, built in the bound graph.
  std::vector<Expression> tag_scores(ComputationGraph& cg, const EncodedSentence& s) {
    std::vector<Expression> reps;
    for (std::size_t i = 0; i < s.words.size(); ++i) reps.push_back(word_representation(cg, s, i));
    std::vector<Expression> scores;
    for (const Expression& h : sentence_rnn_.transduce(reps))
      scores.push_back(affine_transform({out_b_, out_w_, tanh(affine_transform({hidden_b_, hidden_w_, h}))}));
    return scores;
  }

  /// One update on the summed loss of the sentences (in shards on several threads); returns it.
  double train(const std::vector<const EncodedSentence*>& sentences, Trainer& trainer) {
    return sharded_.step(*this, sentences.size(), trainer,
                         [&](BiLSTMTagger& t, ComputationGraph& cg, std::size_t first, std::size_t end) {
                           t.new_graph(cg, true);
                           std::vector<Expression> losses;
                           for (std::size_t k = first; k < end; ++k) {
                             const EncodedSentence& s = *sentences[k];
                             const std::vector<Expression> scores = t.tag_scores(cg, s);
                             for (std::size_t i = 0; i < scores.size(); ++i)
                               if (s.tags[i] >= 0) losses.push_back(pickneglogsoftmax(scores[i], unsigned(s.tags[i])));
                           }
                           if (losses.empty())
                             throw std::invalid_argument("bilstm-tagger: a minibatch without known tags");
                           return sum(losses);
                         });
  }

  /// The share of correctly tagged words, `batch` sentences per graph (one forward each).
  double accuracy(const std::vector<EncodedSentence>& sentences, unsigned batch) {
    std::size_t correct = 0, words = 0;
    for (std::size_t first = 0; first < sentences.size(); first += batch) {
      const std::size_t end = std::min(sentences.size(), first + batch);
      ComputationGraph cg;
      new_graph(cg, false);
      std::vector<Expression> scores;
      for (std::size_t k = first; k < end; ++k) {
        const std::vector<Expression> s = tag_scores(cg, sentences[k]);
        scores.insert(scores.end(), s.begin(), s.end());
      }
      // One forward for all of them, so that an autobatcher sees the whole graph.
      const std::vector<std::ptrdiff_t> best = as_vector(TensorTools::argmax(cg.forward(concatenate_cols(scores))));
      auto predicted = best.begin();
      for (std::size_t k = first; k < end; ++k)
        for (int tag : sentences[k].tags) {
          words += 1;
          correct += *predicted++ == tag;  // a tag unseen in training (-1) is never predicted
        }
    }
    return words ? double(correct) / words : 0.0;
  }

  /// Shares each update's sentences with the other ranks of an MPI job.
  void set_reducer(DistributedReducer* reducer) { sharded_.set_reducer(reducer); }

 private:
  Expression word_representation(ComputationGraph& cg, const EncodedSentence& s, std::size_t i) {
    if (s.spellings[i].empty() || !char_rnn_)
      return training_ ? lookup(cg, word_embeddings_, s.words[i]) : const_lookup(cg, word_embeddings_, s.words[i]);
    std::vector<Expression> letters;
    for (unsigned c : s.spellings[i])
      letters.push_back(training_ ? lookup(cg, char_embeddings_, c) : const_lookup(cg, char_embeddings_, c));
    // The forward state after the last letter and the backward state after the first.
    const auto states = char_rnn_->add_inputs(letters);
    return concatenate({states.back().first, states.front().second});
  }

  Shape shape_;
  bool training_ = false;
  LookupParameter word_embeddings_, char_embeddings_;
  BiRNNBuilder sentence_rnn_;
  std::unique_ptr<BiRNNBuilder> char_rnn_;  ///< only in the word+char variant
  Parameter p_hidden_w_, p_hidden_b_, p_out_w_, p_out_b_;
  Expression hidden_w_, hidden_b_, out_w_, out_b_;
  ShardedTraining<BiLSTMTagger> sharded_;
};

struct Settings {
  std::string train = default_data_path("tags/train.txt"), dev = default_data_path("tags/dev.txt");
  unsigned max_train = 0, max_dev = 0;  ///< 0: all
  unsigned min_count = 0;
  Shape shape;
  TrainingFlags training;
};

int run(Settings& s) {
  TrainingGroup group(s.training);
  const bool spell = s.shape.char_embedding > 0;
  if (s.min_count == 0) s.min_count = spell ? 5 : 2;

  std::vector<TaggedSentence> train_text = read_tagged_sentences(s.train), dev_text = read_tagged_sentences(s.dev);
  keep_first(train_text, s.max_train, s.train);
  keep_first(dev_text, s.max_dev, s.dev);

  Vocabulary vocabulary;
  const std::vector<NamedDict> vocabularies{
      {"words", &vocabulary.words}, {"tags", &vocabulary.tags}, {"chars", &vocabulary.chars}};
  if (!s.training.load.empty()) {
    load_dicts(s.training.load + ".vocab", vocabularies);
    vocabulary.spell_rare = spell;
  } else {
    vocabulary = Vocabulary(train_text, s.min_count, spell);
  }
  std::vector<EncodedSentence> train, dev;
  std::size_t spelled = 0, train_words = 0;
  for (const TaggedSentence& t : train_text) {
    train.push_back(vocabulary.encode(t));
    train_words += t.words.size();
    for (const auto& letters : train.back().spellings) spelled += !letters.empty();
  }
  for (const TaggedSentence& t : dev_text) dev.push_back(vocabulary.encode(t));

  ParameterCollection model;
  BiLSTMTagger tagger(model, s.shape, vocabulary);
  if (!s.training.load.empty()) TextFileLoader(s.training.load).populate(model);
  tagger.set_reducer(&group.share(model));
  auto trainer = s.training.make_trainer(model);
  std::cout << "bilstm-tagger: " << train.size() << " training sentences (" << train_words << " words, " << spelled
            << " spelled by characters), " << dev.size() << " development sentences; " << vocabulary.words.size()
            << " words, " << vocabulary.tags.size() << " tags; autobatch " << current_params().autobatch << "\n";

  std::mt19937 rng(1);
  std::printf("learning curve\n%6s %12s %10s %10s\n", "epoch", "train loss", "words/s", "dev acc");
  std::printf("%6u %12s %10s %10.4f\n", 0u, "-", "-", tagger.accuracy(dev, 64));
  train_epochs(
      s.training, "sent", train, [&] { return shuffled_minibatches(train.size(), s.training.batch, rng); },
      [&](const std::vector<const EncodedSentence*>& sentences) { return tagger.train(sentences, *trainer); },
      [](const EncodedSentence& sentence) { return sentence.words.size(); },
      [&](unsigned epoch, const EpochSummary& e) {
        std::printf("%6u %12.4f %10.1f %10.4f\n", epoch, e.mean_loss(), e.units_per_second(), tagger.accuracy(dev, 64));
        std::fflush(stdout);
      });
  if (!s.training.save.empty()) {
    group.on_root([&] { save_model_and_dicts(s.training.save, model, s.training.save + ".vocab", vocabularies); });
    std::cout << "saved the model to " << s.training.save << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  s.training.epochs = 5;
  po::options_description flags("flags");
  flags.add_options()("train", po::value(&s.train)->default_value(s.train),
                      "training sentences, word|TAG word|TAG ...")("dev", po::value(&s.dev)->default_value(s.dev),
                                                                   "development sentences")(
      "max-train", po::value(&s.max_train)->default_value(0), "use only the first N training sentences (0: all)")(
      "max-dev", po::value(&s.max_dev)->default_value(0), "use only the first N development sentences (0: all)")(
      "embedding", po::value(&s.shape.embedding)->default_value(s.shape.embedding), "word embedding size (even)")(
      "hidden", po::value(&s.shape.hidden)->default_value(s.shape.hidden),
      "state size of each direction of the BiLSTM")("mlp", po::value(&s.shape.mlp)->default_value(s.shape.mlp),
                                                    "hidden size of the tag scorer")(
      "char-embedding", po::value(&s.shape.char_embedding)->default_value(s.shape.char_embedding),
      "character embedding size; > 0 spells rare words with a char BiLSTM")(
      "min-count", po::value(&s.min_count)->default_value(s.min_count),
      "words seen fewer times are rare (0: 5 with characters, else 2)");
  s.training.declare(flags, "sentences", true);
  return run_training_program("bilstm-tagger",
                              "Trains a BiLSTM tagger on word|TAG sentences; reports development tag accuracy.", flags,
                              argc, argv, [&] { return run(s); });
}
