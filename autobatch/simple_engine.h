#pragma once
// Node by node, in graph order: the reference every other engine is tested against.

#include "autobatch/engine_base.h"

namespace dynet {

class SimpleEngine : public EngineBase {
 protected:
  void forward_nodes(VariableIndex begin, VariableIndex end) override;
  void backward_nodes(VariableIndex last, const std::uint8_t* needs) override;
};

}  // namespace dynet
