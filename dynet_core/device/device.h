#pragma once
// A compute device: its memory, the operations that touch that memory, and its kernels.
//
// The contract every backend keeps (Device_CPU here, the guarded CPU device of the tests, the
// CUDA backend in gpu/, which registers itself; the core names no backend):
// - Device memory is reached only through a Device. Pools take their blocks from allocate_block;
//   values move with copy / zero / fill / scale / accumulate, between host and device with
//   to_device / to_host, and a whole group's runs with one apply_runs call (one launch on a GPU,
//   never one per run). No code outside a backend dereferences, memcpy's, memset's or loops over
//   a device pointer. Host bookkeeping (bitmaps, run tables, op data, argument lists, the graph
//   arena) lives in host memory.
// - All pointers are float* into this device's memory unless their name says host. Operations
//   are ordered as issued (one stream); to_host returns once the values are on the host;
//   synchronize waits for everything issued.
// - Kernels are found by op id in the kernel table of the device's type (kernel_table): a
//   backend fills its table at start-up with set_kernels and then calls check_kernels, which
//   refuses a table that lacks a kernel the CPU row has. The CPU table is the OpDef rows
//   themselves. Host-side checks of op data (OpDef::host_check: index ranges, vectors that
//   changed size) run in forward() before the launch, so kernels never throw.
// - Host code reaches device memory only inside the device layer: its memory operations, the
//   kernels it dispatches (forward / backward / leaf_backward, the trainers' update kernel table),
//   and run_host_kernel, through which the engines run host loops as the kernels of a device whose
//   kernels are host code (a CPU device) and which refuses any other device. DeviceAccess, which
//   opens a guarded device's memory, can be made by the device layer alone; the guarded device
//   also refuses a pointer outside its memory given to an operation or a kernel, as a GPU faults on
//   a host pointer. So a host loop over device memory anywhere else crashes the guarded run.
//
// Cost: forward/backward are inline table lookups; the memory operations are one virtual call
// each, meant per group or per parameter, never per element.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "dynet_core/chain/chain_program.h"
#include "dynet_core/device/aligned_memory_pool.h"
#include "dynet_core/device/kernel_table.h"
#include "dynet_core/profiler.h"

namespace dynet {

/// Initial sizes of the pools, in bytes. Pools grow on demand; these only set the first block.
struct MemorySizes {
  std::size_t forward;     ///< FXS: node values
  std::size_t backward;    ///< DEDFS: node gradients
  std::size_t parameters;  ///< PS: parameter values, gradients and trainer state
  std::size_t scratch;     ///< SCS: kernel temporaries and gathered batch inputs
};

/// What a device can do, each answer read for one reason. A backend states them at construction.
struct DeviceCapabilities {
  /// Its kernels are host code (the CPU devices, guarded or not), so the host may loop over its
  /// memory as one of its kernels, through run_host_kernel: fused chains as tiled host loops,
  /// elementwise groups reading their arguments in place along runs.
  bool host_kernels = false;
  /// It runs a fused chain of elementwise ops as one kernel (run_chain_forward / backward).
  bool chain_kernels = false;
  /// A kernel call costs a launch (microseconds) whatever its size, so that planning repeated
  /// units into fewer, larger calls pays at one example a graph (--dynet-vertex 1).
  bool costly_calls = false;
};

/// One run of a batched memory operation: n floats from src to dst (src unused by RunOp::Zero).
struct MemoryRun {
  float* dst;
  const float* src;
  std::size_t n;
};
enum class RunOp : std::uint8_t {
  Copy,        ///< dst = src
  Accumulate,  ///< dst += src
  Zero,        ///< dst = 0
};

/// A device's own clock for kernels that run asynchronously to the host (a GPU's CUDA events),
/// which the profiler reads instead of host clocks, once per step.
class KernelClock {
 public:
  virtual ~KernelClock() = default;
  /// Marks the start of a timed call; returns its slot for stop(). Slots count from 0 after
  /// each collect().
  virtual unsigned start() = 0;
  virtual void stop(unsigned slot) = 0;
  /// Waits for the device; returns the nanoseconds of every call since the last collect(), by slot.
  virtual std::vector<std::uint64_t> collect() = 0;
};

struct Node;
class ExecutionEngine;
class ThreadPool;
class Device;

/// What one ComputationGraph uses while it is alive. Recycled between graphs, so that a graph per
/// example reaches a steady state with no calls to the system allocator.
struct GraphMemory {
  GraphMemory(const MemorySizes& sizes, Device& device);
  ~GraphMemory();
  void reset();
  void set_debug(bool on);

