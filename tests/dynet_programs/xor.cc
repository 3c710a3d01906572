// The tutorial's xor, as DyNet's examples/xor.cc writes it: a two-layer perceptron fed through
// input pointers, trained with SGD. Passes when the loss falls and all four cases are right.
#include "dynet/expr.h"
#include "dynet/io.h"
#include "dynet/model.h"
#include "dynet/training.h"

#include <iostream>

using namespace std;
using namespace dynet;

int main(int argc, char** argv) {
  dynet::initialize(argc, argv);

  const unsigned ITERATIONS = 60;
  const unsigned HIDDEN_SIZE = 8;
  ParameterCollection m;
  SimpleSGDTrainer trainer(m);

  ComputationGraph cg;
  Parameter p_W = m.add_parameters({HIDDEN_SIZE, 2});
  Parameter p_b = m.add_parameters({HIDDEN_SIZE});
  Parameter p_V = m.add_parameters({1, HIDDEN_SIZE});
  Parameter p_a = m.add_parameters({1});
  Expression W = parameter(cg, p_W);
  Expression b = parameter(cg, p_b);
  Expression V = parameter(cg, p_V);
  Expression a = parameter(cg, p_a);

  vector<dynet::real> x_values(2);
  Expression x = input(cg, {2}, &x_values);
  dynet::real y_value;
  Expression y = input(cg, &y_value);

  Expression h = tanh(W * x + b);
  Expression y_pred = V * h + a;
  Expression loss_expr = squared_distance(y_pred, y);

  cg.print_graphviz();

  double first_loss = 0, last_loss = 0;
  for (unsigned iter = 0; iter < ITERATIONS; ++iter) {
    double loss = 0;
    for (unsigned mi = 0; mi < 4; ++mi) {
      bool x1 = mi % 2;
      bool x2 = (mi / 2) % 2;
      x_values[0] = x1 ? 1 : -1;
      x_values[1] = x2 ? 1 : -1;
      y_value = (x1 != x2) ? 1 : -1;
      loss += as_scalar(cg.forward(loss_expr));
      cg.backward(loss_expr);
      trainer.update();
    }
    loss /= 4;
    if (iter == 0) first_loss = loss;
    last_loss = loss;
  }
  trainer.status();
  cerr << "first loss " << first_loss << ", last loss " << last_loss << endl;

  unsigned right = 0;
  for (unsigned mi = 0; mi < 4; ++mi) {
    bool x1 = mi % 2, x2 = (mi / 2) % 2;
    x_values[0] = x1 ? 1 : -1;
    x_values[1] = x2 ? 1 : -1;
    float pred = as_scalar(cg.forward(y_pred));
    right += ((pred > 0) == (x1 != x2));
  }
  cerr << right << " of 4 right" << endl;
  return (last_loss < first_loss / 10 && right == 4) ? 0 : 1;
}
