// The CPU's vectorized forms of tanh, logistic (also in the LSTM's fused gates), exp and log against
// the functions in double precision over their whole useful range, in relative terms: a value of
// logistic near 0 is as much a result as one near 1 (log(logistic(x)) reads it).

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"

using namespace dynet;

TEST_CASE("tanh, logistic, exp and log on the CPU hold their relative error to a few units in the last place",
          "[ops]") {
  struct Case {
    std::string name;
    std::function<Expression(const Expression&)> op;
    std::function<double(double)> exact;
    float lo, hi;
  };
  const std::vector<Case> cases = {
      {"tanh", [](const Expression& x) { return tanh(x); }, [](double x) { return std::tanh(x); }, -9.f, 9.f},
      {"logistic", [](const Expression& x) { return logistic(x); }, [](double x) { return 1.0 / (1.0 + std::exp(-x)); },
       -80.f, 30.f},
      {"the LSTM gates' logistic",
       [](const Expression& x) {
         const unsigned n = x.dim()[0];
         return pick_range(vanilla_lstm_activations(concatenate({x, x, x, x}), 0.f), n, 2 * n);
       },
       [](double x) { return 1.0 / (1.0 + std::exp(-x)); }, -80.f, 30.f},
      {"exp", [](const Expression& x) { return exp(x); }, [](double x) { return std::exp(x); }, -80.f, 80.f},
      {"log", [](const Expression& x) { return log(x); }, [](double x) { return std::log(x); }, 1e-30f, 1e30f},
  };
  constexpr unsigned n = 4001;
  for (const Case& c : cases) {
    INFO(c.name);
    std::vector<float> xs(n);
    for (unsigned i = 0; i < n; ++i)
      xs[i] = c.name == "log" ? std::exp(std::log(c.lo) + (std::log(c.hi) - std::log(c.lo)) * float(i) / (n - 1))
                              : c.lo + (c.hi - c.lo) * float(i) / (n - 1);
    ComputationGraph cg;
    const std::vector<float> ys = as_vector(cg.forward(c.op(input(cg, Dim({n}), xs))));
    double worst = 0;
    float at = 0;
    for (unsigned i = 0; i < n; ++i) {
      const double want = c.exact(xs[i]);
      if (want == 0.0) continue;
      const double rel = std::fabs(ys[i] - want) / std::fabs(want);
      if (rel > worst) worst = rel, at = xs[i];
    }
    INFO("worst relative error " << worst << " at x = " << at);
    CHECK(worst < 1e-6);
  }
}
