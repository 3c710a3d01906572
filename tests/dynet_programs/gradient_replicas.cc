// Data parallelism by hand over DyNet's model internals, as DyNet code outside its trainers writes
// it: two replicas of a word classifier each run backward on half of every minibatch, and the
// master model gathers their gradients by walking get_storage().params and lookup_params:
// accumulate_grad for each parameter has_grad() says was reached, accumulate_grad(row, ...) for
// the non_zero_grads rows of the first replica's table, accumulate_grads for the other's. The
// replicas then copy the master's values back. A reference model trained on whole minibatches
// in one graph must end with the same values, and the classifier must learn. Exits 0 only when
// both hold.
#include "dynet/dynet.h"
#include "dynet/expr.h"
#include "dynet/model.h"
#include "dynet/param-init.h"
#include "dynet/training.h"

#include <cmath>
#include <iostream>
#include <numeric>
#include <vector>

using namespace std;
using namespace dynet;

namespace {

const unsigned kWords = 12, kEmbed = 4, kClasses = 3;

struct Classifier {
  LookupParameter E;
  Parameter W, b, unused;
  explicit Classifier(ParameterCollection& m)
      : E(m.add_lookup_parameters(kWords, {kEmbed}, ParameterInitUniform(0.5f))),
        W(m.add_parameters({kClasses, kEmbed})),
        b(m.add_parameters({kClasses})),
        unused(m.add_parameters({2})) {}
  Expression loss(ComputationGraph& cg, const vector<unsigned>& words) {
    vector<unsigned> labels;
    for (unsigned w : words) labels.push_back(w % kClasses);
    Expression h = affine_transform({parameter(cg, b), parameter(cg, W), lookup(cg, E, words)});
    return sum_batches(pickneglogsoftmax(h, labels));
  }
};

void copy_values(ParameterCollection& to, ParameterCollection& from) {
  for (size_t i = 0; i < to.get_storage().params.size(); ++i)
    to.get_storage().params[i]->copy(*from.get_storage().params[i]);
  for (size_t i = 0; i < to.get_storage().lookup_params.size(); ++i)
    to.get_storage().lookup_params[i]->copy(*from.get_storage().lookup_params[i]);
}

bool gather(ParameterCollection& master, ParameterCollection& replica, bool by_rows) {
  ParameterCollectionStorage& to = master.get_storage();
  ParameterCollectionStorage& from = replica.get_storage();
  bool ok = true;
  for (size_t i = 0; i < from.params.size(); ++i) {
    ParameterStorage& p = *from.params[i];
    const bool reached = p.name != from.params.back()->name;  // all but `unused`
    if (p.has_grad() != reached || p.nonzero_grad != reached) {
      cerr << p.name << ": has_grad " << p.has_grad() << ", expected " << reached << endl;
      ok = false;
    }
    if (p.has_grad()) to.params[i]->accumulate_grad(p.g);
  }
  for (size_t i = 0; i < from.lookup_params.size(); ++i) {
    LookupParameterStorage& t = *from.lookup_params[i];
    if (!t.has_grad() || t.non_zero_grads.empty()) {
      cerr << t.name << " has no gradient after backward" << endl;
      ok = false;
    }
    if (by_rows) {
      for (unsigned row : t.non_zero_grads) to.lookup_params[i]->accumulate_grad(row, t.grads[row]);
    } else {
      vector<unsigned> all_rows(kWords);
      iota(all_rows.begin(), all_rows.end(), 0u);
      to.lookup_params[i]->accumulate_grads(kWords, all_rows.data(), nullptr, t.all_grads.v);
    }
  }
  replica.reset_gradient();
  for (auto& p : from.all_params)
    if (p->has_grad()) ok = false;
  return ok;
}

float distance(ParameterCollection& a, ParameterCollection& b) {
  float worst = 0;
  for (size_t i = 0; i < a.get_storage().params.size(); ++i) {
    vector<float> x = as_vector(a.get_storage().params[i]->values), y = as_vector(b.get_storage().params[i]->values);
    for (size_t k = 0; k < x.size(); ++k) worst = max(worst, fabs(x[k] - y[k]));
  }
  for (size_t i = 0; i < a.get_storage().lookup_params.size(); ++i) {
    vector<float> x = as_vector(a.get_storage().lookup_params[i]->all_values),
                  y = as_vector(b.get_storage().lookup_params[i]->all_values);
    for (size_t k = 0; k < x.size(); ++k) worst = max(worst, fabs(x[k] - y[k]));
  }
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  dynet::initialize(argc, argv);
  ParameterCollection master, reference, replica_model[2];
  Classifier net(master), ref(reference), replica[2] = {Classifier(replica_model[0]), Classifier(replica_model[1])};
  copy_values(reference, master);
  SimpleSGDTrainer master_sgd(master, 0.2f), reference_sgd(reference, 0.2f);

  bool ok = true;
  double first = 0, last = 0;
  for (unsigned epoch = 0; epoch < 30; ++epoch) {
    double total = 0;
    for (unsigned start = 0; start < kWords; start += 4) {
      const vector<unsigned> batch{start, start + 1, start + 2, start + 3};
      for (unsigned r = 0; r < 2; ++r) {
        copy_values(replica_model[r], master);
        ComputationGraph cg;
        Expression loss = replica[r].loss(cg, {batch[2 * r], batch[2 * r + 1]});
        total += as_scalar(cg.forward(loss));
        cg.backward(loss);
        ok &= gather(master, replica_model[r], r == 0);
      }
      master_sgd.update();
      ComputationGraph cg;
      cg.backward(ref.loss(cg, batch));
      reference_sgd.update();
    }
    if (epoch == 0) first = total;
    last = total;
  }
  const float gap = distance(master, reference);
  cerr << "loss " << first << " -> " << last << ", largest difference from the reference " << gap << endl;
  return ok && gap < 1e-4f && last < first / 4 ? 0 : 1;
}
