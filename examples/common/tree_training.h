#pragma once
// The training loop of the tree classifiers (treelstm-sentiment, arith-trees): epochs of
// shuffled minibatches, a development evaluation after each, printed as a learning curve.

#include <random>
#include <vector>

#include "examples/common/labeled_tree.h"
#include "examples/common/tree_lstm_classifier.h"
#include "trainers/trainer.h"

namespace examples {

struct TreeTrainingSettings {
  unsigned epochs = 1;
  unsigned batch = 32;      ///< trees per graph and update
  float seconds = 0.f;      ///< training time limit (0: none)
  bool root_loss = false;   ///< learn from the roots only (else from every labeled node)
};

struct TreeTrainingResult {
  TreeAccuracy dev;
  double trees_per_second = 0;  ///< in the last epoch's training
};

/// Trains, printing to stdout one learning-curve row before training and one after every epoch:
/// the mean training loss per labeled node, the training speed and the development accuracy.
TreeTrainingResult train_tree_classifier(TreeLSTMClassifier& classifier, const std::vector<LabeledTree>& train,
                                         const std::vector<LabeledTree>& dev, dynet::Trainer& trainer,
                                         const TreeTrainingSettings& settings, std::mt19937& rng);

}  // namespace examples
