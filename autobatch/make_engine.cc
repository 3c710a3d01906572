// make_engine (dynet_core/execution_engine.h): the engine of each --dynet-autobatch strategy.
#include "dynet_core/execution_engine.h"

#include <stdexcept>
#include <string>

#include "autobatch/batched_engine.h"
#include "autobatch/simple_engine.h"

namespace dynet {

std::unique_ptr<ExecutionEngine> make_engine(int strategy) {
  switch (strategy) {
    case 0:
      return std::make_unique<SimpleEngine>();
    case 1:
      return std::make_unique<BatchedEngine>(BatchedEngine::Policy::Agenda);
    case 2:
      return std::make_unique<BatchedEngine>(BatchedEngine::Policy::Depth);
    default:
      throw std::invalid_argument("autobatch strategy " + std::to_string(strategy) + " is not available in this build");
  }
}

}  // namespace dynet
