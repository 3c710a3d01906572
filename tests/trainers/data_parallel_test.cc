// Data parallelism: shards backpropagated on several threads, each into its own gradient set,
// give the gradients of one graph holding every shard; random ops depend on the seed only; a
// failing shard changes no gradient.

#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "dynet_core/device/thread_pool.h"
#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"
#include "dynet_core/random_engine.h"
#include "support/device_values.h"
#include "trainers/parallel/data_parallel.h"

using namespace dynet;

namespace {

constexpr unsigned kShards = 5;
constexpr unsigned kVocab = 12;

struct Model {
  ParameterCollection pc;
  Parameter W = pc.add_parameters({6, 4});
  Parameter b = pc.add_parameters({6});
  Parameter V = pc.add_parameters({3, 6});
  LookupParameter E = pc.add_lookup_parameters(kVocab, {4});
  LookupParameter whole = pc.add_lookup_parameters(2, {3});

  /// Shard k: a few words through tanh(W e + b), dropout, a 3-way loss, plus a use of a whole
  /// table. `bad_word` >= kVocab makes the shard's lookup fail at forward.
  Expression shard_loss(ComputationGraph& cg, unsigned k, float dropout_p, unsigned bad_word = 0) const {
    const Expression Wx = parameter(cg, W), bx = parameter(cg, b), Vx = parameter(cg, V);
    std::vector<Expression> losses;
    for (unsigned w = 0; w < 3 + k % 3; ++w) {
      const unsigned word = (k == 1 && bad_word) ? bad_word : (5 * k + 3 * w) % kVocab;
      Expression h = tanh(affine_transform({bx, Wx, lookup(cg, E, word)}));
      if (dropout_p > 0) h = dropout(h, dropout_p);
      losses.push_back(pickneglogsoftmax(Vx * h + sum_elems(parameter(cg, whole)), (k + w) % 3));
    }
    return sum(losses);
  }

  std::vector<float> gradients() const {
    std::vector<float> g;
    for (const Parameter* p : {&W, &b, &V}) append_values(g, p->get_storage().g);
    for (const LookupParameter* t : {&E, &whole}) append_values(g, t->get_storage().all_grads);
    return g;
  }
  std::vector<unsigned> touched_rows() const {
    std::vector<unsigned> rows;
    for (unsigned i = 0; i < kVocab; ++i)
      if (E.get_storage().non_zero_grads.count(i)) rows.push_back(i);
    return rows;
  }
};

/// Gradients of all shards built into one graph, on this thread.
float one_graph(Model& m, float dropout_p) {
  ComputationGraph cg;
  std::vector<Expression> losses;
  for (unsigned k = 0; k < kShards; ++k) losses.push_back(m.shard_loss(cg, k, dropout_p));
  const Expression total = sum(losses);
  const float loss = as_scalar(cg.forward(total));
  cg.backward(total);
  return loss;
}

float data_parallel(Model& m, unsigned threads, float dropout_p) {
  DataParallel dp(threads);
  REQUIRE(dp.threads() == threads);
  return dp.backward(kShards, [&](ComputationGraph& cg, unsigned k) { return m.shard_loss(cg, k, dropout_p); });
}

void require_close(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t k = 0; k < a.size(); ++k) {
    INFO("gradient " << k << ": " << a[k] << " vs " << b[k]);
    REQUIRE(std::fabs(a[k] - b[k]) <= 1e-6f + 1e-4f * std::max(std::fabs(a[k]), std::fabs(b[k])));
  }
}

}  // namespace

TEST_CASE("data-parallel shards give the gradients of one graph holding them all", "[trainers][threads]") {
  for (unsigned threads : {1u, 2u, 3u}) {
    INFO(threads << " threads");
    Model m;
    const float whole = one_graph(m, 0.f);
    const std::vector<float> expected = m.gradients();
    const std::vector<unsigned> expected_rows = m.touched_rows();
    REQUIRE(m.whole.get_storage().all_updated);
    m.pc.reset_gradient();
    REQUIRE_FALSE(m.whole.get_storage().all_updated);

    const float sharded = data_parallel(m, threads, 0.f);
    CHECK(sharded == Approx(whole).epsilon(1e-5));
    require_close(m.gradients(), expected);
    CHECK(m.touched_rows() == expected_rows);  // sparse updates see the same rows
    CHECK(m.whole.get_storage().all_updated);
  }
}

TEST_CASE("data-parallel random ops depend on the seed, not on the threads", "[trainers][threads]") {
  Model m;
  random_engine().seed(31);
  const float two = data_parallel(m, 2, 0.5f);
  const std::vector<float> g_two = m.gradients();
  m.pc.reset_gradient();
  random_engine().seed(31);
  const float one = data_parallel(m, 1, 0.5f);
  CHECK(one == two);  // same masks: every shard drew from its own engine, seeded in shard order
  require_close(m.gradients(), g_two);
  m.pc.reset_gradient();
  random_engine().seed(32);
  CHECK(data_parallel(m, 2, 0.5f) != two);
}

TEST_CASE("a failing shard is reported and changes no parameter gradient", "[trainers][threads][errors]") {
  Model m;
  DataParallel dp(2);
  auto bad = [&](ComputationGraph& cg, unsigned k) { return m.shard_loss(cg, k, 0.f, kVocab + 4); };
  REQUIRE_THROWS_WITH(dp.backward(kShards, bad), Catch::Contains("index 16 is out of range"));
  for (float g : m.gradients()) REQUIRE(g == 0.f);
  CHECK(m.touched_rows().empty());
  CHECK_FALSE(m.whole.get_storage().all_updated);
  // The same object still works.
  const float loss = dp.backward(kShards, [&](ComputationGraph& cg, unsigned k) { return m.shard_loss(cg, k, 0.f); });
  CHECK(std::isfinite(loss));
  CHECK_FALSE(m.touched_rows().empty());
}

TEST_CASE("kernels inside a thread pool's parts stay on their thread", "[threads]") {
  ThreadPool pool(2);
  CHECK_FALSE(ThreadPool::in_task());
  std::vector<int> inside(pool.threads(), 0);
  auto part = [&](unsigned p) { inside[p] = ThreadPool::in_task() ? 1 : 0; };
  pool.run(part);
  CHECK(inside == std::vector<int>(pool.threads(), 1));
  CHECK_FALSE(ThreadPool::in_task());
}
