#include "autobatch/simple_engine.h"

namespace dynet {

void SimpleEngine::forward_nodes(VariableIndex begin, VariableIndex end) {
  for (VariableIndex j = begin; j < end; ++j) forward_node(cg_->node(j));
}

void SimpleEngine::backward_nodes(VariableIndex last, const std::uint8_t* needs) {
  for (VariableIndex j = last + 1; j-- > 0;)
    if (needs[j]) backward_node(cg_->node(j), needs);
}

}  // namespace dynet
