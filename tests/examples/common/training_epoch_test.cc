// The examples' one training loop: every epoch trains on the minibatches it is given, adds up the
// losses, examples and units, and reports once; a time limit ends training after the minibatch
// that reaches it.

#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "examples/common/training_epoch.h"

using namespace examples;

TEST_CASE("train_epochs trains every minibatch of every epoch and sums what each gave", "[examples][training_epoch]") {
  dynet::TrainingFlags flags;
  flags.epochs = 3;
  const std::vector<std::string> items{"a", "bb", "ccc", "dddd", "eeeee"};
  std::vector<std::vector<std::string>> seen;
  std::vector<unsigned> epochs;
  std::vector<EpochSummary> summaries;
  train_epochs(
      flags, "items", items,
      [] {
        return std::vector<Minibatch>{{4, 0}, {2}};
      },
      [&](const std::vector<const std::string*>& batch) {
        std::vector<std::string> words;
        for (const std::string* w : batch) words.push_back(*w);
        seen.push_back(words);
        return 10.0 * batch.size();
      },
      [](const std::string& w) { return w.size(); },
      [&](unsigned epoch, const EpochSummary& e) {
        epochs.push_back(epoch);
        summaries.push_back(e);
      });
  CHECK(epochs == std::vector<unsigned>{1, 2, 3});
  REQUIRE(seen.size() == 6);
  CHECK(seen[0] == std::vector<std::string>{"eeeee", "a"});
  CHECK(seen[1] == std::vector<std::string>{"ccc"});
  for (const EpochSummary& e : summaries) {
    CHECK(e.loss == 30.0);
    CHECK(e.examples == 3);
    CHECK(e.units == 9);  // 5 + 1 + 3 letters
    CHECK(e.mean_loss() == Approx(30.0 / 9));
  }
}

TEST_CASE("train_epochs stops after the minibatch that reaches the time limit", "[examples][training_epoch]") {
  dynet::TrainingFlags flags;
  flags.epochs = 4;
  flags.seconds = 0.001f;
  unsigned trained = 0, reported = 0;
  train_epochs(
      flags, "items",
      [] {
        return std::vector<Minibatch>{{0}, {1}, {2}};
      },
      [&](const Minibatch&) {
        ++trained;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));  // well past the limit
        return BatchLoss{1.0, 1, 1};
      },
      [&](unsigned, const EpochSummary& e) {
        ++reported;
        CHECK(e.examples == 1);
      });
  CHECK(trained == 1);
  CHECK(reported == 1);
}
