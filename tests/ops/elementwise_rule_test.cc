// The ElementwiseRule field: declared by exactly the rows whose kernel is a pure elementwise map
// (found by probing the kernels, not by name, so a new elementwise row that forgets the field
// fails here), and equal to the row's own kernels wherever it is declared.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/registry.h"

using namespace dynet;

namespace {

using Values = std::vector<std::vector<float>>;

/// One instance of a row, from its own gradient-check builder: the op data to run it with and
/// its argument count.
struct Instance {
  ComputationGraph cg;
  const void* data = nullptr;
  unsigned nargs = 0;

  Instance(const OpDef& op, std::uint64_t seed) {
    CheckCase c(cg, seed);
    const Node& n = cg.node(op.check.build(c).i);
    data = n.data;
    nargs = n.nargs;
  }

  /// Whether infer_dim takes nargs arguments of shape y and gives y.
  bool takes(const OpDef& op, const Dim& y) {
    std::vector<const Dim*> dims(nargs, &y);
    try {
      return op.infer_dim(DimArgs{dims.data(), nargs}, data) == y;
    } catch (const std::invalid_argument&) {
      return false;
    }
  }

  OpCall call(const Dim& y, Values& xs, std::vector<Tensor>& tensors, float* out) {
    tensors.clear();
    for (auto& x : xs) tensors.emplace_back(y, x.data(), cg.device());
    OpCall c;
    c.xs = tensors.data();
    c.nargs = nargs;
    c.y = Tensor(y, out, cg.device());
    c.data = &data;
    c.scratch = &cg.memory().scratch;
    return c;
  }

  std::vector<float> forward(const OpDef& op, const Dim& y, Values xs) {
    std::vector<Tensor> tensors;
    std::vector<float> out(y.size());
    op.forward(call(y, xs, tensors, out.data()));
    return out;
  }
};

Values random_arguments(unsigned nargs, std::size_t n, std::mt19937& rng) {
  // Inside every restricted domain the rows have (logs, roots, inverse sines, ...).
  std::uniform_real_distribution<float> unit(0.2f, 0.9f);
  Values xs(nargs, std::vector<float>(n));
  for (auto& x : xs)
    for (float& v : x) v = unit(rng);
  return xs;
}

/// Equal up to the last bits, NaN included: vectorized kernels may round an element differently
/// depending on where it falls in a packet, which depends on the buffer's alignment.
bool close(float a, float b) {
  return a == b || (std::isnan(a) && std::isnan(b)) ||
         std::fabs(a - b) <= 1e-6f + 1e-5f * std::max(std::fabs(a), std::fabs(b));
}

/// Shapes a pure elementwise row takes whatever they are; a row whose output shape comes from its
/// op data (reshape) or from a reduction refuses some.
const Dim kProbeShapes[] = {Dim({3, 4}, 2), Dim({7}), Dim({2, 3, 2})};

/// Whether two instances drawn alike (equal shapes and signature bytes) compute one map. Random
/// ops do not: each node draws its own seed, so a plan made from one instance would give every
/// instance that instance's mask.
bool instances_share_the_map(const OpDef& op, std::uint64_t seed) {
  const Dim& y = kProbeShapes[0];
  std::mt19937 rng{unsigned(seed)};
  for (std::uint64_t k = 0; k < 16; ++k) {
    Instance a(op, seed + k), b(op, seed + k);
    const Values xs = random_arguments(a.nargs, y.size(), rng);
    const std::vector<float> ya = a.forward(op, y, xs), yb = b.forward(op, y, xs);
    for (std::size_t e = 0; e < ya.size(); ++e)
      if (!close(ya[e], yb[e])) return false;
  }
  return true;
}

/// Whether the kernel is a pure elementwise map: on arguments of the output's shape, y[e] depends
/// on the arguments' elements e alone (changing one element of one argument changes no other
/// output), through one function for every e (permuting every argument permutes y alike), the
/// same for every instance of one signature.
bool kernel_is_elementwise_map(const OpDef& op, std::uint64_t seed) {
  if (op.arity == 0 || !op.check.build) return false;
  Instance inst(op, seed);
  if (inst.nargs == 0) return false;
  std::mt19937 rng{unsigned(seed)};
  for (const Dim& y : kProbeShapes) {
    if (!inst.takes(op, y)) return false;
    const std::size_t n = y.size();
    const Values xs = random_arguments(inst.nargs, n, rng);
    const std::vector<float> y0 = inst.forward(op, y, xs);
    for (unsigned a = 0; a < inst.nargs; ++a)
      for (std::size_t j : {std::size_t(0), n / 2, n - 1}) {
        Values moved = xs;
        moved[a][j] += 0.05f;
        const std::vector<float> y1 = inst.forward(op, y, moved);
        for (std::size_t i = 0; i < n; ++i)
          if (i != j && !close(y1[i], y0[i])) return false;
      }
    std::vector<std::size_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    Values permuted = xs;
    for (unsigned a = 0; a < inst.nargs; ++a)
      for (std::size_t i = 0; i < n; ++i) permuted[a][i] = xs[a][perm[i]];
    const std::vector<float> yp = inst.forward(op, y, permuted);
    for (std::size_t i = 0; i < n; ++i)
      if (!close(yp[i], y0[perm[i]])) return false;
  }
  return instances_share_the_map(op, seed);
}

}  // namespace

