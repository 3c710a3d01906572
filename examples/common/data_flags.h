#pragma once
// The flags of the examples that read their data: where the training and development files are,
// and how much of them to use.

#include <stdexcept>
#include <string>
#include <vector>

#include "examples/common/command_line.h"

namespace examples {

struct DataFlags {
  /// Defaults: `train` and `dev` within the shared data folder (see default_data_path).
  DataFlags(const std::string& train, const std::string& dev);

  std::string train, dev;
  unsigned max_train = 0, max_dev = 0;  ///< 0: all

  /// Declares --train, --dev, --max-train and --max-dev; `examples` names what the files hold.
  void declare(CommandLine& cl, const std::string& examples);

  /// Keeps the first max_train / max_dev examples read; throws std::runtime_error when no
  /// training or no development example is left.
  template <class Example>
  void limit(std::vector<Example>& train_examples, std::vector<Example>& dev_examples) const {
    if (max_train && train_examples.size() > max_train) train_examples.resize(max_train);
    if (max_dev && dev_examples.size() > max_dev) dev_examples.resize(max_dev);
    if (train_examples.empty()) throw std::runtime_error("no training examples in '" + train + "'");
    if (dev_examples.empty()) throw std::runtime_error("no development examples in '" + dev + "'");
  }
};

}  // namespace examples
