#include "examples/common/trainer_choice.h"

#include "examples/common/command_line.h"
#include "trainers/training.h"

namespace examples {

std::unique_ptr<dynet::Trainer> make_trainer(const std::string& name, dynet::ParameterCollection& model,
                                             float learning_rate) {
  if (!(learning_rate > 0.f)) throw UsageError("the learning rate must be positive");
  if (name == "sgd") return std::make_unique<dynet::SimpleSGDTrainer>(model, learning_rate);
  if (name == "momentum") return std::make_unique<dynet::MomentumSGDTrainer>(model, learning_rate);
  if (name == "adagrad") return std::make_unique<dynet::AdagradTrainer>(model, learning_rate);
  if (name == "rmsprop") return std::make_unique<dynet::RMSPropTrainer>(model, learning_rate);
  if (name == "adam") return std::make_unique<dynet::AdamTrainer>(model, learning_rate);
  if (name == "amsgrad") return std::make_unique<dynet::AmsgradTrainer>(model, learning_rate);
  throw UsageError("unknown trainer '" + name + "' (expected " + trainer_names() + ")");
}

std::string trainer_names() { return "sgd, momentum, adagrad, rmsprop, adam or amsgrad"; }

}  // namespace examples
