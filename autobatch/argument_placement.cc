#include "autobatch/argument_placement.h"

#include "dynet_core/signature.h"

namespace dynet {

bool reads_one_node(const ComputationGraph& cg, const VariableIndex* nodes, std::uint32_t count, unsigned i) {
  const Node& n0 = cg.node(nodes[0]);
  if (!n0.op->batch.is_shared(i) || cg.node(n0.arg(i)).dim.bd != 1) return false;
  for (std::uint32_t k = 1; k < count; ++k)
    if (cg.node(nodes[k]).arg(i) != n0.arg(i)) return false;
  return true;
}

ArgumentPlace place_argument(const ComputationGraph& cg, const GroupRecord& record, const VariableIndex* nodes,
                             std::uint32_t count, unsigned i) {
  const Node& n0 = cg.node(nodes[0]);
  const Node& a0 = cg.node(n0.arg(i));
  if (count == 1 || shared_argument(*n0.op, i, a0, n0.dim) || reads_one_node(cg, nodes, count, i))
    return {Placement::Shared, a0.value, GroupRecord::kNoGroup, 0};
  std::uint32_t producer, offset;
  if (!record.consecutive_outputs(cg, nodes, count, i, producer, offset))
    return {Placement::Gathered, nullptr, GroupRecord::kNoGroup, 0};
  // Consecutive outputs of a view are not side by side.
  const Group& from = record[producer];
  if (from.stride != a0.dim.size()) return {Placement::Gathered, nullptr, producer, offset};
  return {Placement::InPlace, from.values + std::size_t(offset) * from.stride, producer, offset};
}

void gather_argument(const ComputationGraph& cg, const GroupRecord& record, const GroupArg& arg, std::size_t asize,
                     float* to, std::vector<MemoryRun>& table) {
  table.clear();
  const ArgumentRun* runs = record.runs(arg);
  for (std::uint32_t r = 0; r < arg.runs; ++r) {
    const ArgumentRun& run = runs[r];
    if (run.group == GroupRecord::kNoGroup) {
      table.push_back({to + run.j * asize, cg.node(run.node).value, asize});
      continue;
    }
    const Group& from = record[run.group];
    if (from.stride == asize) {
      table.push_back({to + run.j * asize, from.values + std::size_t(run.position) * asize, run.n * asize});
      continue;
    }
    for (std::uint32_t k = 0; k < run.n; ++k)
      table.push_back({to + (run.j + k) * asize, from.values + std::size_t(run.position + k) * from.stride, asize});
  }
  cg.device()->apply_runs(RunOp::Copy, table.data(), table.size());
}

bool slices_computed_value(const ComputationGraph& cg, const GroupRecord& record, const Node& n, unsigned& begin,
                           unsigned& end) {
  const OpDef& op = *n.op;
  if (!op.argument_span || n.nargs != 1 || (op.saves & kSavesOutput)) return false;
  const Node& a = cg.node(n.arg(0));
  return record.group_of(n.arg(0)) != GroupRecord::kNoGroup && a.dim.bd == 1 &&
         op.argument_span(n.data, a.dim, begin, end);
}

float* view_of_argument(const ComputationGraph& cg, const GroupRecord& record, const VariableIndex* nodes,
                        std::uint32_t count, std::uint32_t& stride) {
  const Node& n0 = cg.node(nodes[0]);
  unsigned begin = 0, end = 0;
  if (!slices_computed_value(cg, record, n0, begin, end)) return nullptr;
  if (count == 1) {
    stride = n0.dim.size();
    return cg.node(n0.arg(0)).value + begin;
  }
  std::uint32_t producer, offset;
  if (!record.consecutive_outputs(cg, nodes, count, 0, producer, offset)) return nullptr;
  const Group& p = record[producer];
  stride = p.stride;
  return p.values + std::size_t(offset) * p.stride + begin;
}

}  // namespace dynet
