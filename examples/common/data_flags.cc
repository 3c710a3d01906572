#include "examples/common/data_flags.h"

#include "examples/common/data_file.h"

namespace examples {

DataFlags::DataFlags(const std::string& train_file, const std::string& dev_file)
    : train(default_data_path(train_file)), dev(default_data_path(dev_file)) {}

void DataFlags::declare(CommandLine& cl, const std::string& examples) {
  cl.add("train", &train, "training " + examples);
  cl.add("dev", &dev, "development " + examples);
  cl.add("max-train", &max_train, "use only the first N training " + examples + " (0: all)");
  cl.add("max-dev", &max_dev, "use only the first N development " + examples + " (0: all)");
}

}  // namespace examples
