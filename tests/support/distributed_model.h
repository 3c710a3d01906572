#pragma once
// What the distributed training tests share, in-process (tests/trainers) and under mpirun
// (tests/mpi): a small model with a lookup table (sparse rows) and dense layers, a data set the
// same on every rank, training steps over a rank's share of each minibatch, and comparisons.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"
#include "dynet_core/random_engine.h"
#include "support/device_values.h"
#include "trainers/parallel/data_parallel.h"
#include "trainers/parallel/distributed_reducer.h"
#include "trainers/simple_sgd_trainer.h"

namespace test_support {

struct DistributedModel {
  static constexpr unsigned kWords = 40;
  dynet::ParameterCollection pc;
  dynet::LookupParameter embeddings;
  dynet::Parameter w, b, v;

  /// Initial values drawn from the global random engine seeded with `seed`.
  explicit DistributedModel(unsigned seed, unsigned hidden = 5) {
    dynet::random_engine().seed(seed);
    embeddings = pc.add_lookup_parameters(kWords, {4}, "embeddings");
    w = pc.add_parameters({hidden, 4}, 0.f, "w");
    b = pc.add_parameters({hidden}, 0.5f, "b");
    v = pc.add_parameters({3, hidden}, 0.f, "v");
  }

  /// Item i of the data set: two words and a label, the same on every rank.
  dynet::Expression loss(dynet::ComputationGraph& cg, std::size_t i) const {
    const dynet::Expression x =
        lookup(cg, embeddings, unsigned(i * 7 + 1) % kWords) + lookup(cg, embeddings, unsigned(i * i + 3) % kWords);
    const dynet::Expression h = tanh(parameter(cg, w) * x + parameter(cg, b));
    return pickneglogsoftmax(parameter(cg, v) * h, unsigned(i % 3));
  }

  /// The summed loss of items [first, end).
  dynet::Expression loss(dynet::ComputationGraph& cg, std::size_t first, std::size_t end) const {
    std::vector<dynet::Expression> terms;
    for (std::size_t i = first; i < end; ++i) terms.push_back(loss(cg, i));
    return sum(terms);
  }

  std::vector<float> values() const {
    std::vector<float> all;
    for (const auto& p : pc.parameters_list()) dynet::append_values(all, p->values);
    for (const auto& t : pc.lookup_parameters_list()) dynet::append_values(all, t->all_values);
    return all;
  }
};

/// The SGD trainer every test uses; a low clip threshold makes the clipping norm matter.
inline std::unique_ptr<dynet::SimpleSGDTrainer> distributed_test_trainer(DistributedModel& m) {
  auto t = std::make_unique<dynet::SimpleSGDTrainer>(m.pc, 0.2f);
  t->clip_threshold = 1.f;
  return t;
}

/// Steps [from, to) of `batch` items each, step s on items [s * batch, (s + 1) * batch), this rank
/// taking its share, split over `threads` DataParallel shards. `fail(step)` may throw inside the
/// step; `after_update(step)` runs after each update.
inline void train_distributed(DistributedModel& m, dynet::DistributedReducer& reducer, dynet::Trainer& trainer,
                              std::size_t batch, unsigned threads, unsigned from, unsigned to,
                              const std::function<void(unsigned)>& fail = nullptr,
                              const std::function<void(unsigned)>& after_update = nullptr) {
  dynet::DataParallel parallel(threads);
  for (unsigned step = from; step < to; ++step) {
    const dynet::Share mine = reducer.share(batch);
    const std::size_t first = step * batch + mine.begin, count = mine.size();
    reducer.backward([&]() -> double {
      if (fail) fail(step);
      if (count == 0) return 0.0;
      const unsigned shards = unsigned(std::min<std::size_t>(threads, count));
      return parallel.backward(shards, [&](dynet::ComputationGraph& cg, unsigned k) {
        return m.loss(cg, first + count * k / shards, first + count * (k + 1) / shards);
      });
    });
    trainer.update();
    if (after_update) after_update(step);
  }
}

/// The same steps in one process, one graph per minibatch, without a reducer.
inline void train_alone(DistributedModel& m, dynet::Trainer& trainer, std::size_t batch, unsigned steps) {
  for (unsigned step = 0; step < steps; ++step) {
    dynet::ComputationGraph cg;
    const dynet::Expression l = m.loss(cg, step * batch, (step + 1) * batch);
    cg.forward(l);
    cg.backward(l);
    trainer.update();
  }
}

/// How many values differ by more than `tolerance` relative to `want` (at least 1e-2 absolute scale).
inline std::size_t relative_differences(const std::vector<float>& got, const std::vector<float>& want,
                                        double tolerance) {
  if (got.size() != want.size()) return std::max(got.size(), want.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::fabs(got[i] - want[i]) > tolerance * std::max(1e-2, std::fabs(double(want[i])))) ++differ;
  return differ;
}

/// How many values are not bit for bit equal.
inline std::size_t bitwise_differences(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return std::max(got.size(), want.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < got.size(); ++i) differ += std::memcmp(&got[i], &want[i], sizeof(float)) != 0;
  return differ;
}

}  // namespace test_support
