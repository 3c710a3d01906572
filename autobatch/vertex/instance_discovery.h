#pragma once
// Finding the instances of repeated cells in a graph built with plain ops, without VertexScope.
// Nodes [begin, end) are cut into contiguous candidates. An anchor is a node that reads a
// parameter leaf (a weight the cells share); an anchor opens a candidate unless it shares an
// argument other than a parameter with an anchor of the open one (the gates of an LSTM step,
// each an affine over the same x and h, are one candidate). Any other node joins the open
// candidate when it reads one of its nodes; nodes that read none of them (a lookup, the concat
// of a tree node's children, per-use parameter leaves) wait, and belong to the candidate the
// next anchor opens; so does a candidate's last node when it joins the candidate's output with an
// earlier one's (the concat of a tree node's children, built in post-order right after the right
// child's cell, reads that cell). So a cell that recursive or sequential code builds in one go
// (a tree node's cell, an LSTM step) is one candidate, and a cell whose anchors share no input
// (products W_x·x and W_h·h summed) splits into several, each batched as a function of its own.
//
// Only contiguous ranges are candidates, because the executor runs instances as node ranges;
// a contiguous range is convex by construction (node indices are a topological order, so a path
// that leaves the range and comes back passes only through nodes inside it). A candidate is kept
// only when another one in the range has its structural hash: a structure seen once gains nothing
// as a unit and would only add a function to the process-wide table. The instance plan then
// accepts a kept candidate only when it matches the function traced from the first candidate of
// its hash; everything else runs op by op. It runs on every forward pass of a graph without
// scopes: one pass over the nodes and their arguments, then a count of the candidates' hashes;
// allocation-free once warm.

#include <cstdint>
#include <utility>
#include <vector>

#include "autobatch/key_table.h"
#include "dynet_core/graph.h"

namespace dynet {

/// The key of every discovered instance; the structural hash tells their functions apart.
std::uint64_t discovered_key();

class InstanceDiscovery {
 public:
  /// Cuts nodes [begin, end) of cg into candidates and keeps those whose structure repeats.
  void find(const ComputationGraph& cg, VariableIndex begin, VariableIndex end);
  /// The kept candidates, in node order.
  const std::vector<VertexInstance>& instances() const { return kept_; }
  /// Their structural hashes (vertex_function.h).
  const std::vector<std::uint64_t>& hashes() const { return kept_hashes_; }

 private:
  void close(VariableIndex begin, VariableIndex end);
  /// Cuts candidate c, if its structure does not repeat, to its longest run of last (`keep_end`)
  /// or first nodes that has the structure of a candidate that does.
  void trim(const ComputationGraph& cg, std::size_t c, bool keep_end);

  std::vector<VertexInstance> candidates_, kept_;
  std::vector<std::uint64_t> hashes_, kept_hashes_;
  KeyTable hash_ids_;                      // hashes_ to ids
  std::vector<std::uint32_t> hash_id_;     // per candidate
  std::vector<std::uint32_t> hash_count_;  // per id: candidates with that hash
  std::vector<std::uint8_t> leaf_;         // per node of the range: a parameter leaf
  std::vector<std::uint8_t> repeats_;      // per candidate: another one has its hash (or its trimmed part's)
  std::vector<VariableIndex> anchors_;     // of the open candidate
  std::vector<std::pair<VariableIndex, std::uint64_t>> tried_;  // trim's lengths, with their part's hash
};

}  // namespace dynet
