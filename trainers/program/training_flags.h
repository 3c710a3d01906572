#pragma once
// The command-line flags every training program shares: how long and in what steps to train,
// with which update rule, and where the model comes from and goes. They are declared into a
// Boost.Program_options description, beside the program's own flags; no header here includes
// Boost, so only programs that parse flags need it.

#include <memory>
#include <stdexcept>
#include <string>

#include "dynet_core/param_collection.h"
#include "trainers/trainer.h"

namespace boost {
namespace program_options {
class options_description;
}  // namespace program_options
}  // namespace boost

namespace dynet {

/// A flag whose value a program does not accept (run_training_program exits with status 2).
struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct TrainingFlags {
  unsigned epochs = 1;
  unsigned batch = 32;  ///< examples per graph and update
  float seconds = 0.f;  ///< training time limit (0: none)
  std::string trainer = "adam";
  float learning_rate = 0.001f;
  std::string save, load;

  /// Declares --epochs, --seconds, --batch, --trainer, --learning-rate, --save and --load, with the
  /// current values as defaults; `examples` names what a minibatch holds ("trees"), and
  /// saves_vocabulary says that --save / --load also write / read FILE.vocab.
  void declare(boost::program_options::options_description& flags, const std::string& examples, bool saves_vocabulary);
  /// Throws UsageError for values no training accepts (an unknown trainer among them).
  void check() const;
  /// The trainer these flags choose, for `model`.
  std::unique_ptr<Trainer> make_trainer(ParameterCollection& model) const;
};

}  // namespace dynet
