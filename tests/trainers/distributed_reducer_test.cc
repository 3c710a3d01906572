// DistributedReducer without MPI: the ranks are threads of this process, joined by a communicator
// whose collectives meet at a barrier (tests/mpi runs the same promises as MPI jobs). Shares split
// uneven minibatches exactly; ranks trained on their shares end with the parameters of one
// process trained on the whole minibatches; a rank that throws stops all; different models are
// refused; one process alone goes through unchanged.

#include <catch2/catch.hpp>

#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "dynet_core/tensor_tools.h"
#include "support/distributed_model.h"
#include "trainers/parallel/communicator.h"

using namespace dynet;
using test_support::DistributedModel;

namespace {

/// `n` ranks as threads: every collective deposits each rank's bytes, waits for all, reads them.
class ThreadGroup {
 public:
  explicit ThreadGroup(int n) : slots_(n) {
    for (int r = 0; r < n; ++r) ranks_.push_back(std::make_unique<Rank>(*this, r));
  }
  Communicator& rank(int r) { return *ranks_[r]; }

  /// Runs body(rank) on one thread per rank; rethrows the first rank's exception.
  void run(const std::function<void(int)>& body) {
    std::vector<std::exception_ptr> errors(ranks_.size());
    std::vector<std::thread> threads;
    for (int r = 0; r < int(ranks_.size()); ++r)
      threads.emplace_back([&, r] {
        try {
          body(r);
        } catch (...) {
          errors[r] = std::current_exception();
        }
      });
    for (std::thread& t : threads) t.join();
    for (const std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);
  }

 private:
  class Rank : public Communicator {
   public:
    Rank(ThreadGroup& g, int r) : g_(g), r_(r) {}
    int rank() const override { return r_; }
    int size() const override { return int(g_.slots_.size()); }
    void allreduce_sum(float* data, std::size_t n) override {
      const auto all = g_.exchange(r_, data, n * sizeof(float));
      std::vector<float> sum(n, 0.f);
      for (const auto& bytes : all)  // in rank order on every rank: the same sums everywhere
        for (std::size_t i = 0; i < n; ++i) {
          float x;
          std::memcpy(&x, bytes.data() + i * sizeof(float), sizeof x);
          sum[i] += x;
        }
      std::memcpy(data, sum.data(), n * sizeof(float));
    }
    void broadcast(void* data, std::size_t bytes, int root) override {
      const auto all = g_.exchange(r_, data, r_ == root ? bytes : 0);
      std::memcpy(data, all[root].data(), bytes);
    }
    void allgather(const std::uint8_t* data, std::size_t bytes, std::vector<std::uint8_t>& out,
                   std::vector<std::size_t>& offsets) override {
      const auto all = g_.exchange(r_, data, bytes);
      out.clear();
      offsets.assign(1, 0);
      for (const auto& b : all) {
        out.insert(out.end(), b.begin(), b.end());
        offsets.push_back(out.size());
      }
    }
    void barrier() override { g_.exchange(r_, nullptr, 0); }
    [[noreturn]] void abort(const std::string&) override { std::abort(); }

   private:
    ThreadGroup& g_;
    int r_;
  };

  std::vector<std::vector<std::uint8_t>> exchange(int r, const void* data, std::size_t bytes) {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto* p = static_cast<const std::uint8_t*>(data);
    slots_[r].assign(p, p + bytes);
    wait(lock);
    std::vector<std::vector<std::uint8_t>> all = slots_;
    wait(lock);  // nobody deposits the next collective's bytes before everyone has read these
    return all;
  }
  void wait(std::unique_lock<std::mutex>& lock) {
    const unsigned generation = generation_;
    if (++arrived_ == slots_.size()) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return generation_ != generation; });
    }
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::size_t arrived_ = 0;
  unsigned generation_ = 0;
  std::vector<std::vector<std::uint8_t>> slots_;
  std::vector<std::unique_ptr<Rank>> ranks_;
};

constexpr unsigned kSteps = 5;

/// What body(rank, its communicator), run by each of `ranks` ranks, threw as DistributedError on
/// each rank ("" where nothing was thrown).
std::vector<std::string> distributed_errors(int ranks, const std::function<void(int, Communicator&)>& body) {
  ThreadGroup group(ranks);
  std::vector<std::string> messages(ranks);
  group.run([&](int r) {
    try {
      body(r, group.rank(r));
    } catch (const DistributedError& e) {
      messages[r] = e.what();
    }
  });
  return messages;
}

}  // namespace

TEST_CASE("share_of splits n items over the ranks in order, the first n % ranks getting one more", "[distributed]") {
  for (std::size_t n : {0, 1, 2, 7, 9, 64})
    for (int ranks : {1, 2, 3, 5}) {
      std::size_t next = 0;
      for (int r = 0; r < ranks; ++r) {
        const Share s = share_of(n, r, ranks);
        CHECK(s.begin == next);
        CHECK(s.size() == n / ranks + (std::size_t(r) < n % ranks ? 1 : 0));
        next = s.end;
      }
      CHECK(next == n);
    }
  CHECK_THROWS_WITH(share_of(4, 2, 2), Catch::Contains("rank 2 is not in [0, 2)"));
}

