#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "dynet_core/device/guarded_device.h"
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
    device.run_host_kernel("test kernel", [&] {
      if (p[3] != 1.f) _exit(1);
    });
  });
  CHECK(WIFEXITED(inside));
  CHECK(WEXITSTATUS(inside) == 0);

  device.accumulate(p, p, 16);
  std::vector<float> back(16);
  device.to_host(back.data(), p, back.size());
  CHECK(back == std::vector<float>(16, 2.f));
  // Memory stays closed after a kernel, however deep the nesting was.
  device.run_host_kernel("outer kernel", [&] { device.run_host_kernel("inner kernel", [] {}); });
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
      device.run_host_kernel("test kernel", [&] {
        p[0] = 1.f;
        if (p[0] != 1.f) _exit(1);
      });
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
  device.run_host_kernel("test kernel", [&] {
    during = static_cast<float*>(device.allocate_block(8 * MB));
    if (during) during[8 * MB / sizeof(float) - 1] = 3.f;
  });
  REQUIRE(during);
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

// Only the device layer opens device memory: code elsewhere cannot make the scope that does.
static_assert(!std::is_constructible<DeviceAccess, Device&>::value, "DeviceAccess is the device layer's alone");

TEST_CASE("the guarded device refuses host memory where device memory belongs, as a GPU faults on it",
          "[device][guarded]") {
  Device_GuardedCPU device(kSizes, false);
  float* p = device.allocate_parameter_floats(16);
  std::vector<float> host(16, 1.f);
  device.to_device(p, host.data(), 16);
  const auto refused = [](auto&& call) {
    try {
      call();
    } catch (const std::logic_error& e) {
      return std::string(e.what()).find("are not memory of device CPU (guarded)") != std::string::npos;
    }
    return false;
  };
  CHECK(refused([&] { device.copy(host.data(), p, 16); }));
  CHECK(refused([&] { device.copy(p, host.data(), 16); }));
  CHECK(refused([&] { device.accumulate(p, host.data(), 16); }));
  CHECK(refused([&] { device.to_host(host.data(), host.data(), 16); }));
  const MemoryRun to_host_memory{host.data(), p, 16};
  CHECK(refused([&] { device.apply_runs(RunOp::Copy, &to_host_memory, 1); }));
  const MemoryRun from_host_memory{nullptr, host.data(), 16};
  CHECK(refused([&] { device.squared_norm(&from_host_memory, 1); }));

  // A kernel call whose argument is host memory.
  register_all_ops();
  const OpDef& tanh_op = *find_op("tanh");
  Tensor x(Dim({16}), host.data(), &device), y(Dim({16}), p, &device);
  const void* data[] = {nullptr};  // tanh has no op data
  OpCall c;
  c.xs = &x;
  c.nargs = 1;
  c.y = y;
  c.data = data;
  CHECK(refused([&] { device.forward(tanh_op, c); }));
  x.v = p + 0;
  c.y.v = device.allocate_parameter_floats(16);
  device.forward(tanh_op, c);
  std::vector<float> out(16);
  device.to_host(out.data(), c.y.v, 16);
  CHECK(out[0] == Approx(std::tanh(1.f)));
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
