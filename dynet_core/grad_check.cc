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
    for (std::size_t i = 0; i < old.size(); ++i) {
      const Tensor value(Dim({1}), values.v + i, values.device);
      const float analytic = analytic_all[i];
      float numeric = central_difference(value, old[i], kStep);
      float err = error(numeric, analytic);
      if (err > kTolerance) {
        // A central difference is off by O(step^2) where the loss curves sharply (a layer norm
        // over rows of small spread): Richardson's estimate from the half step removes that term,
        // so a right gradient agrees with it while a wrong one still disagrees.
        numeric = (4 * central_difference(value, old[i], kStep / 2) - numeric) / 3;
        err = error(numeric, analytic);
      }
      const bool bad = err > kTolerance || std::isnan(err);
      failed = failed || bad;
      if (bad && verbosity > 0) std::cerr << "***[" << err << "] ";
      if (verbosity > 1 || (bad && verbosity > 0)) std::cerr << analytic << ' ' << numeric << '\n';
    }
  }

  float central_difference(const Tensor& value, float old, float step) {
    auto loss_at = [&](float x) {
      set_from_host(value, &x);
      return as_scalar(cg.forward(expr));
    };
    const float left = loss_at(old - step), right = loss_at(old + step);
    set_from_host(value, &old);
    return (right - left) / (2 * step);
  }

  /// DyNet's measure: the absolute difference, made relative to the larger magnitude when over the
  /// tolerance.
  static float error(float numeric, float analytic) {
    float err = std::fabs(numeric - analytic);
    const float scale = std::max(std::fabs(numeric), std::fabs(analytic));
    if (err > kTolerance && scale > 0.f) err /= scale;
    return err;
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
