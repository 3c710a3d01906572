// Learns XOR with a two-layer network: the smallest complete dybatch program.
// One graph is built once; its inputs are read by pointer, so each example only changes them.
// With --save the trained model is written to a file, read back into a fresh model, and the two
// models' losses are compared; with --load training starts from a saved model.

#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "dynet_core/dybatch.h"

using namespace dynet;

namespace {

constexpr unsigned kHidden = 8;

struct XorModel {
  explicit XorModel(ParameterCollection& model)
      : W(model.add_parameters({kHidden, 2}, 0.f, "W")),
        b(model.add_parameters({kHidden}, 0.f, "b")),
        V(model.add_parameters({1, kHidden}, 0.f, "V")),
        a(model.add_parameters({1}, 0.f, "a")) {}
  Parameter W, b, V, a;
};

// The loss of one example, built once; set_example() changes the inputs it reads.
struct XorGraph {
  XorGraph(ComputationGraph& cg, const XorModel& m) {
    const Expression x = input(cg, Dim({2}), &x_values);
    const Expression h = tanh(parameter(cg, m.W) * x + parameter(cg, m.b));
    loss = squared_distance(parameter(cg, m.V) * h + parameter(cg, m.a), input(cg, &y_value));
  }
  void set_example(unsigned i) {
    const bool x1 = i % 2, x2 = (i / 2) % 2;
    x_values[0] = x1 ? 1.f : -1.f;
    x_values[1] = x2 ? 1.f : -1.f;
    y_value = x1 != x2 ? 1.f : -1.f;
  }

  std::vector<float> x_values = std::vector<float>(2);
  float y_value = 0;
  Expression loss;
};

float mean_loss(const XorModel& m) {
  ComputationGraph cg;
  XorGraph g(cg, m);
  float total = 0;
  for (unsigned i = 0; i < 4; ++i) {
    g.set_example(i);
    total += as_scalar(cg.forward(g.loss));
  }
  return total / 4;
}

int run(unsigned iterations, const std::string& load_path, const std::string& save_path) {
  ParameterCollection model;
  XorModel net(model);
  if (!load_path.empty()) {
    TextFileLoader(load_path).populate(model);
    std::cout << "loaded " << load_path << "  loss " << mean_loss(net) << std::endl;
  }
  SimpleSGDTrainer trainer(model);
  ComputationGraph cg;
  XorGraph g(cg, net);
  float loss = 0;
  for (unsigned iter = 0; iter < iterations; ++iter) {
    loss = 0;
    for (unsigned i = 0; i < 4; ++i) {
      g.set_example(i);
      loss += as_scalar(cg.forward(g.loss));
      cg.backward(g.loss);
      trainer.update();
    }
    std::cout << "iteration " << iter + 1 << "  loss " << loss / 4 << std::endl;
  }
  const float trained = mean_loss(net);
  std::cout << "final loss " << trained << (trained < 0.01f ? " (learned XOR)" : " (not yet learned)") << "\n";
  if (save_path.empty()) return 0;

  TextFileSaver(save_path).save(model);
  ParameterCollection reloaded_model;
  XorModel reloaded(reloaded_model);
  TextFileLoader(save_path).populate(reloaded_model);
  const float reloaded_loss = mean_loss(reloaded);
  const bool same = reloaded_loss == trained;
  std::cout << "saved " << save_path << "; a fresh model loaded from it has loss " << reloaded_loss
            << (same ? " (the same)" : " (DIFFERENT)") << "\n";
  return same ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    initialize(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "xor: " << e.what() << "\n";
    return 2;
  }
  unsigned iterations = 30;
  std::string load_path, save_path;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << "usage: xor [--iterations N] [--load PATH] [--save PATH] [--dynet-seed S] [--dynet-mem MB]\n"
                   "Trains a 2-8-1 tanh network on XOR with SGD and prints the loss per iteration.\n"
                   "--load starts from a model saved before; --save writes the trained model, reads it\n"
                   "back into a fresh model and checks that both have the same loss.\n";
      return 0;
    }
    if (arg == "--iterations" && i + 1 < argc) {
      iterations = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    } else if (arg == "--load" && i + 1 < argc) {
      load_path = argv[++i];
    } else if (arg == "--save" && i + 1 < argc) {
      save_path = argv[++i];
    } else {
      std::cerr << "xor: unknown argument '" << arg << "' (see --help)\n";
      return 2;
    }
  }
  try {
    return run(iterations, load_path, save_path);
  } catch (const std::exception& e) {
    std::cerr << "xor: " << e.what() << "\n";
    return 1;
  }
}
