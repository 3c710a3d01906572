#pragma once
// A fused chain of elementwise ops as a device receives it: its steps in the order they run, where
// each step's arguments come from, and how each value read from outside maps the chain's
// iteration space (every instance of a task, one after the other). The CPU runs chains as host
// loops over tiles (autobatch/vertex/fused_chain.h); a device whose memory the host cannot reach
// runs one as a kernel (Device::run_chain_forward / run_chain_backward).

#include <cstddef>
#include <cstdint>

#include "dynet_core/chain/operand_map.h"
#include "dynet_core/op_def.h"

namespace dynet {

/// Limits that keep a fused chain's bookkeeping on the stack: per tile on the CPU, per element in
/// a kernel.
constexpr unsigned kMaxChainArgs = 8;     ///< arguments of one op in a chain
constexpr unsigned kMaxChainValues = 96;  ///< ops plus the values they read from outside the chain

struct ChainStep {
  /// Whose ElementwiseRule the step computes.
  const OpDef* op;
  /// The traced op data, used where a run passes none.
  const void* data;
  unsigned nargs;
  /// The step's arguments are slots[first_arg, first_arg + nargs): slots [0, reads) are the
  /// values read from outside, then one slot per step.
  unsigned first_arg;
  /// Index of the step's value among the chain's writes (kept whole), or -1: it exists only
  /// inside the chain.
  int write;
  /// Backward computes the value again instead of reading it (it is not kept).
  bool recompute;
};

struct ChainProgram {
  const ChainStep* steps;
  unsigned step_count;
  const unsigned* slots;
  /// Per read: where element i of the iteration space reads it.
  const OperandMap* reads;
  unsigned read_count;
  unsigned write_count;
  /// Elements of one instance's output.
  std::size_t size;
};

/// One run of a chain over `instances` instances. Forward reads `reads` and writes `writes`;
/// backward also adds into read_grads (null entries: no gradient wanted) and write_grads (the
/// gradient from outside of each write, which ends as its whole gradient). fresh_reads[r] /
/// fresh_writes[w] (null: none): that gradient block holds nothing yet and is written over, or
/// zeroed where no gradient reaches it; a fresh read is always read in place.
struct ChainRun {
  unsigned instances = 0;
  const float* const* reads = nullptr;
  float* const* writes = nullptr;
  /// Op data of each step for this run; null: the traced op data.
  const void* const* data = nullptr;
  float* const* read_grads = nullptr;
  float* const* write_grads = nullptr;
  const std::uint8_t* fresh_reads = nullptr;
  const std::uint8_t* fresh_writes = nullptr;
};

}  // namespace dynet
