#pragma once
// The training loop of the tree classifiers (treelstm-sentiment, arith-trees): epochs of
// shuffled minibatches, a development evaluation after each, printed as a learning curve.

#include <random>
#include <vector>

#include "examples/common/labeled_tree.h"
#include "examples/common/training_flags.h"
#include "examples/common/tree_lstm_classifier.h"
#include "trainers/trainer.h"

namespace examples {

struct TreeTrainingResult {
  TreeAccuracy dev;
  double trees_per_second = 0;  ///< in the last epoch's training
};

/// Trains for flags.epochs epochs of flags.batch trees per update (within flags.seconds),
/// learning from every labeled node or, with root_loss, from the roots only. Prints to stdout one
/// learning-curve row before training and one after every epoch: the mean training loss per
/// labeled node, the training speed and the development accuracy.
TreeTrainingResult train_tree_classifier(TreeLSTMClassifier& classifier, const std::vector<LabeledTree>& train,
                                         const std::vector<LabeledTree>& dev, dynet::Trainer& trainer,
                                         const TrainingFlags& flags, bool root_loss, std::mt19937& rng);

}  // namespace examples
