#pragma once
// Which ops of a vertex function fuse: union-find over the edges between elementwise ops (Cavs,
// section 3.5), refusing any union that the fused chain could not run as one step.

#include <vector>

#include "autobatch/vertex/op_dag.h"
#include "dynet_core/chain/chain_program.h"

namespace dynet {
namespace vertex {

/// An op fuses when its row declares an ElementwiseRule, it has at most kMaxChainArgs arguments,
/// and every argument broadcasts to its output (dimensions and batch equal or 1).
bool fusible(const OpDag& dag, unsigned op);

/// The fusible chains of `dag`: groups of two or more fusible ops with equal output shapes, joined
/// along producer-consumer edges, each group convex (no path leaves it and comes back, so the
/// chain runs as one unit after everything it reads) and within kMaxChainValues. Each group lists
/// its ops in DAG order; groups are ordered by their first op. Ops in no group run one by one.
std::vector<std::vector<unsigned>> elementwise_chains(const OpDag& dag);

}  // namespace vertex
}  // namespace dynet
