#pragma once
// The flags of every example that trains: how long and in what steps, with which update rule,
// and where the model comes from and goes.

#include <memory>
#include <string>

#include "dynet_core/param_collection.h"
#include "examples/common/command_line.h"
#include "trainers/trainer.h"

namespace examples {

struct TrainingFlags {
  unsigned epochs = 1;
  unsigned batch = 32;    ///< examples per graph and update
  float seconds = 0.f;    ///< training time limit (0: none)
  std::string trainer = "adam";
  float learning_rate = 0.001f;
  std::string save, load;

  /// Declares --epochs, --seconds, --batch, --trainer, --learning-rate, --save and --load, with
  /// the current values as defaults; `examples` names what a minibatch holds ("trees").
  void declare(CommandLine& cl, const std::string& examples, bool saves_vocabulary);
  /// Throws UsageError for values no example accepts (an unknown trainer among them).
  void check() const;
  /// The trainer these flags choose, for `model`.
  std::unique_ptr<dynet::Trainer> make_trainer(dynet::ParameterCollection& model) const;
};

}  // namespace examples
