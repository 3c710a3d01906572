#pragma once
// Process-wide set-up: DyNet's command-line flags, the default device and the random engine.
// This and the RNG are the only global mutable state; graphs are independent of each other.

#include <string>
#include <vector>

namespace dynet {

class Device;

struct DynetParams {
  std::string mem_descriptor;  ///< --dynet-mem, in MB; empty: defaults (pools grow anyway)
  unsigned random_seed = 0;    ///< --dynet-seed; 0 draws a seed from the system
  int autobatch = 0;           ///< --dynet-autobatch: 0 sequential, 1 agenda, 2 depth
  /// --dynet-vertex: how autobatching uses vertex functions.
  /// 0: op by op, each group adding its own part of a weight's gradient.
  /// 1 (the default): as suits the device. On every device, the weight-gradient parts of groups
  ///   too small to make a good product wait and run as one product per weight. Marked or found
  ///   instances run as planned units, with fused elementwise chains, only on a device whose
  ///   kernel calls are launches (one that runs fused chains as kernels): on the CPU, units cost
  ///   more planning than they save.
  /// 2: units and fused chains on every device.
  int vertex = 1;
  int profiling = 0;          ///< --dynet-profiling: 0 off, 1 summary, 2 per-signature tables
  float weight_decay = 0.f;   ///< --dynet-weight-decay: L2 decay applied by trainers
  bool debug_memory = false;  ///< --dynet-debug-memory: NaN-filled allocations with canaries
  unsigned threads = 1;       ///< --dynet-threads: cores that large GEMMs split over
  /// --dynet-devices (CPU, GPU:N, comma-separated) or --dynet-gpus N (GPU:0 to GPU:N-1): the GPUs
  /// asked for; as in DyNet, the first becomes the default device. Empty: the CPU.
  std::vector<int> gpu_ids;
  /// The default device closes its memory to the host outside its kernels (Device_GuardedCPU),
  /// so that tests crash on any host access that bypasses the device layer; no flag sets it.
  bool guard_device_memory = false;
  /// initialize(argc, argv, true): parameters in memory that forked processes share, for DyNet's
  /// multi-process training (dynet::mp); the CPU device only.
  bool shared_parameters = false;
};

/// Reads and removes the --dynet-* flags from argv (both "--flag value" and "--flag=value").
/// Throws std::invalid_argument on an unknown --dynet- flag or a malformed value.
DynetParams extract_dynet_params(int& argc, char**& argv, bool shared_parameters = false);
/// Every flag extract_dynet_params accepts, in the order its unknown-flag message lists them.
std::vector<std::string> known_dynet_flags();
/// Sets up dybatch. The first call (or the first after cleanup()) makes the default device, which
/// keeps --dynet-mem, --dynet-debug-memory and the threads its GEMMs split over (--dynet-threads)
/// until cleanup(). Calling it again re-seeds the random engine, and the other flags (profiling,
/// engine, weight decay) apply to graphs and ParameterCollections made afterwards.
void initialize(DynetParams& params);
void initialize(int& argc, char**& argv, bool shared_parameters = false);
/// Releases the default device. Parameters and graphs must be gone by then.
void cleanup();

/// The settings in force; initializes with defaults when initialize() was never called.
const DynetParams& current_params();
/// The device new graphs and parameters use; initializes with defaults on first use. An object,
/// so that DyNet's spelling `default_device` (a Device*) and the call `default_device()` both work.
struct DefaultDevice {
  Device* operator()() const;
  operator Device*() const { return (*this)(); }
  Device* operator->() const { return (*this)(); }
};
inline constexpr DefaultDevice default_device{};
/// DyNet's name of --dynet-autobatch: graphs created after an assignment use the new strategy
/// (0 sequential, 1 agenda, 2 depth).
extern int& autobatch_flag;
/// Seed actually used by the random engine (the drawn one when --dynet-seed was 0).
unsigned random_seed_in_use();

}  // namespace dynet
