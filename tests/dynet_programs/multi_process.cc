// DyNet's multi-process training (dynet::mp) as DyNet's xor-mp examples use it. Forked children
// learn over shared parameters: a minibatch's gradient must equal the one this process computes,
// rows of a lookup table only the children touched must be updated, asynchronous training must
// learn, and a child that throws or dies must end the pass with an error naming it.

#include <signal.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dynet/mp.h"

using namespace dynet;
using namespace dynet::mp;

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  if (!ok) {
    std::cerr << "FAILED: " << what << "\n";
    ++failures;
  }
}

struct Datum {
  float x[2];
  float y;
  unsigned word;  // a row of the table read by this datum
};

struct Stats {
  float loss = 0.f;
  unsigned count = 0;
  Stats& operator+=(const Stats& o) {
    loss += o.loss;
    count += o.count;
    return *this;
  }
  bool operator<(const Stats& o) const { return loss < o.loss; }
};

std::ostream& operator<<(std::ostream& os, const Stats& s) { return os << s.loss << " over " << s.count; }

struct XorModel {
  explicit XorModel(ParameterCollection& m, unsigned words)
      : W(m.add_parameters({8, 2})),
        b(m.add_parameters({8})),
        V(m.add_parameters({1, 8})),
        E(m.add_lookup_parameters(words, {2})) {}
  Expression loss(ComputationGraph& cg, const Datum& d) const {
    const std::vector<float> x(d.x, d.x + 2);
    Expression in = input(cg, {2}, x) + 0.1f * lookup(cg, E, d.word);
    Expression h = tanh(parameter(cg, W) * in + parameter(cg, b));
    return squared_distance(parameter(cg, V) * h, input(cg, d.y));
  }
  Parameter W, b, V;
  LookupParameter E;
};

class Learner : public ILearner<Datum, Stats> {
 public:
  explicit Learner(const XorModel& model) : model_(model) {}
  Stats LearnFromDatum(const Datum& d, bool learn) override {
    if (d.word == throwing_word) throw std::runtime_error("this datum is refused");
    if (d.word == dying_word) raise(SIGKILL);
    ComputationGraph cg;
    Expression l = model_.loss(cg, d);
    const float v = as_scalar(cg.forward(l));
    if (learn) cg.backward(l);
    return {v, 1};
  }
  void SaveModel() override { ++saves; }

  unsigned throwing_word = ~0u, dying_word = ~0u;
  unsigned saves = 0;

 private:
  const XorModel& model_;
};

std::vector<Datum> xor_data(unsigned copies) {
  std::vector<Datum> data;
  for (unsigned c = 0; c < copies; ++c)
    for (unsigned k = 0; k < 4; ++k) {
      const float a = float(k & 1), b = float(k >> 1);
      data.push_back({{a, b}, a != b ? 1.f : 0.f, unsigned(data.size())});
    }
  return data;
}

std::vector<std::vector<float>> gradients(ParameterCollection& m) {
  std::vector<std::vector<float>> g;
  for (const auto& p : m.parameters_list()) g.push_back(as_vector(p->g));
  for (const auto& t : m.lookup_parameters_list()) g.push_back(as_vector(t->all_grads));
  return g;
}

float max_difference(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b) {
  float worst = 0.f;
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < a[i].size(); ++j) worst = std::max(worst, std::fabs(a[i][j] - b[i][j]));
  return worst;
}

float dataset_loss(Learner& learner, const std::vector<Datum>& data) {
  Stats s;
  for (const Datum& d : data) s += learner.LearnFromDatum(d, false);
  return s.loss;
}

}  // namespace

