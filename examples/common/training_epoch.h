#pragma once
// The training loop of every example: epochs of minibatches, one update each, with a progress bar
// per epoch, within the time and epochs the training flags allow.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "examples/common/minibatches.h"
#include "trainers/program/training_flags.h"

namespace examples {

/// What training on one minibatch gave: its summed loss, its examples, and the units the loss
/// is summed over (words, labeled nodes...), so that loss / units is comparable across batches.
struct BatchLoss {
  double loss = 0;
  std::size_t examples = 0;
  std::size_t units = 0;
};

struct EpochSummary {
  double loss = 0;
  std::size_t examples = 0, units = 0;
  double seconds = 0;
  double mean_loss() const { return units ? loss / units : 0.0; }
  double examples_per_second() const { return seconds > 0 ? examples / seconds : 0.0; }
  double units_per_second() const { return seconds > 0 ? units / seconds : 0.0; }
};

/// Up to flags.epochs epochs; epoch e trains on the minibatches batches() gives, calling
/// train(minibatch) for each, shows progress in `examples_name` (such as "sent") with the mean
/// loss so far, then calls after_epoch(e, its totals). With flags.seconds, training stops after
/// the minibatch that reaches the limit.
void train_epochs(const dynet::TrainingFlags& flags, const std::string& examples_name,
                  const std::function<std::vector<Minibatch>()>& batches,
                  const std::function<BatchLoss(const Minibatch&)>& train,
                  const std::function<void(unsigned epoch, const EpochSummary&)>& after_epoch);

/// The same over `items`: train(its items) returns a minibatch's summed loss, units(item) says
/// how many units that loss sums over for one item.
template <class Item, class Train, class Units>
void train_epochs(const dynet::TrainingFlags& flags, const std::string& examples_name, const std::vector<Item>& items,
                  const std::function<std::vector<Minibatch>()>& batches, Train&& train, Units&& units,
                  const std::function<void(unsigned epoch, const EpochSummary&)>& after_epoch) {
  train_epochs(
      flags, examples_name, batches,
      [&](const Minibatch& b) {
        std::vector<const Item*> group;
        std::size_t n = 0;
        for (unsigned i : b) {
          group.push_back(&items[i]);
          n += units(items[i]);
        }
        return BatchLoss{train(group), group.size(), n};
      },
      after_epoch);
}

}  // namespace examples
