#pragma once
// One training update over a minibatch of items: built in one graph, or — with several threads —
// split into one shard per thread, each built on a graph of its own by a copy of the model (the
// copies share its parameters) and run at once (DataParallel). Either way the trainer then
// updates from the gradient of the summed loss.

#include <algorithm>
#include <functional>
#include <memory>
#include <stdexcept>
#include <vector>

#include "dynet_core/expression.h"
#include "dynet_core/graph.h"
#include "dynet_core/init.h"
#include "examples/common/training_step.h"
#include "trainers/data_parallel.h"
#include "trainers/trainer.h"

namespace examples {

template <class Model>
class ShardedTraining {
 public:
  /// The loss of items [first, end) built by `model` (the model or a copy of it) in `cg`.
  using Loss = std::function<dynet::Expression(Model& model, dynet::ComputationGraph& cg, std::size_t first,
                                               std::size_t end)>;

  /// threads: graphs per update (default: --dynet-threads).
  explicit ShardedTraining(unsigned threads = dynet::current_params().threads) { set_threads(threads); }

  void set_threads(unsigned n) {
    if (n == 0) throw std::invalid_argument("training threads must be at least 1");
    threads_ = n;
    parallel_.reset();
    copies_.clear();
  }
  unsigned threads() const { return threads_; }

  /// Updates the model from the summed loss of items [0, count); returns that loss.
  double step(Model& model, std::size_t count, dynet::Trainer& trainer, const Loss& loss) {
    const unsigned shards = static_cast<unsigned>(std::min<std::size_t>(threads_, count));
    if (shards <= 1)
      return training_step(trainer, [&](dynet::ComputationGraph& cg) { return loss(model, cg, 0, count); });
    if (!parallel_) {
      parallel_ = std::make_unique<dynet::DataParallel>(threads_);
      for (unsigned k = 0; k < threads_; ++k) copies_.push_back(std::make_unique<Model>(model));
    }
    const double value = parallel_->backward(shards, [&](dynet::ComputationGraph& cg, unsigned k) {
      return loss(*copies_[k], cg, count * k / shards, count * (k + 1) / shards);
    });
    trainer.update();
    return value;
  }

 private:
  unsigned threads_ = 1;
  std::unique_ptr<dynet::DataParallel> parallel_;
  std::vector<std::unique_ptr<Model>> copies_;
};

}  // namespace examples
