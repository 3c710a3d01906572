#pragma once
// One update: a fresh graph, the loss a model builds in it (for a whole minibatch), one
// forward, one backward, one trainer step.

#include <functional>

#include "dynet_core/expression.h"
#include "trainers/trainer.h"

namespace examples {

/// Builds the loss with build_loss in a new graph, updates the model from its gradient and
/// returns the loss.
double training_step(dynet::Trainer& trainer, const std::function<dynet::Expression(dynet::ComputationGraph&)>& build_loss);

}  // namespace examples
