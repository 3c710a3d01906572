#include <catch2/catch.hpp>

#include <fstream>
#include <random>

#include "scratch_folder.h"
#include "support/example_program.h"

using test_support::check_same_training;
using test_support::learning_curve;
using test_support::run_example;

namespace {

struct Phrase {
  std::string text;  // in SST brackets
  bool good = false, bad = false;
};

/// A random binary tree of "good", "bad" and neutral words, up to `depth` deep (a sentence: at
/// least two words); every node is labeled 4 when it holds "good" but not "bad", 0 for the
/// reverse, else 2 (of SST's five classes).
Phrase phrase(std::mt19937& rng, unsigned depth, bool sentence) {
  Phrase p;
  if (depth == 0 || (!sentence && rng() % 3 == 0)) {
    static const char* const words[] = {"good", "bad", "the", "film", "was", "a"};
    const std::string w = words[rng() % 6];
    p.good = w == "good";
    p.bad = w == "bad";
    p.text = w;
  } else {
    const Phrase l = phrase(rng, depth - 1, false), r = phrase(rng, depth - 1, false);
    p.good = l.good || r.good;
    p.bad = l.bad || r.bad;
    p.text = l.text + " " + r.text;
  }
  const int label = p.good && !p.bad ? 4 : p.bad && !p.good ? 0 : 2;
  p.text = "(" + std::to_string(label) + " " + p.text + ")";
  return p;
}

std::string trees_file(const ScratchFolder& folder, const std::string& name, unsigned n, unsigned seed) {
  std::mt19937 rng(seed);
  const std::string path = folder.file(name);
  std::ofstream out(path);
  for (unsigned k = 0; k < n; ++k) out << phrase(rng, 3, true).text << "\n";
  return path;
}

/// treelstm-sentiment's learning curve with a small model on generated trees: rows of epoch,
/// training loss per node, trees/s, development root and node accuracy.
test_support::Curve small_curve(const std::string& arguments) {
  ScratchFolder folder;
  const std::string train = trees_file(folder, "train.txt", 80, 1), dev = trees_file(folder, "dev.txt", 40, 2);
  return learning_curve(run_example("treelstm-sentiment", "--train " + train + " --dev " + dev +
                                                              " --min-count 1 --embedding 8 --hidden 16 --batch 8 "
                                                              "--trainer adam --learning-rate 0.01 " +
                                                              arguments));
}

}  // namespace

TEST_CASE("treelstm-sentiment learns which phrases hold a good or a bad word, with either cell",
          "[examples][sentiment]") {
  const std::string cell = GENERATE("binary", "child-sum");
  const auto curve = small_curve("--epochs 30 --dropout 0 --dynet-seed 1 --cell " + cell);
  REQUIRE(curve.size() == 31);
  INFO("development accuracy: roots " << curve.front()[3] << " before training, " << curve.back()[3] << " after; nodes "
                                      << curve.front()[4] << " before, " << curve.back()[4] << " after");
  CHECK(curve.back()[3] > 0.8);
  CHECK(curve.back()[4] > 0.9);
}

TEST_CASE("treelstm-sentiment trains the same on one thread and in parallel shards", "[examples][sentiment][threads]") {
  const auto one = small_curve("--epochs 3 --dropout 0 --dynet-seed 4");
  const auto three = small_curve("--epochs 3 --dropout 0 --dynet-seed 4 --dynet-threads 3");
  check_same_training(one, three, 3, 1, 2e-4, 4);
}
