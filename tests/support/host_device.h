#pragma once
// A plain CPU device, for unit tests that hand host vectors to the engine's pieces as if they were
// device memory: whatever device the run makes the default (the guarded one, a GPU), these
// blocks are host memory, which only a plain CPU device may be given.

#include "dynet_core/device/device.h"

namespace test_support {

inline dynet::Device_CPU& host_device() {
  static dynet::Device_CPU device(dynet::MemorySizes{1 << 20, 1 << 20, 1 << 20, 1 << 20}, false);
  return device;
}

}  // namespace test_support
