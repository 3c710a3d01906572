#include "examples/common/training_flags.h"

#include <algorithm>

#include "trainers/trainer_by_name.h"

namespace examples {

namespace {

std::string listed_trainers() {
  std::string text;
  const std::vector<std::string>& names = dynet::trainer_names();
  for (std::size_t k = 0; k < names.size(); ++k)
    text += (k == 0 ? "" : k + 1 == names.size() ? " or " : ", ") + names[k];
  return text;
}

}  // namespace

void TrainingFlags::declare(CommandLine& cl, const std::string& examples, bool saves_vocabulary) {
  cl.add("epochs", &epochs, "passes over the training " + examples + " (0: evaluate only)");
  cl.add("seconds", &seconds, "stop training after this many seconds (0: no limit)");
  cl.add("batch", &batch, examples + " per graph and update");
  cl.add("trainer", &trainer, "update rule: " + listed_trainers());
  cl.add("learning-rate", &learning_rate, "learning rate");
  const std::string vocabulary = saves_vocabulary ? " (and its vocabularies, in FILE.vocab)" : "";
  cl.add("save", &save, "write the trained model" + vocabulary + " to this file");
  cl.add("load", &load, "start from the model" + vocabulary + " in this file");
}

void TrainingFlags::check() const {
  if (batch == 0) throw UsageError("--batch must be positive");
  if (!(seconds >= 0.f)) throw UsageError("--seconds must not be negative");
  const std::vector<std::string>& names = dynet::trainer_names();
  if (std::find(names.begin(), names.end(), trainer) == names.end())
    throw UsageError("--trainer: unknown trainer '" + trainer + "' (expected " + listed_trainers() + ")");
  if (!(learning_rate > 0.f)) throw UsageError("--learning-rate must be positive");
}

std::unique_ptr<dynet::Trainer> TrainingFlags::make_trainer(dynet::ParameterCollection& model) const {
  return dynet::trainer_by_name(trainer, model, learning_rate);
}

}  // namespace examples
