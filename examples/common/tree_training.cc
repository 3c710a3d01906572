#include "examples/common/tree_training.h"

#include <cstdio>
#include <string>

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
  TimeBudget budget(flags.seconds);
  for (unsigned epoch = 1; epoch <= flags.epochs && !budget.exhausted(); ++epoch) {
    const std::vector<Minibatch> batches = shuffled_minibatches(train.size(), flags.batch, rng);
    const EpochSummary e = train_epoch(
        "epoch " + std::to_string(epoch), batches, "trees",
        [&](const Minibatch& b) {
          std::vector<const LabeledTree*> trees;
          std::size_t units = 0;
          for (unsigned i : b) {
            trees.push_back(&train[i]);
            units += root_loss ? 1 : train[i].size();
          }
          return BatchLoss{classifier.train(trees, trainer, !root_loss), trees.size(), units};
        },
        budget.left());
    budget.spend(e.seconds);
    result.trees_per_second = e.examples_per_second();
    result.dev = classifier.evaluate(dev, kEvaluationBatch);
    std::printf("%6u %12.4f %10.1f %10.4f %10.4f\n", epoch, e.mean_loss(), result.trees_per_second, result.dev.root(),
                result.dev.all_nodes());
    std::fflush(stdout);
  }
  return result;
}

}  // namespace examples
