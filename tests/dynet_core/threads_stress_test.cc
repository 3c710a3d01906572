// Several user threads at once, each building graphs of its own over one model: losses equal the
// single-threaded ones, with and without a matrix-product pool (--dynet-threads 2), and
// concurrent backward passes add every graph's parameter gradient exactly once.

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <thread>
#include <vector>

#include "dynet_core/device/device.h"
#include "dynet_core/device/thread_pool.h"
#include "dynet_core/gradient_set.h"
#include "dynet_core/graph.h"
#include "dynet_core/init.h"
#include "dynet_core/io/savers_and_loaders.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"
#include "support/temp_file.h"
#include "trainers/parallel/data_parallel.h"

using namespace dynet;

namespace {

constexpr unsigned kThreads = 4;
constexpr unsigned kGraphs = 16;
// 256x256 times 256x32 is past the size at which a product is split over the pool.
constexpr unsigned kHidden = 256, kColumns = 32;
constexpr unsigned kVocab = 40, kClasses = 5;
constexpr unsigned kHot = 16, kHotBatch = 8192;

struct Model {
  /// Parameters on `device`, the default device when null: a graph reads them on its own device.
  explicit Model(Device* on = nullptr) : device(on) {}

  Device* device;
  ParameterCollection pc;
  Parameter W = pc.add_parameters({kHidden, kHidden}, device);
  Parameter b = pc.add_parameters({kHidden}, device);
  Parameter V = pc.add_parameters({kClasses, kHidden}, device);
  LookupParameter E = pc.add_lookup_parameters(kVocab, {kHidden}, "", device);
  LookupParameter whole = pc.add_lookup_parameters(3, {kClasses}, "", device);
  // Values whose products and sums are exact in any order, so any lost update shows.
  LookupParameter hot_rows = pc.add_lookup_parameters(4, {kHot}, ParameterInitConst(0.25f), "", device);
  Parameter hot = pc.add_parameters({kHot}, ParameterInitConst(0.5f), "", device);

  /// Graph k: a column of words per batch element through two layers tanh(W h + b) and a softmax
  /// loss; every third graph also uses `whole` as one tensor. A long batch of a few rows of
  /// `hot_rows` times `hot` adds into their few gradients over and over, so that concurrent
  /// backward passes meet there often.
  Expression loss(ComputationGraph& cg, unsigned k) const {
    std::vector<unsigned> words(kColumns), labels(kColumns);
    for (unsigned j = 0; j < kColumns; ++j) {
      words[j] = (7 * k + 3 * j) % kVocab;
      labels[j] = (k + j) % kClasses;
    }
    const Expression Wx = parameter(cg, W), bx = parameter(cg, b);
    Expression h = lookup(cg, E, words);
    for (int layer = 0; layer < 2; ++layer) h = tanh(affine_transform({bx, Wx, h}));
    Expression scores = parameter(cg, V) * h;
    if (k % 3 == 0) scores = scores + sum_elems(parameter(cg, whole));
    std::vector<unsigned> hot_words(kHotBatch);
    for (unsigned j = 0; j < kHotBatch; ++j) hot_words[j] = (j + k) % 4;
    const Expression hot_term = sum_elems(cmult(parameter(cg, hot), lookup(cg, hot_rows, hot_words)));
    return sum_batches(pickneglogsoftmax(scores, labels)) + sum_batches(hot_term);
  }

