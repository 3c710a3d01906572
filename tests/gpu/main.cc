// The GPU suite: exits with 77, which ctest reports as skipped, when no CUDA device is visible.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <iostream>

#include "dynet_core/init.h"
#include "gpu/device_gpu.h"

int main(int argc, char** argv) {
  if (dynet::gpu::visible_gpus() == 0) {
    std::cout << "no CUDA device is visible: the GPU suite is skipped\n";
    return 77;
  }
  dynet::DynetParams params;
  params.random_seed = 1234;
  dynet::initialize(params);
  return Catch::Session().run(argc, argv);
}
