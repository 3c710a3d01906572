#include "autobatch/group_record.h"

namespace dynet {

void GroupRecord::clear() {
  groups_.clear();
  nodes_.clear();
  data_.clear();
  args_.clear();
  runs_.clear();
  group_of_.clear();
  position_.clear();
}

std::uint32_t GroupRecord::add_group(ComputationGraph& cg, const VariableIndex* nodes, std::uint32_t count,
                                     float* values, std::uint32_t stride) {
  const std::uint32_t g = size(), first = node_count();
  // Written in place, as add_shared_argument.
  Group& group = groups_.emplace_back();
  group.first_node = first;
  group.count = count;
  group.first_arg = static_cast<std::uint32_t>(args_.size());
  group.values = values;
  group.stride = stride;
  nodes_.insert(nodes_.end(), nodes, nodes + count);
  data_.resize(first + count);
  // One pass over the nodes for everything the group's record and its nodes learn.
  for (std::uint32_t j = 0; j < count; ++j) {
    Node& n = cg.node(nodes[j]);
    n.value = values + std::size_t(j) * stride;
    data_[first + j] = n.data;
    group_of_[nodes[j]] = g;
    position_[nodes[j]] = j;
  }
  return g;
}

void GroupRecord::add_runs(const ComputationGraph& cg, const VariableIndex* nodes, std::uint32_t count, unsigned i,
                           GroupArg& arg) {
  arg.first_run = static_cast<std::uint32_t>(runs_.size());
  for_each_run(cg, nodes, count, i,
               [&](std::uint32_t j, std::uint32_t n, std::uint32_t group, std::uint32_t position, VariableIndex a) {
                 runs_.push_back({j, n, group, position, a});
               });
  arg.runs = static_cast<std::uint32_t>(runs_.size()) - arg.first_run;
}

bool GroupRecord::consecutive_outputs(const ComputationGraph& cg, const VariableIndex* nodes, std::uint32_t count,
                                      unsigned i, std::uint32_t& producer, std::uint32_t& offset) const {
  const VariableIndex a0 = cg.node(nodes[0]).arg(i);
  producer = group_of_[a0];
  offset = position_[a0];
  bool run = producer != kNoGroup;
  for (std::uint32_t j = 1; j < count && run; ++j) {
    const VariableIndex a = cg.node(nodes[j]).arg(i);
    run = group_of_[a] == producer && position_[a] == offset + j;
  }
  return run;
}

bool one_op_and_signature(const ComputationGraph& cg, const VariableIndex* nodes, std::uint32_t count) {
  const Node& n0 = cg.node(nodes[0]);
  for (std::uint32_t j = 1; j < count; ++j) {
    const Node& n = cg.node(nodes[j]);
    if (n.op != n0.op || n.signature != n0.signature) return false;
  }
  return true;
}

}  // namespace dynet
