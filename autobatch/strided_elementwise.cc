#include "autobatch/strided_elementwise.h"

#include "dynet_core/chain_program.h"

namespace dynet {

bool reads_strided(const ComputationGraph& cg, const Node& n0, const Device& device) {
  const OpDef& op = *n0.op;
  if (!op.elementwise.f || n0.nargs > kMaxChainArgs || op.host_check || (op.saves & kSavesInputs) ||
      device.runs_chains())
    return false;
  const std::size_t size = n0.dim.size();
  for (unsigned i = 0; i < n0.nargs; ++i)
    if (cg.node(n0.arg(i)).dim.size() != size) return false;
  return true;
}

void run_strided(Device& device, const OpDef& op, const StridedArgument* xs, unsigned nargs, const void* data,
                 float* y, std::size_t size, std::uint32_t count) {
  const float* node_xs[kMaxChainArgs];
  const DeviceAccess kernel(device);
  for (std::uint32_t j = 0; j < count; ++j) {
    for (unsigned i = 0; i < nargs; ++i) node_xs[i] = xs[i].values + j * xs[i].stride;
    op.elementwise.f(data, node_xs, nargs, y + j * size, size);
  }
}

}  // namespace dynet
