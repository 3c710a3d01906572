#pragma once
// Loops that run the same code over many data points (random seeds, sampled parameter values)
// visit fewer of them on the guarded device and on a GPU. On the guarded device every kernel
// changes page protection twice, and on a virtual machine each change costs tens of microseconds
// (a TLB flush the hypervisor handles), so the full loops would take most of an hour; on a GPU
// every kernel is a launch and debug memory reads its canaries back after it. Those runs exist to
// catch host accesses to device memory and device kernels' mistakes along each code path, which
// a tenth of the data still takes; the ordinary run checks every value on every data point.

#include "dynet_core/device/device.h"
#include "dynet_core/init.h"

namespace test_support {

/// How many of a loop's n data points this run visits: all of them in the ordinary run, a tenth
/// (at least one) on the guarded device and on a GPU.
inline unsigned sample_count(unsigned n) {
  return dynet::default_device->guarded() || !dynet::default_device->capabilities().host_kernels ? (n + 9) / 10 : n;
}

}  // namespace test_support
