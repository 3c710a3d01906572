// A program outside the source tree, built against an installed dybatch.
#include <dynet_core/dybatch.h>

#include <iostream>

int main(int argc, char** argv) {
  dynet::initialize(argc, argv);
  dynet::ParameterCollection model;
  dynet::Parameter w = model.add_parameters({1}, dynet::ParameterInitConst(3.f));
  dynet::ComputationGraph cg;
  dynet::Expression y = dynet::parameter(cg, w) * 2.f;
  std::cout << dynet::as_scalar(cg.forward(y)) << "\n";
  return dynet::as_scalar(cg.forward(y)) == 6.f ? 0 : 1;
}
