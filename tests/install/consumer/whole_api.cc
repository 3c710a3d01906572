// README: "#include <dybatch.h> brings the whole public API". The names the reference pages use
// beside the graph and the builders, through that one header of the installed package.
#include <dybatch.h>

int main(int argc, char** argv) {
  dynet::initialize(argc, argv);
  dynet::ParameterCollection model;
  dynet::Parameter w = model.add_parameters({3});
  dynet::TensorTools::constant(*w.values(), 0.5f);                // tensor_tools.h
  dynet::RandomEngine own;  // random_engine.h (docs/threads.md)
  own.seed(7);
  const dynet::RandomEngineScope seeded(own);
  dynet::Timer timer("check_grad");                               // timing.h
  dynet::ComputationGraph cg;
  dynet::VanillaLSTMBuilder lstm(1, 3, 2, model);
  lstm.new_graph(cg);
  lstm.start_new_sequence();
  dynet::Expression loss = dynet::squared_norm(lstm.add_input(dynet::parameter(cg, w)));
  return dynet::check_grad(model, loss, 0) ? 0 : 1;  // grad_check.h
}
