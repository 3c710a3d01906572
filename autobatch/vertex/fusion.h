#pragma once
// Elementwise fusion for the vertex executor: from the ops of one vertex function, the chains
// that run as one loop over cache-sized tiles forward and backward (Cavs, section 3.5).
//
// The executor calls plan_fusion once per function, when it traces the function, and keeps the
// plan for the life of the function: finding chains, ordering them and laying out their tiles
// never happens per task. For each task it walks plan.steps, running an op on its own as usual
// and a chain through run_forward, with pointers into its per-symbol blocks (every instance of
// the task back to back); backward walks the steps in reverse with run_backward. Ops of a chain
// that are not among its writes() need no block at all.
//
//   FusionPlan plan = plan_fusion(dag);  // dag: the function's ops, in topological order
//   for (const FusionPlan::Step& s : plan.steps)  // per task
//     if (s.chain < 0) run op s.op;
//     else plan.chains[s.chain].run_forward(instances, reads, writes, scratch);

#include <vector>

#include "autobatch/vertex/elementwise_chains.h"
#include "autobatch/vertex/fused_chain.h"
#include "autobatch/vertex/op_dag.h"

namespace dynet {
namespace vertex {

struct FusionPlan {
  /// A chain (chain >= 0, an index into chains) or one op on its own (chain < 0, op).
  struct Step {
    int chain;
    unsigned op;
  };

  std::vector<FusedChain> chains;
  /// Per op of the DAG: the index of its chain, or -1 when it runs on its own.
  std::vector<int> chain_of;
  /// Every op once, each chain as one step, every step after the steps it reads from. The DAG's
  /// own order will not do: an op outside a chain may sit between two of the chain's ops.
  std::vector<Step> steps;
};

/// Finds the DAG's elementwise chains (elementwise_chains), plans each and orders the steps.
FusionPlan plan_fusion(const OpDag& dag, FusedChain::Values backward_values = FusedChain::Values::kKept);

}  // namespace vertex
}  // namespace dynet
