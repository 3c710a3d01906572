#pragma once
// Which marked instances of vertex functions a forward pass over nodes [begin, end) runs as units;
// in a graph without VertexScopes, the instances instance_discovery.h finds.
// An instance is accepted when it lies wholly in the range (one cut by incremental_forward, a
// checkpoint or a value read runs op by op), matches the function its key and structure name,
// and every node it would run can be batched. Its nodes that read only pulls (inputs from
// outside that no other instance computes), shared values and other such nodes are hoisted: they
// stay out of the unit, so that the ordinary scheduler runs them for all instances at once before
// the first task (W_x·x + b of every step or leaf). The unit's key holds the function and the
// nodes it runs, so the units of a key run position by position; its signature key also holds
// their signatures: units with equal ones run each position as one group.

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "autobatch/group_scheduler.h"
#include "autobatch/vertex/instance_discovery.h"
#include "autobatch/vertex/vertex_function.h"

namespace dynet {

class InstancePlan {
 public:
  /// Plans the instances of cg that lie in nodes [begin, end).
  void build(const ComputationGraph& cg, VariableIndex begin, VariableIndex end);
  /// Forgets the plan.
  void clear();

  const ScheduleUnits& units() const { return units_; }
  /// The graph of the last build.
  const ComputationGraph& graph() const { return *cg_; }
  std::uint32_t size() const { return static_cast<std::uint32_t>(functions_.size()); }
  /// The unit whose first node is `first`, or ScheduleUnits::kNoUnit.
  std::uint32_t unit_at(VariableIndex first) const {
    return first >= begin_ && first - begin_ < units_.unit_of.size() ? units_.unit_of[first - begin_]
                                                                     : ScheduleUnits::kNoUnit;
  }
  const VertexFunction& function(std::uint32_t u) const { return *functions_[u]; }
  /// The nodes unit u runs, in order; every unit of one key has as many.
  const VariableIndex* nodes(std::uint32_t u) const { return nodes_.data() + node_start_[u]; }
  std::uint32_t node_count(std::uint32_t u) const { return node_start_[u + 1] - node_start_[u]; }
  /// A hash of the signatures of unit u's nodes.
  std::uint64_t signature_key(std::uint32_t u) const { return signature_key_[u]; }
  /// Instances marked in the range (in a graph without scopes: discovered candidates whose
  /// structure repeats).
  std::uint32_t marked() const { return marked_; }

 private:
  /// Adds instance `inst`, of function f (null: none), as a unit if it is accepted.
  void add(const ComputationGraph& cg, const VertexInstance& inst, const VertexFunction* f);
  const VertexFunction* function_for(const ComputationGraph& cg, const VertexInstance& inst, std::uint64_t hash);
  /// The function of a marked instance: one its key already named here that it matches, without
  /// hashing it, else the one its structural hash names.
  const VertexFunction* marked_function(const ComputationGraph& cg, const VertexInstance& inst);

  const ComputationGraph* cg_ = nullptr;
  VariableIndex begin_ = 0;
  ScheduleUnits units_;
  std::vector<const VertexFunction*> functions_;  // per unit
  std::vector<std::uint64_t> signature_key_;      // per unit
  std::vector<std::uint32_t> node_start_{0};      // per unit, into nodes_
  std::vector<VariableIndex> nodes_;
  std::vector<std::uint8_t> in_instance_;  // per node - begin: inside some marked instance
  std::vector<std::uint8_t> runs_;         // per node of the instance being added: runs in its unit
  std::uint32_t marked_ = 0;
  InstanceDiscovery discovery_;
  // Functions already matched by this engine, by key and structural hash: the process-wide table
  // is locked only for structures new to this engine.
  std::unordered_map<std::uint64_t, const VertexFunction*> known_;
  // Functions already matched by marked instances, by key (a key names one structure or a few:
  // an LSTM's first step and the others); past kMaxPerKey, instances are hashed.
  static constexpr std::size_t kMaxPerKey = 4;
  std::unordered_map<std::uint64_t, std::vector<const VertexFunction*>> by_key_;
};

}  // namespace dynet
