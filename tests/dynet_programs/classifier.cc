// A multi-class classifier as DyNet users write one with reusable graphs: the inputs and labels
// are read through pointers at every forward (input(..., &x), hinge_dim(..., &labels)), the
// predictions are TensorTools::argmax of the scores, and the placement arguments name
// dynet::default_device. Passes when every training point gets its class and samples drawn from
// the softmax mostly agree with it.
#include "dynet/expr.h"
#include "dynet/model.h"
#include "dynet/tensor.h"
#include "dynet/training.h"
#include "dynet/weight-decay.h"

#include <iostream>
#include <vector>

using namespace std;
using namespace dynet;

int main(int argc, char** argv) {
  dynet::initialize(argc, argv);
  // Six points in the plane, two per class, around (1, 0), (0, 1) and (-1, -1).
  const vector<vector<float>> points{{1.f, 0.2f},   {0.9f, -0.2f}, {0.1f, 1.f},
                                     {-0.2f, 0.8f}, {-1.f, -0.9f}, {-0.8f, -1.1f}};
  const vector<unsigned> classes{0, 0, 1, 1, 2, 2};
  const unsigned n = points.size();

  ParameterCollection model;
  Parameter p_W = model.add_parameters({3, 2}, ParameterInitUniform(0.1f), "W", dynet::default_device);
  Parameter p_b = model.add_parameters({3}, ParameterInitConst(0.f), "b", dynet::default_device);
  SimpleSGDTrainer trainer(model, 0.1);
  L2WeightDecay decay(1e-4f);

  // One graph for all epochs: each epoch shows the points in another order through the pointers.
  vector<float> x_values(2 * n);
  vector<vector<unsigned>> labels(1, vector<unsigned>(n));
  ComputationGraph cg;
  Expression X = input(cg, Dim({2, n}), &x_values, dynet::default_device);
  Expression scores = affine_transform({parameter(cg, p_b), parameter(cg, p_W), X});
  Expression loss = sum_elems(hinge_dim(scores, &labels, 0, 1.f));
  for (unsigned epoch = 0; epoch < 60; ++epoch) {
    for (unsigned k = 0; k < n; ++k) {
      const unsigned i = (k + epoch) % n;
      x_values[2 * k] = points[i][0];
      x_values[2 * k + 1] = points[i][1];
      labels[0][k] = classes[i];
    }
    cg.forward(loss);
    cg.backward(loss);
    trainer.update();
    decay.update_weight_decay();
  }

  for (unsigned k = 0; k < n; ++k) {
    x_values[2 * k] = points[k][0];
    x_values[2 * k + 1] = points[k][1];
  }
  cg.forward(scores);
  const IndexTensor predicted = TensorTools::argmax(scores.value());
  unsigned wrong = 0;
  for (unsigned k = 0; k < n; ++k)
    if (predicted.v[k] != static_cast<ptrdiff_t>(classes[k])) ++wrong;

  Expression log_probs = log_softmax(scores * 10.f);
  cg.forward(log_probs);
  unsigned agree = 0, draws = 0;
  for (unsigned t = 0; t < 100; ++t) {
    const IndexTensor sampled = TensorTools::categorical_sample_log_prob(log_probs.value());
    for (unsigned k = 0; k < n; ++k, ++draws)
      if (sampled.v[k] == predicted.v[k]) ++agree;
  }
  cout << "wrong " << wrong << ", samples agreeing " << agree << "/" << draws << ", decay factor "
       << decay.current_weight_decay() << endl;
  return wrong == 0 && agree * 10 > draws * 7 ? 0 : 1;
}
