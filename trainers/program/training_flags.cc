#include "trainers/program/training_flags.h"

#include <algorithm>
#include <boost/program_options/options_description.hpp>
#include <boost/program_options/value_semantic.hpp>
#include <sstream>
#include <vector>

#include "trainers/trainer_by_name.h"

namespace dynet {

namespace po = boost::program_options;

namespace {

std::string listed_trainers() {
  std::string text;
  const std::vector<std::string>& names = trainer_names();
  for (std::size_t k = 0; k < names.size(); ++k)
    text += (k == 0 ? "" : k + 1 == names.size() ? " or " : ", ") + names[k];
  return text;
}

// The shortest text that reads back as `value` (Boost would print 0.00100000005 for 0.001f).
po::typed_value<float>* float_value(float* value) {
  std::ostringstream text;
  text << *value;
  return po::value(value)->default_value(*value, text.str());
}

}  // namespace

void TrainingFlags::declare(po::options_description& flags, const std::string& examples, bool saves_vocabulary) {
  const std::string vocabulary = saves_vocabulary ? " (and its vocabularies, in FILE.vocab)" : "";
  flags.add_options()("epochs", po::value(&epochs)->default_value(epochs),
                      ("passes over the training " + examples + " (0: evaluate only)").c_str())(
      "seconds", float_value(&seconds), "stop training after this many seconds (0: no limit)")(
      "batch", po::value(&batch)->default_value(batch), (examples + " per graph and update").c_str())(
      "trainer", po::value(&trainer)->default_value(trainer), ("update rule: " + listed_trainers()).c_str())(
      "learning-rate", float_value(&learning_rate), "learning rate")(
      "save", po::value(&save)->value_name("FILE"), ("write the trained model" + vocabulary + " to FILE").c_str())(
      "load", po::value(&load)->value_name("FILE"), ("start from the model" + vocabulary + " in FILE").c_str());
}

void TrainingFlags::check() const {
  if (batch == 0) throw UsageError("--batch must be positive");
  if (!(seconds >= 0.f)) throw UsageError("--seconds must not be negative");
  const std::vector<std::string>& names = trainer_names();
  if (std::find(names.begin(), names.end(), trainer) == names.end())
    throw UsageError("--trainer: unknown trainer '" + trainer + "' (expected " + listed_trainers() + ")");
  if (!(learning_rate > 0.f)) throw UsageError("--learning-rate must be positive");
}

std::unique_ptr<Trainer> TrainingFlags::make_trainer(ParameterCollection& model) const {
  return trainer_by_name(trainer, model, learning_rate);
}

}  // namespace dynet
