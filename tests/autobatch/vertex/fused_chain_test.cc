// Fused chains equal the unfused ops: random vertex functions over every row with an
// ElementwiseRule (each row drawn in turn, on inputs inside the domain its own gradient check
// uses), built as ordinary graphs of several instances and run by SimpleEngine, against the same
// functions planned by plan_fusion and run step by step over per-symbol blocks, both as the CPU
// runs chains (loops over tiles) and as a GPU kernel does (element by element,
// gpu/element_chain.h, here on the host). Values and
// gradients of every kept value and every input must agree, with broadcast and shared inputs,
// batch sizes 1 to 4 per instance, 1 to 4 instances, shapes that span several tiles, and the
// values backward reads both kept and recomputed.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "autobatch/vertex/fusion.h"
#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/registry.h"
#include "gpu/element_chain.h"
#include "tests/autobatch/vertex/graph_dag.h"

using namespace dynet;
using vertex::DagRef;
using vertex::FusedChain;
using vertex::FusionPlan;
using vertex::OpDag;

namespace {

/// One instance of a row from its own gradient-check builder: op data to run the row with, and
/// the range of each argument's values there (a domain the row is finite and tame on).
struct RowSample {
  const OpDef* op;
  const void* data;
  unsigned nargs;
  std::vector<std::pair<float, float>> domains;
};

RowSample sample_row(ComputationGraph& samples, const OpDef& op, std::uint64_t seed) {
  CheckCase c(samples, seed);
  const Expression y = op.check.build(c);
  samples.incremental_forward(y);
  const Node& n = samples.node(y.i);
  RowSample s{&op, n.data, n.nargs, {}};
  for (unsigned k = 0; k < n.nargs; ++k) {
    const std::vector<float> v = as_vector(samples.get_value(n.arg(k)));
    s.domains.emplace_back(*std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()));
  }
  return s;
}

