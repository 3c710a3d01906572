#include "autobatch/vertex/lazy_weight_gradients.h"

#include <algorithm>
#include <utility>

#include "dynet_core/profiler.h"
#include "dynet_core/signature.h"

namespace dynet {

bool LazyWeightGradients::may_wait(const ComputationGraph& cg, const GroupRecord& record, std::uint32_t g, unsigned i) {
  const Group& group = record[g];
  if (group.count >= kWaitBelow) return false;
  const Node& n0 = cg.node(record.nodes(group)[0]);
  const Node& a = cg.node(n0.arg(i));
  if (!(node_may_wait(n0) && shared_argument(*n0.op, i, a, n0.dim) && a.op->grad_alias && a.dim.bd == 1)) return false;
  // The waiting parts of one signature run as one call, which reads each argument either as the
  // signature shares it or concatenated: a group that shares a computed matrix among its nodes
  // (argument_placement.h) may share another one than the next group of its signature.
  const GroupArg* args = record.args(group);
  for (unsigned k = 0; k < n0.nargs; ++k)
    if (group.count > 1 && args[k].shared && !shared_argument(*n0.op, k, cg.node(n0.arg(k)), n0.dim)) return false;
  return true;
}

bool LazyWeightGradients::node_may_wait(const Node& n) {
  // The waiting call has no output to give: an elementwise row's gradient reads its output
  // whatever it saves (ElementwiseRule::df), and its part is a cheap sum over the group anyway.
  const OpDef& op = *n.op;
  return n.signature != 0 && (op.saves & kSavesInputs) && !(op.saves & kSavesOutput) && !op.elementwise.f;
}

std::uint64_t LazyWeightGradients::run(ComputationGraph& cg, const GroupRecord& record,
                                       const std::vector<float*>& group_grad, TransposeCache* transposes,
                                       bool profiling) {
  if (waiting_.empty()) return 0;
  order_by_blocks(cg, record);
  AlignedMemoryPool& scratch = cg.memory().scratch;
  std::uint64_t calls = 0;
  for (std::size_t first = 0; first < waiting_.size();) {
    // The parts of one signature: gathered once for all its weights when the same groups wait
    // for each (an affine transform's bias and matrices).
    const AlignedMemoryPool::Mark mark = scratch.mark();
    std::size_t gathered_first = 0, gathered_end = 0;
    std::size_t end = first;
    while (end < waiting_.size() && waiting_[end].block == waiting_[first].block) {
      std::size_t part_end = end + 1;
      while (part_end < waiting_.size() && waiting_[part_end].block == waiting_[end].block &&
             waiting_[part_end].argument == waiting_[end].argument)
        ++part_end;
      const std::uint64_t gather_start = profiling ? profile::now_ns() : 0;
      if (!same_groups(gathered_first, gathered_end, end, part_end)) {
        scratch.revert(mark);
        gather(cg, record, group_grad, end, part_end);
        gathered_first = end;
        gathered_end = part_end;
      }
      const std::uint64_t kernel_start = profiling ? profile::now_ns() : 0;
      const Node& n0 = cg.node(record.nodes(record[waiting_[end].group])[0]);
      const Node& target = cg.node(waiting_[end].target);
      call_.dx = Tensor(target.dim, target.grad, cg.device());
      call_.transposes = transposes;
      cg.device()->backward(*n0.op, call_, waiting_[end].argument);
      if (profiling) {
        profile::add_time(profile::Phase::Memory, kernel_start - gather_start);
        profile::kernel(kernel_key(n0), *n0.op, n0.dim, call_.nodes, true, kernel_start,
                        profile::now_ns() - kernel_start);
      }
      ++calls;
      end = part_end;
    }
    scratch.revert(mark);
    first = end;
  }
  waiting_.clear();
  return calls;
}

void LazyWeightGradients::order_by_blocks(const ComputationGraph& cg, const GroupRecord& record) {
  // The parts of one signature are a block, found through an open-addressing table: a pass's
  // parts come from a few signatures, and sorting every part by signature took 3% of a tagger's
  // sentence. Signatures hold parameters' addresses, which differ from run to run; blocks run in
  // the order of their earliest groups instead, so that a seeded run gives the same gradients
  // every time (the parts of one weight from several signatures, as attention's v over sources
  // of several lengths, are then added in the order of their groups).
  std::size_t capacity = 16;
  while (capacity < 2 * waiting_.size()) capacity *= 2;
  slots_.assign(capacity, kNoBlock);
  blocks_.clear();
  unsigned arguments = 1;
  for (Waiting& w : waiting_) {
    const std::uint64_t signature = cg.node(record.nodes(record[w.group])[0]).signature;
    std::size_t s = (signature * 0x9E3779B97F4A7C15ull) >> 40 & (capacity - 1);
    while (slots_[s] != kNoBlock && blocks_[slots_[s]].signature != signature) s = (s + 1) & (capacity - 1);
    if (slots_[s] == kNoBlock) {
      slots_[s] = static_cast<std::uint32_t>(blocks_.size());
      blocks_.push_back({signature, w.group, 0});
    }
    Block& b = blocks_[slots_[s]];
    b.earliest = std::min(b.earliest, w.group);
    w.block = slots_[s];
    arguments = std::max(arguments, w.argument + 1);
  }
  // Blocks by their earliest group (no two share one: a group's parts share its signature), then
  // the parts of a block by argument, each in the order it began to wait: a counting sort.
  ranked_.resize(blocks_.size());
  for (std::uint32_t b = 0; b < blocks_.size(); ++b) ranked_[b] = b;
  std::sort(ranked_.begin(), ranked_.end(),
            [&](std::uint32_t a, std::uint32_t b) { return blocks_[a].earliest < blocks_[b].earliest; });
  for (std::uint32_t r = 0; r < ranked_.size(); ++r) blocks_[ranked_[r]].rank = r;
  auto key = [&](const Waiting& w) { return std::size_t(blocks_[w.block].rank) * arguments + w.argument; };
  starts_.assign(blocks_.size() * arguments, 0);
  for (const Waiting& w : waiting_) ++starts_[key(w)];
  for (std::size_t k = 0, at = 0; k < starts_.size(); ++k) at += std::exchange(starts_[k], at);
  ordered_.resize(waiting_.size());
  for (const Waiting& w : waiting_) ordered_[starts_[key(w)]++] = w;
  waiting_.swap(ordered_);
}

bool LazyWeightGradients::same_groups(std::size_t a_first, std::size_t a_end, std::size_t b_first,
                                      std::size_t b_end) const {
  if (a_end - a_first != b_end - b_first) return false;
  for (std::size_t k = 0; k < a_end - a_first; ++k)
    if (waiting_[a_first + k].group != waiting_[b_first + k].group) return false;
  return true;
}

void LazyWeightGradients::gather(ComputationGraph& cg, const GroupRecord& record, const std::vector<float*>& group_grad,
                                 std::size_t first, std::size_t end) {
  AlignedMemoryPool& scratch = cg.memory().scratch;
  Device* dev = cg.device();
  const Group& g0 = record[waiting_[first].group];
  const Node& n0 = cg.node(record.nodes(g0)[0]);
  std::uint32_t total = 0;
  for (std::size_t w = first; w < end; ++w) total += record[waiting_[w].group].count;
  // Every node's op data, and each batched argument and the output gradient as one block.
  const std::size_t parts = end - first;
  data_.clear();
  for (std::size_t w = first; w < end; ++w) {
    const Group& g = record[waiting_[w].group];
    data_.insert(data_.end(), record.data(g), record.data(g) + g.count);
  }
  auto gathered = [&](const Dim& d, auto&& block_of) {
    const Dim all = d.with_batch(d.bd * total);
    if (parts == 1) return Tensor(all, block_of(waiting_[first].group, g0), dev);  // read where it is
    float* const block = scratch.allocate_array<float>(d.size() * total);
    float* to = block;
    runs_.resize(parts);
    for (std::size_t w = first; w < end; ++w) {
      const Group& g = record[waiting_[w].group];
      const std::size_t n = d.size() * g.count;
      runs_[w - first] = MemoryRun{to, block_of(waiting_[w].group, g), n};
      to += n;
    }
    dev->apply_runs(RunOp::Copy, runs_.data(), parts);
    return Tensor(all, block, dev);
  };
  xs_.resize(n0.nargs);
  for (unsigned k = 0; k < n0.nargs; ++k) {
    const Dim& d = cg.node(n0.arg(k)).dim;
    // A group of one node records every argument as shared; only the signature's sharing holds
    // for every group.
    const GroupArg& a0 = record.args(g0)[k];
    xs_[k] = shared_argument(*n0.op, k, cg.node(n0.arg(k)), n0.dim)
                 ? Tensor(d, a0.values, dev)
                 : gathered(d, [&](std::uint32_t, const Group& g) -> float* { return record.args(g)[k].values; });
  }
  call_ = OpCall();
  call_.xs = xs_.data();
  call_.nargs = n0.nargs;
  call_.y = Tensor(n0.dim.with_batch(n0.dim.bd * total), nullptr, dev);  // backward reads no output
  call_.dy = gathered(n0.dim, [&](std::uint32_t g, const Group&) -> float* { return group_grad[g]; });
  call_.data = data_.data();
  call_.nodes = total;
  call_.scratch = &scratch;
}

}  // namespace dynet
