#pragma once
// Where a group's kernel reads its arguments and writes its outputs, so that memory moves only
// when it must. A group's outputs are one block in group order, so a later group whose arguments
// are that block, in order, reads them in place; a shared argument (a weight, anything broadcast
// along the batch, a computed matrix that every node of the group multiplies by) is read where its
// one node is; only otherwise are the arguments gathered into
// one block. A group of slices of one node, or of consecutive outputs of one group, is a view:
// its nodes point into what they slice, and nothing is copied (slices of several groups' outputs
// run as one view of each).

#include <cstdint>
#include <vector>

#include "autobatch/group_record.h"
#include "dynet_core/device/device.h"

namespace dynet {

enum class Placement { Shared, InPlace, Gathered };

struct ArgumentPlace {
  Placement how;
  float* values;           ///< Shared: the argument; InPlace: the first of them; Gathered: null
  std::uint32_t producer;  ///< the group whose consecutive outputs they are, or kNoGroup
  std::uint32_t offset;    ///< position of the first of them in that group
};

/// Whether every node of the group reads one node (with one batch element) at position i, which the
/// op declares shared: a computed matrix times each node's operand, read once, as a weight is.
bool reads_one_node(const ComputationGraph& cg, const VariableIndex* nodes, std::uint32_t count, unsigned i);
/// How the group nodes[0, count) reads argument position i.
ArgumentPlace place_argument(const ComputationGraph& cg, const GroupRecord& record, const VariableIndex* nodes,
                             std::uint32_t count, unsigned i);
/// Copies a gathered argument of `asize` floats a node into `to`, side by side, along its runs
/// (GroupRecord::add_runs), with one device call; `table` is the caller's buffer for the run table.
void gather_argument(const ComputationGraph& cg, const GroupRecord& record, const GroupArg& arg, std::size_t asize,
                     float* to, std::vector<MemoryRun>& table);
/// Whether node n is a slice of a computed value with one batch element (its range [begin, end)):
/// what a view needs of each of its nodes.
bool slices_computed_value(const ComputationGraph& cg, const GroupRecord& record, const Node& n, unsigned& begin,
                           unsigned& end);
/// Where the outputs of a group of slices already are, every `stride` floats, when they need no
/// copy (null otherwise): each node's argument is a computed value with one batch element, and
/// the arguments are one node or consecutive outputs of one group. A slice of a parameter (or of
/// any memory a leaf aliases) is a copy, so that it keeps the value it was computed with.
float* view_of_argument(const ComputationGraph& cg, const GroupRecord& record, const VariableIndex* nodes,
                        std::uint32_t count, std::uint32_t& stride);

}  // namespace dynet
