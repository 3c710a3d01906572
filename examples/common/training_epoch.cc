#include "examples/common/training_epoch.h"

#include <cstdio>

#include "examples/common/progress_bar.h"

namespace examples {

EpochSummary train_epoch(const std::string& label, const std::vector<Minibatch>& batches,
                         const std::string& examples_name, const std::function<BatchLoss(const Minibatch&)>& train,
                         double time_limit_seconds) {
  std::size_t total = 0;
  for (const Minibatch& b : batches) total += b.size();
  ProgressBar progress(label, total, examples_name);
  EpochSummary summary;
  char status[64] = "";
  for (const Minibatch& batch : batches) {
    const BatchLoss b = train(batch);
    summary.loss += b.loss;
    summary.examples += b.examples;
    summary.units += b.units;
    std::snprintf(status, sizeof status, "loss %.4f", summary.mean_loss());
    progress.advance(batch.size(), status);
    if (time_limit_seconds > 0 && progress.seconds() >= time_limit_seconds) break;
  }
  summary.seconds = progress.seconds();
  progress.finish(status);
  return summary;
}

}  // namespace examples
