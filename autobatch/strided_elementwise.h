#pragma once
// An elementwise op over a group whose arguments are slices of wider nodes (an LSTM's gates,
// picked from one product), or the outputs of several groups, read where they lie instead of
// gathered side by side first. A gather writes every slice once more and the kernel reads it
// again; a TreeLSTM's gate slices were more than half of the bytes its steps gathered, and a
// group that takes in every gate of one kind at once reads slices of several products. On a
// device whose kernels the host runs, the op's scalar rule runs node by node over the slices; a
// device that runs kernels of its own keeps gathering them.

#include "autobatch/group_record.h"
#include "dynet_core/device/device.h"

namespace dynet {

/// Whether a group of nodes like n0 may read their arguments where they lie on `device`: the op
/// has a scalar rule and no host-side check, every argument is the size of the output (the rule
/// broadcasts nothing), the op's backward never reads its arguments (so no copy of them need
/// outlive forward), and the host runs the device's kernels.
bool reads_strided(const ComputationGraph& cg, const Node& n0, const Device& device);

/// Runs a recorded group that may read strided (reads_strided) into its outputs, node by node,
/// each argument where the record says it lies: side by side, shared by every node, every
/// `stride` floats in the outputs of a group of slices, or along its recorded runs (an argument
/// with neither a producer nor sharing: the nodes of several groups, never gathered).
void run_strided(Device& device, const ComputationGraph& cg, const GroupRecord& record, const Group& group);

}  // namespace dynet