  /// The gradient of each parameter and table.
  std::vector<std::vector<float>> gradients() const {
    std::vector<std::vector<float>> g;
    for (const Parameter* p : {&W, &b, &V, &hot}) g.push_back(as_vector(p->get_storage().g));
    for (const LookupParameter* t : {&E, &whole, &hot_rows}) g.push_back(as_vector(t->get_storage().all_grads));
    return g;
  }
  /// The rows of E with a gradient, in order.
  std::vector<unsigned> touched_rows() const {
    std::vector<unsigned> rows = E.get_storage().non_zero_grads.rows();
    std::sort(rows.begin(), rows.end());
    return rows;
  }
};

/// Runs f(k) for every graph k in [0, kGraphs), spread over `threads` threads running at once.
template <class F>
void on_threads(unsigned threads, const F& f) {
  std::vector<std::thread> running;
  for (unsigned t = 0; t < threads; ++t)
    running.emplace_back([&, t] {
      for (unsigned k = t; k < kGraphs; k += threads) f(k);
    });
  for (std::thread& t : running) t.join();
}

/// The loss of every graph, each built and run forward on `device` by one of `threads` threads.
std::vector<float> losses(const Model& m, Device* device, unsigned threads) {
  std::vector<float> l(kGraphs);
  on_threads(threads, [&](unsigned k) {
    ComputationGraph cg(device);
    l[k] = as_scalar(cg.forward(m.loss(cg, k)));
  });
  return l;
}

/// The parameter gradients of all graphs, each run forward and backward by one of `threads`
/// threads; also records each graph's loss.
std::vector<std::vector<float>> summed_gradients(Model& m, Device* device, unsigned threads, std::vector<float>& l) {
  m.pc.reset_gradient();
  l.assign(kGraphs, 0.f);
  on_threads(threads, [&](unsigned k) {
    ComputationGraph cg(device);
    const Expression loss = m.loss(cg, k);
    l[k] = as_scalar(cg.forward(loss));
    cg.backward(loss);
  });
  return m.gradients();
}

/// Gradients a equal b up to float reassociation: every element within 1e-4 of the largest
/// magnitude in its parameter, or 1e-6 where that is itself rounding noise (a gradient summed into
/// a large one rounds at its scale; a lost update was off by 1% or more).
void check_close(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t p = 0; p < a.size(); ++p) {
    REQUIRE(a[p].size() == b[p].size());
    float scale = 0.f;
    for (float x : b[p]) scale = std::max(scale, std::fabs(x));
    std::size_t worst = 0;
    for (std::size_t k = 0; k < a[p].size(); ++k)
      if (std::fabs(a[p][k] - b[p][k]) > std::fabs(a[p][worst] - b[p][worst])) worst = k;
    INFO("parameter " << p << ", element " << worst << " of " << a[p].size());
    CHECK(std::fabs(a[p][worst] - b[p][worst]) <= 1e-4f * scale + 1e-6f);
  }
}

const MemorySizes kSizes{1 << 22, 1 << 22, 1 << 20, 1 << 22};

}  // namespace

TEST_CASE("a thread pool serves several calling threads at once, every part once", "[threads]") {
  ThreadPool pool(2);
  constexpr int kRuns = 300;
  std::vector<std::vector<int>> hits(kThreads, std::vector<int>(pool.threads(), 0));
  std::vector<std::thread> callers;
  for (unsigned t = 0; t < kThreads; ++t)
    callers.emplace_back([&, t] {
      for (int run = 0; run < kRuns; ++run) {
        auto part = [&](unsigned p) { ++hits[t][p]; };
        pool.run(part);
      }
    });
  for (std::thread& t : callers) t.join();
  for (unsigned t = 0; t < kThreads; ++t)
    for (unsigned p = 0; p < pool.threads(); ++p) {
      INFO("caller " << t << ", part " << p);
      CHECK(hits[t][p] == kRuns);
    }
}

