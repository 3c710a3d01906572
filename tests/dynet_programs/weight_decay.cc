// DyNet's weight decay and hierarchical-softmax clusters, used as DyNet users use them: a
// collection's lazy L2WeightDecay factor (get_weight_decay, current_weight_decay, rescaling below
// 1/4 and by hand), project_weights, save_dynet_model / load_dynet_model, a Cluster tree built by hand, and a
// HierarchicalSoftmaxBuilder given new parameters with initialize(model). Every value is checked
// against what DyNet's rules give by hand (the global weight_decay_lambda too); exits 0 only when all agree.
#include "dynet/dict.h"
#include "dynet/dynet.h"
#include "dynet/expr.h"
#include "dynet/hsm-builder.h"
#include "dynet/model.h"
#include "dynet/param-init.h"
#include "dynet/training.h"
#include "dynet/weight-decay.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

using namespace std;
using namespace dynet;

namespace {

bool ok = true;

void expect(const string& what, float got, float want) {
  if (fabs(got - want) > 1e-5f * max(1.f, fabs(want))) {
    cerr << what << ": got " << got << ", expected " << want << endl;
    ok = false;
  }
}

float seen(Parameter& p) {
  ComputationGraph cg;
  return as_scalar(cg.forward(parameter(cg, p)));
}

}  // namespace

int main(int argc, char** argv) {
  dynet::initialize(argc, argv);

  // Weight decay: lambda 0.5, SGD at 0.25 on a loss whose gradient is 1.
  ParameterCollection model;
  model.set_weight_decay_lambda(0.5f);
  Parameter p_w = model.add_parameters({1}, ParameterInitConst(2.f));
  SimpleSGDTrainer trainer(model, 0.25f);
  const float stored[] = {1.75f, 1.25f, 0.03125f}, factor[] = {0.5f, 0.25f, 1.f}, read[] = {0.875f, 0.3125f, 0.03125f};
  for (unsigned t = 0; t < 3; ++t) {
    ComputationGraph cg;
    Expression loss = sum_elems(parameter(cg, p_w));
    cg.forward(loss);
    cg.backward(loss);
    trainer.update();
    // v -= 0.25 / s; s *= 0.5; the third update takes s to 1/8, which is folded into v.
    expect("stored value after update " + to_string(t), as_vector(*p_w.values())[0], stored[t]);
    expect("factor after update " + to_string(t), p_w.current_weight_decay(), factor[t]);
    expect("value read after update " + to_string(t), seen(p_w), read[t]);
  }
  L2WeightDecay& wd = model.get_weight_decay();
  wd.update_weight_decay(2);
  expect("factor after two more steps", wd.current_weight_decay(), 0.25f);
  if (wd.parameters_need_rescaled()) ok = false;
  wd.update_weight_decay();
  if (!wd.parameters_need_rescaled()) ok = false;
  expect("value read with the factor 1/8", seen(p_w), 0.03125f * 0.125f);
  trainer.rescale_and_reset_weight_decay();
  expect("factor after rescaling", model.get_weight_decay().current_weight_decay(), 1.f);
  expect("stored value after rescaling", as_vector(*p_w.values())[0], 0.03125f * 0.125f);
  expect("value read after rescaling", seen(p_w), 0.03125f * 0.125f);
  model.project_weights();
  save_dynet_model("weight_decay-model.txt", &model);
  ParameterCollection reloaded;
  Parameter p_reloaded = reloaded.add_parameters({1});
  load_dynet_model("weight_decay-model.txt", &reloaded);
  expect("stored value saved and loaded", as_vector(*p_reloaded.values())[0], 0.03125f * 0.125f);
  // DyNet's global: the lambda collections made from now on start with.
  weight_decay_lambda = 0.75f;
  ParameterCollection later;
  Parameter p_later = later.add_parameters({1}, ParameterInitConst(1.f));
  SimpleSGDTrainer later_trainer(later);
  later_trainer.update();
  expect("factor of a collection made after setting weight_decay_lambda", p_later.current_weight_decay(), 0.25f);

  // A cluster tree by hand: the root splits into clusters 7 (words 3, 4, 5) and 9 (word 6).
  ParameterCollection tree_model;
  Cluster root;
  Cluster* left = root.add_child(7);
  Cluster* right = root.add_child(9);
  for (unsigned w : {3u, 4u, 5u}) left->add_word(w);
  right->add_word(6);
  root.initialize(2, tree_model);
  if (tree_model.parameters_list().size() != 4) {  // W, b of the root and of cluster 7
    cerr << "the tree has " << tree_model.parameters_list().size() << " parameters, expected 4" << endl;
    ok = false;
  }
  for (auto& p : tree_model.parameters_list()) TensorTools::zero(p->values);
  {
    ComputationGraph cg;
    root.new_graph(cg);
    Expression h = input(cg, {2}, {0.3f, -0.7f});
    const Cluster* to_left = root.get_child(root.get_index(7));
    // Zero weights: p(cluster 7) = 1/2, p(word 4 | cluster 7) = 1/3; cluster 9 has one word.
    Expression word4 =
        root.neg_log_softmax(h, root.get_index(7), cg) + to_left->neg_log_softmax(h, to_left->get_index(4), cg);
    Expression word6 =
        root.neg_log_softmax(h, root.get_index(9), cg) + right->neg_log_softmax(h, right->get_index(6), cg);
    expect("-log p(word 4)", as_scalar(cg.forward(word4)), log(6.f));
    expect("-log p(word 6)", as_scalar(cg.forward(word6)), log(2.f));
    expect("sampled word of cluster 9", right->get_word(right->sample(h, cg)), 6.f);
    if (to_left->toString() != "7" || to_left->get_path() != vector<unsigned>{7} || to_left->get_word(2) != 5 ||
        root.num_children() != 2) {
      cerr << "the cluster tree does not read back as built" << endl;
      ok = false;
    }
  }

  // A builder's clusters given new parameters: with them zeroed, p(a) = 1/2 * 1/2.
  const string cluster_file = "weight_decay-clusters.txt";
  {
    ofstream out(cluster_file);
    out << "0\ta\t5\n0\tb\t3\n1\tc\t2\n";
  }
  Dict d;
  ParameterCollection hsm_model, other;
  HierarchicalSoftmaxBuilder hsm(2, cluster_file, d, hsm_model);
  hsm.initialize(other);
  for (auto& p : other.parameters_list()) TensorTools::zero(p->values);
  {
    ComputationGraph cg;
    hsm.new_graph(cg);
    Expression h = input(cg, {2}, {1.f, 2.f});
    expect("-log p(a) with the new parameters", as_scalar(cg.forward(hsm.neg_log_softmax(h, d.convert("a")))),
           log(4.f));
  }
  cout << (ok ? "all values as DyNet gives them" : "values differ from DyNet's") << endl;
  return ok ? 0 : 1;
}
