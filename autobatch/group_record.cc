#include "autobatch/group_record.h"

namespace dynet {

void GroupRecord::clear() {
  groups_.clear();
  nodes_.clear();
  data_.clear();
  args_.clear();
  group_of_.clear();
  position_.clear();
}

const VariableIndex* GroupRecord::begin_group(const ComputationGraph& cg, const VariableIndex* nodes,
                                              std::uint32_t count) {
  const std::uint32_t first = node_count();
  open_ = {first, count, static_cast<std::uint32_t>(args_.size()), nullptr, 0};
  nodes_.insert(nodes_.end(), nodes, nodes + count);
  data_.resize(first + count);
  for (std::uint32_t j = 0; j < count; ++j) data_[first + j] = cg.node(nodes[j]).data;
  return nodes_.data() + first;
}

void GroupRecord::end_group(float* values, std::uint32_t stride) {
  const std::uint32_t g = size();
  for (std::uint32_t j = 0; j < open_.count; ++j) {
    group_of_[nodes_[open_.first_node + j]] = g;
    position_[nodes_[open_.first_node + j]] = j;
  }
  open_.values = values;
  open_.stride = stride;
  groups_.push_back(open_);
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
