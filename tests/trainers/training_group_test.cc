// A training program's group: one process without a launcher; with several ranks, rank 0 alone
// writes, and a time limit (which could stop the ranks after different minibatches) is refused.

#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "trainers/program/training_group.h"

using namespace dynet;

namespace {

/// Rank `rank` of a group of `size` whose collectives are never called by these tests.
class Rank : public SingleProcess {
 public:
  Rank(int rank, int size) : rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }

 private:
  int rank_, size_;
};

}  // namespace

TEST_CASE("without a launcher the training group is this process, which writes", "[trainers][training_group]") {
  TrainingFlags flags;
  flags.seconds = 5;  // one process stops where it stops
  TrainingGroup group(flags);
  CHECK(group.rank() == 0);
  CHECK(group.size() == 1);
  unsigned writes = 0;
  group.on_root([&] { ++writes; });
  ParameterCollection model;
  model.add_parameters({3});
  DistributedReducer& reducer = group.share(model);
  CHECK(reducer.size() == 1);
  group.on_root([&] { ++writes; });
  CHECK(writes == 2);
}

TEST_CASE("on several ranks only rank 0 writes", "[trainers][training_group]") {
  TrainingFlags flags;
  unsigned writes = 0;
  TrainingGroup(flags, std::make_unique<Rank>(1, 2)).on_root([&] { ++writes; });
  CHECK(writes == 0);
  TrainingGroup(flags, std::make_unique<Rank>(0, 2)).on_root([&] { ++writes; });
  CHECK(writes == 1);
}

TEST_CASE("the training group checks the flags and refuses a time limit on several ranks",
          "[trainers][training_group]") {
  TrainingFlags flags;
  flags.seconds = 10;
  CHECK_THROWS_WITH(TrainingGroup(flags, std::make_unique<Rank>(0, 3)),
                    Catch::Contains("--seconds") && Catch::Contains("3 ranks"));
  CHECK_NOTHROW(TrainingGroup(flags, std::make_unique<Rank>(0, 1)));
  flags.seconds = 0;
  flags.batch = 0;
  CHECK_THROWS_AS(TrainingGroup(flags, std::make_unique<Rank>(0, 1)), UsageError);
}
