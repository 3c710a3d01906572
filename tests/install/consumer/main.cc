// A program outside the source tree, built against an installed dybatch, through dybatch's own
// header and through DyNet's header names.
#include <dynet/dict.h>
#include <dynet/dynet.h>
#include <dynet/expr.h>
#include <dynet/grad-check.h>
#include <dynet/io.h>
#include <dynet/lstm.h>
#include <dynet/model.h>
#include <dynet/tensor.h>
#include <dynet/timing.h>
#include <dynet/training.h>
#include <dynet/treelstm.h>
#include <dynet_core/dybatch.h>

#include <iostream>

int main(int argc, char** argv) {
  dynet::initialize(argc, argv);
  dynet::ParameterCollection model;
  dynet::Parameter w = model.add_parameters({1}, dynet::ParameterInitConst(3.f));
  dynet::ComputationGraph cg;
  dynet::Expression y = dynet::parameter(cg, w) * 2.f;
  const dynet::real v = dynet::as_scalar(cg.forward(y));
  std::cout << v << "\n";
  return v == 6.f ? 0 : 1;
}
