// Every registered op, checked from its own GradCheck row: numeric against analytic gradients of
// E = sum(w * y) for a random weight tensor w (no symmetric blind spot), for every differentiable
// input and parameter; plus the kernel contracts (backward accumulates, declared `saves` honest).

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/registry.h"

using namespace dynet;

namespace {

constexpr unsigned kCasesPerOp = 6;
constexpr unsigned kElementsPerVariable = 24;

double weighted_output(ComputationGraph& cg, const Expression& y, const std::vector<float>& w) {
  const std::vector<float> v = as_vector(cg.forward(y));
  double e = 0;
  for (std::size_t k = 0; k < v.size(); ++k) e += double(w[k]) * v[k];
  return e;
}

std::vector<float> analytic_gradient(ComputationGraph& cg, const CheckCase::Variable& v) {
  if (v.kind == CheckCase::Kind::Input) return as_vector(cg.get_gradient(v.node));
  return std::vector<float>(v.grad, v.grad + v.n);
}

std::string describe(const OpDef& op, ComputationGraph& cg, const Expression& y, unsigned var, std::size_t elem) {
  std::ostringstream os;
  os << op.name << ": output dim " << y.dim() << ", args";
  const Node& n = cg.node(y.i);
  for (unsigned k = 0; k < n.nargs; ++k) os << ' ' << cg.node(n.arg(k)).dim;
  os << "; variable " << var << " element " << elem;
  return os.str();
}

/// The numeric gradient check of one random case of `op`.
void check_gradients(const OpDef& op, std::uint64_t seed) {
  ComputationGraph cg;
  CheckCase c(cg, seed);
  const Expression y = op.check.build(c);
  REQUIRE(cg.node(y.i).op == &op);

  const std::vector<float> y0 = as_vector(cg.forward(y));
  for (float v : y0) REQUIRE(std::isfinite(v));  // outputs start as NaN in debug memory
  REQUIRE(as_vector(cg.forward(y)) == y0);       // recomputation is exact (random ops too)

  std::mt19937_64 rng(seed ^ 0x5eed);
  std::uniform_real_distribution<float> unit(-1.f, 1.f);
  std::vector<float> w(y0.size());
  for (float& x : w) x = unit(rng);

  for (const auto& v : c.variables())
    if (v.kind != CheckCase::Kind::Input) std::fill(v.grad, v.grad + v.n, 0.f);
  cg.backward(y, w, true);
  std::vector<std::vector<float>> analytic;
  for (const auto& v : c.variables()) analytic.push_back(analytic_gradient(cg, v));

  const double e0 = weighted_output(cg, y, w);
  for (unsigned vi = 0; vi < c.variables().size(); ++vi) {
    const auto& v = c.variables()[vi];
    unsigned checked = 0, kinks = 0;
    for (std::size_t k = 0; k < v.n; k += 1 + v.n / kElementsPerVariable) {
      const float x0 = v.values[k];
      const float h = 1e-2f * std::max(1.f, std::fabs(x0));
      v.values[k] = x0 + h;
      const double ep = weighted_output(cg, y, w);
      v.values[k] = x0 - h;
      const double em = weighted_output(cg, y, w);
      v.values[k] = x0;
      // A kink between x0 - h and x0 + h makes the two one-sided slopes disagree: skip the point.
      const double right = (ep - e0) / h, left = (e0 - em) / h;
      if (std::fabs(right - left) > 0.05 * (std::fabs(right) + std::fabs(left)) + 0.05) {
        ++kinks;
        continue;
      }
      ++checked;
      const double numeric = (ep - em) / (2.0 * h);
      const double a = analytic[vi][k];
      INFO(describe(op, cg, y, vi, k) << ": numeric " << numeric << ", analytic " << a);
      CHECK(std::fabs(numeric - a) <= 2e-3 + op.check.tolerance * std::max(std::fabs(numeric), std::fabs(a)));
    }
    INFO(op.name << ": too many sampled points sit on kinks (" << kinks << " of " << kinks + checked << ")");
    CHECK(kinks <= checked + 1);
  }
  cg.forward(y);
}

/// The kernel contracts: backward adds into the argument gradient (or, asked to overwrite by a
/// row that allows it, writes it over garbage), and reads only what `saves` declares (the others
/// are replaced by NaN and must not change the result).
void check_contracts(const OpDef& op, std::uint64_t seed) {
  if (!op.backward) return;
  ComputationGraph cg;
  CheckCase c(cg, seed);
  const Expression y = op.check.build(c);
  cg.forward(y);
  const Node& n = cg.node(y.i);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> unit(-1.f, 1.f);
  auto random_vector = [&](std::size_t size) {
    std::vector<float> v(size);
    for (float& x : v) x = unit(rng);
    return v;
  };
  std::vector<float> dy = random_vector(n.dim.size());
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<std::vector<float>> x_copies;
  std::vector<Tensor> xs;
  for (unsigned k = 0; k < n.nargs; ++k) {
    const Node& a = cg.node(n.arg(k));
    x_copies.emplace_back(a.value, a.value + a.dim.size());
  }
  for (unsigned k = 0; k < n.nargs; ++k) xs.emplace_back(cg.node(n.arg(k)).dim, x_copies[k].data(), cg.device());
  std::vector<float> y_copy(n.value, n.value + n.dim.size());

  auto run = [&](unsigned k, std::vector<float> seed_grad, bool overwrite = false) {
    OpCall call;
    call.xs = xs.data();
    call.nargs = n.nargs;
    call.y = Tensor(n.dim, y_copy.data(), cg.device());
    call.dy = Tensor(n.dim, dy.data(), cg.device());
    call.dx = Tensor(xs[k].d, seed_grad.data(), cg.device());
    call.data = &n.data;
    call.scratch = &cg.memory().scratch;
    call.overwrite = overwrite;
    const auto mark = cg.memory().scratch.mark();
    op.backward(call, k);
    cg.memory().scratch.revert(mark);
    return seed_grad;
  };
  for (unsigned k = 0; k < n.nargs; ++k) {
    const std::vector<float> zero(xs[k].d.size(), 0.f);
    const std::vector<float> g = run(k, zero);
    const std::vector<float> s = random_vector(g.size());
    const std::vector<float> gs = run(k, s);
    for (std::size_t e = 0; e < g.size(); ++e) {
      INFO(op.name << ": backward for argument " << k << " must add into the gradient (element " << e << ")");
      REQUIRE(gs[e] == Approx(s[e] + g[e]).margin(1e-5));
    }
    unsigned begin = 0, end = xs[k].d.batch_size();
    if (op.backward_overwrites && (!op.argument_span || op.argument_span(n.data, xs[k].d, begin, end))) {
      // Within the span (all of it, for ops without one) the gradient is written over garbage;
      // outside it, nothing is touched.
      INFO(op.name << ": backward for argument " << k << " must overwrite the gradient in [" << begin << ", " << end
                   << ") of every batch element, and only there, when asked to");
      const std::vector<float> o = run(k, std::vector<float>(g.size(), nan), true);
      for (std::size_t e = 0; e < g.size(); ++e) {
        const std::size_t within = e % xs[k].d.batch_size();
        if (within >= begin && within < end)
          REQUIRE(o[e] == g[e]);
        else
          REQUIRE(std::isnan(o[e]));
      }
    }
    if (!(op.saves & kSavesOutput)) {
      std::fill(y_copy.begin(), y_copy.end(), nan);
      INFO(op.name << " declares that backward does not read its output, but it does");
      REQUIRE(run(k, zero) == g);
      y_copy.assign(n.value, n.value + n.dim.size());
    }
    if (!(op.saves & kSavesInputs)) {
      for (auto& x : x_copies) std::fill(x.begin(), x.end(), nan);
      INFO(op.name << " declares that backward does not read its inputs, but it does");
      REQUIRE(run(k, zero) == g);
      for (unsigned j = 0; j < n.nargs; ++j) {
        const Node& a = cg.node(n.arg(j));
        x_copies[j].assign(a.value, a.value + a.dim.size());
      }
    }
  }
}

}  // namespace

