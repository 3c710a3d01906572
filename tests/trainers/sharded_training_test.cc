// ShardedTraining: one update over a minibatch gives the same loss and parameters whether it is
// built in one graph or in shards on several threads (each by a copy of the model), and with a
// reducer of one process; every item of the minibatch is in exactly one shard, and a rank of
// several builds its share alone.

#include <catch2/catch.hpp>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "support/distributed_model.h"
#include "trainers/parallel/communicator.h"
#include "trainers/parallel/sharded_training.h"

using namespace dynet;
using test_support::DistributedModel;

namespace {

/// A copyable view of the test model; every copy notes the items its shards covered.
struct Shards {
  const DistributedModel* m;
  std::mutex* lock;
  std::vector<unsigned>* times_built;  ///< per item, how often a shard built its loss
  Expression loss(ComputationGraph& cg, std::size_t first, std::size_t end) {
    {
      const std::lock_guard<std::mutex> hold(*lock);
      for (std::size_t i = first; i < end; ++i) ++(*times_built)[i];
    }
    return m->loss(cg, first, end);
  }
};

/// Rank 1 of two whose rank 0 makes the same calls with the same data: sums are doubled.
class MirroredRank : public Communicator {
 public:
  int rank() const override { return 1; }
  int size() const override { return 2; }
  void allreduce_sum(float* data, std::size_t n) override {
    for (std::size_t i = 0; i < n; ++i) data[i] *= 2;
  }
  void broadcast(void*, std::size_t, int) override {}
  void allgather(const std::uint8_t* data, std::size_t bytes, std::vector<std::uint8_t>& out,
                 std::vector<std::size_t>& offsets) override {
    out.assign(data, data + bytes);
    out.insert(out.end(), data, data + bytes);
    offsets = {0, bytes, 2 * bytes};
  }
  void barrier() override {}
  [[noreturn]] void abort(const std::string&) override { std::abort(); }
};

constexpr std::size_t kBatch = 7;
constexpr unsigned kSteps = 4;

struct Run {
  std::vector<double> losses;
  std::vector<float> values;
  std::vector<unsigned> times_built = std::vector<unsigned>(kSteps * kBatch, 0);
};

/// kSteps updates of kBatch items, step s on items [s * kBatch, (s + 1) * kBatch).
Run train(unsigned threads, DistributedReducer* reducer_of = nullptr, DistributedModel* model = nullptr) {
  DistributedModel own(11);
  DistributedModel& m = model ? *model : own;
  const auto trainer = test_support::distributed_test_trainer(m);
  Run run;
  std::mutex lock;
  Shards shards{&m, &lock, &run.times_built};
  ShardedTraining<Shards> sharded(threads);
  sharded.set_reducer(reducer_of);
  for (unsigned step = 0; step < kSteps; ++step)
    run.losses.push_back(sharded.step(shards, kBatch, *trainer,
                                      [&](Shards& s, ComputationGraph& cg, std::size_t first, std::size_t end) {
                                        return s.loss(cg, step * kBatch + first, step * kBatch + end);
                                      }));
  run.values = m.values();
  return run;
}

}  // namespace

TEST_CASE("sharded training on several threads updates as one graph does", "[trainers][sharded_training][threads]") {
  const Run one = train(1);
  const unsigned threads = GENERATE(2, 3, 8);  // 8 > kBatch: one shard per item
  CAPTURE(threads);
  const Run many = train(threads);
  REQUIRE(test_support::relative_differences(one.values, DistributedModel(11).values(), 1e-3) > 0);
  CHECK(many.times_built == std::vector<unsigned>(kSteps * kBatch, 1));
  for (unsigned s = 0; s < kSteps; ++s) CHECK(many.losses[s] == Approx(one.losses[s]).epsilon(1e-5));
  CHECK(test_support::relative_differences(many.values, one.values, 1e-5) == 0);
}

TEST_CASE("sharded training through a reducer of one process updates as alone", "[trainers][sharded_training]") {
  const Run alone = train(2);
  DistributedModel m(11);
  SingleProcess group;
  DistributedReducer reducer(m.pc, group);
  const Run shared = train(2, &reducer, &m);
  CHECK(reducer.steps() == kSteps);
  CHECK(shared.times_built == alone.times_built);
  CHECK(shared.losses == alone.losses);
  CHECK(test_support::bitwise_differences(shared.values, alone.values) == 0);
}

TEST_CASE("sharded training on a rank of two builds that rank's share of every minibatch",
          "[trainers][sharded_training]") {
  DistributedModel m(11);
  MirroredRank second;
  DistributedReducer reducer(m.pc, second);
  const Run run = train(2, &reducer, &m);
  CHECK(reducer.steps() == kSteps);
  std::vector<unsigned> second_half(kSteps * kBatch, 0);  // share_of(7, 1, 2) is items [4, 7)
  for (unsigned s = 0; s < kSteps; ++s)
    for (std::size_t i = 4; i < kBatch; ++i) second_half[s * kBatch + i] = 1;
  CHECK(run.times_built == second_half);
}

TEST_CASE("sharded training refuses zero threads", "[trainers][sharded_training]") {
  CHECK_THROWS_WITH(ShardedTraining<Shards>(0),
                    Catch::Contains("ShardedTraining::set_threads") && Catch::Contains("not 0"));
}