int main(int argc, char** argv) {
  dynet::initialize(argc, argv, true);

  // One minibatch over three children: the same loss and gradient as learned here, datum by datum.
  {
    const std::vector<Datum> data = xor_data(6);
    ParameterCollection m;
    XorModel model(m, data.size());
    Learner learner(model);
    Stats here;
    for (const Datum& d : data) here += learner.LearnFromDatum(d, true);
    const auto expected = gradients(m);
    m.reset_gradient();
    const Stats there = run_mp_minibatch(3, &learner, data);
    check(there.count == data.size(), "every datum learned once, got " + std::to_string(there.count));
    check(std::fabs(there.loss - here.loss) <= 1e-4f * std::fabs(here.loss), "the minibatch's loss");
    const float diff = max_difference(gradients(m), expected);
    check(diff <= 1e-4f, "the children's gradients add up to this process's (off by " + std::to_string(diff) + ")");

    // Every row of the table was read by one datum only, in whichever child took it.
    const std::vector<float> before = as_vector(model.E.get_storage().all_values);
    SimpleSGDTrainer trainer(m, 0.5f);
    trainer.update();
    const std::vector<float> after = as_vector(model.E.get_storage().all_values);
    unsigned moved = 0;
    for (unsigned row = 0; row < data.size(); ++row)
      if (after[2 * row] != before[2 * row] || after[2 * row + 1] != before[2 * row + 1]) ++moved;
    check(moved == data.size(), "rows updated after the children's minibatch: " + std::to_string(moved) + " of " +
                                    std::to_string(data.size()));
    float left = 0.f;
    for (const auto& g : gradients(m))
      for (float v : g) left = std::max(left, std::fabs(v));
    check(left == 0.f, "the update zeroes the shared gradients");

    // A datum that throws in a child: the pass fails naming it, and the next pass is whole again.
    learner.throwing_word = 5;
    bool named = false;
    try {
      run_mp_minibatch(2, &learner, data);
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      named =
          what.find("training datum 5") != std::string::npos && what.find("this datum is refused") != std::string::npos;
      if (!named) std::cerr << "message: " << what << "\n";
    }
    check(named, "a throwing datum fails the pass with its index and message");
    learner.throwing_word = ~0u;
    m.reset_gradient();
    here = Stats();
    for (const Datum& d : data) here += learner.LearnFromDatum(d, true);
    const auto again = gradients(m);
    m.reset_gradient();
    const Stats whole = run_mp_minibatch(2, &learner, data);
    const float off = max_difference(gradients(m), again);
    check(whole.count == data.size() && off <= 1e-4f, "a pass after a failed one adds the whole gradient (" +
                                                          std::to_string(whole.count) + " data, off by " +
                                                          std::to_string(off) + ")");
    m.reset_gradient();

    // A child that dies: the parent says which and how, instead of waiting for it.
    learner.dying_word = 7;
    bool told = false;
    try {
      run_mp_minibatch(2, &learner, data);
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      told = what.find("killed by signal 9") != std::string::npos;
      if (!told) std::cerr << "message: " << what << "\n";
    }
    check(told, "a child killed during a pass is reported with its signal");
    learner.dying_word = ~0u;
  }

  // Children that add a large gradient at the same moments must not lose any of it.
  {
    const std::vector<Datum> data = xor_data(30);
    ParameterCollection m;
    XorModel model(m, data.size());
    Parameter big = m.add_parameters({256, 256});
    class Wide : public ILearner<Datum, Stats> {
     public:
      Wide(const XorModel& model, Parameter big) : model_(model), big_(big) {}
      Stats LearnFromDatum(const Datum& d, bool learn) override {
        ComputationGraph cg;
        Expression x = input(cg, {256}, std::vector<float>(256, d.y + 0.5f));
        Expression l = model_.loss(cg, d) + 1e-3f * squared_norm(parameter(cg, big_) * x);
        const float v = as_scalar(cg.forward(l));
        if (learn) cg.backward(l);
        return {v, 1};
      }
      void SaveModel() override {}

     private:
      const XorModel& model_;
      Parameter big_;
    } learner(model, big);
    for (const Datum& d : data) learner.LearnFromDatum(d, true);
    const auto expected = gradients(m);
    m.reset_gradient();
    run_mp_minibatch(3, &learner, data);
    const float diff = max_difference(gradients(m), expected);
    check(diff <= 1e-3f, "children adding large gradients at once lose none (off by " + std::to_string(diff) + ")");
  }

  // Asynchronous training: child 0 updates while the others learn; the parent saves on a new
  // best dev loss. And the same training in this process.
  for (unsigned children : {2u, 0u}) {
    const std::vector<Datum> data = xor_data(4);
    ParameterCollection m;
    XorModel model(m, data.size());
    Learner learner(model);
    SimpleSGDTrainer trainer(m, 0.1f);
    const float start = dataset_loss(learner, data);
    if (children)
      run_multi_process<Datum>(children, &learner, &trainer, data, data, 200, data.size(), data.size());
    else
      run_single_process<Datum>(&learner, &trainer, data, data, 200, data.size(), data.size(), 1);
    const float end = dataset_loss(learner, data);
    const std::string how = children ? "run_multi_process" : "run_single_process";
    check(end < 0.2f * start, how + " learns xor: loss " + std::to_string(start) + " -> " + std::to_string(end));
    check(learner.saves > 0, how + " saves the model in the parent on a new best dev loss");
  }

  bool refused = false;
  try {
    std::vector<Datum> none;
    ParameterCollection m;
    XorModel model(m, 1);
    Learner learner(model);
    run_multi_process<Datum>(2, &learner, nullptr, none, none, 1, 0, 1);
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  check(refused, "run_multi_process refuses a null trainer and a dev_frequency of 0");

  // Without shared parameters the children would learn alone: refused, saying what to do.
  dynet::cleanup();
  int plain_argc = 1;
  char* plain_argv[] = {argv[0], nullptr};
  char** plain = plain_argv;
  dynet::initialize(plain_argc, plain);
  {
    const std::vector<Datum> data = xor_data(1);
    ParameterCollection m;
    XorModel model(m, data.size());
    Learner learner(model);
    bool said = false;
    try {
      run_mp_minibatch(2, &learner, data);
    } catch (const std::invalid_argument& e) {
      said = std::string(e.what()).find("initialize(argc, argv, true)") != std::string::npos;
    }
    check(said, "multi-process training without shared parameters is refused");
  }

  if (failures) return 1;
  std::cout << "multi-process training: every check passed\n";
  return 0;
}
