#pragma once
// Leading products computed ahead: nodes of a sum-of-products op (affine_transform's
// b + W1 x1 + W2 x2 + ..., OpDef::sum_of_products) that share their b and W1, and whose x1 is
// computed before the first of them runs or is a leaf, get b + W1 x1 from one product over all
// their x1 at once when the first of them runs; each then adds its other terms to its part of
// that. In backward their x1 gradients, W1^T dy, wait and run as one product too: before the
// engine reaches a computed x1, and before the backward of leaves (lookups) that wait with them.
// A recurrence over inputs known in advance (a tagger's word embeddings) then reads W1 once a
// sequence in each direction instead of once a step, as hoisting W1 x out of the loop by hand
// would, without the extra nodes and gathers that hoisting costs a batched graph.
// Both engines use it. In the sequential engine "before" and "after" are in its order
// (tail_order.h), which also brings a recurrence's per-step outputs together after it: their
// products over a weight too large for the cache, at any width, run as one, and so do their
// weight gradients. In the batched engine they are in the order its groups run (group_record.h):
// a group's x1 are those computed before the pass or leaves, and a member whose x1 is not computed
// when its group starts runs on its own; backward runs the waiting x1 gradients before the group
// that computed one of them.

#include <cstdint>
#include <vector>

#include "autobatch/group_record.h"
#include "autobatch/key_table.h"
#include "autobatch/vertex/tail_order.h"
#include "dynet_core/device/device.h"
#include "dynet_core/gemm/transpose_cache.h"
#include "dynet_core/graph.h"

namespace dynet {

class LeadingProducts {
 public:
  /// The arguments of a sum-of-products node: b, W1 and x1.
  static constexpr unsigned kBias = 0, kWeight = 1, kInput = 2;
  /// Nodes of this many output columns (all batch elements together) or more run on their own,
  /// unless their W1 is streamed (TailOrder::kStreamedWeight): their product is wide enough
  /// already (rnnlm-batch's LSTM at 16 columns a step came out level).
  static constexpr std::uint64_t kBelowColumns = 16;
  /// A group's outputs hold at most this many floats (64 MiB): backward gathers their gradients
  /// into one block as large, and a product over a few hundred columns is as fast as a wider one.
  static constexpr std::uint64_t kGroupFloats = std::uint64_t(1) << 24;

  /// Forgets every node of every pass (the graph's values were forgotten).
  void forget();
  /// Forgets nodes n and after (the graph was cut back to n nodes).
  void truncate(VariableIndex n);

  /// Finds the groups among nodes [begin, end), which the sequential engine is about to compute
  /// in `order` (kept for the passes that follow).
  void plan(const ComputationGraph& cg, const TailOrder& order, VariableIndex begin, VariableIndex end);
  /// Finds the groups among nodes [begin, end), which the batched engine is about to compute and
  /// record in `record`: only x1 that are leaves or computed before begin join.
  void plan(const ComputationGraph& cg, const GroupRecord& record, VariableIndex begin, VariableIndex end);
  /// Whether node j was computed ahead already (a leaf that a group read early).
  bool computed(VariableIndex j) const { return j < nodes_.size() && nodes_[j].state == State::Computed; }
  /// Whether node j belongs to a group: it runs from partial(j).
  bool member(VariableIndex j) const { return j < nodes_.size() && nodes_[j].state == State::Member; }
  /// Whether node j is the first of its group, the one that starts it.
  bool starts(VariableIndex j) const { return member(j) && nodes_[j].position == 0; }
  /// The leaves that the group node j starts reads and that are not computed yet: the engine
  /// computes them, in this order, before start_group(j).
  const std::vector<VariableIndex>& leaves_ahead(const ComputationGraph& cg, VariableIndex j);
  /// Computes b + W1 x1 of every node of the group that node j starts, as one call of its op.
  void start_group(ComputationGraph& cg, VariableIndex j, bool profiling);
  /// The group node j belongs to, while a member.
  std::uint32_t group(VariableIndex j) const { return nodes_[j].group; }
  /// Whether node j belongs to a group started already (whose partial values it may run from).
  bool started(VariableIndex j) const { return member(j) && groups_[nodes_[j].group].partial != nullptr; }
  /// Takes the members whose x1 is not computed yet (`computed(x1)` false) out of the group that
  /// node j belongs to, before start_group: they run on their own. Returns the members left. The
  /// batched engine computes leaves when it schedules them, which may be after the group's first
  /// member.
  template <class Computed>
  std::uint32_t keep_computed(const ComputationGraph& cg, VariableIndex j, Computed computed);
  /// Takes node j out of its group: it runs on its own (its part computed ahead, if any, unread).
  void leave(VariableIndex j) { nodes_[j].state = State::Alone; }
  /// Takes every member of node j's group out of it.
  void dissolve(VariableIndex j);
  /// Member j's value of b + W1 x1, computed ahead.
  const float* partial(VariableIndex j) const;