TEST_CASE("exactly the rows whose kernel is an elementwise map declare an ElementwiseRule", "[ops][fusion]") {
  unsigned maps = 0;
  for (const OpDef* op : registered_ops()) {
    const bool is_map = kernel_is_elementwise_map(*op, 77 + op->id);
    maps += is_map;
    INFO(op->name << (is_map ? ": the kernel is an elementwise map, so the row must declare .elementwise(...)"
                             : ": the kernel is no elementwise map, so the row must not declare .elementwise(...)"));
    CHECK(is_map == (op->elementwise.f != nullptr));
    if (op->elementwise.f) CHECK((op->elementwise.df != nullptr) == (op->backward != nullptr));
  }
  // tanh, logistic, cmult, + and the rest: a probe that found none would pass vacuously.
  CHECK(maps > 40);
}

TEST_CASE("a declared ElementwiseRule computes what the row's kernels compute", "[ops][fusion]") {
  const Dim y({5, 3}, 2);
  for (const OpDef* op : registered_ops()) {
    if (!op->elementwise.f) continue;
    DYNAMIC_SECTION(op->name) {
      Instance inst(*op, 5 + op->id);
      std::mt19937 rng(op->id);
      Values xs = random_arguments(inst.nargs, y.size(), rng);
      std::vector<const float*> ptrs;
      for (auto& x : xs) ptrs.push_back(x.data());
      const std::vector<float> expected = inst.forward(*op, y, xs);
      std::vector<float> out(y.size());
      op->elementwise.f(inst.data, ptrs.data(), inst.nargs, out.data(), out.size());
      for (std::size_t e = 0; e < out.size(); ++e) REQUIRE(close(out[e], expected[e]));
      if (!op->backward) continue;

      std::uniform_real_distribution<float> unit(-1.f, 1.f);
      std::vector<float> dy(y.size()), seed(y.size());
      for (float& v : dy) v = unit(rng);
      for (float& v : seed) v = unit(rng);
      std::vector<Tensor> tensors;
      std::vector<float> y_values = expected;
      for (unsigned a = 0; a < inst.nargs; ++a)
        for (bool overwrite : {false, true}) {
          if (overwrite && !op->backward_overwrites) continue;
          std::vector<float> by_row = seed, by_rule = seed;
          OpCall c = inst.call(y, xs, tensors, y_values.data());
          c.dy = Tensor(y, dy.data(), inst.cg.device());
          c.dx = Tensor(y, by_row.data(), inst.cg.device());
          c.overwrite = overwrite;
          op->backward(c, a);
          op->elementwise.df(inst.data, a, ptrs.data(), inst.nargs, y_values.data(), dy.data(), by_rule.data(),
                             y.size(), overwrite);
          for (std::size_t e = 0; e < y.size(); ++e) {
            INFO("argument " << a << (overwrite ? ", overwriting" : ", accumulating") << ", element " << e);
            REQUIRE(close(by_rule[e], by_row[e]));
          }
        }
    }
  }
}
