#include "examples/common/training_flags.h"

#include "examples/common/trainer_choice.h"

namespace examples {

void TrainingFlags::declare(CommandLine& cl, const std::string& examples, bool saves_vocabulary) {
  cl.add("epochs", &epochs, "passes over the training " + examples + " (0: evaluate only)");
  cl.add("seconds", &seconds, "stop training after this many seconds (0: no limit)");
  cl.add("batch", &batch, examples + " per graph and update");
  cl.add("trainer", &trainer, "update rule: " + trainer_names());
  cl.add("learning-rate", &learning_rate, "learning rate");
  const std::string vocabulary = saves_vocabulary ? " (and its vocabularies, in FILE.vocab)" : "";
  cl.add("save", &save, "write the trained model" + vocabulary + " to this file");
  cl.add("load", &load, "start from the model" + vocabulary + " in this file");
}

void TrainingFlags::check() const {
  if (batch == 0) throw UsageError("--batch must be positive");
  if (!(seconds >= 0.f)) throw UsageError("--seconds must not be negative");
}

std::unique_ptr<dynet::Trainer> TrainingFlags::make_trainer(dynet::ParameterCollection& model) const {
  return examples::make_trainer(trainer, model, learning_rate);
}

}  // namespace examples
