#pragma once
// What an engine did, summed since the last reset: the numbers the profiler and the benchmarks
// report.

#include <cstdint>

namespace dynet {

struct EngineStats {
  std::uint64_t nodes = 0;             ///< nodes computed (parameter leaves excluded)
  std::uint64_t batches = 0;           ///< forward kernel calls
  std::uint64_t backward_batches = 0;  ///< backward kernel calls (one per group and argument)
  std::uint64_t bytes_in_place = 0;    ///< batch inputs read where they already were
  std::uint64_t bytes_gathered = 0;    ///< batch inputs copied into one block first
  std::uint64_t bytes_scattered = 0;   ///< gradients added back from such blocks in backward
  /// Time spent grouping nodes, outside kernels, measured while profiling (--dynet-profiling) and 0
  /// otherwise: its clock reads around every group cost more than a tenth of a step at one
  /// sentence a graph on a virtual machine's clock.
  std::uint64_t scheduling_ns = 0;
  std::uint64_t vertex_marked = 0;          ///< vertex-function instances marked in evaluated ranges
  std::uint64_t vertex_instances = 0;       ///< of those, the ones run as units of tasks
  std::uint64_t vertex_tasks = 0;           ///< tasks run (each: units of one function together)
  std::uint64_t fused_chains = 0;           ///< elementwise chains of tasks run as one pass (one forward call each)
  std::uint64_t fused_backward_chains = 0;  ///< of those, the ones whose backward also ran as one pass
  std::uint64_t lazy_weight_calls = 0;      ///< backward calls adding a weight's gradient for many small groups at once
  std::uint64_t leading_products = 0;       ///< forward calls computing many nodes' b + W1 x1 ahead at once
  std::uint64_t leading_gradients = 0;      ///< backward calls adding those nodes' x1 gradients at once

  double mean_batch_size() const { return batches ? double(nodes) / double(batches) : 0.0; }
  double gathered_share() const {
    const double total = double(bytes_in_place + bytes_gathered);
    return total > 0 ? double(bytes_gathered) / total : 0.0;
  }
};

}  // namespace dynet
