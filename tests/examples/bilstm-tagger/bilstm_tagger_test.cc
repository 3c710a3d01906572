#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <random>

#include "scratch_folder.h"
#include "support/example_program.h"

using test_support::check_same_training;
using test_support::learning_curve;
using test_support::run_example;

namespace {

/// A file of random words of 2-5 letters, as word|TAG: a word is tagged NAME when capitalized,
/// and a lower-case word right after a name is tagged AFTER (context the BiLSTM must read), else
/// O. Counts every word's occurrences into `counts`.
std::string generated_sentences(const ScratchFolder& folder, const std::string& name, unsigned n, unsigned seed,
                                std::map<std::string, unsigned>& counts) {
  std::mt19937 rng(seed);
  const std::string path = folder.file(name);
  std::ofstream out(path);
  for (unsigned k = 0; k < n; ++k) {
    const unsigned length = 3 + rng() % 5;
    std::string previous;
    for (unsigned i = 0; i < length; ++i) {
      const bool is_name = rng() % 3 == 0;
      std::string w;
      for (unsigned c = 0, letters = 2 + rng() % 4; c < letters; ++c) w += static_cast<char>('a' + rng() % 6);
      if (is_name) w[0] = static_cast<char>(w[0] - 'a' + 'A');
      const std::string tag = is_name ? "NAME" : previous == "NAME" ? "AFTER" : "O";
      out << (i == 0 ? "" : " ") << w << "|" << tag;
      ++counts[w];
      previous = tag;
    }
    out << "\n";
  }
  return path;
}

/// bilstm-tagger's output for a small model on 60 generated training and 30 development sentences.
std::string tagger_output(const std::string& arguments, std::map<std::string, unsigned>* train_counts = nullptr) {
  ScratchFolder folder;
  std::map<std::string, unsigned> counts, dev_counts;
  const std::string train = generated_sentences(folder, "train.txt", 60, 1, counts);
  const std::string dev = generated_sentences(folder, "dev.txt", 30, 2, dev_counts);
  if (train_counts) *train_counts = counts;
  return run_example("bilstm-tagger", "--train " + train + " --dev " + dev +
                                          " --embedding 8 --hidden 8 --mlp 8 --min-count 2 --batch 6 --trainer sgd "
                                          "--learning-rate 0.1 " +
                                          arguments);
}

}  // namespace

TEST_CASE("bilstm-tagger reads context, and spells unseen words with characters", "[examples][tagger]") {
  // Development words are mostly unseen: only their spelling tells a name from another word.
  const auto words_only = learning_curve(tagger_output("--epochs 25 --dynet-seed 1"));
  const auto with_chars = learning_curve(tagger_output("--epochs 25 --dynet-seed 1 --char-embedding 6"));
  REQUIRE(words_only.size() == 26);
  REQUIRE(with_chars.size() == 26);
  INFO("development accuracy: words only " << words_only.back()[3] << ", with characters " << with_chars.back()[3]);
  CHECK(with_chars.back()[3] > 0.9);
  CHECK(with_chars.back()[3] > words_only.back()[3] + 0.1);
}

TEST_CASE("bilstm-tagger spells the words seen fewer times than --min-count", "[examples][tagger]") {
  std::map<std::string, unsigned> counts;
  const std::string output = tagger_output("--epochs 0 --char-embedding 6", &counts);
  std::size_t words = 0, rare = 0;
  for (const auto& wc : counts) {
    words += wc.second;
    if (wc.second < 2) rare += wc.second;
  }
  CHECK_THAT(output, Catch::Contains("(" + std::to_string(words) + " words, " + std::to_string(rare) +
                                     " spelled by characters)"));
}

TEST_CASE("bilstm-tagger trains the same on one thread and in parallel shards", "[examples][tagger][threads]") {
  const auto one = learning_curve(tagger_output("--epochs 2 --dynet-seed 5 --char-embedding 6"));
  const auto three = learning_curve(tagger_output("--epochs 2 --dynet-seed 5 --char-embedding 6 --dynet-threads 3"));
  check_same_training(one, three, 2, 1, 2e-4, 3);
}
