// The GPU's own checks: device agreement (device_agreement.h) on GPU:0, which runs the CUDA
// kernels through the dispatch path; its memory operations; its kernel timer.

#include <catch2/catch.hpp>

#include <iostream>
#include <vector>

#include "gpu/device_agreement.h"
#include "gpu/device_gpu.h"
#include "gpu/kernel_table.h"
#include "gpu/kernel_timer.h"

using namespace dynet;

namespace {

constexpr std::size_t MB = std::size_t(1) << 20;

Device_GPU& gpu_device() {
  static Device_GPU device(0, MemorySizes{16 * MB, 16 * MB, 16 * MB, 16 * MB});
  return device;
}
/// GPU memory for the tests' tensors, from the device's blocks.
AlignedMemoryPool& gpu_values() {
  static AlignedMemoryPool pool("GPU test values", 16 * MB, &gpu_device());
  return pool;
}

}  // namespace

TEST_CASE("every op with CUDA kernels agrees with the CPU through the dispatch path", "[gpu][agreement]") {
  gpu::install_cuda_kernels();
  const device_agreement::Coverage c = device_agreement::check_every_op(gpu_device(), 6);
  std::cout << "device agreement on " << gpu_device().name << ": " << device_agreement::summary(c) << "\n";
  CHECK(c.ops > 50);
}

TEST_CASE("Device_GPU's device operations move and add what they are told", "[gpu]") {
  Device_GPU& gpu = gpu_device();
  const std::vector<float> a = {1, 2, 3, 4, 5}, b = {10, 20, 30};
  float* da = gpu_values().allocate_array<float>(5);
  float* db = gpu_values().allocate_array<float>(3);
  float* packed = gpu_values().allocate_array<float>(8);
  gpu.to_device(da, a.data(), 5);
  gpu.to_device(db, b.data(), 3);
  const float* srcs[] = {db, da};
  const unsigned lengths[] = {3, 5};
  gpu.gather(packed, srcs, lengths, 2);
  std::vector<float> out(8);
  gpu.to_host(out.data(), packed, 8);
  CHECK(out == std::vector<float>{10, 20, 30, 1, 2, 3, 4, 5});
  float* dsts[] = {db, da};
  gpu.scatter_add(dsts, packed, lengths, 2);
  gpu.accumulate(db, db, 3);
  std::vector<float> back(3);
  gpu.to_host(back.data(), db, 3);
  CHECK(back == std::vector<float>{40, 80, 120});
  gpu.zero(da, 5);
  gpu.copy(packed, da, 5);
  gpu.to_host(out.data(), packed, 8);
  CHECK(out == std::vector<float>{0, 0, 0, 0, 0, 3, 4, 5});
  gpu_values().reset();
}

TEST_CASE("the kernel timer reads each timed call's device time", "[gpu][profiling]") {
  Device_GPU& gpu = gpu_device();
  const std::size_t small = 1 << 10, large = std::size_t(1) << 26;
  float* v = gpu_values().allocate_array<float>(large);
  gpu::KernelTimer timer(gpu.stream());
  const unsigned a = timer.start();
  gpu.zero(v, small);
  timer.stop(a);
  const unsigned b = timer.start();
  for (int k = 0; k < 20; ++k) gpu.accumulate(v, v, large);
  timer.stop(b);
  const std::vector<std::uint64_t> ns = timer.collect();
  REQUIRE(ns.size() == 2);
  CHECK(ns[1] > ns[0]);  // 20 passes over 256 MB against one zeroing of 4 KB
  CHECK(timer.collect().empty());
  gpu_values().reset();
}
