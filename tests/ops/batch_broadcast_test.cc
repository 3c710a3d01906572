// Every registered op against DyNet's batch rules: an argument with one batch element broadcasts
// against batched ones, and its gradient is the sum over the batch. For each random instance an
// op's GradCheck row builds, every combination of batched and unbatched arguments that the row's
// infer_dim accepts runs under every engine and is compared with an independent reference: the
// same op called once per batch element on batch-size-1 arguments, sequentially (or, where the
// op data fixes the batch, the op over replicated arguments), values and the gradients of all
// arguments. Ops without arguments have nothing to broadcast; ops whose result is not one result
// per batch element are excluded below with the reason.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "dynet_core/execution_engine.h"
#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
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

/// The combinations to try, as bit masks of the batched arguments; none batched and all batched
/// only when asked.
std::vector<unsigned> masks(unsigned nargs, bool with_none, bool with_all) {
  std::vector<unsigned> ms;
  const unsigned all = (1u << nargs) - 1;
  if (nargs <= kAllCombinationsUpTo) {
    for (unsigned m = with_none ? 0 : 1; m < all; ++m) ms.push_back(m);
  } else {
    if (with_none) ms.push_back(0);
    for (unsigned i = 0; i < nargs; ++i) {
      ms.push_back(1u << i);
      ms.push_back(all & ~(1u << i));
    }
  }
  if (with_all) ms.push_back(all);
  return ms;
}

/// How one argument enters a graph of the op.
enum class Arg {
  Shared,      ///< one node of one batch element, read by every node of the op
  Batched,     ///< a node per node of the op, each batch element its own values
  Replicated,  ///< a node per node of the op, every batch element the Shared values
};

struct Result {
  std::uint64_t kernel_calls = 0;
  bool one_signature = false;  // the op's nodes may run as one group
  std::vector<float> values;
  /// Per argument: every Batched node's gradient in order; one batch element's for the others
  /// (a Replicated argument's summed over all its batch elements and nodes).
  std::vector<std::vector<float>> gradients;
};

std::vector<float> weights(std::size_t n) {
  std::vector<float> w(n);
  for (std::size_t e = 0; e < n; ++e) w[e] = std::cos(0.7f * float(e) + 0.3f);
  return w;
}

/// `nodes` nodes of the op over `batch` batch elements each, under `strategy`: the outputs
/// flattened and concatenated, then backward from fixed weights. Batch element b of node k of a
/// Batched argument holds element_values(k * batch + b).
Result run_op(const Instance& in, const std::vector<Arg>& how, unsigned nodes, unsigned batch, int strategy) {
  ComputationGraph cg;
  cg.set_autobatch(strategy);
  const unsigned nargs = static_cast<unsigned>(in.shapes.size());
  std::vector<std::vector<Expression>> args(nargs);
  for (unsigned i = 0; i < nargs; ++i) {
    if (how[i] == Arg::Shared) {
      args[i].push_back(input(cg, in.shapes[i], element_values(in, i, 0)));
      continue;
    }
    for (unsigned k = 0; k < nodes; ++k) {
      std::vector<float> v;
      for (unsigned b = 0; b < batch; ++b) {
        const std::vector<float> e = element_values(in, i, how[i] == Arg::Batched ? k * batch + b : 0);
        v.insert(v.end(), e.begin(), e.end());
      }
      args[i].push_back(input(cg, in.shapes[i].with_batch(batch), v));
    }
  }
  std::vector<Expression> outs, flat;
  for (unsigned k = 0; k < nodes; ++k) {
    std::vector<Expression> xs;
    for (unsigned i = 0; i < nargs; ++i) xs.push_back(args[i][args[i].size() == 1 ? 0 : k]);
    outs.push_back(cg.append(*in.op, xs.data(), nargs, in.data));
    flat.push_back(reshape(outs.back(), Dim({static_cast<unsigned>(outs.back().dim().size())})));
  }
  const Expression all = concatenate(flat);
  Result r;
  cg.engine().reset_stats();
  r.values = as_vector(cg.forward(all));
  r.kernel_calls = cg.engine().stats().batches;
  r.one_signature = cg.node(outs.front().i).signature == cg.node(outs.back().i).signature;
  if (!in.op->backward) return r;
  cg.backward(all, weights(r.values.size()), true);
  for (unsigned i = 0; i < nargs; ++i) {
    std::vector<float>& g = r.gradients.emplace_back();
    for (const Expression& x : args[i]) {
      const std::vector<float> gx = as_vector(cg.get_gradient(x));
      if (how[i] != Arg::Replicated) {
        g.insert(g.end(), gx.begin(), gx.end());
        continue;
      }
      g.resize(in.shapes[i].size(), 0.f);
      for (std::size_t e = 0; e < gx.size(); ++e) g[e % g.size()] += gx[e];
    }
  }
  return r;
}

std::vector<Arg> arguments(unsigned nargs, unsigned mask, Arg unbatched) {
  std::vector<Arg> how;
  for (unsigned i = 0; i < nargs; ++i) how.push_back(mask >> i & 1u ? Arg::Batched : unbatched);
  return how;
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

/// Checks every allowed combination of one instance against its reference; returns how many ran.
/// Usually the op gives one result per batch element: the reference is one call per batch
/// element (kInstances * kBatch nodes over single batch elements, sequentially; an unbatched
/// argument is one node they all read, so its gradient is their sum). When the op data fixes
/// the batch (one index per batch element), the reference is the op over every argument
/// batched, the unbatched ones replicated, their gradients summed over the batch.
unsigned check_instance(const Instance& in) {
  const unsigned nargs = static_cast<unsigned>(in.shapes.size());
  Dim y1;
  try {
    y1 = out_dim(in, in.shapes);
  } catch (const std::invalid_argument&) {
    return 0;  // the op data wants batched arguments
  }
  const bool per_element = y1.bd == 1;
  const unsigned batch = per_element ? kBatch : y1.bd;
  unsigned covered = 0;
  for (unsigned mask : masks(nargs, !per_element, per_element)) {
    std::vector<Dim> ds;
    for (unsigned i = 0; i < nargs; ++i) ds.push_back(in.shapes[i].with_batch(mask >> i & 1u ? batch : 1));
    Dim y;
    try {
      y = out_dim(in, ds);
    } catch (const std::invalid_argument&) {
      continue;  // the row does not allow this combination
    }
    if (y.bd == 1) continue;  // the op data reduces over the batch (sum_dim's flag)
    const std::string what = describe(in, ds);
    INFO(what << " gives " << y << "; single batch elements give " << y1);
    REQUIRE(y == y1.with_batch(batch));
    const Result want = per_element ? run_op(in, arguments(nargs, mask, Arg::Shared), kInstances * kBatch, 1, 0)
                                    : run_op(in, arguments(nargs, mask, Arg::Replicated), kInstances, batch, 0);
    const std::vector<Arg> how = arguments(nargs, mask, Arg::Shared);
    const Result sequential = run_op(in, how, kInstances, batch, 0);
    for (int strategy : {0, 1, 2}) {
      const Result got = strategy == 0 ? sequential : run_op(in, how, kInstances, batch, strategy);
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
