#pragma once
// Opening the data files the examples read.

#include <fstream>
#include <string>

namespace examples {

/// `relative` within the shared data folder, ../shared/data beside the repository (the default
/// of the examples' data flags).
std::string default_data_path(const std::string& relative);
/// The file opened for reading; throws std::runtime_error naming `what` and the path otherwise.
std::ifstream open_data_file(const std::string& path, const std::string& what);

}  // namespace examples