TEST_CASE("every registered op passes the numeric gradient check", "[ops][gradcheck]") {
  REQUIRE(registered_ops().size() > 50);
  for (const OpDef* op : registered_ops()) {
    if (!op->check.build) continue;
    DYNAMIC_SECTION(op->name) {
      for (unsigned k = 0; k < kCasesPerOp; ++k) check_gradients(*op, 1000 * op->id + k);
    }
  }
}

TEST_CASE("every registered op keeps the kernel contracts", "[ops][contracts]") {
  for (const OpDef* op : registered_ops()) {
    if (!op->check.build) continue;
    DYNAMIC_SECTION(op->name) {
      for (unsigned k = 0; k < kCasesPerOp; ++k) check_contracts(*op, 77 * op->id + k);
    }
  }
}

TEST_CASE("an op without a gradient check cannot be registered", "[ops][registry]") {
  for (const OpDef* op : registered_ops()) {
    INFO(op->name);
    CHECK((op->check.build || (op->check.skip_reason && *op->check.skip_reason)));
  }
  const std::size_t before = registered_ops().size();
  OpDef unchecked = OpRow("unchecked_op")
                        .arity(1)
                        .infer([](const DimArgs& xs, const void*) { return xs[0]; })
                        .forward([](const OpCall&) {})
                        .saves(kSavesNothing);
  REQUIRE_THROWS_WITH(register_ops({&unchecked}), Catch::Contains("unchecked_op") && Catch::Contains("gradient check"));
  CHECK(registered_ops().size() == before);
  CHECK(find_op("unchecked_op") == nullptr);
}

TEST_CASE("an op without arguments cannot take its first argument's shape", "[ops][registry]") {
  const std::size_t before = registered_ops().size();
  OpDef shapeless = OpRow("shapeless_op")
                        .arity(0)
                        .infer(first_argument_shape)
                        .forward([](const OpCall&) {})
                        .saves(kSavesNothing)
                        .no_gradcheck("test row");
  REQUIRE_THROWS_WITH(register_ops({&shapeless}), Catch::Contains("shapeless_op") && Catch::Contains("first argument"));
  CHECK(registered_ops().size() == before);
}

TEST_CASE("an op that is not registered cannot be used", "[ops][registry]") {
  OpDef stray = OpRow("stray_op")
                    .arity(1)
                    .infer([](const DimArgs& xs, const void*) { return xs[0]; })
                    .forward([](const OpCall&) {})
                    .saves(kSavesNothing)
                    .no_gradcheck("test row");
  ComputationGraph cg;
  Expression x = input(cg, 1.f);
  REQUIRE_THROWS_WITH(cg.append(stray, {x}), Catch::Contains("stray_op") && Catch::Contains("not registered"));
  CHECK(cg.size() == 1);
}
