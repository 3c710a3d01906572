// Every registered op against DyNet's batch rules: an argument with one batch element broadcasts
// against batched ones, and its gradient is the sum over the batch. For each random instance an
// op's GradCheck row builds, every combination of batched and unbatched arguments that the row's
// infer_dim accepts runs under every engine and is compared with an independent reference: the
// same op called once per batch element on batch-size-1 arguments, sequentially, values and the
// gradients of all arguments.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "autobatch/execution_engine.h"
#include "dynet_core/expr.h"
#include "dynet_core/graph.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/registry.h"

using namespace dynet;

namespace {

// Ops whose op data often fixes the batch (index lists) need several draws for a usable case.
constexpr unsigned kCasesPerOp = 12;
constexpr unsigned kBatch = 3;
// Two nodes per graph whose unbatched arguments are the same nodes, so batched engines run them
// as one group: a group is the broadcast case once more, with a larger batch.
constexpr unsigned kInstances = 2;
// Up to this many arguments every combination is tried; beyond, those with one argument batched
// or one unbatched, and all batched.
constexpr unsigned kAllCombinationsUpTo = 5;

/// Ops whose result is not one result per batch element of their arguments, so that calls on
/// single batch elements cannot be their reference; each is checked by its own tests.
const std::map<std::string, const char*>& excluded() {
  static const std::map<std::string, const char*> ops{
      {"sum_batches", "sums over the batch: one output batch element whatever the argument has"},
      {"pick_batch_elems", "its op data names batch elements of the argument, so the output batch is the index list"},
      {"concatenate_to_batch", "stacks its arguments along the batch: the output batch is their sizes summed"},
      {"dropout", "one argument (nothing to broadcast); its mask depends on the element's position in the batch"},
      {"dropout_batch", "one argument (nothing to broadcast); it draws one mask per batch element by position"},
      {"noise", "one argument (nothing to broadcast); its noise depends on the element's position in the batch"},
  };
  return ops;
}

/// The argument shapes (one batch element) and values of one instance the op's row built.
struct Instance {
  const OpDef* op = nullptr;
  const void* data = nullptr;
  std::vector<Dim> shapes;
  std::vector<std::vector<float>> values;  // each argument's values, every batch element it had
};

/// Values of batch element `e` for argument `i`: an element of the row's own values (so the op's
/// input domain holds), rotated and shrunk towards zero so that every element differs.
std::vector<float> element_values(const Instance& in, unsigned i, unsigned e) {
  const std::size_t n = in.shapes[i].size();
  const std::vector<float>& v = in.values[i];
  const std::size_t from = (e % (v.size() / n)) * n;
  std::vector<float> out(n);
  for (std::size_t k = 0; k < n; ++k) out[k] = v[from + (k + e) % n] * (1.f - 0.04f * e);
  return out;
}

Dim out_dim(const Instance& in, const std::vector<Dim>& ds) {
  std::vector<const Dim*> ptrs;
  for (const Dim& d : ds) ptrs.push_back(&d);
  return in.op->infer_dim(DimArgs{ptrs.data(), static_cast<unsigned>(ptrs.size())}, in.data);
}

std::vector<unsigned> masks(unsigned nargs) {
  std::vector<unsigned> ms;
  const unsigned all = (1u << nargs) - 1;
  if (nargs <= kAllCombinationsUpTo) {
    for (unsigned m = 1; m <= all; ++m) ms.push_back(m);
    return ms;
  }
  ms.push_back(all);
  for (unsigned i = 0; i < nargs; ++i) {
    ms.push_back(1u << i);
    ms.push_back(all & ~(1u << i));
  }
  return ms;
}

struct Result {
  std::uint64_t kernel_calls = 0;
  bool one_signature = false;  // the op's nodes may run as one group
  std::vector<float> values;
  std::vector<std::vector<float>> gradients;  // per argument: every batched node's, or the shared one's
};

std::vector<float> weights(std::size_t n) {
  std::vector<float> w(n);
  for (std::size_t e = 0; e < n; ++e) w[e] = std::cos(0.7f * float(e) + 0.3f);
  return w;
}

/// Runs the output of `outs` (flattened, concatenated) backward from fixed weights and collects
/// the values and the gradients of args[i] (nodes in order).
Result run(ComputationGraph& cg, const std::vector<Expression>& outs, const std::vector<std::vector<Expression>>& args,
           bool differentiable) {
  std::vector<Expression> flat;
  for (const Expression& y : outs) flat.push_back(reshape(y, Dim({y.dim().size()})));
  const Expression all = concatenate(flat);
  Result r;
  cg.engine().reset_stats();
  r.values = as_vector(cg.forward(all));
  r.kernel_calls = cg.engine().stats().batches;
  r.one_signature = cg.node(outs.front().i).signature == cg.node(outs.back().i).signature;
  if (!differentiable) return r;
  cg.backward(all, weights(r.values.size()), true);
  for (const auto& xs : args) {
    r.gradients.emplace_back();
    for (const Expression& x : xs) {
      const std::vector<float> g = as_vector(cg.get_gradient(x));
      r.gradients.back().insert(r.gradients.back().end(), g.begin(), g.end());
    }
  }
  return r;
}

/// The op over arguments batched where `mask` says, kInstances times, under `strategy`.
Result run_batched(const Instance& in, unsigned mask, int strategy) {
  ComputationGraph cg;
  cg.set_autobatch(strategy);
  const unsigned nargs = static_cast<unsigned>(in.shapes.size());
  std::vector<std::vector<Expression>> args(nargs);
  for (unsigned i = 0; i < nargs; ++i) {
    if (!(mask >> i & 1u)) {
      args[i].push_back(input(cg, in.shapes[i], element_values(in, i, 0)));
      continue;
    }
    for (unsigned k = 0; k < kInstances; ++k) {
      std::vector<float> v;
      for (unsigned b = 0; b < kBatch; ++b) {
        const std::vector<float> e = element_values(in, i, k * kBatch + b);
        v.insert(v.end(), e.begin(), e.end());
      }
      args[i].push_back(input(cg, in.shapes[i].with_batch(kBatch), v));
    }
  }
  std::vector<Expression> outs;
  for (unsigned k = 0; k < kInstances; ++k) {
    std::vector<Expression> xs;
    for (unsigned i = 0; i < nargs; ++i) xs.push_back(args[i][args[i].size() == 1 ? 0 : k]);
    outs.push_back(cg.append(*in.op, xs.data(), nargs, in.data));
  }
  return run(cg, outs, args, in.op->backward != nullptr);
}

/// The reference: one call per batch element on batch-size-1 arguments, run sequentially; an
/// unbatched argument is one node that every call reads, so its gradient is the sum over calls.
Result run_reference(const Instance& in, unsigned mask) {
  ComputationGraph cg;
  cg.set_autobatch(0);
  const unsigned nargs = static_cast<unsigned>(in.shapes.size());
  std::vector<std::vector<Expression>> args(nargs);
  for (unsigned i = 0; i < nargs; ++i) {
    const unsigned elements = (mask >> i & 1u) ? kInstances * kBatch : 1;
    for (unsigned e = 0; e < elements; ++e) args[i].push_back(input(cg, in.shapes[i], element_values(in, i, e)));
  }
  std::vector<Expression> outs;
  for (unsigned e = 0; e < kInstances * kBatch; ++e) {
    std::vector<Expression> xs;
    for (unsigned i = 0; i < nargs; ++i) xs.push_back(args[i][args[i].size() == 1 ? 0 : e]);
    outs.push_back(cg.append(*in.op, xs.data(), nargs, in.data));
  }
  return run(cg, outs, args, in.op->backward != nullptr);
}

void require_close(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  REQUIRE(got.size() == want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    INFO(what << ", element " << k << ": " << got[k] << ", reference " << want[k]);
    REQUIRE(std::fabs(got[k] - want[k]) <= 1e-4f + 1e-4f * std::max(std::fabs(got[k]), std::fabs(want[k])));
  }
}

std::string describe(const Instance& in, const std::vector<Dim>& ds) {
  std::string s = in.op->name;
  s += " over";
  for (const Dim& d : ds) s += " " + to_string(d);
  return s;
}

/// Checks every allowed combination of one instance; returns how many ran.
unsigned check_instance(const Instance& in) {
  const unsigned nargs = static_cast<unsigned>(in.shapes.size());
  Dim y1;
  try {
    y1 = out_dim(in, in.shapes);
  } catch (const std::invalid_argument&) {
    return 0;  // the op data fixes a batch size: one index per batch element, say
  }
  if (y1.bd != 1) return 0;
  unsigned covered = 0;
  for (unsigned mask : masks(nargs)) {
    std::vector<Dim> ds;
    for (unsigned i = 0; i < nargs; ++i) ds.push_back(in.shapes[i].with_batch(mask >> i & 1u ? kBatch : 1));
    Dim y;
    try {
      y = out_dim(in, ds);
    } catch (const std::invalid_argument&) {
      continue;  // the row does not allow this combination
    }
    if (y.bd == 1) continue;  // the op data reduces over the batch (sum_dim's flag)
    const std::string what = describe(in, ds);
    INFO(what << " gives " << y << "; one batch element at a time gives " << y1);
    REQUIRE(y == y1.with_batch(kBatch));
    const Result want = run_reference(in, mask);
    const Result sequential = run_batched(in, mask, 0);
    for (int strategy : {0, 1, 2}) {
      const Result got = strategy == 0 ? sequential : run_batched(in, mask, strategy);
      const std::string where = what + ", autobatch " + std::to_string(strategy);
      if (strategy != 0 && got.one_signature && in.op->batch.rule == BatchRule::Concat) {
        INFO(where << ": the op's nodes run as one group");
        CHECK(got.kernel_calls < sequential.kernel_calls);
      }
      require_close(got.values, want.values, where + ": value");
      for (unsigned i = 0; i < got.gradients.size(); ++i)
        require_close(got.gradients[i], want.gradients[i], where + ": gradient of argument " + std::to_string(i));
    }
    ++covered;
  }
  return covered;
}

Instance instance_of(const OpDef& op, ComputationGraph& cg, CheckCase& c) {
  const Expression y = op.check.build(c);
  const Node& n = cg.node(y.i);
  REQUIRE(n.op == &op);
  cg.forward(y);
  Instance in;
  in.op = &op;
  in.data = n.data;
  for (unsigned i = 0; i < n.nargs; ++i) {
    const Node& a = cg.node(n.arg(i));
    in.shapes.push_back(a.dim.single_batch());
    in.values.emplace_back(a.value, a.value + a.dim.size());
  }
  return in;
}

}  // namespace

