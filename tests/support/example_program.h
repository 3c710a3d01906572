#pragma once
// Running an example program of this build as a user runs it, and reading the learning curve it
// prints: the examples are single programs, so their models are tested through them.

#include <catch2/catch.hpp>

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

using Curve = std::vector<std::vector<double>>;

/// The learning-curve rows of an example's output: each line that starts with an epoch number, as
/// its numbers ("-" read as NaN).
inline Curve learning_curve(const std::string& output) {
  Curve rows;
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

/// Checks that a run trained in shards (`sharded`) learned as the run on one thread did (`one`):
/// both have epochs + 1 rows, and after the first every row comes after updates, so equal values
/// in the training loss's column (printed to within loss_margin) and in a development measure's
/// column mean equal gradients.
inline void check_same_training(const Curve& one, const Curve& sharded, std::size_t epochs, unsigned loss,
                                double loss_margin, unsigned dev) {
  REQUIRE(one.size() == epochs + 1);
  REQUIRE(sharded.size() == one.size());
  for (std::size_t e = 1; e < one.size(); ++e) {
    INFO("epoch " << e);
    CHECK(sharded[e][loss] == Approx(one[e][loss]).margin(loss_margin));
    CHECK(sharded[e][dev] == Approx(one[e][dev]).margin(0.02));
  }
}

}  // namespace test_support
