// Device agreement (device_agreement.h) on the guarded CPU device: its kernels are the CPU rows, so
// the values agree by construction unless the dispatch path drops something (host_check, overwrite,
// the op data of each node, the transposes), while any host access to device memory along the path
// crashes. So every commit checks the path that a GPU run checks the CUDA kernels through.

#include <catch2/catch.hpp>

#include <iostream>

#include "dynet_core/device/guarded_device.h"
#include "gpu/device_agreement.h"

using namespace dynet;

TEST_CASE("every op agrees with the CPU on the guarded device, through the dispatch path", "[device][agreement]") {
  constexpr std::size_t MB = std::size_t(1) << 20;
  Device_GuardedCPU device(MemorySizes{MB, MB, MB, MB}, false);
  // Every kernel there changes page protection twice: two random instances an op, beside the
  // batched, broadcast and multi-node ones.
  const device_agreement::Coverage c = device_agreement::check_every_op(device, 2);
  std::cout << "device agreement on the guarded CPU device: " << device_agreement::summary(c) << "\n";
  CHECK(c.ops > 50);
}
