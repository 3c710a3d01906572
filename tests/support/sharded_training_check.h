#pragma once
// Checks that a model trains the same on one thread and in parallel shards: the losses of a few
// minibatches, from the same initial parameters, with 1 and with 3 training threads. Every loss
// after the first is computed after updates, so equal losses mean equal gradients.

#include <catch2/catch.hpp>

#include <functional>
#include <memory>
#include <vector>

#include "dynet_core/param_collection.h"
#include "dynet_core/rng.h"
#include "trainers/simple_sgd_trainer.h"

namespace test_support {

/// make(model) builds the model in `model`; train(m, minibatch, trainer) runs one update.
template <class Model, class Item>
void check_sharded_training(const std::vector<Item>& items, float learning_rate,
                            const std::function<std::unique_ptr<Model>(dynet::ParameterCollection&)>& make,
                            const std::function<double(Model&, const std::vector<const Item*>&, dynet::Trainer&)>& train) {
  auto losses = [&](unsigned threads) {
    dynet::random_engine().seed(9);  // the same initial parameters for both runs
    dynet::ParameterCollection model;
    const std::unique_ptr<Model> m = make(model);
    m->set_training_threads(threads);
    dynet::SimpleSGDTrainer trainer(model, learning_rate);
    std::vector<double> out;
    for (std::size_t first = 0; first + 8 <= items.size(); first += 8) {
      std::vector<const Item*> minibatch;
      for (std::size_t k = first; k < first + 8; ++k) minibatch.push_back(&items[k]);
      out.push_back(train(*m, minibatch, trainer));
    }
    return out;
  };
  const std::vector<double> one = losses(1), three = losses(3);
  REQUIRE(one.size() == three.size());
  REQUIRE(one.size() >= 2);
  for (std::size_t k = 0; k < one.size(); ++k) CHECK(three[k] == Approx(one[k]).epsilon(1e-4));
}

}  // namespace test_support
