// Learns XOR with a two-layer network: the smallest complete dybatch program.
// One graph is built once; its inputs are read by pointer, so each example only changes them.

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "dynet_core/dybatch.h"

using namespace dynet;

int main(int argc, char** argv) {
  initialize(argc, argv);
  unsigned iterations = 30;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << "usage: xor [--iterations N] [--dynet-seed S] [--dynet-mem MB]\n"
                   "Trains a 2-8-1 tanh network on XOR with SGD and prints the loss per iteration.\n";
      return 0;
    }
    if (arg == "--iterations" && i + 1 < argc) {
      iterations = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    } else {
      std::cerr << "xor: unknown argument '" << arg << "' (see --help)\n";
      return 2;
    }
  }

  const unsigned hidden = 8;
  ParameterCollection model;
  SimpleSGDTrainer trainer(model);
  Parameter p_W = model.add_parameters({hidden, 2});
  Parameter p_b = model.add_parameters({hidden});
  Parameter p_V = model.add_parameters({1, hidden});
  Parameter p_a = model.add_parameters({1});

  ComputationGraph cg;
  std::vector<float> x_values(2);
  float y_value = 0;
  Expression x = input(cg, Dim({2}), &x_values);
  Expression y = input(cg, &y_value);
  Expression h = tanh(parameter(cg, p_W) * x + parameter(cg, p_b));
  Expression y_pred = parameter(cg, p_V) * h + parameter(cg, p_a);
  Expression loss_expr = squared_distance(y_pred, y);

  float loss = 0;
  for (unsigned iter = 0; iter < iterations; ++iter) {
    loss = 0;
    for (unsigned mi = 0; mi < 4; ++mi) {
      const bool x1 = mi % 2, x2 = (mi / 2) % 2;
      x_values[0] = x1 ? 1.f : -1.f;
      x_values[1] = x2 ? 1.f : -1.f;
      y_value = x1 != x2 ? 1.f : -1.f;
      loss += as_scalar(cg.forward(loss_expr));
      cg.backward(loss_expr);
      trainer.update();
    }
    std::cout << "iteration " << iter + 1 << "  loss " << loss / 4 << std::endl;
  }
  std::cout << "final loss " << loss / 4 << (loss / 4 < 0.01f ? " (learned XOR)" : " (not yet learned)") << "\n";
  return 0;
}
