#include "trainers/parallel/data_parallel.h"

#include <cstdint>
#include <exception>
#include <optional>
#include <stdexcept>

#include "dynet_core/device/thread_pool.h"
#include "dynet_core/graph.h"
#include "dynet_core/init.h"
#include "dynet_core/profiler.h"
#include "dynet_core/random_engine.h"

namespace dynet {

DataParallel::DataParallel(unsigned threads) {
  if (threads == 0) threads = current_params().threads;
  if (threads == 0) threads = 1;
  pool_ = std::make_unique<ThreadPool>(threads);
  sets_.resize(threads);
}

DataParallel::~DataParallel() = default;

float DataParallel::backward(unsigned shards, const ShardLoss& loss) {
  if (!loss) throw std::invalid_argument("DataParallel::backward: no loss function given");
  const std::lock_guard<std::mutex> turn(turn_);
  const unsigned threads = this->threads();
  std::vector<std::uint64_t> seeds(shards);
  for (std::uint64_t& s : seeds) s = random_engine().next();
  std::vector<float> losses(shards, 0.f);
  std::vector<std::exception_ptr> errors(shards);
  auto part = [&](unsigned p) {
    const GradientSet::Scope collect(&sets_[p]);
    // The profile follows the calling thread (part 0): its step runs on to the trainer's update.
    std::optional<profile::StepSpan> span;
    std::optional<profile::Unrecorded> unrecorded;
    if (p == 0)
      span.emplace();
    else
      unrecorded.emplace();
    for (unsigned k = p; k < shards; k += threads) {
      try {
        RandomEngine engine;
        engine.seed(seeds[k]);
        const RandomEngineScope draw(engine);
        ComputationGraph cg;
        const Expression l = loss(cg, k);
        losses[k] = as_scalar(cg.forward(l));
        cg.backward(l);
      } catch (...) {
        errors[k] = std::current_exception();
        return;
      }
    }
  };
  pool_->run(part);
  for (const std::exception_ptr& e : errors) {
    if (!e) continue;
    for (GradientSet& s : sets_) s.clear();
    std::rethrow_exception(e);
  }
  for (GradientSet& s : sets_) s.add_to_parameters();
  float total = 0.f;
  for (float l : losses) total += l;
  return total;
}

}  // namespace dynet
