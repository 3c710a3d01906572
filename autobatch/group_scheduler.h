#pragma once
// Which group of nodes a batched forward runs next. Nodes that are ready (every argument
// computed) wait in one ready set per key: their signature (agenda), or their signature and
// depth (depth). Two policies pick the next group:
//  - Agenda (--dynet-autobatch 1): a key whose every remaining node is ready runs first (waiting
//    cannot make its group larger); otherwise the key whose ready set holds the node of greatest
//    height (longest path to the end of the graph), so that the critical path advances and keys
//    off it, such as a recurrent model's per-step output layer, wait until their nodes are ready
//    together. The height is that of the ready nodes, not an average over the key: when
//    sequences of different lengths share a decoder, the key of a step that the longest
//    sequences are still to take ranks by them, while an average over every node of the key
//    put the steps of short sequences first and ran them a few at a time. DyNet ranks by
//    smallest average depth, which compares averages over different spans: a cell op that
//    exists only from a chain's second step averages deeper than the per-step outputs, and then
//    every output ran alone.
//  - Depth (--dynet-autobatch 2): TensorFlow Fold's rule, one group per signature and depth.
// Nodes that are never batched (signature 0) run alone, as soon as they are ready. Parameter
// leaves need no kernel and are not scheduled; start() lists them instead.
// Units (vertex-function instances, autobatch/vertex) are scheduled like single nodes: a unit is
// ready when every node outside it that it reads is computed, and the ready units of one key are
// handed out together, as their first nodes.

#include <cstdint>
#include <vector>

#include "autobatch/key_table.h"
#include "dynet_core/node.h"

namespace dynet {

class ComputationGraph;

/// Sets of nodes scheduled as one: what start() reads of a plan of units.
struct ScheduleUnits {
  static constexpr std::uint32_t kNoUnit = 0xFFFFFFFFu;
  std::vector<std::uint32_t> unit_of;  ///< per node - begin: its unit, or kNoUnit
  std::vector<VariableIndex> first;    ///< per unit: its first node, which stands for it
  std::vector<std::uint64_t> key;      ///< per unit: units of one key are handed out together

  void clear(std::uint32_t nodes) {
    unit_of.assign(nodes, kNoUnit);
    first.clear();
    key.clear();
  }
};

class GroupScheduler {
 public:
  enum class Policy { Agenda, Depth };
  explicit GroupScheduler(Policy policy) : policy_(policy) {}

  /// Starts scheduling nodes [begin, end) of cg; every node below begin is computed. `units`
  /// (null: none) stays read until the last group is handed out.
  void start(const ComputationGraph& cg, VariableIndex begin, VariableIndex end, const ScheduleUnits* units = nullptr);
  /// The parameter leaves among those nodes, which are not scheduled.
  const std::vector<VariableIndex>& parameter_leaves() const { return leaves_; }
  /// The next group (its nodes stay valid until the next call), or an empty one when every node
  /// has been handed out. Each node is handed out once, after the groups of its arguments; a
  /// group of units holds their first nodes.
  const std::vector<VariableIndex>& next();
  /// Nodes of a group handed out are computed (for units: every node of them): their consumers
  /// may become ready.
  void computed(const VariableIndex* nodes, std::uint32_t count);

 private:
  static constexpr std::uint32_t kNotScheduled = 0xFFFFFFFFu;
  static constexpr std::uint32_t kAlone = 0xFFFFFFFEu;   // a node that is never batched
  static constexpr std::uint32_t kInUnit = 0xFFFFFFFDu;  // a unit's node other than its first

  /// The key id of a schedulable node (one that stands for a unit: the unit's), made on first use.
  std::uint32_t key_id(std::uint64_t key) {
    bool added;
    const std::uint32_t k = keys_.id(key, &added);
    if (added) start_key(k);
    return k;
  }
  /// Key k is new: an empty ready set, no nodes yet.
  void start_key(std::uint32_t k);
  /// The node that is scheduled for node j (local index): its unit's first node, or itself.
  /// `kUnits`: whether there are units; the passes below are compiled for each case, so that a
  /// forward pass without units pays nothing for them on every node and argument.
  template <bool kUnits>
  std::uint32_t scheduled_as(std::uint32_t j) const {
    return kUnits && units_->unit_of[j] != ScheduleUnits::kNoUnit ? units_->first[units_->unit_of[j]] - begin_ : j;
  }
  /// Whether argument a of a node scheduled as `self` is one it waits for: scheduled in this pass
  /// (not computed before it, not a parameter leaf) and not in the same unit.
  template <bool kUnits>
  bool waits_for(VariableIndex a, std::uint32_t self) const {
    return a >= begin_ && key_of_[a - begin_] != kNotScheduled && scheduled_as<kUnits>(a - begin_) != self;
  }
  /// The passes start() makes over the nodes.
  template <bool kUnits>
  void plan(const ComputationGraph& cg);
  template <bool kUnits>
  void count_dependencies(const ComputationGraph& cg);
  template <bool kUnits>
  void list_consumers(const ComputationGraph& cg);
  template <bool kUnits>
  void rank_by_height();
  void make_ready(VariableIndex node);
  std::uint32_t pick_key() const;
  /// Whether the ready set of key a should run before that of key b.
  bool runs_before(std::uint32_t a, std::uint32_t b) const;

  Policy policy_;
  VariableIndex begin_ = 0;
  const ScheduleUnits* units_ = nullptr;
  KeyTable keys_;
  std::vector<VariableIndex> group_;  // the group handed out last
  std::vector<VariableIndex> leaves_;

  // Per node - begin.
  std::vector<std::uint32_t> key_of_;   // key id, kAlone, or kNotScheduled
  std::vector<std::uint32_t> pending_;  // arguments not computed yet
  std::vector<std::uint32_t> consumer_start_;
  std::vector<VariableIndex> consumers_;
  std::vector<VariableIndex> alone_;   // ready nodes that run alone
  std::vector<std::uint32_t> height_;  // agenda: longest path to a node nothing in range consumes

  // Per key id.
  std::vector<std::vector<VariableIndex>> ready_;
  std::vector<std::uint32_t> remaining_;  // nodes not handed out yet
  std::vector<std::uint32_t> key_nodes_;
  std::vector<double> key_depth_sum_;        // depth: of its nodes; the smallest average runs first
  std::vector<std::uint32_t> ready_height_;  // agenda: the greatest height in its ready set
  std::vector<std::uint32_t> active_;        // keys with a non-empty ready set
};

}  // namespace dynet
