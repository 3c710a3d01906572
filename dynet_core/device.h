#pragma once
// A compute device and its memory. Parameters live in the device's parameter pool (PS); every
// live ComputationGraph borrows its own GraphMemory (values, gradients, scratch, node arena), so
// several graphs can exist at once, and a graph made after another one was destroyed reuses that
// graph's blocks without touching the system allocator.

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "dynet_core/aligned_memory_pool.h"

namespace dynet {

enum class DeviceType { CPU, GPU };

/// Initial sizes of the pools, in bytes. Pools grow on demand; these only set the first block.
struct MemorySizes {
  std::size_t forward;     ///< FXS: node values
  std::size_t backward;    ///< DEDFS: node gradients
  std::size_t parameters;  ///< PS: parameter values, gradients and trainer state
  std::size_t scratch;     ///< SCS: kernel temporaries and gathered batch inputs
};

struct Node;
class ExecutionEngine;
class ThreadPool;

/// What one ComputationGraph uses while it is alive. Recycled between graphs, so that a graph per
/// example reaches a steady state with no calls to the system allocator.
struct GraphMemory {
  explicit GraphMemory(const MemorySizes& sizes);
  ~GraphMemory();
  void reset();
  void set_debug(bool on);

  AlignedMemoryPool forward;
  AlignedMemoryPool backward;
  AlignedMemoryPool scratch;
  AlignedMemoryPool arena;        ///< op data and long argument lists (host memory)
  std::vector<Node*> node_chunks;  ///< node records, in chunks that never move
  /// Per --dynet-autobatch strategy, the engine the graph made for it, kept with the memory so
  /// that its buffers are recycled too.
  std::unique_ptr<ExecutionEngine> engines[3];
};

class Device {
 public:
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  virtual ~Device();

  const DeviceType type;
  const std::string name;

  /// Memory for parameters; thread-safe.
  float* allocate_parameter_floats(std::size_t n);
  std::size_t parameter_bytes_used() const;
  std::size_t parameter_bytes_high_water() const;

  /// Borrowed by a ComputationGraph for its lifetime; thread-safe.
  GraphMemory* acquire_graph_memory();
  void release_graph_memory(GraphMemory* m);

  bool debug_memory() const { return debug_memory_; }
  /// Threads that large kernels may split over (--dynet-threads); null for one thread.
  ThreadPool* thread_pool() const { return pool_.get(); }

 protected:
  Device(DeviceType type, std::string name, const MemorySizes& sizes, bool debug_memory);
  std::unique_ptr<ThreadPool> pool_;

 private:
  MemorySizes sizes_;
  bool debug_memory_;
  mutable std::mutex mutex_;
  AlignedMemoryPool parameters_;
  std::vector<std::unique_ptr<GraphMemory>> all_graph_memory_;
  std::vector<GraphMemory*> free_graph_memory_;
};

/// The CPU: host memory, Eigen kernels.
class Device_CPU : public Device {
 public:
  /// With threads > 1, large GEMMs are split over that many threads.
  Device_CPU(const MemorySizes& sizes, bool debug_memory, unsigned threads = 1);
};

/// Parses DyNet's --dynet-mem syntax (megabytes): "N" splits N over the four pools;
/// "F,B,P" or "F,B,P,S" gives each pool its own size. Throws std::invalid_argument otherwise.
MemorySizes parse_memory_descriptor(const std::string& descriptor);

}  // namespace dynet
