#include "gpu/device_agreement.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <sstream>

#include "dynet_core/device/kernel_table.h"
#include "dynet_core/gemm/transpose_cache.h"
#include "dynet_core/graph.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/registry.h"
#include "dynet_core/signature.h"

using namespace dynet;

namespace device_agreement {

namespace {

constexpr std::size_t MB = std::size_t(1) << 20;
/// Nodes of a multi-node call, as in the engine agreement test.
constexpr unsigned kNodes = 3;
/// Seeds tried for a batched or a broadcast instance, and for nodes that group with another.
constexpr unsigned kSearch = 64;
const float kNaN = std::numeric_limits<float>::quiet_NaN();

constexpr std::uint64_t kInstanceSeed = 17;
std::uint64_t instance_seed(const OpDef& op, unsigned k) { return std::uint64_t(k) * 7919 + op.id; }
std::uint64_t value_seed(std::uint64_t seed, unsigned node) { return seed * 1000003 + node; }

/// Leaves whose op data points at the graph device's parameter memory, which the device under
/// test does not hold: parameters are their own value (no kernel runs), lookups gather table rows.
bool reads_parameters(const OpDef& op) {
  return op.value_alias || op.leaf_backward || std::string(op.name) == "const_lookup";
}

/// Where a failure happened: op, seed and case.
struct Where {
  const char* op;
  std::uint64_t seed;
  std::string what;  ///< the case: single, batched, broadcast, multi-node; + overwrite, transposes
};

/// Checks that Device::forward ran the row's host_check: the row is run as a copy whose
/// host_check counts its calls and then runs the row's own.
void (*row_host_check)(const OpCall&) = nullptr;
unsigned host_checks = 0;
void counted_host_check(const OpCall& c) {
  ++host_checks;
  row_host_check(c);
}

/// One node of the op as the check built it, its arguments read back to the host.
struct NodeCopy {
  const Node* node;
  std::vector<Dim> dims;
  std::vector<std::vector<float>> xs;
};

using Build = std::function<Expression(CheckCase&)>;

/// Instances of one op's gradient check (or of `build`) in one graph, built from (seed, value
/// seed) pairs.
class Instances {
 public:
  explicit Instances(const OpDef& op) : Instances(op, op.check.build) {}
  Instances(const OpDef& op, Build build) : op_(op), build_(std::move(build)) {}

  const Node& add(std::uint64_t seed, std::uint64_t values) {
    cases_.push_back(std::make_unique<CheckCase>(cg_, seed, values));
    ys_.push_back(build_(*cases_.back()));
    const Node& n = cg_.node(ys_.back().i);
    INFO(op_.name << ", seed " << seed << ": the check builds " << n.op->name);
    REQUIRE(n.op == &op_);
    return n;
  }
  const ComputationGraph& graph() const { return cg_; }

  /// Runs the graph and reads every instance's arguments.
  std::vector<NodeCopy> read() {
    cg_.forward(ys_.back());
    std::vector<NodeCopy> nodes;
    for (const Expression& y : ys_) {
      const Node& n = cg_.node(y.i);
      NodeCopy c{&n, {}, {}};
      for (unsigned i = 0; i < n.nargs; ++i) {
        const Node& a = cg_.node(n.arg(i));
        c.dims.push_back(a.dim);
        c.xs.emplace_back(a.dim.size());
        cg_.device()->to_host(c.xs.back().data(), a.value, a.dim.size());
      }
      nodes.push_back(std::move(c));
    }
    return nodes;
  }

 private:
  const OpDef& op_;
  Build build_;
  ComputationGraph cg_;
  std::vector<std::unique_ptr<CheckCase>> cases_;
  std::vector<Expression> ys_;
};

bool broadcasts(const ComputationGraph& cg, const Node& n) {
  for (unsigned i = 0; i < n.nargs; ++i)
    if (cg.node(n.arg(i)).dim.bd < n.dim.bd) return true;
  return false;
}

/// Whether b runs in one call with a, as the batched engine groups nodes: same op, output, argument
/// shapes, shared arguments and kernel-selecting op data (signature.h).
bool groups_with(const ComputationGraph& cg, const Node& a, const Node& b) {
  const OpDef& op = *a.op;
  if (b.op != a.op || !(b.dim == a.dim) || b.nargs != a.nargs) return false;
  if (op.batch.sig_bytes && std::memcmp(a.data, b.data, op.batch.sig_bytes) != 0) return false;
  for (unsigned i = 0; i < a.nargs; ++i) {
    const Node& x = cg.node(a.arg(i));
    const Node& y = cg.node(b.arg(i));
    if (!(x.dim == y.dim) || shared_argument(op, i, x, a.dim) != shared_argument(op, i, y, b.dim)) return false;
  }
  return true;
}

/// A call on the device under test and the CPU results it must give.
class Checker {
 public:
  explicit Checker(Device& device)
      : device_(device),
        values_("agreement values", 16 * MB, &device),
        scratch_("agreement scratch", 16 * MB, &device),
        host_("agreement reference", 4 * MB),
        host_scratch_("agreement reference scratch", 4 * MB) {}

