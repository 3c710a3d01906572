// The C++ side of tests/python/test_cpp_reference.py: the same computations written with the C++
// API, their results printed, for the Python suite to compare with what `import dynet` computes.
//   cpp_reference trainer NAME             3 steps of trainer NAME (its default settings) on a fixed
//                                          loss over a parameter and a lookup table; prints both
//   cpp_reference graph OPS X W B          the loss of the graph OPS (comma-separated) builds from
//                                          input X over W {n, n} and b {n} (comma-separated values,
//                                          column-major); prints the loss and the gradients of W, b, x

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <dybatch.h>

using namespace dynet;

namespace {

std::vector<float> numbers(const std::string& s) {
  std::vector<float> v;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) v.push_back(std::strtof(item.c_str(), nullptr));
  return v;
}

void print(const char* what, const Tensor& t) {
  std::printf("%s", what);
  for (float f : as_vector(t)) std::printf(" %.9g", f);
  std::printf("\n");
}

std::unique_ptr<Trainer> trainer(const std::string& name, ParameterCollection& m) {
  if (name == "SimpleSGDTrainer") return std::make_unique<SimpleSGDTrainer>(m);
  if (name == "CyclicalSGDTrainer") return std::make_unique<CyclicalSGDTrainer>(m);
  if (name == "MomentumSGDTrainer") return std::make_unique<MomentumSGDTrainer>(m);
  if (name == "AdagradTrainer") return std::make_unique<AdagradTrainer>(m);
  if (name == "AdadeltaTrainer") return std::make_unique<AdadeltaTrainer>(m);
  if (name == "RMSPropTrainer") return std::make_unique<RMSPropTrainer>(m);
  if (name == "AdamTrainer") return std::make_unique<AdamTrainer>(m);
  if (name == "AmsgradTrainer") return std::make_unique<AmsgradTrainer>(m);
  throw std::invalid_argument("no trainer " + name);
}

int trainer_steps(const std::string& name) {
  ParameterCollection m;
  Parameter w = m.add_parameters({3}, ParameterInitFromVector({1.f, -2.f, 3.f}));
  LookupParameter e =
      m.add_lookup_parameters(4, {2}, ParameterInitFromVector({.1f, .2f, .3f, .4f, .5f, .6f, .7f, .8f}));
  std::unique_ptr<Trainer> t = trainer(name, m);
  for (unsigned step = 0; step < 3; ++step) {
    ComputationGraph cg;
    Expression loss = squared_norm(parameter(cg, w)) + sum_elems(cmult(lookup(cg, e, 1u), lookup(cg, e, 3u)));
    cg.forward(loss);
    cg.backward(loss);
    t->update();
  }
  print("w", *w.values());
  print("e", e.get_storage().all_values);
  return 0;
}

int graph(const std::string& ops, const std::vector<float>& xv, const std::vector<float>& wv,
          const std::vector<float>& bv) {
  const unsigned n = static_cast<unsigned>(xv.size());
  ParameterCollection m;
  Parameter W = m.add_parameters({n, n}, ParameterInitFromVector(wv));
  Parameter b = m.add_parameters({n}, ParameterInitFromVector(bv));
  ComputationGraph cg;
  Expression x = input(cg, Dim({n}), xv), h = x;
  Expression We = parameter(cg, W), be = parameter(cg, b);
  std::stringstream in(ops);
  std::string op;
  while (std::getline(in, op, ',')) {
    if (op == "W")
      h = We * h;
    else if (op == "b")
      h = h + be;
    else if (op == "tanh")
      h = tanh(h);
    else if (op == "logistic")
      h = logistic(h);
    else if (op == "square")
      h = square(h);
    else if (op == "cmult")
      h = cmult(h, x);
    else if (op == "softmax")
      h = softmax(h);
    else if (op == "rectify")
      h = rectify(h);
    else
      throw std::invalid_argument("unknown op " + op);
  }
  Expression loss = sum_elems(h);
  std::printf("loss %.9g\n", as_scalar(cg.forward(loss)));
  cg.backward(loss, true);
  print("dW", *W.gradients());
  print("db", *b.gradients());
  print("dx", cg.get_gradient(x));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  initialize(argc, argv);
  const std::string what = argc > 1 ? argv[1] : "";
  if (what == "trainer" && argc == 3) return trainer_steps(argv[2]);
  if (what == "graph" && argc == 6) return graph(argv[2], numbers(argv[3]), numbers(argv[4]), numbers(argv[5]));
  std::fprintf(stderr, "usage: cpp_reference trainer NAME | graph OPS X W B\n");
  return 2;
}
