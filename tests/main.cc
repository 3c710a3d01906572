// Runs the suite with a fixed seed and debug memory: allocations are NaN-filled and guarded by
// canary bytes, so a kernel that reads its output before writing it, or writes past it, fails.
// With --guarded-device first, the default device is Device_GuardedCPU: any host access to
// device memory outside the device layer crashes, and the crash prints where it happened.
// With --gpu-device first, it is GPU:0, and without a GPU (or without the CUDA backend) the run
// exits with 77, which ctest reports as skipped.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <execinfo.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "dynet_core/init.h"

namespace {
void report_stray_access(int signal) {
  static const char what[] = "\nhost access to guarded device memory; stack:\n";
  if (write(STDERR_FILENO, what, sizeof what - 1) < 0) _exit(128 + signal);
  void* frames[64];
  backtrace_symbols_fd(frames, backtrace(frames, 64), STDERR_FILENO);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}
/// Whether argv[1] is `flag`; if so, removes it.
bool take_flag(int& argc, char**& argv, const char* flag) {
  if (argc < 2 || std::strcmp(argv[1], flag) != 0) return false;
  argv[1] = argv[0];
  ++argv;
  --argc;
  return true;
}
}  // namespace

int main(int argc, char** argv) {
  dynet::DynetParams params;
  params.random_seed = 1234;
  params.debug_memory = true;
  if (take_flag(argc, argv, "--guarded-device")) {
    params.guard_device_memory = true;
    // Canaries are checked by the ordinary run; here each would cost two more changes of protection.
    params.debug_memory = false;
    std::signal(SIGSEGV, report_stray_access);
  }
  if (take_flag(argc, argv, "--gpu-device")) {
    params.gpu_ids = {0};
    const auto skipped = [](const std::exception& e) {
      std::fprintf(stderr, "skipped: %s\n", e.what());
      return 77;
    };
    try {
      dynet::initialize(params);
    } catch (const std::runtime_error& e) {  // no such GPU
      return skipped(e);
    } catch (const std::invalid_argument& e) {  // a build without the CUDA backend
      return skipped(e);
    }
  }
  dynet::initialize(params);
  return Catch::Session().run(argc, argv);
}
