#pragma once
// Choosing the update rule by name on the command line.

#include <memory>
#include <string>

#include "dynet_core/param_collection.h"
#include "trainers/trainer.h"

namespace examples {

/// A trainer of `model`: "sgd", "momentum", "adagrad", "rmsprop", "adam" or "amsgrad", with the
/// given learning rate. Throws UsageError for another name or a learning rate <= 0.
std::unique_ptr<dynet::Trainer> make_trainer(const std::string& name, dynet::ParameterCollection& model,
                                             float learning_rate);
/// The accepted names, for help texts.
std::string trainer_names();

}  // namespace examples