  /// The nodes as one call (one node: a single-node call); returns whether some backward
  /// overwrote.
  bool check(const OpDef& op, const std::vector<NodeCopy>& nodes, const std::vector<bool>& shared, Where where);

 private:
  struct Call {
    const OpDef& op;
    const std::vector<NodeCopy>& nodes;
    const std::vector<bool>& shared;
    std::vector<const void*> data;
    std::vector<std::vector<float>> ys;  ///< CPU outputs, per node
    std::vector<Tensor> xs;              ///< on the device
    Dim y;                               ///< the call's output shape
    Tensor y_values;                     ///< the device's output, which backward reads
  };

  Tensor on_device(const Dim& d, const std::vector<float>& v) {
    Tensor t(d, values_.allocate_array<float>(d.size()), &device_);
    device_.to_device(t.v, v.data(), v.size());
    return t;
  }
  std::vector<float> read(const Tensor& t) {
    std::vector<float> v(t.d.size());
    device_.to_host(v.data(), t.v, v.size());
    return v;
  }
  Tensor on_host(const Dim& d, const float* v) {
    Tensor t(d, host_.allocate_array<float>(d.size()), nullptr);
    std::copy(v, v + d.size(), t.v);
    return t;
  }
  /// Argument i of node k as the CPU sees it: a shared argument is node 0's.
  const std::vector<float>& argument(const Call& c, unsigned k, unsigned i) const {
    return c.shared[i] ? c.nodes[0].xs[i] : c.nodes[k].xs[i];
  }
  /// The CPU row on node k alone, on host memory.
  OpCall host_call(const Call& c, unsigned k, std::vector<Tensor>& xs);
  void forward(Call& c, const Where& where);
  void backward(Call& c, unsigned i, std::mt19937_64& rng, Where where, bool& overwrote);
  /// Runs backward of argument i on the device from a gradient holding `before`, and compares.
  void run_backward(Call& c, unsigned i, const Tensor& dy, const Dim& xd, const std::vector<float>& before,
                    const std::vector<float>& expected, bool overwrite, bool transposes, const Where& where);

