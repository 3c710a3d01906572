#pragma once
// Choosing the update rule by name, as a command line or a configuration file names it.

#include <memory>
#include <string>
#include <vector>

#include "dynet_core/param_collection.h"
#include "trainers/trainer.h"

namespace dynet {

/// The names trainer_by_name accepts: "sgd", "momentum", "adagrad", "rmsprop", "adam", "amsgrad"
/// (the rules whose one setting is a learning rate).
const std::vector<std::string>& trainer_names();

/// A trainer of `model` with the given learning rate and the rule's other constants at DyNet's
/// defaults. Throws std::invalid_argument for a name not in trainer_names() or a learning rate
/// that is not positive.
std::unique_ptr<Trainer> trainer_by_name(const std::string& name, ParameterCollection& model, float learning_rate);

}  // namespace dynet
