// A DyNet program that names only dynet.h, training.h and lstm.h, as DyNet's examples do, and
// leans on what DyNet's headers bring along: every operator through lstm.h, assert, getpid,
// TensorTools and the device manager through dynet.h, and an initializer of its own that overrides
// DyNet's initialize_params(Tensor&). An LSTM learns to continue a cycle of four symbols; passes
// when it predicts every next symbol.
#include "dynet/dynet.h"
#include "dynet/lstm.h"
#include "dynet/training.h"

#include <algorithm>
#include <cmath>

using namespace std;
using namespace dynet;

// As DyNet's transformer example defines its own: uniform on +-sqrt(3 / fan-in).
struct ParameterInitLeCunUniform : public ParameterInit {
  explicit ParameterInitLeCunUniform(float fan_in) : fan_in(fan_in) { assert(fan_in > 0); }
  void initialize_params(Tensor& values) const override {
    const float s = std::sqrt(3.f / fan_in);
    TensorTools::randomize_uniform(values, -s, s);
  }
  float fan_in;
};

int main(int argc, char** argv) {
  dynet::initialize(argc, argv);
  cerr << "process " << getpid() << " on " << get_device_manager()->get_global_device("CPU")->name << endl;

  const unsigned kSymbols = 4, kDim = 8;
  ParameterCollection model;
  LookupParameter p_embed = model.add_lookup_parameters(kSymbols, {kDim});
  Parameter p_out = model.add_parameters({kSymbols, kDim}, ParameterInitLeCunUniform(kDim));
  Parameter p_bias = model.add_parameters({kSymbols}, ParameterInitConst(0.f));
  VanillaLSTMBuilder lstm(1, kDim, kDim, model);
  AdamTrainer trainer(model, 0.05f);

  const vector<unsigned> cycle = {0, 2, 1, 3, 0, 2, 1, 3, 0, 2, 1, 3};
  auto run = [&](ComputationGraph& cg, vector<unsigned>* predicted) {
    lstm.new_graph(cg);
    lstm.start_new_sequence();
    Expression out = parameter(cg, p_out), bias = parameter(cg, p_bias);
    vector<Expression> losses;
    for (size_t t = 0; t + 1 < cycle.size(); ++t) {
      Expression scores = affine_transform({bias, out, lstm.add_input(lookup(cg, p_embed, cycle[t]))});
      losses.push_back(pickneglogsoftmax(scores, cycle[t + 1]));
      if (predicted) {
        const vector<float> s = as_vector(cg.incremental_forward(scores));
        predicted->push_back(unsigned(max_element(s.begin(), s.end()) - s.begin()));
      }
    }
    return sum(losses);
  };

  float first = 0.f, last = 0.f;
  for (unsigned epoch = 0; epoch < 60; ++epoch) {
    ComputationGraph cg;
    Expression loss = run(cg, nullptr);
    last = as_scalar(cg.forward(loss));
    if (epoch == 0) first = last;
    cg.backward(loss);
    trainer.update();
  }
  ComputationGraph cg;
  vector<unsigned> predicted;
  run(cg, &predicted);
  const bool right = equal(predicted.begin(), predicted.end(), cycle.begin() + 1);
  cerr << "loss " << first << " -> " << last << (right ? ", every next symbol right" : ", wrong predictions")
       << endl;
  return right && last < 0.25f * first ? 0 : 1;
}