TEST_CASE("a thread pool's workers take the next job whether they are still looking for one or asleep", "[threads]") {
  ThreadPool pool(3);
  // Pauses before a job: none (workers looking), about half their look, and past it (asleep).
  const std::chrono::microseconds pauses[] = {std::chrono::microseconds(0), ThreadPool::kSpin / 2,
                                              ThreadPool::kSpin + ThreadPool::kSpin / 4, ThreadPool::kSpin * 5};
  constexpr int kRounds = 40;
  // A job that no worker takes never returns: the rounds run beside a watchdog, which fails the
  // test instead of leaving it to hang.
  std::vector<int> hits(pool.threads(), 0), on_worker(pool.threads(), 0);
  std::atomic<bool> finished{false};
  std::thread rounds([&] {
    const std::thread::id caller = std::this_thread::get_id();
    for (int round = 0; round < kRounds; ++round)
      for (const std::chrono::microseconds pause : pauses) {
        std::this_thread::sleep_for(pause);
        auto part = [&](unsigned p) {
          ++hits[p];
          on_worker[p] += std::this_thread::get_id() != caller;
        };
        pool.run(part);
      }
    finished = true;
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!finished && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  if (!finished) {
    std::fprintf(stderr, "a thread pool job was never taken by a sleeping worker\n");
    std::_Exit(1);
  }
  rounds.join();
  const int jobs = kRounds * static_cast<int>(std::size(pauses));
  for (unsigned p = 0; p < pool.threads(); ++p) {
    INFO("part " << p);
    CHECK(hits[p] == jobs);
  }
  // No other caller kept the pool busy, so the workers, not the caller, ran parts 1 and 2.
  CHECK(on_worker[0] == 0);
  CHECK(on_worker[1] == jobs);
  CHECK(on_worker[2] == jobs);
}

TEST_CASE("graphs on several threads sharing a product pool give the single-threaded losses", "[threads]") {
  Device_CPU two(kSizes, false, 2);
  REQUIRE(two.thread_pool() != nullptr);
  Model m(&two);
  const std::vector<float> serial = losses(m, &two, 1);
  for (int round = 0; round < 3; ++round) {
    const std::vector<float> parallel = losses(m, &two, kThreads);
    for (unsigned k = 0; k < kGraphs; ++k) {
      INFO("round " << round << ", graph " << k);
      CHECK(parallel[k] == Approx(serial[k]).epsilon(1e-6));
    }
  }
}

TEST_CASE("backward passes on several threads add every graph's parameter gradient once", "[threads]") {
  Device_CPU two(kSizes, false, 2);
  for (Device* device : {default_device(), static_cast<Device*>(&two)}) {
    INFO((device == &two ? "with" : "without") << " a product pool");
    Model m(device);
    std::vector<float> serial_losses, parallel_losses;
    const std::vector<std::vector<float>> serial = summed_gradients(m, device, 1, serial_losses);
    const std::vector<unsigned> rows = m.touched_rows();
    // A round catches a lost update about half the time on two cores.
    for (int round = 0; round < 8; ++round) {
      INFO("round " << round);
      check_close(summed_gradients(m, device, kThreads, parallel_losses), serial);
      CHECK(m.touched_rows() == rows);
      CHECK(m.whole.get_storage().all_updated);
      for (unsigned k = 0; k < kGraphs; ++k) CHECK(parallel_losses[k] == Approx(serial_losses[k]).epsilon(1e-6));
    }
  }
}

TEST_CASE("one DataParallel called from several threads adds every shard once", "[threads][trainers]") {
  Model m;
  std::vector<float> serial_losses;
  const std::vector<std::vector<float>> serial = summed_gradients(m, default_device(), 1, serial_losses);
  DataParallel dp(2);
  for (int round = 0; round < 3; ++round) {
    INFO("round " << round);
    m.pc.reset_gradient();
    std::vector<std::thread> callers;
    for (unsigned t = 0; t < kThreads; ++t)
      callers.emplace_back([&, t] {
        dp.backward(kGraphs / kThreads, [&](ComputationGraph& cg, unsigned k) { return m.loss(cg, t + kThreads * k); });
      });
    for (std::thread& t : callers) t.join();
    check_close(m.gradients(), serial);
  }
}

TEST_CASE("a model saves while other threads run forward and backward over it", "[threads][io]") {
  Model m;
  const test_support::TempFile file("threads-save.txt", "");
  std::vector<float> l;
  std::thread saver([&] {
    for (int k = 0; k < 3; ++k) TextFileSaver(file.path()).save(m.pc);
  });
  summed_gradients(m, default_device(), kThreads, l);
  saver.join();
  Model copy;
  TextFileLoader(file.path()).populate(copy.pc);
  for (const auto& [saved, live] : {std::pair{&copy.W, &m.W}, {&copy.b, &m.b}, {&copy.V, &m.V}})
    CHECK(as_vector(saved->get_storage().values) == as_vector(live->get_storage().values));
  CHECK(as_vector(copy.E.get_storage().all_values) == as_vector(m.E.get_storage().all_values));
}

namespace {

/// One backward pass over a lookup of `table` on another thread, while this thread holds the
/// parameters' gradients (as a concurrent pass would), so that the pass collects into a private set.
void private_backward(LookupParameter table) {
  std::thread pass;
  {
    const BackwardGradients holder;
    pass = std::thread([table] {
      ComputationGraph cg;
      cg.backward(sum_elems(lookup(cg, table, 1u)));
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the pass waits to add in
  }
  pass.join();
}

}  // namespace

// Private sets are kept for later passes; one must not read through an entry for a table freed
// since (found by ThreadSanitizer, a heap use after free under the sanitizer builds).
TEST_CASE("a private gradient set outlives the tables it once held", "[threads]") {
  // Made first, so that the freed table's memory cannot be this one's.
  ParameterCollection kept;
  LookupParameter table = kept.add_lookup_parameters(2, {5});
  {
    ParameterCollection gone;
    private_backward(gone.add_lookup_parameters(3, {4}));
  }
  private_backward(table);
  const LookupParameterStorage& s = table.get_storage();
  CHECK(as_vector(Tensor(Dim({5}), s.grad_row(1), s.device)) == std::vector<float>(5, 1.f));
  CHECK(as_vector(Tensor(Dim({5}), s.grad_row(0), s.device)) == std::vector<float>(5, 0.f));
}
