#pragma once
// The record of the groups a batched forward ran, in the order they ran, kept for backward: each
// group's nodes and their op data, where its outputs are, and where it read each argument from;
// and for every node computed in a group, which group and at what position.
// A *group* is a set of nodes with one signature run as one kernel call; the kernel sees it as
// one node whose batch dimension (Dim::bd) spans the group.

#include <cstdint>
#include <vector>

#include "dynet_core/graph.h"

namespace dynet {

/// Where a group read one argument position from, worked out once in forward so that backward
/// finds the gradients without visiting the argument nodes again.
struct GroupArg {
  static constexpr std::uint32_t kNoGroup = 0xFFFFFFFFu;
  float* values;           ///< the group's values of it side by side, or the one shared argument
  std::uint32_t producer;  ///< the group whose consecutive outputs these are, or kNoGroup
  std::uint32_t offset;    ///< position of the first of them in that group
  bool shared;             ///< one argument (or parameter) for the whole group
  /// A gathered argument's runs (GroupRecord::add_runs): runs [first_run, first_run + runs).
  std::uint32_t first_run = 0, runs = 0;
};

/// Nodes [j, j + n) of a group read, at one argument position, consecutive outputs of group
/// `group` from `position` on; or (group kNoGroup, n 1) node `node`, which is in no group.
struct ArgumentRun {
  std::uint32_t j, n, group, position;
  VariableIndex node;
};

struct Group {
  std::uint32_t first_node;  ///< into the record's node list
  std::uint32_t count;
  std::uint32_t first_arg;  ///< into the record's argument list: one per argument position
  float* values;            ///< outputs in group order, node j at values + j * stride
  std::uint32_t stride;     ///< the node size, unless the group is a view of wider nodes (slices)
};

class GroupRecord {
 public:
  /// A node computed in no group (a parameter leaf, or not computed).
  static constexpr std::uint32_t kNoGroup = GroupArg::kNoGroup;

  /// Forgets every group.
  void clear();
  /// Nodes [0, nodes) may be recorded; those not recorded yet are in no group.
  void cover(VariableIndex nodes) {
    group_of_.resize(nodes, kNoGroup);
    position_.resize(nodes);
  }

  /// Records the next group, of these nodes (copied) and their op data, whose outputs are at
  /// `values`, every `stride` floats: in the record and in each node's value. Its arguments
  /// follow, in order, with add_argument. Returns the group's index.
  std::uint32_t add_group(ComputationGraph& cg, const VariableIndex* nodes, std::uint32_t count, float* values,
                          std::uint32_t stride);
  /// Where the group recorded last reads its next argument position from.
  void add_argument(const GroupArg& arg) { args_.push_back(arg); }
  /// add_argument of one argument shared by the whole group, in no group, at `values`. Written in
  /// place: a GroupArg just written and copied would be read back before its writes drain from the
  /// store buffer, a stall on every node of a sequential backward.
  void add_shared_argument(float* values) {
    GroupArg& a = args_.emplace_back();
    a.values = values;
    a.producer = kNoGroup;
    a.offset = 0;
    a.shared = true;
  }
  /// Records the runs of argument i of nodes[0, count) (for_each_run), for an argument that is
  /// gathered: its gradients are scattered back along them without visiting the nodes again.
  /// Sets arg's first_run and runs.
  void add_runs(const ComputationGraph& cg, const VariableIndex* nodes, std::uint32_t count, unsigned i, GroupArg& arg);
  const ArgumentRun* runs(const GroupArg& arg) const { return runs_.data() + arg.first_run; }

  std::uint32_t size() const { return static_cast<std::uint32_t>(groups_.size()); }
  std::uint32_t node_count() const { return static_cast<std::uint32_t>(nodes_.size()); }
  const Group& operator[](std::uint32_t g) const { return groups_[g]; }
  const VariableIndex* nodes(const Group& g) const { return nodes_.data() + g.first_node; }
  const void* const* data(const Group& g) const { return data_.data() + g.first_node; }
  const GroupArg* args(const Group& g) const { return args_.data() + g.first_arg; }
  /// The group node n was computed in (kNoGroup if none), and its position there.
  std::uint32_t group_of(VariableIndex n) const { return group_of_[n]; }
  std::uint32_t position_of(VariableIndex n) const { return position_[n]; }

  /// Whether argument i of nodes[0, count) are consecutive outputs of one group: that group
  /// (`producer`), from position `offset` on.
  bool consecutive_outputs(const ComputationGraph& cg, const VariableIndex* nodes, std::uint32_t count, unsigned i,
                           std::uint32_t& producer, std::uint32_t& offset) const;
  /// Calls f(j, n, group, position, argument) for each run of argument i of nodes[j, j + n) that
  /// are consecutive outputs of one group, from `position` on; group is kNoGroup (and n 1) for
  /// an argument in no group. Gathers and scatters move a run at a time.
  template <class F>
  void for_each_run(const ComputationGraph& cg, const VariableIndex* nodes, std::uint32_t count, unsigned i,
                    F&& f) const;

 private:
  std::vector<Group> groups_;
  std::vector<VariableIndex> nodes_;
  std::vector<const void*> data_;  // op data of each node, as nodes_
  std::vector<GroupArg> args_;
  std::vector<ArgumentRun> runs_;        // of the gathered arguments
  std::vector<std::uint32_t> group_of_;  // per graph node
  std::vector<std::uint32_t> position_;  // per graph node
};

/// Whether every node of nodes[0, count) has the op and the signature of the first: what running
/// them as one kernel call assumes.
bool one_op_and_signature(const ComputationGraph& cg, const VariableIndex* nodes, std::uint32_t count);

template <class F>
void GroupRecord::for_each_run(const ComputationGraph& cg, const VariableIndex* nodes, std::uint32_t count, unsigned i,
                               F&& f) const {
  VariableIndex a = cg.node(nodes[0]).arg(i);
  for (std::uint32_t j = 0; j < count;) {
    const std::uint32_t group = group_of_[a], position = position_[a];
    std::uint32_t n = 1;
    VariableIndex next = a;
    for (; j + n < count; ++n) {
      next = cg.node(nodes[j + n]).arg(i);
      if (group == kNoGroup || group_of_[next] != group || position_[next] != position + n) break;
    }
    f(j, n, group, position, a);
    j += n;
    a = next;
  }
}

}  // namespace dynet
