#pragma once
// An elementwise op over a group whose arguments are slices of wider nodes (an LSTM's gates,
// picked from one product), or the outputs of several groups, read where they lie instead of
// gathered side by side first. A gather writes every slice once more and the kernel reads it
// again; a TreeLSTM's gate slices were more than half of the bytes its steps gathered, and a
// group that takes in every gate of one kind at once reads slices of several products. On a
// device whose kernels the host runs, the op's scalar rule runs node by node over the slices; a
// device that runs kernels of its own keeps gathering them.

#include "autobatch/group_record.h"
#include "dynet_core/chain_program.h"
#include "dynet_core/device.h"

namespace dynet {

/// Whether a group of nodes like n0 may read their arguments where they lie on `device`: the op
/// has a scalar rule (and a scalar gradient rule, if its backward reads its arguments) and no
/// host-side check, every argument is the size of the output (the rule broadcasts nothing), and
/// the host runs the device's kernels.
bool reads_strided(const ComputationGraph& cg, const Node& n0, const Device& device);

/// Runs a recorded group that may read strided (reads_strided) into its outputs, node by node,
/// each argument where the record says it lies: side by side, shared by every node, every
/// `stride` floats in the outputs of a group of slices, or along its recorded runs.
void run_strided(Device& device, const ComputationGraph& cg, const GroupRecord& record, const Group& group);

/// Where each argument of a strided group's nodes lies, node after node: shared, every `stride`
/// floats from `base` (side by side, or in the outputs of one group of slices), or along its
/// runs, each the outputs of some group or one node.
class StridedArguments {
 public:
  StridedArguments(const ComputationGraph& cg, const GroupRecord& record, const Group& group);
  /// The arguments of node j; j never decreases from one call to the next.
  const float* const* of(std::uint32_t j);

 private:
  const ComputationGraph& cg_;
  const GroupRecord& record_;
  const unsigned nargs_;
  const float* base_[kMaxChainArgs];
  std::size_t stride_[kMaxChainArgs];
  const ArgumentRun* run_[kMaxChainArgs];
  const float* xs_[kMaxChainArgs];
};

/// The gradient of argument i of nodes [first, first + count) of such a group, node by node by
/// the op's scalar gradient rule, reading the arguments where forward read them: dy holds the
/// group's output gradients side by side, and dx receives the nodes' gradients of argument i
/// side by side (or, for a shared argument, their sum), written over when `overwrite`, else
/// added.
void backward_strided(Device& device, const ComputationGraph& cg, const GroupRecord& record, const Group& group,
                      StridedArguments& xs, const float* dy, unsigned i, float* dx, bool overwrite, std::uint32_t first,
                      std::uint32_t count);

}  // namespace dynet
