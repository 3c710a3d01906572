#include "autobatch/vertex/leading_products.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "dynet_core/gemm/gemm.h"
#include "dynet_core/profiler.h"
#include "dynet_core/signature.h"

namespace dynet {

void LeadingProducts::forget() {
  nodes_.clear();
  groups_.clear();
  members_.clear();
  waiting_.clear();
  flush_at_ = 0;
  postponed_.clear();
}

void LeadingProducts::truncate(VariableIndex n) {
  if (nodes_.size() > n) nodes_.resize(n);
}

bool LeadingProducts::may_lead(const ComputationGraph& cg, const Node& n) {
  const OpDef& op = *n.op;
  // The waiting x1 gradients run without an output to give.
  if (!op.sum_of_products || n.nargs < 3 || (op.saves & kSavesOutput)) return false;
  const Dim &b = cg.node(n.arg(kBias)).dim, &w = cg.node(n.arg(kWeight)).dim, &x = cg.node(n.arg(kInput)).dim;
  if (std::uint64_t(n.dim.bd) * n.dim.cols() >= kBelowColumns && w.size() < TailOrder::kStreamedWeight) return false;
  return b.bd == 1 && (b.cols() == 1 || b.cols() == n.dim.cols()) && w.bd == 1 && x.bd == n.dim.bd &&
         x.cols() == n.dim.cols();
}

bool LeadingProducts::joins(const ComputationGraph& cg, VariableIndex start, VariableIndex j) const {
  const Node &n = cg.node(j), &n0 = cg.node(start);
  const VariableIndex x = n.arg(kInput);
  // A leaf depends on nothing, so it may be computed early; random ones draw from their own seeds.
  const bool ahead = order_ ? order_->position(x) < order_->position(start) : x < begin_;
  return (ahead || cg.node(x).nargs == 0) && n.dim == n0.dim && cg.node(x).dim == cg.node(n0.arg(kInput)).dim;
}

void LeadingProducts::start_plan(const TailOrder* order, const GroupRecord* record, VariableIndex begin,
                                 VariableIndex end) {
  order_ = order;
  record_ = record;
  begin_ = begin;
  if (nodes_.size() < end) nodes_.resize(end);
  std::fill(nodes_.begin() + begin, nodes_.begin() + end, NodeState());
  candidates_.clear();
}

void LeadingProducts::plan(const ComputationGraph& cg, const TailOrder& order, VariableIndex begin, VariableIndex end) {
  start_plan(&order, nullptr, begin, end);
  for (std::uint32_t p = begin; p < end; ++p) {
    const VariableIndex j = order.order()[p];
    const Node& n = cg.node(j);
    if (may_lead(cg, n)) candidates_.push_back({n.arg(kWeight), n.arg(kBias), j, 0});
  }
  group_candidates(cg);
}

void LeadingProducts::plan(const ComputationGraph& cg, const GroupRecord& record, VariableIndex begin,
                           VariableIndex end) {
  start_plan(nullptr, &record, begin, end);
  for (VariableIndex j = begin; j < end; ++j) {
    const Node& n = cg.node(j);
    if (may_lead(cg, n)) candidates_.push_back({n.arg(kWeight), n.arg(kBias), j, 0});
  }
  group_candidates(cg);
}

void LeadingProducts::group_candidates(const ComputationGraph& cg) {
  if (candidates_.size() < 2) return;
  // By weight and bias, each in the engine's order, as they were found: a counting sort over the
  // ids of (W1, b), which a pass over tens of thousands of nodes takes in one pass.
  keys_.clear();
  starts_.clear();
  for (Candidate& c : candidates_) {
    bool added;
    c.key = keys_.id(std::uint64_t(c.w) << 32 | c.b, &added);
    if (added) starts_.push_back(0);
    ++starts_[c.key];
  }
  std::uint32_t total = 0;
  for (std::uint32_t& start : starts_) total += std::exchange(start, total);
  by_key_.resize(candidates_.size());
  for (const Candidate& c : candidates_) by_key_[starts_[c.key]++] = c.j;
  // starts_[k] is now where key k's candidates end.
  for (std::size_t k = 0, r0 = 0; k < starts_.size(); r0 = starts_[k++]) {
    const std::size_t r1 = starts_[k];
    // In order: a node whose x1 is not ready when the group's first node runs starts the next.
    std::size_t first = members_.size();
    VariableIndex start = by_key_[r0];
    for (std::size_t r = r0; r < r1; ++r) {
      const VariableIndex j = by_key_[r];
      const bool full = std::uint64_t(members_.size() - first + 1) * cg.node(j).dim.size() > kGroupFloats;
      if (r > r0 && (full || !joins(cg, start, j))) {
        close_group(cg, first);
        first = members_.size();
        start = j;
      }
      members_.push_back(j);
    }
    close_group(cg, first);
  }
}

void LeadingProducts::close_group(const ComputationGraph& cg, std::size_t first) {
  const std::size_t count = members_.size() - first;
  if (count < 2) {
    members_.resize(first);
    return;
  }
  const auto group = static_cast<std::uint32_t>(groups_.size());
  groups_.push_back({static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(count),
                     cg.node(members_[first]).dim.size(), nullptr});
  for (std::uint32_t p = 0; p < count; ++p) {
    NodeState& s = nodes_[members_[first + p]];
    s.state = State::Member;
    s.group = group;
    s.position = p;
  }
}

void LeadingProducts::dissolve(VariableIndex j) {
  const Group& g = groups_[nodes_[j].group];
  for (std::uint32_t p = 0; p < g.count; ++p) leave(members_[g.first + p]);
}

const std::vector<VariableIndex>& LeadingProducts::leaves_ahead(const ComputationGraph& cg, VariableIndex j) {
  leaves_.clear();
  const Group& g = groups_[nodes_[j].group];
  for (std::uint32_t p = 0; p < g.count; ++p) {
    const VariableIndex x = cg.node(members_[g.first + p]).arg(kInput);
    if (order_->position(x) > order_->position(j) && nodes_[x].state != State::Computed) {
      nodes_[x].state = State::Computed;
      leaves_.push_back(x);
    }
  }
  return leaves_;
}

OpCall LeadingProducts::inputs_call(ComputationGraph& cg, const VariableIndex* nodes, std::uint32_t count, Tensor* xs) {
  const Node& n0 = cg.node(nodes[0]);
  Device* dev = cg.device();
  const Node &b = cg.node(n0.arg(kBias)), &w = cg.node(n0.arg(kWeight));
  const Dim& xd = cg.node(n0.arg(kInput)).dim;
  float* x = cg.memory().scratch.allocate_array<float>(std::size_t(xd.size()) * count);
  runs_.resize(count);
  data_.resize(count);
  for (std::uint32_t p = 0; p < count; ++p) {
    const Node& m = cg.node(nodes[p]);
    runs_[p] = MemoryRun{x + std::size_t(p) * xd.size(), cg.node(m.arg(kInput)).value, xd.size()};
    data_[p] = m.data;
  }
  dev->apply_runs(RunOp::Copy, runs_.data(), count);
  xs[kBias] = Tensor(b.dim, b.value, dev);
  xs[kWeight] = Tensor(w.dim, w.value, dev);
  xs[kInput] = Tensor(xd.with_batch(xd.bd * count), x, dev);
  OpCall call;
  call.xs = xs;
  call.nargs = 3;
  call.y = Tensor(n0.dim.with_batch(n0.dim.bd * count), nullptr, dev);
  call.data = data_.data();
  call.nodes = count;
  call.scratch = &cg.memory().scratch;
  return call;
}

void LeadingProducts::start_group(ComputationGraph& cg, VariableIndex j, bool profiling) {
  Group& g = groups_[nodes_[j].group];
  const Node& n0 = cg.node(j);
  GraphMemory& mem = cg.memory();
  const AlignedMemoryPool::Mark mark = mem.scratch.mark();
  Tensor xs[3];
  OpCall call = inputs_call(cg, &members_[g.first], g.count, xs);
  g.partial = mem.forward.allocate_array<float>(g.size * g.count);
  call.y.v = g.partial;
  const std::uint64_t start = profiling ? profile::now_ns() : 0;
  cg.device()->forward(*n0.op, call);
  if (profiling) profile::kernel(kernel_key(n0), *n0.op, n0.dim, g.count, false, start, profile::now_ns() - start);
  mem.scratch.revert(mark);
}

const float* LeadingProducts::partial(VariableIndex j) const {
  const NodeState& s = nodes_[j];
  const Group& g = groups_[s.group];
  return g.partial + g.size * s.position;
}

void LeadingProducts::begin_backward(TransposeCache* transposes) {
  transposes_ = transposes;
  waiting_.clear();
  flush_at_ = 0;
  for (VariableIndex leaf : postponed_)
    if (leaf < nodes_.size()) nodes_[leaf].leaf_waits = false;
  postponed_.clear();
}

std::uint64_t LeadingProducts::wait(const ComputationGraph& cg, VariableIndex j, const std::uint8_t* needs,
                                    std::uint64_t taken) {
  if (!member(j)) return 0;
  const Node& n = cg.node(j);
  const VariableIndex x = n.arg(kInput), w = n.arg(kWeight);
  if (!needs[x]) return 0;
  waiting_.push_back(j);
  // The sequential engine runs leaves when it meets them, so their backward waits for the group's;
  // the batched engine computes them in groups like any other node.
  if (order_ && cg.node(x).nargs == 0) {
    if (!nodes_[x].leaf_waits) {
      nodes_[x].leaf_waits = true;
      postponed_.push_back(x);
    }
  } else if (place(x) != GroupRecord::kNoGroup) {
    flush_at_ = std::max(flush_at_, place(x) + 1);
  }
  // A parameter's gradient is the parameter's own (nothing reads it during backward); a weight
  // with a leaf backward of its own (a lookup) would have to wait for it. A computed weight (a
  // masked or scaled parameter) reads its gradient in its own backward: the group runs before it.
  nodes_[j].weight_waits = needs[w] && !(taken >> kWeight & 1) && !cg.node(w).op->leaf_backward;
  if (nodes_[j].weight_waits && cg.node(w).nargs > 0 && place(w) != GroupRecord::kNoGroup)
    flush_at_ = std::max(flush_at_, place(w) + 1);
  return std::uint64_t(1) << kInput | std::uint64_t(nodes_[j].weight_waits) << kWeight;
}

std::uint64_t LeadingProducts::finish(ComputationGraph& cg, bool profiling) {
  const std::uint64_t calls = run_waiting(cg, profiling);
  std::sort(postponed_.begin(), postponed_.end(),
            [&](VariableIndex a, VariableIndex b) { return place(a) > place(b); });
  return calls;
}

std::uint64_t LeadingProducts::run_waiting(ComputationGraph& cg, bool profiling) {
  flush_at_ = 0;
  if (waiting_.empty()) return 0;
  auto key = [&](VariableIndex j) { return std::tuple(nodes_[j].group, nodes_[j].weight_waits, nodes_[j].position); };
  std::sort(waiting_.begin(), waiting_.end(), [&](VariableIndex a, VariableIndex b) { return key(a) < key(b); });
  GraphMemory& mem = cg.memory();
  Device* dev = cg.device();
  std::uint64_t calls = 0;
  for (std::size_t first = 0, end; first < waiting_.size(); first = end) {
    const NodeState& s0 = nodes_[waiting_[first]];
    for (end = first + 1; end < waiting_.size() && nodes_[waiting_[end]].group == s0.group &&
                          nodes_[waiting_[end]].weight_waits == s0.weight_waits;)
      ++end;
    const auto count = static_cast<std::uint32_t>(end - first);
    const Node& n0 = cg.node(waiting_[first]);
    const OpDef& op = *n0.op;
    const std::size_t xn = cg.node(n0.arg(kInput)).dim.size(), yn = n0.dim.size();
    const std::uint64_t gather_start = profiling ? profile::now_ns() : 0;
    const AlignedMemoryPool::Mark mark = mem.scratch.mark();
    Tensor xs[3];
    OpCall call = inputs_call(cg, &waiting_[first], count, xs);  // backward reads no output
    float* dy = mem.scratch.allocate_array<float>(yn * count);
    float* dx = mem.scratch.allocate_array<float>(xn * count);
    for (std::uint32_t p = 0; p < count; ++p) runs_[p] = MemoryRun{dy + p * yn, cg.node(waiting_[first + p]).grad, yn};
    dev->apply_runs(RunOp::Copy, runs_.data(), count);
    if (!op.backward_overwrites) dev->zero(dx, xn * count);
    call.dy = Tensor(call.y.d, dy, dev);
    call.dx = Tensor(xs[kInput].d, dx, dev);
    call.overwrite = op.backward_overwrites;
    // A narrow group takes W1^T dy without a transposed copy of W1, which would cost more than it
    // saves (the tagger's backward at one sentence: 0.21 ms without one, 0.23 with); a wide one, a
    // language model's output layer over every step, gains from it.
    if (std::uint64_t(call.dy.d.bd) * call.dy.d.cols() >= kOneProductCopyColumns) call.transposes = transposes_;
    const std::uint64_t kernel_start = profiling ? profile::now_ns() : 0;
    dev->backward(op, call, kInput);
    if (s0.weight_waits) {
      const Node& w = cg.node(n0.arg(kWeight));
      OpCall wcall = call;
      wcall.dx = Tensor(w.dim, w.grad, dev);
      wcall.overwrite = false;
      dev->backward(op, wcall, kWeight);
      ++calls;
    }
    // The same x1 may serve several nodes: Accumulate runs are applied in order.
    for (std::uint32_t p = 0; p < count; ++p)
      runs_[p] = MemoryRun{cg.node(cg.node(waiting_[first + p]).arg(kInput)).grad, dx + p * xn, xn};
    dev->apply_runs(RunOp::Accumulate, runs_.data(), count);
    if (profiling) {
      const std::uint64_t now = profile::now_ns();
      profile::add_time(profile::Phase::Memory, kernel_start - gather_start);
      profile::kernel(kernel_key(n0), op, n0.dim, count, true, kernel_start, now - kernel_start);
    }
    mem.scratch.revert(mark);
    ++calls;
  }
  waiting_.clear();
  return calls;
}

}  // namespace dynet
