#include "dynet_core/grad_check.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numeric>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/param_collection.h"

namespace dynet {

namespace {

constexpr float kStep = 5e-3f;
constexpr float kTolerance = 0.01f;

struct Checker {
  ComputationGraph& cg;
  Expression& expr;
  int verbosity;
  bool failed = false;

  /// Checks `values` against the analytic gradient `grads` (device memory, moved one value at a time).
  void check(const Tensor& values, const Tensor& grads) {
    const std::vector<float> old = as_vector(values), analytic_all = as_vector(grads);
    auto set = [&](std::size_t i, float x) { set_from_host(Tensor(Dim({1}), values.v + i, values.device), &x); };
    for (std::size_t i = 0; i < old.size(); ++i) {
      set(i, old[i] - kStep);
      const float left = as_scalar(cg.forward(expr));
      set(i, old[i] + kStep);
      const float right = as_scalar(cg.forward(expr));
      set(i, old[i]);
      const float numeric = (right - left) / (2 * kStep);
      const float analytic = analytic_all[i];
      float err = std::fabs(numeric - analytic);
      const float scale = std::max(std::fabs(numeric), std::fabs(analytic));
      if (err > kTolerance && scale > 0.f) err /= scale;
      const bool bad = err > kTolerance || std::isnan(err);
      failed = failed || bad;
      if (bad && verbosity > 0) std::cerr << "***[" << err << "] ";
      if (verbosity > 1 || (bad && verbosity > 0)) std::cerr << analytic << ' ' << numeric << '\n';
    }
  }
};

}  // namespace

bool check_grad(ParameterCollection& m, Expression& expr, int verbosity) {
  ComputationGraph& cg = graph_of(expr, "check_grad");
  m.reset_gradient();
  cg.forward(expr);
  cg.backward(expr);

  Checker checker{cg, expr, verbosity};
  for (const auto& p : m.parameters_list()) {
    if (verbosity > 1) std::cerr << "\nPARAMETERS " << p->name << '\n';
    checker.check(p->values, p->g);
  }
  for (const auto& t : m.lookup_parameters_list()) {
    if (verbosity > 1) std::cerr << "\nLOOKUP PARAMETERS " << t->name << '\n';
    std::vector<unsigned> rows = t->non_zero_grads.rows();
    if (t->all_updated) {
      rows.resize(t->n);
      std::iota(rows.begin(), rows.end(), 0u);
    }
    for (unsigned r : rows) {
      if (verbosity > 1) std::cerr << "OBJECT=" << r << '\n';
      checker.check(t->values[r], t->grads[r]);
    }
  }
  if (checker.failed && verbosity > 1) std::cerr << "\n*** GRADIENT CHECK FAILED ***\n";
  if (!checker.failed && verbosity > 0) std::cerr << "\nGRADIENT CHECK PASSED\n";
  return !checker.failed;
}

}  // namespace dynet
