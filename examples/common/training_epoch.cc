#include "examples/common/training_epoch.h"

#include <cstdio>

#include "examples/common/progress_bar.h"

namespace examples {

void train_epochs(const dynet::TrainingFlags& flags, const std::string& examples_name,
                  const std::function<std::vector<Minibatch>()>& batches,
                  const std::function<BatchLoss(const Minibatch&)>& train,
                  const std::function<void(unsigned epoch, const EpochSummary&)>& after_epoch) {
  double seconds_used = 0;
  for (unsigned epoch = 1; epoch <= flags.epochs; ++epoch) {
    if (flags.seconds > 0 && seconds_used >= flags.seconds) break;
    const std::vector<Minibatch> minibatches = batches();
    std::size_t total = 0;
    for (const Minibatch& b : minibatches) total += b.size();
    ProgressBar progress("epoch " + std::to_string(epoch), total, examples_name);
    EpochSummary summary;
    char status[64] = "";
    for (const Minibatch& minibatch : minibatches) {
      const BatchLoss b = train(minibatch);
      summary.loss += b.loss;
      summary.examples += b.examples;
      summary.units += b.units;
      std::snprintf(status, sizeof status, "loss %.4f", summary.mean_loss());
      progress.advance(minibatch.size(), status);
      if (flags.seconds > 0 && seconds_used + progress.seconds() >= flags.seconds) break;
    }
    summary.seconds = progress.seconds();
    progress.finish(status);
    seconds_used += summary.seconds;
    after_epoch(epoch, summary);
  }
}

}  // namespace examples