TEST_CASE("ranks training on their shares end with one process's parameters", "[distributed]") {
  const int ranks = GENERATE(2, 3);
  const std::size_t batch = GENERATE(7, 2);  // uneven shares; with 2 items and 3 ranks one gets none
  const unsigned threads = GENERATE(1, 2);   // DataParallel inside each rank
  CAPTURE(ranks, batch, threads);
  std::vector<std::unique_ptr<DistributedModel>> models;
  for (int r = 0; r < ranks; ++r) models.push_back(std::make_unique<DistributedModel>(100 + r));
  ThreadGroup group(ranks);
  group.run([&](int r) {
    DistributedOptions options;
    options.bucket_floats = 16;
    options.checksum_every = 2;
    DistributedReducer reducer(models[r]->pc, group.rank(r), options);
    const auto trainer = test_support::distributed_test_trainer(*models[r]);
    test_support::train_distributed(*models[r], reducer, *trainer, batch, threads, 0, kSteps);
  });
  DistributedModel one(100);
  test_support::train_alone(one, *test_support::distributed_test_trainer(one), batch, kSteps);
  REQUIRE(test_support::relative_differences(one.values(), DistributedModel(100).values(), 1e-3) > 0);
  for (int r = 0; r < ranks; ++r) {
    CHECK(test_support::bitwise_differences(models[r]->values(), models[0]->values()) == 0);
    CHECK(test_support::relative_differences(models[r]->values(), one.values(), 1e-5) == 0);
  }
}

TEST_CASE("a rank that throws in its step stops every rank with its rank and message", "[distributed]") {
  // Counted on the rank threads, checked here: Catch's assertions are not thread-safe.
  std::vector<std::size_t> gradients_left(3, 0);
  const auto messages = distributed_errors(3, [&gradients_left](int r, Communicator& comm) {
    DistributedModel m(7);
    DistributedReducer reducer(m.pc, comm);
    const auto trainer = test_support::distributed_test_trainer(m);
    try {
      test_support::train_distributed(m, reducer, *trainer, 7, 1, 0, kSteps, [&](unsigned step) {
        if (step == 2 && r == 1) throw std::runtime_error("no such word");
      });
    } catch (const DistributedError&) {
      for (const auto& p : m.pc.parameters_list())
        for (float g : as_vector(p->g)) gradients_left[r] += g != 0.f;
      throw;
    }
  });
  CHECK(gradients_left == std::vector<std::size_t>(3, 0));
  for (const std::string& message : messages)
    CHECK(message == "DistributedReducer::backward: rank 1 of 3 failed: no such word");
}

TEST_CASE("ranks with different models are refused, naming the first difference", "[distributed]") {
  const auto messages = distributed_errors(2, [](int r, Communicator& comm) {
    DistributedModel m(7, r == 0 ? 5 : 4);
    DistributedReducer reducer(m.pc, comm);
  });
  for (const std::string& message : messages) {
    CHECK_THAT(message, Catch::Contains("the ranks' models differ"));
    CHECK_THAT(message, Catch::Contains("parameter '/w' {4,4} on rank 1 but parameter '/w' {5,4} on rank 0"));
  }
}

TEST_CASE("the checksum catches a rank whose parameters drifted", "[distributed]") {
  const auto messages = distributed_errors(2, [](int r, Communicator& comm) {
    DistributedModel m(7);
    DistributedOptions options;
    options.checksum_every = 3;
    DistributedReducer reducer(m.pc, comm, options);
    const auto trainer = test_support::distributed_test_trainer(m);
    // One ulp, in the step whose backward compares: an update in between may round it away, as
    // it did for some initial values.
    test_support::train_distributed(m, reducer, *trainer, 7, 1, 0, kSteps, [&](unsigned step) {
      if (step == 2 && r == 1)
        TensorTools::set_element(*m.b.values(), 0, std::nextafter(TensorTools::access_element(*m.b.values(), 0), 1.f));
    });
  });
  for (const std::string& message : messages)
    CHECK_THAT(message, Catch::Contains("the parameters of rank 1 differ from rank 0's at step 3"));
}

TEST_CASE("on_root runs on rank 0 alone, and its failure reaches every rank", "[distributed]") {
  std::vector<int> ran(2, 0);
  const auto messages = distributed_errors(2, [&](int r, Communicator& comm) {
    DistributedModel m(7);
    DistributedReducer reducer(m.pc, comm);
    reducer.on_root([&] { ++ran[r]; });
    reducer.on_root([] { throw std::runtime_error("disk full"); });
  });
  CHECK(ran == std::vector<int>{1, 0});
  for (const std::string& message : messages)
    CHECK(message == "DistributedReducer::on_root: rank 0 of 2 failed: disk full");
}

TEST_CASE("ranks out of step are stopped, not left waiting", "[distributed]") {
  const auto messages = distributed_errors(2, [](int r, Communicator& comm) {
    DistributedModel m(7);
    DistributedReducer reducer(m.pc, comm);
    if (r == 0)
      reducer.backward([] { return 1.0; });
    else
      reducer.on_root([] {});
  });
  CHECK(messages[0] ==
        "DistributedReducer::backward: the ranks are out of step: rank 1 is in on_root after 0 steps, rank 0 in "
        "backward after 1 steps; every rank must make the same calls in the same order");
  CHECK_THAT(messages[1], Catch::StartsWith("DistributedReducer::on_root: the ranks are out of step: rank 1"));
}

TEST_CASE("one process alone: the reducer returns the local loss and keeps its gradients", "[distributed]") {
  DistributedModel m(7), same(7);
  SingleProcess alone;
  DistributedReducer reducer(m.pc, alone);
  test_support::train_distributed(m, reducer, *test_support::distributed_test_trainer(m), 7, 1, 0, kSteps);
  test_support::train_alone(same, *test_support::distributed_test_trainer(same), 7, kSteps);
  CHECK(test_support::bitwise_differences(m.values(), same.values()) == 0);
  ComputationGraph cg;
  const Expression l = m.loss(cg, 0, 3);
  const double local = as_scalar(cg.forward(l));
  CHECK(reducer.backward([&] { return local; }) == local);
}
