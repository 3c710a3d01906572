// attention: an encoder-decoder with additive attention (Bahdanau et al., 2015) learns to reverse
// strings of digits.
//
// The source string is read by a VanillaLSTM in each direction; H holds the two states of every
// position side by side, one column each. The decoder, another VanillaLSTM, is fed the previous
// target token and the previous context; at every step it scores each source position,
// v . tanh(W1 H + W2 h), turns the scores into weights with a softmax and reads the context
// H * weights; the next token's scores come from an affine layer over [h; context]. A minibatch of
// strings shares one graph, written one example at a time, as plain code: the autobatcher
// (--dynet-autobatch 1) runs step t of every decoder as one call per op, and the products over each
// example's own source states (W1 * H, H * weights) as one batched product. Needs no data files.

#include <algorithm>
#include <boost/program_options/options_description.hpp>
#include <boost/program_options/value_semantic.hpp>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "builders/vanilla_lstm_builder.h"
#include "dynet_core/graph.h"
#include "dynet_core/init.h"
#include "dynet_core/io/savers_and_loaders.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"
#include "dynet_core/tensor_tools.h"
#include "examples/common/minibatches.h"
#include "examples/common/training_epoch.h"
#include "trainers/program/training_flags.h"
#include "trainers/program/training_program.h"

using namespace dynet;
using namespace examples;
namespace po = boost::program_options;

namespace {

/// Tokens: the digits, then the decoder's start and the end of every target.
constexpr unsigned kStart = 10, kEnd = 11, kVocabulary = 12;
constexpr unsigned kEvaluationBatch = 256;

struct Example {
  std::vector<unsigned> source;
  std::vector<unsigned> target;  ///< the source reversed, then kEnd
  std::vector<unsigned> source_reversed() const { return {target.begin(), target.end() - 1}; }
};

std::vector<Example> random_strings(std::size_t n, unsigned min_length, unsigned max_length, std::mt19937& rng) {
  std::uniform_int_distribution<unsigned> length(min_length, max_length), digit(0, 9);
  std::vector<Example> examples(n);
  for (Example& e : examples) {
    e.source.resize(length(rng));
    for (unsigned& d : e.source) d = digit(rng);
    e.target.assign(e.source.rbegin(), e.source.rend());
    e.target.push_back(kEnd);
  }
  return examples;
}

std::string digits(const std::vector<unsigned>& tokens) {
  std::string s;
  for (unsigned t : tokens) s += t < 10 ? char('0' + t) : '$';
  return s;
}

struct Sizes {
  unsigned embedding = 32, hidden = 64, attention = 64;
};

class Reverser {
 public:
  Reverser(ParameterCollection& model, const Sizes& s)
      : embeddings_(model.add_lookup_parameters(kVocabulary, {s.embedding}, "embeddings")),
        left_to_right_(1, s.embedding, s.hidden, model),
        right_to_left_(1, s.embedding, s.hidden, model),
        decoder_(1, s.embedding + 2 * s.hidden, s.hidden, model),
        p_w1_(model.add_parameters({s.attention, 2 * s.hidden}, 0.f, "attention_source")),
        p_w2_(model.add_parameters({s.attention, s.hidden}, 0.f, "attention_decoder")),
        p_v_(model.add_parameters({1, s.attention}, 0.f, "attention_v")),
        p_out_w_(model.add_parameters({kVocabulary, 3 * s.hidden}, 0.f, "output_w")),
        p_out_b_(model.add_parameters({kVocabulary}, ParameterInitConst(0.f), "output_b")),
        source_rows_(2 * s.hidden) {}

  /// One example's decoder: its source states, W1 times them, its last position and context.
  struct Decoding {
    Expression states, scored_states, context;
    RNNPointer at = -1;
  };

  void new_graph(ComputationGraph& cg, bool training) {
    cg_ = &cg;
    for (RNNBuilder* b : {static_cast<RNNBuilder*>(&left_to_right_), static_cast<RNNBuilder*>(&right_to_left_),
                          static_cast<RNNBuilder*>(&decoder_)})
      b->new_graph(cg, training);
    auto use = [&](Parameter& p) { return training ? parameter(cg, p) : const_parameter(cg, p); };
    w1_ = use(p_w1_);
    w2_ = use(p_w2_);
    v_ = use(p_v_);
    out_w_ = use(p_out_w_);
    out_b_ = use(p_out_b_);
    decoder_.start_new_sequence();  // every example continues from its initial state, position -1
  }

