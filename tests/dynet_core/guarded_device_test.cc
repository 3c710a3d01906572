#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "dynet_core/guarded_device.h"
#include "dynet_core/init.h"
#include "dynet_core/ops/registry.h"

using namespace dynet;

namespace {

constexpr std::size_t MB = std::size_t(1) << 20;
const MemorySizes kSizes{MB, MB, MB, MB};

/// Runs `body` in a child process and returns its wait status: a crash there does not end the suite.
template <class F>
int in_child(F&& body) {
  const pid_t pid = fork();
  if (pid == 0) {
    std::signal(SIGSEGV, SIG_DFL);  // die of the fault, past the test framework's handler
    body();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

bool died_of_segfault(int status) { return WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV; }

}  // namespace

TEST_CASE("a host read of guarded device memory crashes, while device operations and kernel scopes reach it",
          "[device][guarded]") {
  Device_GuardedCPU device(kSizes, false);
  float* p = device.allocate_parameter_floats(16);
  const std::vector<float> ones(16, 1.f);
  device.to_device(p, ones.data(), ones.size());

  CHECK(died_of_segfault(in_child([&] {
    volatile float x = p[3];
    (void)x;
  })));
  CHECK(died_of_segfault(in_child([&] { p[3] = 2.f; })));

  const int inside = in_child([&] {
    const DeviceAccess kernel(device);
    if (p[3] != 1.f) _exit(1);
  });
  CHECK(WIFEXITED(inside));
  CHECK(WEXITSTATUS(inside) == 0);

  device.accumulate(p, p, 16);
  std::vector<float> back(16);
  device.to_host(back.data(), p, back.size());
  CHECK(back == std::vector<float>(16, 2.f));
  // Memory stays closed after a scope, however deep the nesting was.
  {
    const DeviceAccess outer(device);
    const DeviceAccess inner(device);
  }
  CHECK(died_of_segfault(in_child([&] {
    volatile float x = p[0];
    (void)x;
  })));
}

TEST_CASE("the guarded arena closes blocks added while open, grown past its first pages, and reused",
          "[device][guarded]") {
  Device_GuardedCPU device(kSizes, false);
  float* first = device.allocate_parameter_floats(16);
  const auto dies_on_read = [](const float* p) {
    return died_of_segfault(in_child([p] {
      volatile float x = *p;
      (void)x;
    }));
  };
  const auto reachable_inside = [&](float* p) {
    const int status = in_child([&] {
      const DeviceAccess kernel(device);
      p[0] = 1.f;
      if (p[0] != 1.f) _exit(1);
    });
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
  };

  // A block larger than the arena makes it grow; the new part opens and closes with the rest.
  const std::size_t big = 5 * MB + 4096;
  const std::size_t before = device.arena_bytes();
  float* grown = static_cast<float*>(device.allocate_block(big));
  REQUIRE(grown);
  CHECK(device.arena_bytes() > before);
  float* last = grown + big / sizeof(float) - 1;
  CHECK(reachable_inside(last));
  CHECK(dies_on_read(last));
  CHECK(dies_on_read(first));

  // Growing while a kernel holds memory open: the new block is open now and closed afterwards.
  float* during = nullptr;
  {
    const DeviceAccess kernel(device);
    during = static_cast<float*>(device.allocate_block(8 * MB));
    REQUIRE(during);
    during[8 * MB / sizeof(float) - 1] = 3.f;
  }
  CHECK(dies_on_read(during + 8 * MB / sizeof(float) - 1));

  // A freed block's range is handed out again, not appended, and stays closed.
  const std::size_t arena = device.arena_bytes();
  device.free_block(grown, big);
  float* again = static_cast<float*>(device.allocate_block(MB));
  CHECK(again == grown);
  CHECK(device.arena_bytes() == arena);
  CHECK(dies_on_read(again));
  CHECK(reachable_inside(again));
  device.free_block(again, MB);
  device.free_block(during, 8 * MB);
}

TEST_CASE("a device backend lacking a kernel is refused, naming the op and the kernel", "[device][registry]") {
  register_all_ops();
  std::vector<OpKernels> table = kernel_table(DeviceType::CPU);
  CHECK(missing_kernels(table).empty());
  const OpDef* tanh_op = find_op("tanh");
  const OpDef* lookup_op = find_op("lookup");
  REQUIRE(tanh_op);
  REQUIRE(lookup_op);
  table[tanh_op->id].backward = nullptr;
  table[lookup_op->id].leaf_backward = nullptr;
  const std::string missing = missing_kernels(table);
  CHECK(missing == "lookup (leaf_backward), tanh (backward)");
  table.pop_back();
  CHECK(missing_kernels(table).find(registered_ops().back()->name + std::string(" (forward)")) != std::string::npos);
  CHECK_THROWS_AS(set_kernels(DeviceType::CPU, *tanh_op, OpKernels{}), std::logic_error);
}