bool infers(const RowSample& s, const std::vector<Dim>& dims, const Dim& expected) {
  std::vector<const Dim*> ptrs;
  for (const Dim& d : dims) ptrs.push_back(&d);
  try {
    return s.op->infer_dim(DimArgs{ptrs.data(), unsigned(ptrs.size())}, s.data) == expected;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

/// A random vertex function over `shape`, built `instances` times into one graph (the expected
/// side) and described once as an OpDag (the fused side).
class RandomFunction {
 public:
  RandomFunction(ComputationGraph& cg, ComputationGraph& samples, unsigned instances, const Dim& shape,
                 std::uint64_t seed)
      : cg_(cg),
        samples_(samples),
        instances_(instances),
        shape_(shape),
        rng_(seed),
        inputs_(instances),
        ops_(instances) {}

  void add_op(const OpDef& row) {
    const RowSample s = sample_row(samples_, row, rng_());
    std::vector<DagRef> args;
    for (unsigned k = 0; k < s.nargs; ++k) args.push_back(argument(s, k));
    std::vector<Dim> dims;
    for (const DagRef& a : args) dims.push_back(dag_.dim_of(a));
    if (!infers(s, dims, shape_))  // a broadcast this row refuses: full-shape inputs instead
      for (unsigned k = 0; k < s.nargs; ++k)
        if (!(dag_.dim_of(args[k]) == shape_)) args[k] = fresh_input(shape_, false, s.domains[k]);
    vertex::DagOp op;
    op.op = &row;
    op.data = s.data;
    op.dim = shape_;
    op.args = args;
    dag_.ops.push_back(op);
    append_everywhere(dag_.ops.back());
  }

  /// Marks the ops read outside: every op no other op reads, and some others.
  void finish() {
    std::vector<bool> read(dag_.ops.size(), false);
    for (const auto& op : dag_.ops)
      for (const DagRef& a : op.args)
        if (a.kind == DagRef::kOp) read[a.index] = true;
    for (unsigned i = 0; i < dag_.ops.size(); ++i)
      dag_.ops[i].read_outside = !read[i] || std::uniform_int_distribution<int>(0, 3)(rng_) == 0;
  }

  const OpDag& dag() const { return dag_; }
  const Expression& op_expr(unsigned instance, unsigned op) const { return ops_[instance][op]; }
  const Expression& input_expr(unsigned instance, unsigned input) const { return inputs_[instance][input]; }

 private:
  /// The DAG value argument k of a new op reads: mostly an earlier value within the row's
  /// domain, otherwise a fresh input (broadcast, shared, or behind an op of its own shape).
  DagRef argument(const RowSample& s, unsigned k) {
    std::vector<DagRef> fits;
    for (unsigned i = 0; i < dag_.ops.size(); ++i)
      if (dag_.ops[i].dim == shape_ && within(ops_, i, s.domains[k])) fits.push_back(DagRef::op(i));
    for (unsigned i = 0; i < dag_.inputs.size(); ++i)
      if (dag_.inputs[i].dim == shape_ && !dag_.inputs[i].shared && within(inputs_, i, s.domains[k]))
        fits.push_back(DagRef::input(i));
    if (!fits.empty() && uniform(8) != 0) return fits[uniform(unsigned(fits.size()))];
    Dim d = shape_;
    if (uniform(2) == 0) {
      for (unsigned j = 0; j < d.ndims(); ++j)
        if (uniform(2) == 0) d.d[j] = 1;
      if (uniform(2) == 0) d.bd = 1;
    }
    const DagRef in = fresh_input(d, uniform(3) == 0, s.domains[k]);
    if (d == shape_ || uniform(3) != 0) return in;
    // An op of another shape: the chain reads it broadcast, per instance, and its gradient comes
    // back through the chain's reads. scale_gradient by 1 keeps the values in the domain.
    const RowSample copy = sample_row(samples_, *find_op("scale_gradient"), rng_());
    vertex::DagOp op;
    op.op = copy.op;
    op.data = copy.data;
    op.dim = d;
    op.args = {in};
    dag_.ops.push_back(op);
    append_everywhere(op);
    return DagRef::op(unsigned(dag_.ops.size() - 1));
  }

  DagRef fresh_input(const Dim& d, bool shared, std::pair<float, float> domain) {
    dag_.inputs.push_back({d, shared});
    std::uniform_real_distribution<float> value(domain.first, domain.second);
    Expression one_for_all;
    for (unsigned t = 0; t < instances_; ++t) {
      if (!shared || t == 0) {
        std::vector<float> v(d.size());
        for (float& x : v) x = value(rng_);
        one_for_all = input(cg_, d, v);
      }
      inputs_[t].push_back(one_for_all);
    }
    return DagRef::input(unsigned(dag_.inputs.size() - 1));
  }

  void append_everywhere(const vertex::DagOp& op) {
    for (unsigned t = 0; t < instances_; ++t) {
      std::vector<Expression> args;
      for (const DagRef& a : op.args) args.push_back(a.kind == DagRef::kOp ? ops_[t][a.index] : inputs_[t][a.index]);
      ops_[t].push_back(cg_.append(*op.op, args.data(), unsigned(args.size()), op.data));
    }
  }

  bool within(const std::vector<std::vector<Expression>>& values, unsigned i, std::pair<float, float> domain) {
    for (unsigned t = 0; t < instances_; ++t)
      for (float v : as_vector(cg_.incremental_forward(values[t][i])))
        if (!(v >= domain.first && v <= domain.second)) return false;
    return true;
  }

  unsigned uniform(unsigned n) { return std::uniform_int_distribution<unsigned>(0, n - 1)(rng_); }

  ComputationGraph& cg_;
  ComputationGraph& samples_;
  unsigned instances_;
  Dim shape_;
  std::mt19937_64 rng_;
  OpDag dag_;
  std::vector<std::vector<Expression>> inputs_;  // per instance, per DAG input
  std::vector<std::vector<Expression>> ops_;     // per instance, per DAG op
};

void require_close(const std::vector<float>& fused, const std::vector<float>& expected, const char* what) {
  REQUIRE(fused.size() == expected.size());
  float scale = 0.f;
  for (float v : expected) scale = std::max(scale, std::fabs(v));
  for (std::size_t e = 0; e < fused.size(); ++e) {
    INFO(what << ", element " << e << ": fused " << fused[e] << ", op by op " << expected[e]);
    REQUIRE(std::fabs(fused[e] - expected[e]) <=
            1e-5f * (1.f + scale) + 1e-4f * std::max(std::fabs(fused[e]), std::fabs(expected[e])));
  }
}

/// Per-symbol blocks of a function: every instance's value of each op and input back to back.
struct Blocks {
  std::vector<std::vector<float>> op_values, op_grads, input_values, input_grads;
  std::vector<std::uint8_t> op_reached, input_reached;  // whether a gradient block holds anything yet

  float* value(DagRef r) { return (r.kind == DagRef::kOp ? op_values : input_values)[r.index].data(); }
  float* grad(DagRef r) { return (r.kind == DagRef::kOp ? op_grads : input_grads)[r.index].data(); }
  std::uint8_t& reached(DagRef r) { return (r.kind == DagRef::kOp ? op_reached : input_reached)[r.index]; }
  std::vector<float>& grad_block(DagRef r) { return (r.kind == DagRef::kOp ? op_grads : input_grads)[r.index]; }
};

/// How a chain runs: the CPU's loops over tiles, or element by element as a GPU kernel runs it
/// (gpu/element_chain.h), here on the host.
enum class Executor { kTiles, kElements };

/// Runs a chain's forward or backward as a kernel would: element by element over the whole space.
void run_elements(const FusedChain& chain, const ChainRun& run, bool backward) {
  const ChainProgram program = chain.program();
  std::vector<unsigned char> block(gpu::element_chain_bytes(program));
  const gpu::ElementChain c =
      gpu::pack_element_chain(program, run, block.data(), reinterpret_cast<std::uintptr_t>(block.data()));
  for (std::size_t i = 0; i < c.total; ++i)
    backward ? gpu::chain_backward_element(c, i) : gpu::chain_forward_element(c, i);
}

/// Runs a step (a chain, or an op on its own as a chain of one) forward or backward over blocks.
/// `fresh`: backward is told which gradient blocks hold nothing yet (filled with NaN first), and
/// must write over them.
void run(Executor executor, const FusedChain& chain, unsigned instances, Blocks& b, bool backward,
         std::vector<float>& scratch, bool fresh = false) {
  std::vector<const float*> reads;
  std::vector<float*> read_grads, writes, write_grads;
  for (const DagRef& r : chain.reads()) {
    reads.push_back(b.value(r));
    read_grads.push_back(b.grad(r));
  }
  for (unsigned w : chain.writes()) {
    writes.push_back(b.value(DagRef::op(w)));
    write_grads.push_back(b.grad(DagRef::op(w)));
  }
  // Whatever a run reads from scratch it must have written there in the same run.
  scratch.assign(std::max(scratch.size(), chain.scratch_floats()), std::nanf(""));
  ChainRun elements;
  elements.instances = instances;
  elements.reads = reads.data();
  elements.writes = writes.data();
  if (!backward) {
    if (executor == Executor::kTiles)
      chain.run_forward(instances, reads.data(), writes.data(), scratch.data());
    else
      run_elements(chain, elements, false);
    return;
  }
  std::vector<const float*> kept(writes.begin(), writes.end());
  std::vector<std::uint8_t> fresh_reads, fresh_writes;
  std::vector<DagRef> blocks;
  for (unsigned r = 0; r < chain.reads().size(); ++r) {
    fresh_reads.push_back(fresh && chain.read_in_place(r) && !b.reached(chain.reads()[r]));
    if (fresh_reads.back()) blocks.push_back(chain.reads()[r]);
  }
  for (unsigned w : chain.writes()) {
    fresh_writes.push_back(fresh && !b.reached(DagRef::op(w)));
    if (fresh_writes.back()) blocks.push_back(DagRef::op(w));
  }
  for (DagRef r : blocks) std::fill(b.grad_block(r).begin(), b.grad_block(r).end(), std::nanf(""));
  if (executor == Executor::kTiles) {
    chain.run_backward(instances, reads.data(), read_grads.data(), kept.data(), write_grads.data(), scratch.data(),
                       nullptr, fresh ? fresh_reads.data() : nullptr, fresh ? fresh_writes.data() : nullptr);
  } else {
    elements.read_grads = read_grads.data();
    elements.write_grads = write_grads.data();
    elements.fresh_reads = fresh ? fresh_reads.data() : nullptr;
    elements.fresh_writes = fresh ? fresh_writes.data() : nullptr;
    run_elements(chain, elements, true);
  }
  for (const DagRef& r : chain.reads()) b.reached(r) = 1;
  for (unsigned w : chain.writes()) b.reached(DagRef::op(w)) = 1;
}

/// Builds a random function of `ops` ops drawn in turn from `rows` starting at `first_row`,
/// and requires the fused plan to agree with SimpleEngine. Returns how many ops it fused.
std::size_t check_function(const std::vector<const OpDef*>& rows, std::size_t first_row, unsigned ops,
                           unsigned instances, const Dim& shape, std::uint64_t seed, FusedChain::Values mode,
                           bool fresh = false) {
  ComputationGraph samples;
  ComputationGraph cg;
  cg.set_autobatch(0);
  RandomFunction f(cg, samples, instances, shape, seed);
  for (unsigned k = 0; k < ops; ++k) f.add_op(*rows[(first_row + k) % rows.size()]);
  f.finish();
  const OpDag& dag = f.dag();

  // Expected: E = sum over kept values y and instances of <w, y>, run op by op.
  std::mt19937 rng{unsigned(seed)};
  std::uniform_real_distribution<float> unit(-1.f, 1.f);
  Blocks b;
  std::vector<Expression> terms;
  for (unsigned i = 0; i < dag.ops.size(); ++i) {
    const std::size_t n = dag.ops[i].dim.size();
    b.op_values.emplace_back(instances * n, 0.f);
    b.op_grads.emplace_back(instances * n, 0.f);
    b.op_reached.push_back(dag.ops[i].read_outside);
    if (!dag.ops[i].read_outside) continue;
    for (unsigned t = 0; t < instances; ++t) {
      std::vector<float> w(n);
      for (float& v : w) v = unit(rng);
      std::copy(w.begin(), w.end(), b.op_grads[i].begin() + t * n);
      terms.push_back(sum_batches(sum_elems(cmult(input(cg, dag.ops[i].dim, w), f.op_expr(t, i)))));
    }
  }
  const Expression loss = sum(terms);
  cg.forward(loss);
  cg.backward(loss, true);
  for (unsigned i = 0; i < dag.inputs.size(); ++i) {
    const std::size_t n = dag.inputs[i].dim.size();
    const unsigned copies = dag.inputs[i].shared ? 1 : instances;
    b.input_values.emplace_back();
    for (unsigned t = 0; t < copies; ++t) {
      const std::vector<float> v = as_vector(f.input_expr(t, i).value());
      b.input_values.back().insert(b.input_values.back().end(), v.begin(), v.end());
    }
    b.input_grads.emplace_back(copies * n, 0.f);
    b.input_reached.push_back(0);
  }

  const FusionPlan plan = plan_fusion(dag, mode);
  std::vector<std::unique_ptr<FusedChain>> single(dag.ops.size());
  for (const FusionPlan::Step& s : plan.steps)
    if (s.chain < 0) single[s.op] = std::make_unique<FusedChain>(dag, std::vector<unsigned>{s.op});
  auto chain_of = [&](const FusionPlan::Step& s) -> const FusedChain& {
    return s.chain >= 0 ? plan.chains[s.chain] : *single[s.op];
  };
  auto per_instance = [&](auto&& tensor_of, unsigned copies) {
    std::vector<float> all;
    for (unsigned t = 0; t < copies; ++t) {
      const std::vector<float> v = as_vector(tensor_of(t));
      all.insert(all.end(), v.begin(), v.end());
    }
    return all;
  };
  std::size_t fused = 0;
  for (const FusedChain& c : plan.chains) fused += c.ops().size();
  INFO(fused << " of " << dag.ops.size() << " ops fused into " << plan.chains.size() << " chains; shape " << shape
             << ", " << instances << " instances");
  const Blocks start = b;
  for (Executor executor : {Executor::kTiles, Executor::kElements}) {
    INFO((executor == Executor::kTiles ? "chains run over tiles" : "chains run element by element"));
    b = start;
    std::vector<float> scratch;
    for (const FusionPlan::Step& s : plan.steps) run(executor, chain_of(s), instances, b, false, scratch);
    for (auto s = plan.steps.rbegin(); s != plan.steps.rend(); ++s)
      run(executor, chain_of(*s), instances, b, true, scratch, fresh);
    for (unsigned i = 0; i < dag.ops.size(); ++i) {
      const bool kept =
          plan.chain_of[i] < 0 || dag.ops[i].read_outside ||
          std::count(plan.chains[plan.chain_of[i]].writes().begin(), plan.chains[plan.chain_of[i]].writes().end(), i);
      if (!kept) continue;
      INFO("op " << i << " (" << dag.ops[i].op->name << ")");
      require_close(b.op_values[i], per_instance([&](unsigned t) { return f.op_expr(t, i).value(); }, instances),
                    "value");
      require_close(b.op_grads[i],
                    per_instance([&](unsigned t) { return cg.get_gradient(f.op_expr(t, i)); }, instances), "gradient");
    }
    for (unsigned i = 0; i < dag.inputs.size(); ++i) {
      INFO("input " << i << (dag.inputs[i].shared ? " (shared)" : ""));
      const unsigned copies = dag.inputs[i].shared ? 1 : instances;
      require_close(b.input_grads[i],
                    per_instance([&](unsigned t) { return cg.get_gradient(f.input_expr(t, i)); }, copies),
                    "input gradient");
    }
  }
  return fused;
}

/// Every row with an ElementwiseRule, `passes` times over, each pass shuffled: consecutive rows
/// of the list then meet in every order, as producers and consumers of each other.
std::vector<const OpDef*> fusible_rows(unsigned passes) {
  std::vector<const OpDef*> rows;
  for (const OpDef* op : registered_ops())
    if (op->elementwise.f) rows.push_back(op);
  std::mt19937 rng(7);
  std::vector<const OpDef*> all;
  for (unsigned p = 0; p < passes; ++p) {
    std::shuffle(rows.begin(), rows.end(), rng);
    all.insert(all.end(), rows.begin(), rows.end());
  }
  return all;
}

}  // namespace

TEST_CASE("fused chains over every elementwise row equal the ops run one by one", "[autobatch][fusion]") {
  const std::vector<const OpDef*> rows = fusible_rows(3);
  REQUIRE(rows.size() > 3 * 40);
  constexpr unsigned kOps = 7;
  std::mt19937 rng(2024);
  std::size_t fused = 0, total = 0;
  for (unsigned k = 0; k * kOps < rows.size(); ++k) {
    Dim shape({1 + unsigned(rng() % 5), 1 + unsigned(rng() % 4)}, 1 + unsigned(rng() % 4));
    if (k % 3 == 0) shape = Dim({1 + unsigned(rng() % 6)}, shape.bd);
    INFO("function " << k << ": rows from " << rows[(k * kOps) % rows.size()]->name);
    for (FusedChain::Values mode : {FusedChain::Values::kKept, FusedChain::Values::kRecomputed}) {
      INFO((mode == FusedChain::Values::kKept ? "values kept for backward" : "values recomputed by backward"));
      fused += check_function(rows, k * kOps, kOps, 1 + k % 4, shape, 100 + k, mode);
      total += kOps;
    }
  }
  // Random functions that seldom fused would mostly compare the rows' kernels with themselves.
  // Most rows take only part of the line, so the values of other rows often fall outside.
  CHECK(fused * 3 > total);
}

TEST_CASE("fused chains write their gradients over blocks that hold nothing yet", "[autobatch][fusion]") {
  // What the batched engine's overwrite rule hands a chain's backward: blocks no gradient has
  // reached, full of garbage, which it must write over or zero where nothing reaches them.
  const std::vector<const OpDef*> rows = fusible_rows(2);
  constexpr unsigned kOps = 7;
  std::mt19937 rng(77);
  for (unsigned k = 0; k * kOps < rows.size(); ++k) {
    const Dim shape({1 + unsigned(rng() % 5), 1 + unsigned(rng() % 4)}, 1 + unsigned(rng() % 3));
    INFO("function " << k << ": rows from " << rows[(k * kOps) % rows.size()]->name);
    check_function(rows, k * kOps, kOps, 1 + k % 4, shape, 300 + k, FusedChain::Values::kKept, true);
  }
}

TEST_CASE("a fused chain's backward zeroes the fresh blocks no gradient reaches", "[autobatch][fusion]") {
  // b = logistic(a), a = tanh(x), both kept; their gradient blocks and x's hold garbage.
  ComputationGraph cg;
  const std::vector<float> xs{-1.5f, -0.2f, 0.f, 0.7f, 2.f};
  const Expression x = input(cg, Dim({5}), xs), a = tanh(x), b = logistic(a);
  const OpDag dag = test_support::dag_of(cg, a.i, b.i + 1, {}, {a.i, b.i});
  const FusedChain chain(dag, {0, 1});
  REQUIRE(chain.writes().size() == 2);
  REQUIRE(chain.read_in_place(0));
  std::vector<float> av = as_vector(a.value()), bv = as_vector(b.value());
  const float* reads[] = {xs.data()};
  const float* writes[] = {av.data(), bv.data()};
  std::vector<float> scratch(chain.scratch_floats());
  for (bool b_reached : {false, true}) {
    INFO("b's block " << (b_reached ? "holds ones from outside" : "holds nothing yet"));
    std::vector<float> ga(5, std::nanf("")), gb(5, b_reached ? 1.f : std::nanf("")), gx(5, std::nanf(""));
    float* read_grads[] = {gx.data()};
    float* write_grads[] = {ga.data(), gb.data()};
    const std::uint8_t fresh_reads[] = {1}, fresh_writes[] = {1, std::uint8_t(!b_reached)};
    chain.run_backward(1, reads, read_grads, writes, write_grads, scratch.data(), nullptr, fresh_reads, fresh_writes);
    for (unsigned e = 0; e < 5; ++e) {
      const float db = b_reached ? 1.f : 0.f, da = db * bv[e] * (1.f - bv[e]), dx = da * (1.f - av[e] * av[e]);
      CHECK(gb[e] == Approx(db));
      CHECK(ga[e] == Approx(da).margin(1e-7));
      CHECK(gx[e] == Approx(dx).margin(1e-7));
    }
  }
}

TEST_CASE("fused chains agree across tile boundaries, within and between instances", "[autobatch][fusion]") {
  const std::vector<const OpDef*> rows = fusible_rows(1);
  // 37 x 29 x 2 floats per instance: tiles end in the middle of instances and of batch elements.
  const Dim shape({37, 29}, 2);
  for (unsigned k = 0; k < 4; ++k) DYNAMIC_SECTION("function " << k) {
      check_function(rows, 11 * k, 9, 1 + k, shape, 900 + k, FusedChain::Values::kKept);
      check_function(rows, 11 * k, 9, 1 + k, shape, 900 + k, FusedChain::Values::kRecomputed);
    }
}

TEST_CASE("a chain kernel refuses an op without an element rule", "[autobatch][fusion][gpu]") {
  // Every row that fuses has one: gpu/element_rules.h is checked against the rows' identities
  // (dynet_core/ops/elementwise_op_list.h) at compile time.
  register_all_ops();
  // A chain naming an op without an element rule (an op that never fuses) is refused when packed,
  // naming the op, before any kernel could run it.
  const OpDef* softmax_op = find_op("softmax");
  REQUIRE(softmax_op);
  REQUIRE_FALSE(softmax_op->elementwise.f);
  const OperandMap map(Dim({3}), Dim({3}), false);
  const unsigned slots[] = {0};
  const ChainStep step{softmax_op, nullptr, 1, 0, 0, false};
  const ChainProgram program{&step, 1, slots, &map, 1, 1, 3};
  std::vector<float> x(3, 0.f), y(3);
  const float* reads[] = {x.data()};
  float* writes[] = {y.data()};
  ChainRun run;
  run.instances = 1;
  run.reads = reads;
  run.writes = writes;
  std::vector<unsigned char> block(gpu::element_chain_bytes(program));
  CHECK_THROWS_WITH(gpu::pack_element_chain(program, run, block.data(), 0),
                    Catch::Contains("softmax") && Catch::Contains("no element rule"));
}
