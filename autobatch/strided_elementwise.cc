#include "autobatch/strided_elementwise.h"

#include "dynet_core/chain_program.h"

namespace dynet {

bool reads_strided(const ComputationGraph& cg, const Node& n0, const Device& device) {
  const OpDef& op = *n0.op;
  if (!op.elementwise.f || n0.nargs > kMaxChainArgs || op.host_check || (op.saves & kSavesInputs) ||
      !device.kernels_on_host())
    return false;
  const std::size_t size = n0.dim.size();
  for (unsigned i = 0; i < n0.nargs; ++i)
    if (cg.node(n0.arg(i)).dim.size() != size) return false;
  return true;
}

void run_strided(Device& device, const ComputationGraph& cg, const GroupRecord& record, const Group& group) {
  const Node& n0 = cg.node(record.nodes(group)[0]);
  const GroupArg* args = record.args(group);
  const std::size_t size = n0.dim.size();  // every argument's too
  const float* base[kMaxChainArgs];
  std::size_t stride[kMaxChainArgs];
  for (unsigned i = 0; i < n0.nargs; ++i) {
    // Only the slices' producer has outputs wider than the nodes read; a gathered copy has none.
    base[i] = args[i].values;
    stride[i] = args[i].shared ? 0 : args[i].producer == GroupRecord::kNoGroup ? size : record[args[i].producer].stride;
  }
  const float* node_xs[kMaxChainArgs];
  const void* data = record.data(group)[0];
  device.run_host_kernel("strided elementwise group", [&] {
    for (std::uint32_t j = 0; j < group.count; ++j) {
      for (unsigned i = 0; i < n0.nargs; ++i) node_xs[i] = base[i] + j * stride[i];
      n0.op->elementwise.f(data, node_xs, n0.nargs, group.values + j * size, size);
    }
  });
}

}  // namespace dynet
