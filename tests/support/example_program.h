#pragma once
// Running an example program of this build as a user runs it, and reading the learning curve it
// prints: the examples are single programs, so their models are tested through them.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace test_support {

/// What `program arguments` (a program of the examples folder of this build) printed, stderr
/// (progress, errors) included; throws std::runtime_error with that output when it exits with an
/// error.
inline std::string run_example(const std::string& program, const std::string& arguments) {
  const std::string command = std::string(DYBATCH_EXAMPLES_DIR) + "/" + program + " " + arguments + " 2>&1";
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run " + command);
  std::string output;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  const int status = ::pclose(pipe);
  if (status != 0)
    throw std::runtime_error(command + " exited with status " + std::to_string(status) + " after printing:\n" + output);
  return output;
}

/// The learning-curve rows of an example's output: each line that starts with an epoch number, as
/// its numbers ("-" read as NaN).
inline std::vector<std::vector<double>> learning_curve(const std::string& output) {
  std::vector<std::vector<double>> rows;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::vector<double> row;
    for (std::string field; fields >> field;) {
      char* end = nullptr;
      const double value = field == "-" ? NAN : std::strtod(field.c_str(), &end);
      if (field != "-" && *end != '\0') {
        row.clear();
        break;
      }
      row.push_back(value);
    }
    if (!row.empty() && row[0] >= 0 && row[0] == std::floor(row[0])) rows.push_back(row);
  }
  return rows;
}

}  // namespace test_support
