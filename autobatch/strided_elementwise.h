#pragma once
// An elementwise op over a group whose arguments are slices of wider nodes (an LSTM's gates,
// picked from one product), read where they lie instead of gathered side by side first. A
// gather writes every slice once more and the kernel reads it again; a TreeLSTM's gate slices
// were more than half of the bytes its steps gathered. On a device whose kernels the host runs,
// the op's scalar rule runs node by node over the slices; a device that runs kernels of its own
// keeps gathering them.

#include <cstddef>
#include <cstdint>

#include "dynet_core/device.h"
#include "dynet_core/graph.h"

namespace dynet {

/// Where one argument of a group lies: node j's at values + j * stride (stride 0: one value
/// shared by every node).
struct StridedArgument {
  const float* values;
  std::size_t stride;
};

/// Whether a group of nodes like n0 may read their arguments where they lie on `device`: the op
/// has a scalar rule and no host-side check, every argument is the size of the output (the rule
/// broadcasts nothing), the op's backward never reads its arguments (so no copy of them need
/// outlive forward), and the host runs the device's kernels.
bool reads_strided(const ComputationGraph& cg, const Node& n0, const Device& device);

/// y[j * size, (j + 1) * size) = op's scalar rule over node j's arguments, for j < count; `data`
/// is the group's op data.
void run_strided(Device& device, const OpDef& op, const StridedArgument* xs, unsigned nargs, const void* data,
                 float* y, std::size_t size, std::uint32_t count);

}  // namespace dynet
