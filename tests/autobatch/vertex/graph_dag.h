#pragma once
// Tests describe vertex functions by writing them with ordinary expressions; this reads a range
// of a graph's nodes back as the OpDag the fuser plans from.

#include <algorithm>
#include <vector>

#include "autobatch/vertex/op_dag.h"
#include "dynet_core/graph.h"

namespace test_support {

/// The nodes [first, end) of cg as ops. Arguments before `first` become the DAG's inputs, in the
/// order they are first read (their nodes appended to `inputs`), shared when listed in `shared`.
/// The nodes in `outside` are read outside the DAG.
inline dynet::vertex::OpDag dag_of(const dynet::ComputationGraph& cg, dynet::VariableIndex first,
                                   dynet::VariableIndex end, const std::vector<dynet::VariableIndex>& shared,
                                   const std::vector<dynet::VariableIndex>& outside,
                                   std::vector<dynet::VariableIndex>* inputs = nullptr) {
  using dynet::vertex::DagRef;
  dynet::vertex::OpDag dag;
  std::vector<dynet::VariableIndex> input_nodes;
  for (dynet::VariableIndex i = first; i < end; ++i) {
    const dynet::Node& n = cg.node(i);
    dynet::vertex::DagOp op;
    op.op = n.op;
    op.data = n.data;
    op.dim = n.dim;
    op.read_outside = std::find(outside.begin(), outside.end(), i) != outside.end();
    for (unsigned k = 0; k < n.nargs; ++k) {
      const dynet::VariableIndex a = n.arg(k);
      if (a >= first) {
        op.args.push_back(DagRef::op(a - first));
        continue;
      }
      auto it = std::find(input_nodes.begin(), input_nodes.end(), a);
      if (it == input_nodes.end()) {
        input_nodes.push_back(a);
        const bool is_shared = std::find(shared.begin(), shared.end(), a) != shared.end();
        dag.inputs.push_back({cg.node(a).dim, is_shared});
        it = input_nodes.end() - 1;
      }
      op.args.push_back(DagRef::input(unsigned(it - input_nodes.begin())));
    }
    dag.ops.push_back(op);
  }
  if (inputs) *inputs = input_nodes;
  return dag;
}

}  // namespace test_support
