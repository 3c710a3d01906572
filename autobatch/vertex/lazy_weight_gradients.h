#pragma once
// Lazy batching of weight gradients (after Cavs): in backward, a small group that reads a
// trainable parameter does not add its part of the parameter's gradient at once. The parts wait
// until every group's output gradient is final, and the groups of one signature then add theirs
// as one kernel call over all their nodes (one large GEMM per weight instead of one small one
// per group). Nothing reads a parameter's gradient during backward, so the wait changes no value.

#include <cstdint>
#include <vector>

#include "autobatch/group_record.h"
#include "dynet_core/device/device.h"
#include "dynet_core/gemm/transpose_cache.h"

namespace dynet {

class LazyWeightGradients {
 public:
  /// Whether argument i of group g may wait: the group is small (kWaitBelow), its argument i is
  /// one trainable parameter for the whole group, its op is not elementwise, its backward reads
  /// its inputs from memory that lasts until backward ends and not its output, and it shares no
  /// argument beyond what its signature shares.
  static bool may_wait(const ComputationGraph& cg, const GroupRecord& record, std::uint32_t g, unsigned i);
  /// What may_wait asks of the node itself, whatever its group and argument: a batching signature
  /// (the waiting parts of one signature run as one call of its op; signature 0 is shared by nodes
  /// never batched, of any op), an op that is not elementwise, and a backward that reads its
  /// inputs, kept until backward ends, and not its output.
  static bool node_may_wait(const Node& n);
  /// Groups of this many nodes or more add their part at once: their product is large enough
  /// already, and waiting would copy their inputs and output gradients into one block.
  static constexpr std::uint32_t kWaitBelow = 32;
  /// Group g's part of the gradient of its argument i, the parameter leaf `target` (one that
  /// receives a gradient), waits.
  void wait(std::uint32_t g, unsigned i, VariableIndex target) { waiting_.push_back({g, i, target, 0}); }
  /// Adds every waiting part, group_grad[g] being group g's final output gradients (profiled
  /// with `profiling`); returns the kernel calls made.
  std::uint64_t run(ComputationGraph& cg, const GroupRecord& record, const std::vector<float*>& group_grad,
                    TransposeCache* transposes, bool profiling);
  void clear() { waiting_.clear(); }

 private:
  struct Waiting {
    std::uint32_t group;
    unsigned argument;
    VariableIndex target;
    std::uint32_t block;  ///< its group's signature's, set by order_by_blocks()
  };
  /// The waiting parts of one signature: the earliest of their groups, and its place among blocks.
  struct Block {
    std::uint64_t signature;
    std::uint32_t earliest, rank;
  };
  static constexpr std::uint32_t kNoBlock = ~std::uint32_t(0);
  /// Orders waiting_ by blocks in order of their earliest group, a block's parts by argument,
  /// each argument's in the order they began to wait.
  void order_by_blocks(const ComputationGraph& cg, const GroupRecord& record);
  /// Whether the waiting parts [a_first, a_end) and [b_first, b_end) are of the same groups.
  bool same_groups(std::size_t a_first, std::size_t a_end, std::size_t b_first, std::size_t b_end) const;
  /// Makes call_ the backward call over every node of the waiting parts [first, end) (of one
  /// signature), their batched arguments and output gradients gathered into scratch blocks (read
  /// in place when the parts are one group's).
  void gather(ComputationGraph& cg, const GroupRecord& record, const std::vector<float*>& group_grad, std::size_t first,
              std::size_t end);

  std::vector<Waiting> waiting_;
  std::vector<Block> blocks_;
  std::vector<std::uint32_t> slots_;   // order_by_blocks's table: a block by signature
  std::vector<std::uint32_t> ranked_;  // blocks by their earliest group
  std::vector<std::size_t> starts_;    // the counting sort's, by (block rank, argument)
  std::vector<Waiting> ordered_;       // waiting_ in order
  std::vector<MemoryRun> runs_;   // one group's block each, gathered with one device call
  std::vector<const void*> data_;
  std::vector<Tensor> xs_;
  OpCall call_;
};

}  // namespace dynet
