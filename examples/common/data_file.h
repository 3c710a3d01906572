#pragma once
// Opening the data files the examples read.

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace examples {

/// `relative` within the shared data folder, ../shared/data beside the repository (the default
/// of the examples' --train and --dev).
std::string default_data_path(const std::string& relative);
/// The file opened for reading; throws std::runtime_error naming `what` and the path otherwise.
std::ifstream open_data_file(const std::string& path, const std::string& what);

/// Keeps the first `max` examples read from the file at `path` (0: all of them); throws
/// std::runtime_error naming the file when it held none.
template <class Example>
void keep_first(std::vector<Example>& examples, unsigned max, const std::string& path) {
  if (max && examples.size() > max) examples.resize(max);
  if (examples.empty()) throw std::runtime_error("no examples in '" + path + "'");
}

}  // namespace examples
