#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <random>

#include "scratch_folder.h"
#include "support/example_program.h"

using test_support::check_same_training;
using test_support::learning_curve;
using test_support::run_example;

namespace {

/// A file of sentences that count up from a random digit: "3 4 5 6", "7 8 9".
std::string counting_sentences(const ScratchFolder& folder, const std::string& name, unsigned n, unsigned seed) {
  std::mt19937 rng(seed);
  const std::string path = folder.file(name);
  std::ofstream out(path);
  for (unsigned k = 0; k < n; ++k) {
    const unsigned start = rng() % 6, length = 2 + rng() % 4;
    for (unsigned w = start; w < std::min(10u, start + length); ++w) out << (w == start ? "" : " ") << w;
    out << "\n";
  }
  return path;
}

/// rnnlm's learning curve with a small model trained and evaluated on counting sentences: rows of
/// epoch, train perplexity, words/s and development perplexity.
test_support::Curve counting_curve(const std::string& arguments) {
  ScratchFolder folder;
  const std::string sentences = counting_sentences(folder, "sentences.txt", 48, 2);
  return learning_curve(run_example("rnnlm", "--train " + sentences + " --dev " + sentences +
                                                 " --embedding 8 --hidden 16 --dropout 0 --batch 8 --trainer sgd "
                                                 "--learning-rate 0.2 " +
                                                 arguments));
}

}  // namespace

TEST_CASE("rnnlm learns to count, with a full and with a class-factored softmax", "[examples][rnnlm]") {
  const std::string classes = GENERATE("0", "3");
  const auto curve = counting_curve("--epochs 60 --dynet-seed 1 --classes " + classes);
  REQUIRE(curve.size() == 61);
  // Plain SGD wobbles from epoch to epoch: the last ten epochs' mean tells what was learned.
  double trained = 0;
  for (std::size_t e = 51; e <= 60; ++e) trained += curve[e][3] / 10;
  INFO("perplexity: initial " << curve.front()[3] << ", trained " << trained);
  CHECK(curve.front()[3] > std::exp(2.0));  // about 11 words to choose from
  CHECK(trained < std::exp(1.0));           // only the first word and the length are uncertain
}

TEST_CASE("rnnlm: a padded, masked minibatch costs what its sentences cost one by one", "[examples][rnnlm]") {
  const auto one_by_one = counting_curve("--epochs 0 --dynet-seed 1 --eval-batch 1");
  const auto padded = counting_curve("--epochs 0 --dynet-seed 1 --eval-batch 16");
  REQUIRE(one_by_one.size() == 1);
  REQUIRE(padded.size() == 1);
  CHECK(padded[0][3] == Approx(one_by_one[0][3]).margin(0.01));
}

TEST_CASE("rnnlm trains the same on one thread and in parallel shards", "[examples][rnnlm][threads]") {
  const std::string classes = GENERATE("0", "3");
  const auto one = counting_curve("--epochs 3 --dynet-seed 5 --classes " + classes);
  const auto three = counting_curve("--epochs 3 --dynet-seed 5 --dynet-threads 3 --classes " + classes);
  check_same_training(one, three, 3, 1, 0.02, 3);  // perplexities
}
