// ComputationGraph::print_graphviz (graph.h): the graph in Graphviz's dot language, as DyNet prints it.
#include <iostream>

#include "dynet_core/graph.h"

namespace dynet {

void ComputationGraph::print_graphviz() const { print_graphviz(std::cerr); }

void ComputationGraph::print_graphviz(std::ostream& os) const {
  os << "digraph G {\n  rankdir=LR;\n  nodesep=.05;\n";
  for (VariableIndex i = 0; i < size_; ++i) {
    const Node& n = node(i);
    os << "  N" << i << " [label=\"";
    write_node(os, i);
    os << "\"];\n";
    for (unsigned k = 0; k < n.nargs; ++k) os << "  N" << n.arg(k) << " -> N" << i << ";\n";
  }
  os << "}\n";
}

}  // namespace dynet