  /// Reads `source` in both directions; the decoder starts at the initial state with a zero context.
  Decoding encode(const std::vector<unsigned>& source) {
    std::vector<Expression> embedded, forward, columns;
    for (unsigned t : source) embedded.push_back(lookup(*cg_, embeddings_, t));
    left_to_right_.start_new_sequence();
    for (const Expression& x : embedded) forward.push_back(left_to_right_.add_input(x));
    right_to_left_.start_new_sequence();
    std::vector<Expression> backward(embedded.size());
    for (std::size_t i = embedded.size(); i-- > 0;) backward[i] = right_to_left_.add_input(embedded[i]);
    for (std::size_t i = 0; i < embedded.size(); ++i) columns.push_back(concatenate({forward[i], backward[i]}));
    Decoding d;
    d.states = concatenate_cols(columns);
    d.scored_states = w1_ * d.states;
    d.context = zeros(*cg_, {source_rows_});
    return d;
  }

  /// Feeds `previous` to the decoder of d; returns the scores of the next token.
  Expression step(Decoding& d, unsigned previous) {
    const Expression h = decoder_.add_input(d.at, concatenate({lookup(*cg_, embeddings_, previous), d.context}));
    d.at = decoder_.state();
    const Expression weights = softmax(transpose(v_ * tanh(colwise_add(d.scored_states, w2_ * h))));
    d.context = d.states * weights;
    return affine_transform({out_b_, out_w_, concatenate({h, d.context})});
  }

  /// The summed loss of every target token of `batch`, fed the true previous token.
  Expression loss(const std::vector<const Example*>& batch) {
    std::vector<Expression> losses;
    for (const Example* e : batch) {
      Decoding d = encode(e->source);
      unsigned previous = kStart;
      for (unsigned t : e->target) {
        losses.push_back(pickneglogsoftmax(step(d, previous), t));
        previous = t;
      }
    }
    return sum(losses);
  }

  /// Greedy decoding of `sources`, one graph for all of them; each output stops at kEnd or after
  /// twice its source's length.
  std::vector<std::vector<unsigned>> decode(const std::vector<const std::vector<unsigned>*>& sources) {
    ComputationGraph cg;
    new_graph(cg, false);
    std::vector<Decoding> decodings;
    std::vector<std::vector<unsigned>> outputs(sources.size());
    std::vector<std::size_t> alive;
    for (std::size_t k = 0; k < sources.size(); ++k) {
      decodings.push_back(encode(*sources[k]));
      alive.push_back(k);
    }
    for (unsigned t = 0; !alive.empty(); ++t) {
      // One forward for the step of every string still decoding, so that they run together.
      std::vector<Expression> scores;
      for (std::size_t k : alive) scores.push_back(step(decodings[k], t == 0 ? kStart : outputs[k].back()));
      const std::vector<std::ptrdiff_t> best =
          as_vector(TensorTools::argmax(cg.incremental_forward(concatenate_cols(scores))));
      std::vector<std::size_t> still;
      for (std::size_t a = 0; a < alive.size(); ++a) {
        const std::size_t k = alive[a];
        if (unsigned(best[a]) == kEnd) continue;
        outputs[k].push_back(unsigned(best[a]));
        if (outputs[k].size() < 2 * sources[k]->size()) still.push_back(k);
      }
      alive.swap(still);
    }
    return outputs;
  }

  /// The share of `examples` reversed exactly.
  double accuracy(const std::vector<Example>& examples) {
    std::size_t correct = 0;
    for (std::size_t first = 0; first < examples.size(); first += kEvaluationBatch) {
      std::vector<const std::vector<unsigned>*> sources;
      for (std::size_t k = first; k < std::min(examples.size(), first + kEvaluationBatch); ++k)
        sources.push_back(&examples[k].source);
      const std::vector<std::vector<unsigned>> out = decode(sources);
      for (std::size_t k = 0; k < out.size(); ++k) correct += out[k] == examples[first + k].source_reversed();
    }
    return examples.empty() ? 0.0 : double(correct) / examples.size();
  }