  AlignedMemoryPool forward;       ///< device memory
  AlignedMemoryPool backward;      ///< device memory
  AlignedMemoryPool scratch;       ///< device memory
  AlignedMemoryPool arena;         ///< op data and long argument lists (host memory)
  std::vector<Node*> node_chunks;  ///< node records, in chunks that never move
  /// Per --dynet-autobatch strategy, the engine the graph made for it, kept with the memory so
  /// that its buffers are recycled too.
  std::unique_ptr<ExecutionEngine> engines[3];
};

class Device : public BlockSource {
 public:
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  ~Device() override;

  const DeviceType type;
  const std::string name;

  /// Memory for parameters; thread-safe. Pools are made at first use, once the backend exists.
  float* allocate_parameter_floats(std::size_t n);
  std::size_t parameter_bytes_used() const;
  std::size_t parameter_bytes_high_water() const;
  /// Parameters in memory that processes forked later share (DyNet's shared_parameters, for
  /// dynet::mp): set before the first parameter is made; only the CPU device has such memory.
  /// Throws std::invalid_argument on another device, std::logic_error once parameters exist.
  void share_parameters();
  bool parameters_shared() const { return parameters_shared_; }
  /// In a forked child: the parameters made so far stay shared, those made from now on are this
  /// process's own, since the others allocate at the same places of the shared memory.
  void keep_new_parameters_private();

  /// Borrowed by a ComputationGraph for its lifetime; thread-safe.
  GraphMemory* acquire_graph_memory();
  void release_graph_memory(GraphMemory* m);

  bool debug_memory() const { return debug_memory_; }
  /// Threads that large kernels may split over (--dynet-threads); null for one thread.
  ThreadPool* thread_pool() const { return pool_.get(); }

  /// Blocks for pools (BlockSource): kAlign-aligned, null when the device is out of memory.
  void* allocate_block(std::size_t bytes) override = 0;
  void free_block(void* p, std::size_t bytes) override = 0;
  void poison(void* p, std::size_t bytes, std::size_t footprint) override = 0;
  bool canary_intact(const void* p, std::size_t bytes, std::size_t footprint) override = 0;

  /// dst[0, n) = src[0, n); the ranges do not overlap.
  virtual void copy(float* dst, const float* src, std::size_t n) = 0;
  virtual void zero(float* dst, std::size_t n) = 0;
  virtual void fill(float* dst, float value, std::size_t n) = 0;
  /// y[0, n) *= a.
  virtual void scale(float* y, float a, std::size_t n) = 0;
  /// y[0, n) += x[0, n).
  virtual void accumulate(float* y, const float* x, std::size_t n) = 0;
  /// Host to device and back; to_host returns when host_dst holds the values.
  virtual void to_device(float* dst, const float* host_src, std::size_t n) = 0;
  virtual void to_host(float* host_dst, const float* src, std::size_t n) = 0;
  /// y[0, n) = a * y + b * x.
  virtual void scaled_sum(float* y, float a, const float* x, float b, std::size_t n) = 0;
  /// Sum of squares of x[0, n), accumulated in double, returned to the host.
  virtual double squared_norm(const float* x, std::size_t n) = 0;
  /// Sum of squares of the src floats of every run (dst unused), accumulated in double in the
  /// order of the runs: one pass and one wait for the host whatever the number of runs.
  virtual double squared_norm(const MemoryRun* runs, std::size_t count) = 0;
  /// Applies `op` to every run of a group, in one launch; `runs` is host memory. Runs of one call
  /// never write the same floats, except Accumulate runs, which are applied in order.
  virtual void apply_runs(RunOp op, const MemoryRun* runs, std::size_t count) = 0;
  /// Waits for all work issued to the device.
  virtual void synchronize() = 0;

  /// Runs op's forward on this device, after its host-side check of the op data.
  void forward(const OpDef& op, const OpCall& c);
  /// Runs op's backward for argument i on this device.
  void backward(const OpDef& op, const OpCall& c, unsigned i);
  /// Runs op's leaf_backward (a lookup passing its gradient to the table) on this device.
  void leaf_backward(const OpDef& op, const OpCall& c);