TEST_CASE("every op broadcasts unbatched arguments as DyNet does, values and gradients", "[ops][broadcast]") {
  for (const OpDef* op : registered_ops()) {
    if (op->arity == 0 || excluded().count(op->name)) continue;
    DYNAMIC_SECTION(op->name) {
      if (!op->check.build)
        FAIL(op->name << " has arguments but its row builds no instance: give it a GradCheck::build, or exclude it "
                         "here with a reason");
      unsigned covered = 0;
      for (unsigned k = 0; k < kCasesPerOp; ++k) {
        ComputationGraph cg;  // holds the op data the checks reuse
        CheckCase c(cg, 4242 * op->id + k);
        covered += check_instance(instance_of(*op, cg, c));
      }
      INFO(op->name << ": no instance its row built allows a batched argument with a per-element reference");
      CHECK(covered > 0);
    }
  }
}

TEST_CASE("every op excluded from the broadcast check is registered and takes arguments", "[ops][broadcast]") {
  for (const auto& e : excluded()) {
    INFO(e.first << " (" << e.second << ")");
    const OpDef* op = find_op(e.first.c_str());
    REQUIRE(op);
    CHECK(op->arity != 0);
  }
}

TEST_CASE("affine_transform adds unbatched products to every batch element of a batched bias", "[ops][broadcast]") {
  for (int strategy : {0, 1, 2}) {
    ComputationGraph cg;
    cg.set_autobatch(strategy);
    const Expression W = input(cg, Dim({2, 3}), {1, 0, 0, 1, 1, 1});
    const Expression x = input(cg, Dim({3}), {1, 2, 3});
    const Expression b = input(cg, Dim({2}, 2), {1, 2, 3, 4});
    const Expression y = affine_transform({b, W, x});
    INFO("autobatch " << strategy);
    CHECK(as_vector(cg.forward(y)) == std::vector<float>{5, 7, 7, 9});  // DyNet's values
    cg.backward(sum_batches(sum_elems(y)), true);
    CHECK(as_vector(cg.get_gradient(W)) == std::vector<float>{2, 2, 4, 4, 6, 6});
    CHECK(as_vector(cg.get_gradient(x)) == std::vector<float>{2, 2, 4});
    CHECK(as_vector(cg.get_gradient(b)) == std::vector<float>{1, 1, 1, 1});
  }
}
