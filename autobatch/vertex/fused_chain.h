#pragma once
// One fused chain of elementwise ops, planned once per vertex function and run for every task.
// Forward evaluates the whole chain per cache-sized tile of its iteration space, so the values
// between its ops live in tile buffers instead of full-size tensors. Backward runs the rows'
// gradient rules in reverse within each tile, so the gradients between the chain's ops never
// reach memory either. The values backward reads are either kept whole by forward (as the rows'
// `saves` declare) or recomputed per tile from the chain's inputs, bit for bit the forward's:
// keeping costs memory traffic, recomputing costs the transcendentals again.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "autobatch/vertex/op_dag.h"
#include "dynet_core/chain/chain_program.h"
#include "dynet_core/chain/operand_map.h"

namespace dynet {
namespace vertex {

class FusedChain {
 public:
  /// How backward gets the values of the chain's ops that only backward reads.
  enum class Values { kKept, kRecomputed };

  /// Floats per tile: the tile buffers of a cell-sized chain (a dozen) stay within L2, and a
  /// tile is long enough that the per-tile bookkeeping is noise next to the loops (on the LSTM
  /// tail of bench/fusion, 256 was slower and 4096 no faster).
  static constexpr std::size_t kTile = 1024;

  /// `ops`: a group of elementwise_chains(dag), in DAG order.
  FusedChain(const OpDag& dag, std::vector<unsigned> ops, Values backward_values = Values::kKept);

  /// The DAG ops of the chain, in the order they run.
  const std::vector<unsigned>& ops() const { return ops_; }
  /// The values the chain reads from outside it, in the order of run_*'s `reads` pointers.
  const std::vector<DagRef>& reads() const { return reads_; }
  /// The chain's ops whose values are kept whole (read outside the DAG, by an op of the DAG
  /// outside the chain, or, with Values::kKept, by the chain's backward), in the order of the
  /// `writes` pointers. The others exist only per tile.
  const std::vector<unsigned>& writes() const { return writes_; }
  /// Floats of scratch a run needs (the caller's, e.g. its scratch pool: a run never allocates).
  std::size_t scratch_floats() const { return buffers_ * kTile; }

  /// Computes the chain for `instances` instances. reads[r]: reads()[r]'s block (instance after
  /// instance, or one tensor if shared); writes[w]: the block receiving writes()[w]. data[s]: the
  /// op data of ops()[s] for this run (null: the traced op data, which a graph's arena may no
  /// longer hold once its graph is gone).
  void run_forward(unsigned instances, const float* const* reads, float* const* writes, float* scratch,
                   const void* const* data = nullptr) const;
  /// Adds the chain's gradients into read_grads[r] (null: that read needs none), as the rows'
  /// own backward would, op by op. writes and reads hold the forward's values. write_grads[w]
  /// holds the gradient from outside the chain of writes()[w] (null: none); the gradient from
  /// inside the chain is added into it, so it ends as that op's whole gradient.
  /// fresh_reads[r] / fresh_writes[w] (null: none is): that gradient block holds nothing yet, and
  /// is overwritten instead of added to (zeroed where nothing reaches it); a fresh read must be
  /// read in place (read_in_place).
  void run_backward(unsigned instances, const float* const* reads, float* const* read_grads, const float* const* writes,
                    float* const* write_grads, float* scratch, const void* const* data = nullptr,
                    const std::uint8_t* fresh_reads = nullptr, const std::uint8_t* fresh_writes = nullptr) const;
  /// Whether read r is read where it is (its shape is the chain's, not broadcast).
  bool read_in_place(unsigned r) const { return maps_[r].in_place(); }
  /// The chain as a device that runs it as one kernel receives it; valid while the chain lives.
  ChainProgram program() const {
    return {steps_.data(), unsigned(steps_.size()), arg_slots_.data(),
            maps_.data(),  unsigned(reads_.size()), unsigned(writes_.size()),
            size_};
  }

 private:
  /// Points values[r] at each read's elements [begin, begin + n), gathered when not in place.
  void load_reads(const float* const* reads, std::size_t begin, std::size_t n, float* scratch,
                  const float** values) const;
  const void* data_of(unsigned step, const void* const* data) const { return data ? data[step] : steps_[step].data; }
  /// The argument pointers of a step from the values of all slots.
  void arguments(const ChainStep& s, const float* const* values, const float** xs) const {
    for (unsigned a = 0; a < s.nargs; ++a) xs[a] = values[arg_slots_[s.first_arg + a]];
  }
  float* value_buffer(float* scratch, unsigned step) const { return scratch + (reads_.size() + step) * kTile; }
  float* gradient_buffer(float* scratch, unsigned step) const {
    return scratch + (reads_.size() + steps_.size() + step) * kTile;
  }
  float* spare_buffer(float* scratch) const { return scratch + (buffers_ - 1) * kTile; }

  std::vector<unsigned> ops_;
  std::vector<DagRef> reads_;
  std::vector<unsigned> writes_;
  std::vector<ChainStep> steps_;
  // Slot of each argument of each step: [0, reads) are the reads, then one per step.
  std::vector<unsigned> arg_slots_;
  std::vector<OperandMap> maps_;  // per read
  std::size_t size_ = 0;          // elements of one instance's output
  std::size_t buffers_ = 0;       // tiles of scratch: one per read, two per step, one spare
};

}  // namespace vertex
}  // namespace dynet
