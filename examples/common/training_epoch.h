#pragma once
// One pass over the training set, minibatch by minibatch, with a progress bar.

#include <algorithm>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "examples/common/minibatches.h"

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

/// Calls train(minibatch) for every minibatch in order, showing progress in `examples_name`
/// (such as "sent") with the mean loss so far, and returns the totals. With a time limit, stops
/// after the minibatch that reaches it.
EpochSummary train_epoch(const std::string& label, const std::vector<Minibatch>& batches,
                         const std::string& examples_name, const std::function<BatchLoss(const Minibatch&)>& train,
                         double time_limit_seconds = 0);

/// A limit on the training time over all epochs (0: none).
class TimeBudget {
 public:
  explicit TimeBudget(double seconds) : limit_(seconds) {}
  bool exhausted() const { return limit_ > 0 && used_ >= limit_; }
  /// The time limit for the next epoch (0: none).
  double left() const { return limit_ > 0 ? std::max(limit_ - used_, 1e-9) : 0.0; }
  void spend(double seconds) { used_ += seconds; }

 private:
  double limit_, used_ = 0;
};

}  // namespace examples
