// Runs the suite with a fixed seed and debug memory: allocations are NaN-filled and guarded by
// canary bytes, so a kernel that reads its output before writing it, or writes past it, fails.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "dynet_core/init.h"

int main(int argc, char** argv) {
  dynet::DynetParams params;
  params.random_seed = 1234;
  params.debug_memory = true;
  dynet::initialize(params);
  return Catch::Session().run(argc, argv);
}