  Device& device_;
  AlignedMemoryPool values_, scratch_;
  AlignedMemoryPool host_, host_scratch_;
  TransposeCache transposes_;
};

/// Fails at the first element where the device and the CPU disagree (NaN agrees only with NaN,
/// an infinity with itself).
void require_agree(const std::vector<float>& device, const std::vector<float>& cpu, const Where& where,
                   const char* what, int argument, unsigned nodes) {
  REQUIRE(device.size() == cpu.size());
  for (std::size_t e = 0; e < cpu.size(); ++e) {
    const float d = device[e], c = cpu[e];
    if (d == c || (std::isnan(c) && std::isnan(d)) || std::fabs(d - c) <= 1e-4f + 1e-3f * std::fabs(c)) continue;
    std::ostringstream s;
    s << where.op << ", seed " << where.seed << ", case " << where.what << ": " << what;
    if (argument >= 0) s << " of argument " << argument;
    s << ", element " << e;
    if (nodes > 1) s << " (node " << e / (cpu.size() / nodes) << ")";
    s << ": device " << d << ", CPU " << c;
    FAIL(s.str());
  }
}

OpCall Checker::host_call(const Call& c, unsigned k, std::vector<Tensor>& xs) {
  const NodeCopy& n = c.nodes[k];
  xs.clear();
  for (unsigned i = 0; i < n.dims.size(); ++i) xs.push_back(on_host(n.dims[i], argument(c, k, i).data()));
  OpCall h;
  h.xs = xs.data();
  h.nargs = static_cast<unsigned>(xs.size());
  h.data = &c.data[k];
  h.scratch = &host_scratch_;
  return h;
}

bool Checker::check(const OpDef& op, const std::vector<NodeCopy>& nodes, const std::vector<bool>& shared, Where where) {
  Call c{op, nodes, shared, {}, {}, {}, {}, {}};
  const unsigned K = static_cast<unsigned>(nodes.size());
  for (const NodeCopy& n : nodes) c.data.push_back(n.node->data);
  const NodeCopy& n0 = nodes[0];
  c.y = n0.node->dim.with_batch(n0.node->dim.bd * K);
  for (unsigned i = 0; i < n0.dims.size(); ++i) {
    if (shared[i]) {
      c.xs.push_back(on_device(n0.dims[i], n0.xs[i]));
      continue;
    }
    std::vector<float> all;
    for (const NodeCopy& n : nodes) all.insert(all.end(), n.xs[i].begin(), n.xs[i].end());
    c.xs.push_back(on_device(n0.dims[i].with_batch(n0.dims[i].bd * K), all));
  }
  forward(c, where);
  bool overwrote = false;
  if (op.backward) {
    std::mt19937_64 rng(where.seed);
    transposes_.reset(values_);
    for (unsigned i = 0; i < n0.dims.size(); ++i) backward(c, i, rng, where, overwrote);
  }
  device_.synchronize();
  values_.reset();
  scratch_.reset();
  host_.reset();
  host_scratch_.reset();
  return overwrote;
}

void Checker::forward(Call& c, const Where& where) {
  const unsigned K = static_cast<unsigned>(c.nodes.size());
  std::vector<float> expected;
  std::vector<Tensor> xs;
  for (unsigned k = 0; k < K; ++k) {
    OpCall h = host_call(c, k, xs);
    h.y = Tensor(c.nodes[k].node->dim, host_.allocate_array<float>(c.nodes[k].node->dim.size()), nullptr);
    if (c.op.host_check) c.op.host_check(h);
    c.op.forward(h);
    c.ys.emplace_back(h.y.v, h.y.v + h.y.d.size());
    expected.insert(expected.end(), c.ys.back().begin(), c.ys.back().end());
  }
  OpCall g;
  g.xs = c.xs.data();
  g.nargs = static_cast<unsigned>(c.xs.size());
  g.y = Tensor(c.y, values_.allocate_array<float>(c.y.size()), &device_);
  device_.fill(g.y.v, kNaN, c.y.size());  // forward overwrites y, so every element must be written
  g.data = c.data.data();
  g.nodes = K;
  g.scratch = &scratch_;
  OpDef row = c.op;
  row.host_check = c.op.host_check ? counted_host_check : nullptr;
  row_host_check = c.op.host_check;
  host_checks = 0;
  device_.forward(row, g);
  if (c.op.host_check && host_checks != 1) {
    FAIL(where.op << ", seed " << where.seed << ", case " << where.what << ": Device::forward ran the op's host_check "
                  << host_checks << " times, not once");
  }
  require_agree(read(g.y), expected, where, "forward", -1, K);
  c.y_values = g.y;
}

void Checker::backward(Call& c, unsigned i, std::mt19937_64& rng, Where where, bool& overwrote) {
  const unsigned K = static_cast<unsigned>(c.nodes.size());
  std::uniform_real_distribution<float> unit(-1.f, 1.f);
  const Dim& d0 = c.nodes[0].dims[i];
  const Dim xd = c.shared[i] ? d0 : d0.with_batch(d0.bd * K);
  std::vector<float> dy(c.y.size()), seed(xd.size());
  for (float& v : dy) v = unit(rng);
  for (float& v : seed) v = unit(rng);

  // The CPU: each node's backward, into its part of the gradient (a shared argument's is one).
  std::vector<float> seeded = seed, gradient(xd.size(), 0.f);
  std::vector<Tensor> xs;
  const std::size_t per_node = c.y.size() / K;
  for (unsigned k = 0; k < K; ++k) {
    const Dim& yd = c.nodes[k].node->dim;
    const std::size_t at = c.shared[i] ? 0 : k * d0.size();
    for (std::vector<float>* into : {&seeded, &gradient}) {
      OpCall h = host_call(c, k, xs);
      h.y = on_host(yd, c.ys[k].data());
      h.dy = on_host(yd, dy.data() + k * per_node);
      h.dx = on_host(d0, into->data() + at);
      c.op.backward(h, i);
      std::copy(h.dx.v, h.dx.v + d0.size(), into->data() + at);
    }
    host_.reset();
  }

  const Tensor dy_device = on_device(c.y, dy);
  const std::string what = where.what;
  run_backward(c, i, dy_device, xd, seed, seeded, false, false, where);
  where.what = what + ", transposes";
  run_backward(c, i, dy_device, xd, seed, seeded, false, true, where);

  // Overwrite where an engine asks for it: a row that honours it, an argument the nodes do not
  // share, and for a slice, an argument whose span it writes.
  unsigned begin = 0, end = d0.batch_size();
  if (!c.op.backward_overwrites || c.shared[i]) return;
  if (c.op.argument_span && !c.op.argument_span(c.data[0], d0, begin, end)) return;
  std::vector<float> before(xd.size(), kNaN), expected(xd.size(), kNaN);
  for (std::size_t b = 0; b < xd.bd; ++b)
    for (std::size_t e = begin; e < end; ++e) expected[b * xd.batch_size() + e] = gradient[b * xd.batch_size() + e];
  where.what = what + ", overwrite";
  run_backward(c, i, dy_device, xd, before, expected, true, false, where);
  where.what = what + ", overwrite, transposes";
  run_backward(c, i, dy_device, xd, before, expected, true, true, where);
  overwrote = true;
}

void Checker::run_backward(Call& c, unsigned i, const Tensor& dy, const Dim& xd, const std::vector<float>& before,
                           const std::vector<float>& expected, bool overwrite, bool transposes, const Where& where) {
  OpCall g;
  g.xs = c.xs.data();
  g.nargs = static_cast<unsigned>(c.xs.size());
  g.y = c.y_values;
  g.dy = dy;
  g.dx = on_device(xd, before);
  g.data = c.data.data();
  g.nodes = static_cast<unsigned>(c.nodes.size());
  g.overwrite = overwrite;
  g.scratch = &scratch_;
  g.transposes = transposes ? &transposes_ : nullptr;
  device_.backward(c.op, g, i);
  require_agree(read(g.dx), expected, where, "backward", static_cast<int>(i), c.shared[i] ? 1 : g.nodes);
}

/// One instance a single-node check runs.
struct Pick {
  std::uint64_t seed;
  const char* what;
};

/// The op's `seeds` instances, plus the first one with several batch elements and the first with a
/// broadcast argument, when those seeds gave none and some nearby seed does.
std::vector<Pick> pick_instances(const OpDef& op, unsigned seeds, Coverage& coverage) {
  Instances probe(op);
  std::vector<Pick> picks;
  bool batched = false, broadcast = false;
  unsigned nargs = 0;  // an op of one argument that never broadcasts it is not worth a line
  for (unsigned k = 1; k <= seeds + kSearch && !(k > seeds && batched && broadcast); ++k) {
    const std::uint64_t seed = instance_seed(op, k);
    const Node& n = probe.add(seed, value_seed(seed, 0));
    nargs = std::max(nargs, n.nargs);
    const bool b = broadcasts(probe.graph(), n), many = n.dim.bd > 1;
    const char* what = b ? "broadcast" : many ? "batched" : "single";
    if (k <= seeds || (b && !broadcast) || (many && !batched)) picks.push_back({seed, what});
    broadcast = broadcast || b;
    batched = batched || many;
  }
  if (!batched) coverage.partial.push_back(std::string(op.name) + " (no batched instance)");
  if (!broadcast && nargs > 1) coverage.partial.push_back(std::string(op.name) + " (no broadcast instance)");
  coverage.batched += batched;
  coverage.broadcast += broadcast;
  return picks;
}

/// Node 0 from `seed`, and nodes that group with it: from other seeds where they give one (so that
/// op data differs between nodes), from the same shapes with values of their own otherwise.
std::vector<std::pair<std::uint64_t, std::uint64_t>> group_seeds(const OpDef& op, std::uint64_t seed) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> seeds{{seed, value_seed(seed, 0)}};
  Instances probe(op);
  const Node& n0 = probe.add(seed, value_seed(seed, 0));
  for (unsigned k = 1; k <= kSearch && seeds.size() < kNodes; ++k) {
    const std::uint64_t other = seed + 1000 * k;
    if (groups_with(probe.graph(), n0, probe.add(other, value_seed(other, 0))))
      seeds.push_back({other, value_seed(other, 0)});
  }
  for (unsigned k = 1; seeds.size() < kNodes; ++k) seeds.push_back({seed, value_seed(seed, k)});
  return seeds;
}

void check_op(Checker& checker, const OpDef& op, unsigned seeds, Coverage& coverage) {
  std::vector<std::uint64_t> group_from;
  bool overwrote = false;
  for (const Pick& p : pick_instances(op, seeds, coverage)) {
    Instances one(op);
    const Node& n = one.add(p.seed, value_seed(p.seed, 0));
    std::vector<bool> shared;
    for (unsigned i = 0; i < n.nargs; ++i) shared.push_back(shared_argument(op, i, one.graph().node(n.arg(i)), n.dim));
    overwrote = checker.check(op, one.read(), shared, {op.name, p.seed, p.what}) || overwrote;
    ++coverage.instances;
    if (group_from.empty() || (std::string(p.what) == "broadcast" && group_from.size() == 1))
      group_from.push_back(p.seed);
  }
  if (op.batch.rule != BatchRule::Concat) {
    coverage.partial.push_back(std::string(op.name) + " (no multi-node call: never batched)");
  } else {
    for (const std::uint64_t seed : group_from) {
      Instances group(op);
      for (const auto& s : group_seeds(op, seed)) group.add(s.first, s.second);
      const std::vector<NodeCopy> nodes = group.read();
      const Node& n0 = *nodes[0].node;
      std::vector<bool> shared;
      for (unsigned i = 0; i < n0.nargs; ++i)
        shared.push_back(shared_argument(op, i, group.graph().node(n0.arg(i)), n0.dim));
      overwrote = checker.check(op, nodes, shared, {op.name, seed, "multi-node"}) || overwrote;
      ++coverage.groups;
    }
  }
  coverage.overwrite += overwrote;
}

/// Why the op is not checked on `device`, or null.
const char* skip_reason(const OpDef& op, const std::vector<OpKernels>& kernels) {
  if (op.id >= kernels.size() || !kernels[op.id].forward) return "no kernel on this device";
  if (!op.check.build) return "no gradient check instance";
  if (reads_parameters(op)) return "reads parameter memory";
  return nullptr;
}

}  // namespace

