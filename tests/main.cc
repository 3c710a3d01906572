// Runs the suite with a fixed seed and debug memory: allocations are NaN-filled and guarded by
// canary bytes, so a kernel that reads its output before writing it, or writes past it, fails.
// With --guarded-device first, the default device is Device_GuardedCPU: any host access to
// device memory outside the device layer crashes, and the crash prints where it happened.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <execinfo.h>
#include <unistd.h>

#include <csignal>
#include <cstring>

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
}  // namespace

int main(int argc, char** argv) {
  dynet::DynetParams params;
  params.random_seed = 1234;
  params.debug_memory = true;
  if (argc > 1 && std::strcmp(argv[1], "--guarded-device") == 0) {
    params.guard_device_memory = true;
    // Canaries are checked by the ordinary run; here each would cost two more changes of protection.
    params.debug_memory = false;
    std::signal(SIGSEGV, report_stray_access);
    argv[1] = argv[0];
    ++argv;
    --argc;
  }
  dynet::initialize(params);
  return Catch::Session().run(argc, argv);
}
