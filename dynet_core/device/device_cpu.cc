// Device_CPU (device.h): device memory is host memory, its operations memcpy / memset and loops.
#include <cstring>

#include "dynet_core/device/device.h"
#include "dynet_core/device/thread_pool.h"

namespace dynet {

Device_CPU::Device_CPU(const MemorySizes& sizes, bool debug_memory, unsigned threads)
    : Device_CPU("CPU", sizes, debug_memory, threads, false) {}

Device_CPU::Device_CPU(std::string name, const MemorySizes& sizes, bool debug_memory, unsigned threads, bool guarded)
    : Device(DeviceType::CPU, std::move(name), DeviceCapabilities{true, false, false}, sizes, debug_memory, guarded) {
  if (threads > 1) pool_ = std::make_unique<ThreadPool>(threads);
}

Device_CPU::~Device_CPU() { release_pools(); }

void* Device_CPU::allocate_block(std::size_t bytes) { return HostBlocks::instance().allocate_block(bytes); }

void Device_CPU::free_block(void* p, std::size_t bytes) { HostBlocks::instance().free_block(p, bytes); }

void Device_CPU::poison(void* p, std::size_t bytes, std::size_t footprint) {
  const DeviceAccess access(*this, "Device::poison", {{p, footprint}});
  HostBlocks::instance().poison(p, bytes, footprint);
}

bool Device_CPU::canary_intact(const void* p, std::size_t bytes, std::size_t footprint) {
  const DeviceAccess access(*this, "Device::canary_intact", {{p, footprint}});
  return HostBlocks::instance().canary_intact(p, bytes, footprint);
}

void Device_CPU::copy(float* dst, const float* src, std::size_t n) {
  if (n == 0) return;  // a parameter of size 0: the host side may be an empty vector, whose data() is null
  const DeviceAccess access(*this, "Device::copy", {{dst, n * sizeof(float)}, {src, n * sizeof(float)}});
  std::memcpy(dst, src, n * sizeof(float));
}

void Device_CPU::zero(float* dst, std::size_t n) {
  if (n == 0) return;  // a parameter of size 0: the host side may be an empty vector, whose data() is null
  const DeviceAccess access(*this, "Device::zero", {{dst, n * sizeof(float)}});
  std::memset(dst, 0, n * sizeof(float));
}

void Device_CPU::fill(float* dst, float value, std::size_t n) {
  const DeviceAccess access(*this, "Device::fill", {{dst, n * sizeof(float)}});
  for (std::size_t i = 0; i < n; ++i) dst[i] = value;
}

void Device_CPU::scale(float* y, float a, std::size_t n) {
  const DeviceAccess access(*this, "Device::scale", {{y, n * sizeof(float)}});
  for (std::size_t i = 0; i < n; ++i) y[i] *= a;
}

void Device_CPU::scaled_sum(float* y, float a, const float* x, float b, std::size_t n) {
  const DeviceAccess access(*this, "Device::scaled_sum", {{y, n * sizeof(float)}, {x, n * sizeof(float)}});
  for (std::size_t i = 0; i < n; ++i) y[i] = a * y[i] + b * x[i];
}

void Device_CPU::accumulate(float* y, const float* x, std::size_t n) {
  const DeviceAccess access(*this, "Device::accumulate", {{y, n * sizeof(float)}, {x, n * sizeof(float)}});
  for (std::size_t i = 0; i < n; ++i) y[i] += x[i];
}

void Device_CPU::to_device(float* dst, const float* host_src, std::size_t n) {
  if (n == 0) return;  // a parameter of size 0: the host side may be an empty vector, whose data() is null
  const DeviceAccess access(*this, "Device::to_device", {{dst, n * sizeof(float)}});
  std::memcpy(dst, host_src, n * sizeof(float));
}

void Device_CPU::to_host(float* host_dst, const float* src, std::size_t n) {
  if (n == 0) return;  // a parameter of size 0: the host side may be an empty vector, whose data() is null
  const DeviceAccess access(*this, "Device::to_host", {{src, n * sizeof(float)}});
  std::memcpy(host_dst, src, n * sizeof(float));
}

namespace {
// Independent partial sums, which the compiler turns into vector lanes: one running sum is a
// chain of dependent additions that neither vectorizes nor pipelines.
double host_squared_norm(const float* x, std::size_t n) {
  constexpr std::size_t kLanes = 8;
  double lanes[kLanes] = {};
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (std::size_t k = 0; k < kLanes; ++k) lanes[k] += double(x[i + k]) * x[i + k];
  double s = 0;
  for (; i < n; ++i) s += double(x[i]) * x[i];
  for (double lane : lanes) s += lane;
  return s;
}
}  // namespace

double Device_CPU::squared_norm(const float* x, std::size_t n) {
  const DeviceAccess access(*this, "Device::squared_norm", {{x, n * sizeof(float)}});
  return host_squared_norm(x, n);
}

double Device_CPU::squared_norm(const MemoryRun* runs, std::size_t count) {
  check_runs(runs, count, false, true, "Device::squared_norm");
  const DeviceAccess access(*this);
  double s = 0;
  for (std::size_t r = 0; r < count; ++r) s += host_squared_norm(runs[r].src, runs[r].n);
  return s;
}

void Device_CPU::check_runs(const MemoryRun* runs, std::size_t count, bool writes, bool reads, const char* who) const {
  if (!guarded()) return;
  for (std::size_t r = 0; r < count; ++r) {
    if (writes) check_device_memory(runs[r].dst, runs[r].n * sizeof(float), who);
    if (reads) check_device_memory(runs[r].src, runs[r].n * sizeof(float), who);
  }
}

void Device_CPU::apply_runs(RunOp op, const MemoryRun* runs, std::size_t count) {
  check_runs(runs, count, true, op != RunOp::Zero, "Device::apply_runs");
  const DeviceAccess access(*this);
  switch (op) {
    case RunOp::Copy:
      for (std::size_t r = 0; r < count; ++r) std::memcpy(runs[r].dst, runs[r].src, runs[r].n * sizeof(float));
      return;
    case RunOp::Accumulate:
      for (std::size_t r = 0; r < count; ++r) {
        float* y = runs[r].dst;
        const float* x = runs[r].src;
        for (std::size_t i = 0; i < runs[r].n; ++i) y[i] += x[i];
      }
      return;
    case RunOp::Zero:
      for (std::size_t r = 0; r < count; ++r) std::memset(runs[r].dst, 0, runs[r].n * sizeof(float));
      return;
  }
}

}  // namespace dynet
