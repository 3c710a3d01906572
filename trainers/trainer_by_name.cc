#include "trainers/trainer_by_name.h"

#include <cmath>
#include <stdexcept>

#include "trainers/adagrad_trainer.h"
#include "trainers/adam_trainer.h"
#include "trainers/amsgrad_trainer.h"
#include "trainers/momentum_sgd_trainer.h"
#include "trainers/rmsprop_trainer.h"
#include "trainers/simple_sgd_trainer.h"

namespace dynet {

const std::vector<std::string>& trainer_names() {
  static const std::vector<std::string> names{"sgd", "momentum", "adagrad", "rmsprop", "adam", "amsgrad"};
  return names;
}

std::unique_ptr<Trainer> trainer_by_name(const std::string& name, ParameterCollection& model, float learning_rate) {
  if (!(learning_rate >= 0.f) || !std::isfinite(learning_rate))
    throw std::invalid_argument("trainer_by_name: the learning rate must be finite and >= 0, not " +
                                std::to_string(learning_rate));
  if (name == "sgd") return std::make_unique<SimpleSGDTrainer>(model, learning_rate);
  if (name == "momentum") return std::make_unique<MomentumSGDTrainer>(model, learning_rate);
  if (name == "adagrad") return std::make_unique<AdagradTrainer>(model, learning_rate);
  if (name == "rmsprop") return std::make_unique<RMSPropTrainer>(model, learning_rate);
  if (name == "adam") return std::make_unique<AdamTrainer>(model, learning_rate);
  if (name == "amsgrad") return std::make_unique<AmsgradTrainer>(model, learning_rate);
  std::string expected;
  for (const std::string& n : trainer_names()) expected += (expected.empty() ? "" : ", ") + n;
  throw std::invalid_argument("trainer_by_name: unknown trainer '" + name + "' (expected one of " + expected + ")");
}

}  // namespace dynet
