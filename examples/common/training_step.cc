#include "examples/common/training_step.h"

#include "dynet_core/graph.h"

namespace examples {

double training_step(dynet::Trainer& trainer, const std::function<dynet::Expression(dynet::ComputationGraph&)>& build_loss) {
  dynet::ComputationGraph cg;
  const dynet::Expression loss = build_loss(cg);
  const double value = as_scalar(cg.forward(loss));
  cg.backward(loss);
  trainer.update();
  return value;
}

}  // namespace examples
