// For every registered op: K instances of the op, with equal shapes and inputs of their own, run
// through the sequential, agenda and depth engines. Values and gradients must agree, and the
// batched engines must run each signature as exactly one kernel call: one more instance costs no
// kernel call when the instances share a signature, and exactly one when each runs on its own.

#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <set>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/registry.h"
#include "dynet_core/random_engine.h"

using namespace dynet;

namespace {

constexpr unsigned kInstances = 3;

struct Run {
  std::vector<float> values;     // every instance's output, in order
  std::vector<float> gradients;  // every variable's gradient, in order
  EngineStats stats;             // of the forward pass
  bool one_signature = false;    // every instance's output has the same batching signature
};

Run run(const OpDef& op, std::uint64_t seed, int strategy, unsigned instances = kInstances) {
  random_engine().seed(seed);
  ComputationGraph cg;
  cg.set_autobatch(strategy);
  std::vector<std::unique_ptr<CheckCase>> cases;
  std::vector<Expression> ys;
  for (unsigned k = 0; k < instances; ++k) {
    cases.push_back(std::make_unique<CheckCase>(cg, seed, seed * 1000003 + k));
    ys.push_back(op.check.build(*cases.back()));
  }
  std::vector<Expression> flat;
  for (const Expression& y : ys) flat.push_back(reshape(y, Dim({static_cast<unsigned>(y.dim().size())})));
  Expression all = concatenate(flat);
  cg.engine().reset_stats();
  Run r;
  r.values = as_vector(cg.forward(all));
  r.stats = cg.engine().stats();
  std::set<std::uint64_t> sigs;
  for (const Expression& y : ys) sigs.insert(cg.node(y.i).signature);
  r.one_signature = sigs.size() == 1 && *sigs.begin() != 0;
  for (auto& c : cases)
    for (const auto& v : c->variables())
      if (v.kind != CheckCase::Kind::Input) cg.device()->zero(v.grad, v.n);
  std::vector<float> w(r.values.size());
  for (std::size_t e = 0; e < w.size(); ++e) w[e] = std::sin(float(e) + 1.f);
  cg.backward(all, w, true);
  for (auto& c : cases)
    for (const auto& v : c->variables()) {
      const std::vector<float> g = v.kind == CheckCase::Kind::Input
                                       ? as_vector(cg.get_gradient(v.node))
                                       : as_vector(Tensor(Dim({unsigned(v.n)}), v.grad, cg.device()));
      r.gradients.insert(r.gradients.end(), g.begin(), g.end());
    }
  return r;
}

void require_close(const std::vector<float>& a, const std::vector<float>& b, const char* what) {
  REQUIRE(a.size() == b.size());
  for (std::size_t k = 0; k < a.size(); ++k) {
    INFO(what << " element " << k << ": " << a[k] << " vs " << b[k]);
    REQUIRE(std::fabs(a[k] - b[k]) <= 1e-5f + 1e-4f * std::max(std::fabs(a[k]), std::fabs(b[k])));
  }
}

}  // namespace

TEST_CASE("every op gives the same values and gradients under every engine", "[autobatch][ops]") {
  for (const OpDef* op : registered_ops()) {
    if (!op->check.build) continue;
    DYNAMIC_SECTION(op->name) {
      for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        const Run simple = run(*op, 100 * op->id + seed, 0);
        for (int strategy : {1, 2}) {
          const Run batched = run(*op, 100 * op->id + seed, strategy);
          INFO(op->name << " with --dynet-autobatch " << strategy);
          require_close(simple.values, batched.values, "value");
          require_close(simple.gradients, batched.gradients, "gradient");
          const Run fewer = run(*op, 100 * op->id + seed, strategy, kInstances - 1);
          const std::uint64_t per_instance = op->value_alias || batched.one_signature ? 0 : 1;
          CHECK(batched.stats.batches == fewer.stats.batches + per_instance);
        }
      }
    }
  }
}
