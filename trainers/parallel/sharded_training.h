#pragma once
// One training update over a minibatch of items: built in one graph, or — with several threads —
// split into one shard per thread, each built on a graph of its own by a copy of the model (the
// copies share its parameters; a model whose builders are clone()d is copied this way) and run at
// once (DataParallel). Under mpirun, with a DistributedReducer, each rank does that on its share
// of the minibatch and the gradients are summed over the ranks. Either way the trainer then
// updates from the gradient of the summed loss.

#include <algorithm>
#include <functional>
#include <memory>
#include <stdexcept>
#include <vector>

#include "dynet_core/expression.h"
#include "dynet_core/graph.h"
#include "dynet_core/init.h"
#include "trainers/parallel/data_parallel.h"
#include "trainers/parallel/distributed_reducer.h"
#include "trainers/trainer.h"

namespace dynet {

template <class Model>
class ShardedTraining {
 public:
  /// The loss of items [first, end) built by `model` (the model or a copy of it) in `cg`.
  using Loss = std::function<Expression(Model& model, ComputationGraph& cg, std::size_t first, std::size_t end)>;

  /// threads: graphs per update (default: --dynet-threads).
  explicit ShardedTraining(unsigned threads = current_params().threads) { set_threads(threads); }

  void set_threads(unsigned n) {
    if (n == 0)
      throw std::invalid_argument("ShardedTraining::set_threads: the threads per update must be at least 1, not 0");
    threads_ = n;
    parallel_.reset();
    copies_.clear();
  }
  unsigned threads() const { return threads_; }

  /// Shares every minibatch with the other ranks of `reducer` (null: this process trains alone).
  void set_reducer(DistributedReducer* reducer) { reducer_ = reducer; }

  /// Updates the model from the summed loss of items [0, count); returns that loss (over all ranks).
  double step(Model& model, std::size_t count, Trainer& trainer, const Loss& loss) {
    double value;
    if (reducer_) {
      const Share mine = reducer_->share(count);
      value = reducer_->backward([&] { return backward(model, mine.begin, mine.end, loss); });
    } else {
      value = backward(model, 0, count, loss);
    }
    trainer.update();
    return value;
  }

 private:
  /// Forward and backward over items [first, end); returns their loss.
  double backward(Model& model, std::size_t first, std::size_t end, const Loss& loss) {
    const std::size_t count = end - first;
    if (count == 0) return 0.0;
    const unsigned shards = static_cast<unsigned>(std::min<std::size_t>(threads_, count));
    if (shards == 1) {
      ComputationGraph cg;
      const Expression l = loss(model, cg, first, end);
      const double value = as_scalar(cg.forward(l));
      cg.backward(l);
      return value;
    }
    if (!parallel_) {
      parallel_ = std::make_unique<DataParallel>(threads_);
      for (unsigned k = 0; k < threads_; ++k) copies_.push_back(std::make_unique<Model>(model));
    }
    return parallel_->backward(shards, [&](ComputationGraph& cg, unsigned k) {
      return loss(*copies_[k], cg, first + count * k / shards, first + count * (k + 1) / shards);
    });
  }

  DistributedReducer* reducer_ = nullptr;
  unsigned threads_ = 1;
  std::unique_ptr<DataParallel> parallel_;
  std::vector<std::unique_ptr<Model>> copies_;
};

}  // namespace dynet