 private:
  LookupParameter embeddings_;
  VanillaLSTMBuilder left_to_right_, right_to_left_, decoder_;
  Parameter p_w1_, p_w2_, p_v_, p_out_w_, p_out_b_;
  unsigned source_rows_;
  ComputationGraph* cg_ = nullptr;
  Expression w1_, w2_, v_, out_w_, out_b_;
};

struct Settings {
  unsigned train = 20000, dev = 1000, min_length = 3, max_length = 8, data_seed = 1, show = 5;
  Sizes sizes;
  TrainingFlags training;
};

int run(Settings& s) {
  if (s.min_length == 0 || s.min_length > s.max_length)
    throw UsageError("--min-length and --max-length: need 1 <= min <= max, got " + std::to_string(s.min_length) +
                     " and " + std::to_string(s.max_length));
  std::mt19937 rng(s.data_seed);
  const std::vector<Example> train = random_strings(s.train, s.min_length, s.max_length, rng);
  const std::vector<Example> dev = random_strings(s.dev, s.min_length, s.max_length, rng);
  std::cout << "attention: reversing " << train.size() << " training and " << dev.size() << " development strings of "
            << s.min_length << "-" << s.max_length << " digits; autobatch " << current_params().autobatch << "\n";

  ParameterCollection model;
  Reverser reverser(model, s.sizes);
  if (!s.training.load.empty()) TextFileLoader(s.training.load).populate(model);
  auto trainer = s.training.make_trainer(model);

  std::printf("%6s %12s %12s %14s\n", "epoch", "train loss", "strings/s", "dev reversed");
  std::printf("%6u %12s %12s %14.4f\n", 0u, "-", "-", reverser.accuracy(dev));
  std::fflush(stdout);
  double accuracy = 0;
  train_epochs(
      s.training, "strings", train, [&] { return shuffled_minibatches(train.size(), s.training.batch, rng); },
      [&](const std::vector<const Example*>& batch) {
        ComputationGraph cg;
        reverser.new_graph(cg, true);
        const Expression loss = reverser.loss(batch);
        const double value = as_scalar(cg.forward(loss));
        cg.backward(loss);
        trainer->update();
        return value;
      },
      [](const Example& e) { return e.target.size(); },
      [&](unsigned epoch, const EpochSummary& e) {
        accuracy = reverser.accuracy(dev);
        std::printf("%6u %12.4f %12.1f %14.4f\n", epoch, e.mean_loss(), e.examples_per_second(), accuracy);
        std::fflush(stdout);
      });

  std::vector<const std::vector<unsigned>*> shown;
  for (std::size_t k = 0; k < std::min<std::size_t>(s.show, dev.size()); ++k) shown.push_back(&dev[k].source);
  const std::vector<std::vector<unsigned>> out = reverser.decode(shown);
  for (std::size_t k = 0; k < out.size(); ++k)
    std::printf("  %s -> %s\n", digits(*shown[k]).c_str(), digits(out[k]).c_str());
  std::printf("final development accuracy: %.3f of the strings reversed exactly\n", accuracy);
  if (!s.training.save.empty()) {
    TextFileSaver(s.training.save).save(model);
    std::cout << "saved the model to " << s.training.save << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  s.training.epochs = 4;
  s.training.batch = 32;
  po::options_description flags("flags");
  flags.add_options()("train", po::value(&s.train)->default_value(s.train), "training strings")(
      "dev", po::value(&s.dev)->default_value(s.dev), "development strings")(
      "min-length", po::value(&s.min_length)->default_value(s.min_length), "shortest string")(
      "max-length", po::value(&s.max_length)->default_value(s.max_length), "longest string")(
      "data-seed", po::value(&s.data_seed)->default_value(s.data_seed), "seed of the generated strings")(
      "embedding", po::value(&s.sizes.embedding)->default_value(s.sizes.embedding), "token embedding size")(
      "hidden", po::value(&s.sizes.hidden)->default_value(s.sizes.hidden), "state size of each LSTM")(
      "attention", po::value(&s.sizes.attention)->default_value(s.sizes.attention), "attention layer size")(
      "show", po::value(&s.show)->default_value(s.show), "development strings to print with their decoding");
  s.training.declare(flags, "strings", false);
  return run_training_program("attention", "Trains an attention encoder-decoder to reverse strings of digits.", flags,
                              argc, argv, [&] { return run(s); });
}
