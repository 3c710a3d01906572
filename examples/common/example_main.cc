#include "examples/common/example_main.h"

#include <cstdio>
#include <exception>
#include <iostream>
#include <stdexcept>

#include "dynet_core/init.h"
#include "examples/common/command_line.h"

namespace examples {

namespace {

// Through stderr itself: ranks other than 0 of an MPI job discard std::cerr (their progress).
void report(const char* program, const std::exception& e) {
  std::cerr.flush();
  std::fprintf(stderr, "%s: %s\n", program, e.what());
}

}  // namespace

int run_example(const char* program, int argc, char** argv, const std::function<int(int, char**)>& body) {
  try {
    dynet::initialize(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << program << ": " << e.what() << " (see --help)\n";
    return 2;
  }
  try {
    return body(argc, argv);
  } catch (const UsageError& e) {
    report(program, e);
    return 2;
  } catch (const std::exception& e) {
    report(program, e);
    return 1;
  }
}

}  // namespace examples
