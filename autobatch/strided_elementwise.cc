#include "autobatch/strided_elementwise.h"

#include "dynet_core/chain/chain_program.h"

namespace dynet {

bool reads_strided(const ComputationGraph& cg, const Node& n0, const Device& device) {
  const OpDef& op = *n0.op;
  if (!op.elementwise.f || n0.nargs > kMaxChainArgs || op.host_check || (op.saves & kSavesInputs) ||
      !device.capabilities().host_kernels)
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
  // Per argument: shared, every `stride` floats from `base` (side by side, or in the outputs of
  // one group of slices), or along its runs, each the outputs of some group or one node.
  const float* base[kMaxChainArgs];
  std::size_t stride[kMaxChainArgs];
  const ArgumentRun* run[kMaxChainArgs];
  for (unsigned i = 0; i < n0.nargs; ++i) {
    const GroupArg& a = args[i];
    const bool along_runs = !a.shared && a.producer == GroupRecord::kNoGroup;
    base[i] = a.values;
    stride[i] = a.shared ? 0 : along_runs ? size : record[a.producer].stride;
    run[i] = along_runs ? record.runs(a) : nullptr;
  }
  const float* node_xs[kMaxChainArgs];
  const void* data = record.data(group)[0];
  device.run_host_kernel("strided elementwise group", [&] {
    for (std::uint32_t j = 0; j < group.count; ++j) {
      for (unsigned i = 0; i < n0.nargs; ++i) {
        if (!run[i]) {
          node_xs[i] = base[i] + j * stride[i];
          continue;
        }
        while (j >= run[i]->j + run[i]->n) ++run[i];
        const ArgumentRun& r = *run[i];
        node_xs[i] = r.group == GroupRecord::kNoGroup
                         ? cg.node(r.node).value
                         : record[r.group].values + std::size_t(r.position + j - r.j) * record[r.group].stride;
      }
      n0.op->elementwise.f(data, node_xs, n0.nargs, group.values + j * size, size);
    }
  });
}

}  // namespace dynet
