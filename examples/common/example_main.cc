#include "examples/common/example_main.h"

#include <exception>
#include <iostream>
#include <stdexcept>

#include "dynet_core/init.h"
#include "examples/common/command_line.h"

namespace examples {

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
    std::cerr << program << ": " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << program << ": " << e.what() << '\n';
    return 1;
  }
}

}  // namespace examples
