#include "examples/common/tree_training.h"

#include <cstdio>

#include "examples/common/minibatches.h"
#include "examples/common/training_epoch.h"

namespace examples {

TreeTrainingResult train_tree_classifier(TreeLSTMClassifier& classifier, const std::vector<LabeledTree>& train,
                                         const std::vector<LabeledTree>& dev, dynet::Trainer& trainer,
                                         const TrainingFlags& flags, bool root_loss, std::mt19937& rng) {
  constexpr unsigned kEvaluationBatch = 256;
  TreeTrainingResult result;
  result.dev = classifier.evaluate(dev, kEvaluationBatch);
  std::printf("%6s %12s %10s %10s %10s\n", "epoch", "train loss", "trees/s", "root acc", "node acc");
  std::printf("%6u %12s %10s %10.4f %10.4f\n", 0u, "-", "-", result.dev.root(), result.dev.all_nodes());
  std::fflush(stdout);
  train_epochs(
      flags, "trees", train, [&] { return shuffled_minibatches(train.size(), flags.batch, rng); },
      [&](const std::vector<const LabeledTree*>& trees) { return classifier.train(trees, trainer, !root_loss); },
      [&](const LabeledTree& t) { return root_loss ? std::size_t{1} : t.size(); },
      [&](unsigned epoch, const EpochSummary& e) {
        result.trees_per_second = e.examples_per_second();
        result.dev = classifier.evaluate(dev, kEvaluationBatch);
        std::printf("%6u %12.4f %10.1f %10.4f %10.4f\n", epoch, e.mean_loss(), result.trees_per_second,
                    result.dev.root(), result.dev.all_nodes());
        std::fflush(stdout);
      });
  return result;
}

}  // namespace examples