void check_instance(Device& device, const char* what, const Build& build) {
  register_all_ops();
  const OpDef* op = nullptr;
  {
    ComputationGraph probe;
    CheckCase c(probe, kInstanceSeed, value_seed(kInstanceSeed, 0));
    op = probe.node(build(c).i).op;
  }
  Instances one(*op, build);
  const Node& n = one.add(kInstanceSeed, value_seed(kInstanceSeed, 0));
  std::vector<bool> shared;
  for (unsigned i = 0; i < n.nargs; ++i) shared.push_back(shared_argument(*op, i, one.graph().node(n.arg(i)), n.dim));
  Checker checker(device);
  checker.check(*op, one.read(), shared, {op->name, kInstanceSeed, what});
}

Coverage check_every_op(Device& device, unsigned seeds) {
  register_all_ops();
  Checker checker(device);
  Coverage coverage;
  const std::vector<OpKernels>& kernels = kernel_table(device.type);
  for (const OpDef* op : registered_ops()) {
    if (const char* reason = skip_reason(*op, kernels)) {
      coverage.skipped.push_back(std::string(op->name) + " (" + reason + ")");
      continue;
    }
    check_op(checker, *op, seeds, coverage);
    ++coverage.ops;
  }
  return coverage;
}

std::string summary(const Coverage& c) {
  std::ostringstream s;
  s << c.ops << " ops (" << c.batched << " with a batched instance, " << c.broadcast << " with a broadcast one, "
    << c.overwrite << " with overwrite), " << c.instances << " single-node instances, " << c.groups
    << " multi-node calls";
  const auto list = [&s](const char* title, const std::vector<std::string>& items) {
    if (items.empty()) return;
    s << "; " << title << ":";
    for (const std::string& item : items) s << " " << item;
  };
  list("skipped", c.skipped);
  list("not covered", c.partial);
  return s.str();
}

}  // namespace device_agreement