  /// Starts a backward pass; `transposes`, the engine's cache of transposed weights for it, serves
  /// the x1 gradients of groups of kOneProductCopyColumns columns or more.
  void begin_backward(TransposeCache* transposes);
  /// Called in backward's order before what the engine runs at `place` (the sequential engine: a
  /// node's place in its order; the batched engine: a group's index in its record): runs the
  /// waiting x1 gradients when it computed an x1 of theirs. Returns the kernel calls made.
  std::uint64_t before(ComputationGraph& cg, std::uint32_t place, bool profiling) {
    return place < flush_at_ ? run_waiting(cg, profiling) : 0;
  }
  /// The arguments of node j whose gradients wait (bit k: argument k); 0 when none. With x1's,
  /// W1's waits too unless `taken` (the arguments whose gradients wait elsewhere) holds it.
  std::uint64_t wait(const ComputationGraph& cg, VariableIndex j, const std::uint8_t* needs, std::uint64_t taken);
  /// Whether node j is a leaf whose backward waits for the x1 gradients.
  bool postponed(VariableIndex j) const { return j < nodes_.size() && nodes_[j].leaf_waits; }
  /// Runs every waiting x1 gradient; returns the kernel calls made. The engine then runs the
  /// backward of postponed_leaves().
  std::uint64_t finish(ComputationGraph& cg, bool profiling);
  /// The leaves whose backward waited, latest first (the order backward would have met them in).
  const std::vector<VariableIndex>& postponed_leaves() const { return postponed_; }

 private:
  enum class State : std::uint8_t { Alone, Member, Computed };
  struct NodeState {
    State state = State::Alone;
    bool leaf_waits = false;     ///< backward: a leaf whose backward waits
    bool weight_waits = false;   ///< backward: a member whose W1 gradient waits with its x1's
    std::uint32_t group = 0;     ///< Member: its group
    std::uint32_t position = 0;  ///< Member: its place in the group
  };
  struct Group {
    std::uint32_t first, count;  ///< its nodes: members_[first, first + count), in graph order
    std::size_t size;            ///< floats of one node's output
    float* partial;              ///< b + W1 x1 of each, once computed
  };
  struct Candidate {
    VariableIndex w, b, j;
    std::uint32_t key;  ///< the id of (w, b) in keys_
  };

  /// Where node j runs in the engine's order (see before()); GroupRecord::kNoGroup for a
  /// parameter leaf of the batched engine, which runs nowhere.
  std::uint32_t place(VariableIndex j) const { return order_ ? order_->position(j) : record_->group_of(j); }
  /// Starts planning nodes [begin, end) in one engine's order (the other null): their states
  /// reset, no candidates yet.
  void start_plan(const TailOrder* order, const GroupRecord* record, VariableIndex begin, VariableIndex end);
  /// Groups candidates_ by weight and bias, in order of their place.
  void group_candidates(const ComputationGraph& cg);
  /// Whether node n may take part: its op is a sum of products, its output narrow, and its b and
  /// W1 shared by its group (no batch dimension of their own).
  static bool may_lead(const ComputationGraph& cg, const Node& n);
  /// Whether node j may join the group that node `start` starts.
  bool joins(const ComputationGraph& cg, VariableIndex start, VariableIndex j) const;
  /// Makes members_[first, end) a group when it has two nodes or more, else drops them.
  void close_group(const ComputationGraph& cg, std::size_t first);
  /// The call of the op over nodes[0, count), which share b and W1: its arguments in xs, their
  /// x1 gathered into one scratch block (the caller reverts it), its output without values.
  OpCall inputs_call(ComputationGraph& cg, const VariableIndex* nodes, std::uint32_t count, Tensor* xs);
  /// Runs the waiting x1 gradients, one call a group; returns the kernel calls made.
  std::uint64_t run_waiting(ComputationGraph& cg, bool profiling);

  const TailOrder* order_ = nullptr;     // the sequential engine's, or null
  const GroupRecord* record_ = nullptr;  // the batched engine's, or null
  VariableIndex begin_ = 0;              // of the pass planned last
  std::vector<NodeState> nodes_;         // by node index
  std::vector<Group> groups_;
  std::vector<VariableIndex> members_;
  std::vector<Candidate> candidates_;  // in the engine's order
  KeyTable keys_;                      // of (W1, b)
  std::vector<std::uint32_t> starts_;  // by key: where its candidates start in by_key_
  std::vector<VariableIndex> by_key_;  // the candidates, by key
  std::vector<VariableIndex> leaves_;
  // Backward.
  std::vector<VariableIndex> waiting_;  // nodes whose x1 gradient waits
  std::uint32_t flush_at_ = 0;          // one past the place of the latest computed (not leaf) x1 among them
  std::vector<VariableIndex> postponed_;
  TransposeCache* transposes_ = nullptr;
  // Reused for calls.
  std::vector<MemoryRun> runs_;
  std::vector<const void*> data_;
};

template <class Computed>
std::uint32_t LeadingProducts::keep_computed(const ComputationGraph& cg, VariableIndex j, Computed computed) {
  Group& g = groups_[nodes_[j].group];
  std::uint32_t kept = 0;
  for (std::uint32_t p = 0; p < g.count; ++p) {
    const VariableIndex m = members_[g.first + p];
    if (!computed(cg.node(m).arg(kInput))) {
      leave(m);
      continue;
    }
    nodes_[m].position = kept;
    members_[g.first + kept++] = m;
  }
  g.count = kept;
  return kept;
}

}  // namespace dynet
