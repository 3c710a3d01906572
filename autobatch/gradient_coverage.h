#pragma once
// Which parts of each group's gradient block hold gradients during a batched backward. A block
// is zeroed only when a gradient is first *added* to it, and not at all when its first writes
// cover it and may overwrite; so each block is known to hold gradients nowhere, in some whole
// nodes, in some spans of every batch element (slices write those), or everywhere. The two
// partial kinds never mix: a write that cannot be recorded makes the block whole first.

#include <cstdint>
#include <vector>

#include "dynet_core/device/device.h"
#include "dynet_core/dim.h"

namespace dynet {

class GradientCoverage {
 public:
  /// Forgets every block.
  void clear();
  /// Adds the block of the next group, of `nodes` nodes of shape `node`; it holds nothing yet.
  void add_block(std::uint32_t nodes, const Dim& node);

  /// No gradient reached block g.
  bool untouched(std::uint32_t g) const { return blocks_[g].state == kNothing; }
  /// Block g holds gradients everywhere.
  bool whole(std::uint32_t g) const { return blocks_[g].state == kAll; }
  /// Whether the nodes at positions [position, position + n) of block g hold no gradient yet, so
  /// that a kernel may overwrite them; if so, they are recorded as written. If not, the caller
  /// must make the block whole (complete) before adding to it.
  bool claim_nodes(std::uint32_t g, std::uint32_t position, std::uint32_t n);
  /// The same for elements [begin, end) of every batch element of every node of block g.
  bool claim_span(std::uint32_t g, std::uint32_t begin, std::uint32_t end);
  /// Zeroes what `block` (block g, memory of `device`) holds no gradients in yet, so that it can
  /// be added to; one device call.
  void complete(std::uint32_t g, float* block, Device& device);

 private:
  enum State : std::uint8_t { kNothing, kSpans, kNodes, kAll };
  static constexpr std::uint32_t kNoSpan = 0xFFFFFFFFu;
  struct Block {
    Dim node;
    std::uint32_t nodes;
    std::uint32_t first_flag;     // into written_: one per node, for kNodes
    std::uint32_t nodes_written;  // for kNodes
    std::uint32_t first_span;     // for kSpans: a list through spans_
    State state;
  };
  struct Span {
    std::uint32_t begin, end;  // elements of every batch element of the block's nodes
    std::uint32_t next;        // the block's next span, or kNoSpan
  };
  void zero_unwritten_nodes(const Block& b, float* block);
  void zero_gaps_between_spans(const Block& b, float* block);

  std::vector<Block> blocks_;
  std::vector<std::uint8_t> written_;  // per node of every block
  std::vector<Span> spans_;
  std::vector<Span> sorted_;      // the spans of one block in order (complete's work list)
  std::vector<MemoryRun> zeros_;  // what complete zeroes
};

}  // namespace dynet
