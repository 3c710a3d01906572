#include <catch2/catch.hpp>

#include "support/example_program.h"

using test_support::check_same_training;
using test_support::learning_curve;
using test_support::run_example;

namespace {

/// arith-trees' learning curve with a small model on small trees: rows of epoch, training loss
/// per node, trees/s, development root and node accuracy.
test_support::Curve small_curve(const std::string& arguments) {
  return learning_curve(run_example("arith-trees", "--train 64 --dev 64 --max-depth 2 --data-seed 3 --embedding 8 "
                                                   "--hidden 16 --batch 8 --trainer sgd --learning-rate 0.2 --show 0 " +
                                                       arguments));
}

}  // namespace

TEST_CASE("arith-trees learns small arithmetic trees with either cell", "[examples][arith]") {
  const std::string cell = GENERATE("binary", "child-sum");
  const auto curve = small_curve("--epochs 31 --dynet-seed 1 --cell " + cell);
  REQUIRE(curve.size() == 32);
  INFO("mean loss per node: first epoch " << curve[1][1] << ", last " << curve.back()[1]);
  CHECK(curve[1][1] > 1.8);  // about log 10 at the start
  CHECK(curve.back()[1] < 0.9);
  CHECK(curve.back()[4] > 0.6);
}

TEST_CASE("arith-trees trains the same on one thread and in parallel shards", "[examples][arith][threads]") {
  const std::string cell = GENERATE("binary", "child-sum");
  const auto one = small_curve("--epochs 3 --dynet-seed 9 --cell " + cell);
  const auto three = small_curve("--epochs 3 --dynet-seed 9 --dynet-threads 3 --cell " + cell);
  check_same_training(one, three, 3, 1, 2e-4, 4);
}

TEST_CASE("arith-trees names a tree cell it does not know", "[examples][arith]") {
  CHECK_THROWS_WITH(run_example("arith-trees", "--train 4 --dev 4 --epochs 0 --cell ternary"),
                    Catch::Contains("unknown tree cell 'ternary'"));
}