  /// What this device can do.
  const DeviceCapabilities& capabilities() const { return capabilities_; }
  /// Runs `kernel`, a host loop over this device's memory, as one of this device's kernels (memory
  /// open on a guarded device). Throws std::logic_error naming `what` on a device whose kernels are
  /// not host code (a GPU), where the loop would dereference device pointers on the host.
  template <class Kernel>
  void run_host_kernel(const char* what, Kernel&& kernel);

  /// Runs `chain` forward, or backward, as `run` says (chain_program.h), in one launch; throws
  /// std::logic_error on a device without chain kernels (capabilities().chain_kernels). Where a
  /// device has none but host kernels, the engine runs chains as host loops over tiles
  /// (autobatch/vertex/fused_chain.h) through run_host_kernel.
  virtual void run_chain_forward(const ChainProgram& chain, const ChainRun& run);
  virtual void run_chain_backward(const ChainProgram& chain, const ChainRun& run);

  /// Whether device memory is closed to the host outside DeviceAccess scopes (the guarded CPU
  /// device of the tests).
  bool guarded() const { return guarded_; }

 protected:
  /// Set by a backend whose kernels the host cannot time; forward / backward / leaf_backward
  /// time every kernel with it while profiling (profile::device_timed).
  KernelClock* clock_ = nullptr;
  DeviceCapabilities capabilities_;

  /// `entered`: the device needs enter() / leave() around its kernels and operations (a guarded
  /// device opens its memory there, a GPU makes itself the calling thread's current device).
  Device(DeviceType type, std::string name, const DeviceCapabilities& capabilities, const MemorySizes& sizes,
         bool debug_memory, bool guarded = false, bool entered = false);
  /// Around the kernels and operations of an `entered` device. A guarded device opens its memory
  /// to host code until the matching leave(); calls nest and may come from several threads at
  /// once, and memory stays open while any of them is inside. A GPU makes itself current.
  virtual void enter() {}
  virtual void leave() {}
  /// On a guarded device, throws std::logic_error naming `who` unless [p, p + bytes) lies in the
  /// device's memory: a host pointer where device memory belongs, which a GPU would fault on.
  virtual void check_device_memory(const void* p, std::size_t bytes, const char* who) const;
  [[noreturn]] void host_kernel_refused(const char* what) const;
  /// Frees every pool; a backend's destructor calls it, while its free_block can still run.
  void release_pools();
  std::unique_ptr<ThreadPool> pool_;

 private:
  friend class DeviceAccess;
  /// check_device_memory over a kernel call's tensors.
  void check_call(const OpDef& op, const OpCall& c, bool backward) const;
  const std::vector<OpKernels>& kernels_;
  MemorySizes sizes_;
  bool debug_memory_;
  bool guarded_;
  bool entered_;
  mutable std::mutex mutex_;
  std::unique_ptr<AlignedMemoryPool> parameters_;
  bool parameters_shared_ = false;
  bool new_parameters_private_ = false;
  /// The shared pool of a child's parent, kept mapped but no longer allocated from.
  std::unique_ptr<AlignedMemoryPool> parent_parameters_;
  std::vector<std::unique_ptr<GraphMemory>> all_graph_memory_;
  std::vector<GraphMemory*> free_graph_memory_;
};

/// A span of device memory that an operation or a kernel is given.
struct DeviceSpan {
  const void* p;
  std::size_t bytes;
};

/// The device layer's scope around a kernel or a memory operation: host code inside may read and
/// write the device's memory as a CPU kernel does; on a guarded device the spans it names are
/// checked to lie in device memory first. Only the device layer makes one (its constructors are
/// private), so no code elsewhere can open a guarded device's memory. Costs a branch on a device
/// that needs no entering.
class DeviceAccess {
 public:
  ~DeviceAccess() {
    if (d_) d_->leave();
  }
  DeviceAccess(const DeviceAccess&) = delete;
  DeviceAccess& operator=(const DeviceAccess&) = delete;

 private:
  friend class Device;
  friend class Device_CPU;

