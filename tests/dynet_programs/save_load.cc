// Saving and loading as DyNet users do (TextFileSaver / TextFileLoader), then checking the model
// the way DyNet's own tests do: parameter storages compared element by element with TensorTools,
// a builder's gradients checked with check_grad. Passes when the reloaded model equals the saved
// one, gives the same loss, and its gradients pass check_grad.
#include "dynet/dynet.h"
#include "dynet/expr.h"
#include "dynet/grad-check.h"
#include "dynet/io.h"
#include "dynet/lstm.h"
#include "dynet/model.h"
#include "dynet/tensor.h"
#include "dynet/training.h"

#include <cstdio>
#include <iostream>
#include <vector>

using namespace std;
using namespace dynet;

struct TinyModel {
  LookupParameter E;
  Parameter W, b;
  LSTMBuilder lstm;

  explicit TinyModel(ParameterCollection& pc)
      : E(pc.add_lookup_parameters(5, {3}, "E")),
        W(pc.add_parameters({2, 4}, "W")),
        b(pc.add_parameters({2}, "b")),
        lstm(1, 3, 4, pc) {}

  Expression loss(ComputationGraph& cg) {
    lstm.new_graph(cg);
    lstm.start_new_sequence();
    Expression h;
    for (unsigned w : {1u, 3u, 2u}) h = lstm.add_input(lookup(cg, E, w));
    return pickneglogsoftmax(affine_transform({parameter(cg, b), parameter(cg, W), h}), 1);
  }
};

bool same_values(ParameterCollection& a, ParameterCollection& b) {
  auto pa = a.get_parameter_storages(), pb = b.get_parameter_storages();
  auto la = a.get_lookup_parameter_storages(), lb = b.get_lookup_parameter_storages();
  if (pa.size() != pb.size() || la.size() != lb.size() || a.size() != b.size()) return false;
  for (size_t i = 0; i < pa.size(); ++i)
    for (unsigned k = 0; k < pa[i]->dim.size(); ++k)
      if (TensorTools::access_element(pa[i]->values, k) != TensorTools::access_element(pb[i]->values, k)) return false;
  for (size_t i = 0; i < la.size(); ++i) {
    if (la[i]->all_dim != lb[i]->all_dim) return false;
    if (as_vector(la[i]->all_values) != as_vector(lb[i]->all_values)) return false;
  }
  return true;
}

int main(int argc, char** argv) {
  dynet::initialize(argc, argv);
  const string path = "dynet_programs_save_load.model";
  ParameterCollection pc1;
  TinyModel m1(pc1);
  SimpleSGDTrainer trainer(pc1, 0.5);
  for (unsigned i = 0; i < 5; ++i) {
    ComputationGraph cg;
    Expression l = m1.loss(cg);
    cg.forward(l);
    cg.backward(l);
    trainer.update();
  }
  {
    TextFileSaver saver(path);
    saver.save(pc1);
  }
  ParameterCollection pc2;
  TinyModel m2(pc2);
  bool equal_before = same_values(pc1, pc2);
  {
    TextFileLoader loader(path);
    loader.populate(pc2);
  }
  std::remove(path.c_str());
  bool equal_after = same_values(pc1, pc2);

  float l1, l2;
  {
    ComputationGraph cg;
    l1 = as_scalar(cg.forward(m1.loss(cg)));
  }
  bool grads_ok;
  {
    ComputationGraph cg;
    Expression l = m2.loss(cg);
    l2 = as_scalar(cg.forward(l));
    grads_ok = check_grad(pc2, l, 1);
  }
  cerr << "equal before loading: " << equal_before << ", after: " << equal_after << "; loss " << l1 << " vs " << l2
       << "; check_grad " << grads_ok << endl;
  return !equal_before && equal_after && l1 == l2 && grads_ok ? 0 : 1;
}
