#include "autobatch/strided_elementwise.h"

namespace dynet {

bool reads_strided(const ComputationGraph& cg, const Node& n0, const Device& device) {
  const OpDef& op = *n0.op;
  const bool backward_reads_inputs = op.backward && (op.saves & kSavesInputs);
  if (!op.elementwise.f || (backward_reads_inputs && !op.elementwise.df) || n0.nargs > kMaxChainArgs ||
      op.host_check || !device.kernels_on_host())
    return false;
  const std::size_t size = n0.dim.size();
  for (unsigned i = 0; i < n0.nargs; ++i)
    if (cg.node(n0.arg(i)).dim.size() != size) return false;
  return true;
}

StridedArguments::StridedArguments(const ComputationGraph& cg, const GroupRecord& record, const Group& group)
    : cg_(cg), record_(record), nargs_(cg.node(record.nodes(group)[0]).nargs) {
  const GroupArg* args = record.args(group);
  const std::size_t size = cg.node(record.nodes(group)[0]).dim.size();  // every argument's too
  for (unsigned i = 0; i < nargs_; ++i) {
    const GroupArg& a = args[i];
    const bool along_runs = a.strided && a.producer == GroupRecord::kNoGroup;
    base_[i] = a.values;
    stride_[i] = a.shared ? 0 : a.producer == GroupRecord::kNoGroup ? size : record[a.producer].stride;
    run_[i] = along_runs ? record.runs(a) : nullptr;
  }
}

const float* const* StridedArguments::of(std::uint32_t j) {
  for (unsigned i = 0; i < nargs_; ++i) {
    if (!run_[i]) {
      xs_[i] = base_[i] + j * stride_[i];
      continue;
    }
    while (j >= run_[i]->j + run_[i]->n) ++run_[i];
    const ArgumentRun& r = *run_[i];
    xs_[i] = r.group == GroupRecord::kNoGroup
                 ? cg_.node(r.node).value
                 : record_[r.group].values + std::size_t(r.position + j - r.j) * record_[r.group].stride;
  }
  return xs_;
}

void run_strided(Device& device, const ComputationGraph& cg, const GroupRecord& record, const Group& group) {
  const Node& n0 = cg.node(record.nodes(group)[0]);
  const std::size_t size = n0.dim.size();
  const void* data = record.data(group)[0];
  StridedArguments xs(cg, record, group);
  device.run_host_kernel("strided elementwise group", [&] {
    for (std::uint32_t j = 0; j < group.count; ++j)
      n0.op->elementwise.f(data, xs.of(j), n0.nargs, group.values + j * size, size);
  });
}

void backward_strided(Device& device, const ComputationGraph& cg, const GroupRecord& record, const Group& group,
                      StridedArguments& xs, const float* dy, unsigned i, float* dx, bool overwrite, std::uint32_t first,
                      std::uint32_t count) {
  const Node& n0 = cg.node(record.nodes(group)[0]);
  const std::size_t size = n0.dim.size();
  const std::size_t dx_stride = record.args(group)[i].shared ? 0 : size;
  const void* data = record.data(group)[0];
  device.run_host_kernel("strided elementwise group backward", [&] {
    for (std::uint32_t j = first; j < first + count; ++j)
      n0.op->elementwise.df(data, i, xs.of(j), n0.nargs, group.values + j * size, dy + j * size,
                            dx + (j - first) * dx_stride, size, overwrite && (dx_stride != 0 || j == first));
  });
}

}  // namespace dynet