  explicit DeviceAccess(Device& d) : d_(d.entered_ ? &d : nullptr) {
    if (d_) d_->enter();
  }
  DeviceAccess(Device& d, const char* who, std::initializer_list<DeviceSpan> spans) : d_(d.entered_ ? &d : nullptr) {
    if (!d_) return;
    if (d.guarded_)
      for (const DeviceSpan& s : spans) d.check_device_memory(s.p, s.bytes, who);
    d_->enter();
  }
  /// Around a kernel call: its output, arguments and, in backward, gradients are checked.
  DeviceAccess(Device& d, const OpDef& op, const OpCall& c, bool backward) : d_(d.entered_ ? &d : nullptr) {
    if (!d_) return;
    if (d.guarded_) d.check_call(op, c, backward);
    d_->enter();
  }

  Device* d_;
};

template <class Kernel>
void Device::run_host_kernel(const char* what, Kernel&& kernel) {
  if (!capabilities_.host_kernels) host_kernel_refused(what);
  const DeviceAccess access(*this);
  kernel();
}

/// Times one kernel call with a device's clock, when it has one and profiling is on.
class TimedKernel {
 public:
  explicit TimedKernel(KernelClock* clock) : clock_(clock && profile::enabled() ? clock : nullptr) {
    if (clock_) slot_ = clock_->start();
  }
  ~TimedKernel() {
    if (!clock_) return;
    clock_->stop(slot_);
    profile::device_timed(*clock_, slot_);
  }
  TimedKernel(const TimedKernel&) = delete;
  TimedKernel& operator=(const TimedKernel&) = delete;

 private:
  KernelClock* clock_;
  unsigned slot_ = 0;
};

inline void Device::forward(const OpDef& op, const OpCall& c) {
  if (op.host_check) op.host_check(c);
  const DeviceAccess access(*this, op, c, false);
  const TimedKernel timed(clock_);
  kernels_[op.id].forward(c);
}
inline void Device::backward(const OpDef& op, const OpCall& c, unsigned i) {
  const DeviceAccess access(*this, op, c, true);
  const TimedKernel timed(clock_);
  kernels_[op.id].backward(c, i);
}
inline void Device::leaf_backward(const OpDef& op, const OpCall& c) {
  const DeviceAccess access(*this);
  const TimedKernel timed(clock_);
  kernels_[op.id].leaf_backward(c);
}

/// The CPU: host memory, Eigen kernels.
class Device_CPU : public Device {
 public:
  /// With threads > 1, large GEMMs are split over that many threads.
  Device_CPU(const MemorySizes& sizes, bool debug_memory, unsigned threads = 1);
  ~Device_CPU() override;

  void* allocate_block(std::size_t bytes) override;
  void free_block(void* p, std::size_t bytes) override;
  void poison(void* p, std::size_t bytes, std::size_t footprint) override;
  bool canary_intact(const void* p, std::size_t bytes, std::size_t footprint) override;
  void copy(float* dst, const float* src, std::size_t n) override;
  void zero(float* dst, std::size_t n) override;
  void fill(float* dst, float value, std::size_t n) override;
  void scale(float* y, float a, std::size_t n) override;
  void accumulate(float* y, const float* x, std::size_t n) override;
  void to_device(float* dst, const float* host_src, std::size_t n) override;
  void to_host(float* host_dst, const float* src, std::size_t n) override;
  void scaled_sum(float* y, float a, const float* x, float b, std::size_t n) override;
  double squared_norm(const float* x, std::size_t n) override;
  double squared_norm(const MemoryRun* runs, std::size_t count) override;
  void apply_runs(RunOp op, const MemoryRun* runs, std::size_t count) override;
  void synchronize() override {}

 protected:
  Device_CPU(std::string name, const MemorySizes& sizes, bool debug_memory, unsigned threads, bool guarded);

 private:
  /// check_device_memory over the runs' dst (`writes`) and src (`reads`) spans, on a guarded device.
  void check_runs(const MemoryRun* runs, std::size_t count, bool writes, bool reads, const char* who) const;
};

/// Parses DyNet's --dynet-mem syntax (megabytes): "N" splits N over the four pools;
/// "F,B,P" or "F,B,P,S" gives each pool its own size. Throws std::invalid_argument otherwise.
MemorySizes parse_memory_descriptor(const std::string& descriptor);

}  // namespace dynet
