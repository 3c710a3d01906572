#include "autobatch/vertex/fused_chain.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "autobatch/vertex/elementwise_chains.h"

namespace dynet {
namespace vertex {

FusedChain::FusedChain(const OpDag& dag, std::vector<unsigned> ops, Values backward_values) : ops_(std::move(ops)) {
  if (ops_.empty()) throw std::invalid_argument("FusedChain: a chain needs at least one op");
  const Dim& shape = dag.ops[ops_[0]].dim;
  size_ = shape.size();
  auto step_of = [&](unsigned op) {
    const auto it = std::find(ops_.begin(), ops_.end(), op);
    return it == ops_.end() ? -1 : int(it - ops_.begin());
  };
  std::vector<bool> kept(ops_.size(), false);
  for (unsigned i = 0; i < dag.ops.size(); ++i) {
    const int s = step_of(i);
    if (s >= 0) {
      kept[s] = kept[s] || dag.ops[i].read_outside;
      continue;
    }
    for (const DagRef& a : dag.ops[i].args)
      if (a.kind == DagRef::kOp && step_of(a.index) >= 0) kept[step_of(a.index)] = true;
  }
  // The values the chain's own backward reads, as each row's `saves` declares.
  std::vector<bool> read_backward(ops_.size(), false);
  for (unsigned s = 0; s < ops_.size(); ++s) {
    const DagOp& o = dag.ops[ops_[s]];
    if (!o.op->backward) continue;
    if (o.op->saves & kSavesOutput) read_backward[s] = true;
    if (o.op->saves & kSavesInputs)
      for (const DagRef& a : o.args)
        if (a.kind == DagRef::kOp && step_of(a.index) >= 0) read_backward[step_of(a.index)] = true;
  }
  for (unsigned s = 0; s < ops_.size(); ++s) {
    const DagOp& o = dag.ops[ops_[s]];
    if (backward_values == Values::kKept) kept[s] = kept[s] || read_backward[s];
    if (!fusible(dag, ops_[s]) || !(o.dim == shape))
      throw std::invalid_argument(std::string("FusedChain: op ") + std::to_string(ops_[s]) + " (" + o.op->name +
                                  ") is not elementwise over the chain's shape " + to_string(shape));
    if (kept[s]) writes_.push_back(ops_[s]);
  }
  for (unsigned s = 0; s < ops_.size(); ++s)
    for (const DagRef& a : dag.ops[ops_[s]].args) {
      const int from = a.kind == DagRef::kOp ? step_of(a.index) : -1;
      if (from >= int(s))
        throw std::invalid_argument("FusedChain: op " + std::to_string(ops_[s]) + " reads a later op of the chain");
      if (from < 0 && std::find(reads_.begin(), reads_.end(), a) == reads_.end()) {
        reads_.push_back(a);
        maps_.emplace_back(dag.dim_of(a), shape, dag.shared(a));
      }
    }
  if (ops_.size() + reads_.size() > kMaxChainValues)
    throw std::invalid_argument("FusedChain: " + std::to_string(ops_.size() + reads_.size()) +
                                " ops and reads, more than kMaxChainValues");
  for (unsigned s = 0; s < ops_.size(); ++s) {
    const DagOp& o = dag.ops[ops_[s]];
    ChainStep step{o.op,
                   o.data,
                   unsigned(o.args.size()),
                   unsigned(arg_slots_.size()),
                   -1,
                   !kept[s] && backward_values == Values::kRecomputed};
    if (kept[s]) step.write = int(std::find(writes_.begin(), writes_.end(), ops_[s]) - writes_.begin());
    for (const DagRef& a : o.args) {
      const int from = a.kind == DagRef::kOp ? step_of(a.index) : -1;
      const auto read = std::find(reads_.begin(), reads_.end(), a) - reads_.begin();
      arg_slots_.push_back(from >= 0 ? unsigned(reads_.size() + from) : unsigned(read));
    }
    steps_.push_back(step);
  }
  buffers_ = reads_.size() + 2 * steps_.size() + 1;
}

void FusedChain::load_reads(const float* const* reads, std::size_t begin, std::size_t n, float* scratch,
                            const float** values) const {
  for (unsigned r = 0; r < reads_.size(); ++r) {
    if (maps_[r].in_place()) {
      values[r] = reads[r] + begin;
    } else {
      float* buffer = scratch + r * kTile;
      maps_[r].gather(reads[r], begin, n, buffer);
      values[r] = buffer;
    }
  }
}

void FusedChain::run_forward(unsigned instances, const float* const* reads, float* const* writes, float* scratch,
                             const void* const* data) const {
  const std::size_t total = instances * size_;
  const std::size_t first_step = reads_.size();
  const float* values[kMaxChainValues];
  const float* xs[kMaxChainArgs];
  for (std::size_t begin = 0; begin < total; begin += kTile) {
    const std::size_t n = std::min(kTile, total - begin);
    load_reads(reads, begin, n, scratch, values);
    for (unsigned s = 0; s < steps_.size(); ++s) {
      const ChainStep& step = steps_[s];
      float* y = step.write >= 0 ? writes[step.write] + begin : value_buffer(scratch, s);
      arguments(step, values, xs);
      step.op->elementwise.f(data_of(s, data), xs, step.nargs, y, n);
      values[first_step + s] = y;
    }
  }
}

void FusedChain::run_backward(unsigned instances, const float* const* reads, float* const* read_grads,
                              const float* const* writes, float* const* write_grads, float* scratch,
                              const void* const* data, const std::uint8_t* fresh_reads,
                              const std::uint8_t* fresh_writes) const {
  const std::size_t total = instances * size_;
  const unsigned first_step = unsigned(reads_.size());
  const float* values[kMaxChainValues];
  float* grads[kMaxChainValues];
  bool has_grad[kMaxChainValues];  // whether grads[s] holds a gradient yet in this tile
  bool fresh[kMaxChainValues];     // whether grads[s] is a fresh block's, to be zeroed if nothing reaches it
  bool written[kMaxChainValues];   // per read: whether a fresh read_grads[r] has been written in this tile
  const float* xs[kMaxChainArgs];
  float* spare = spare_buffer(scratch);
  for (std::size_t begin = 0; begin < total; begin += kTile) {
    const std::size_t n = std::min(kTile, total - begin);
    load_reads(reads, begin, n, scratch, values);
    std::fill(written, written + reads_.size(), false);
    for (unsigned s = 0; s < steps_.size(); ++s) {
      const ChainStep& step = steps_[s];
      float* outside = step.write >= 0 ? write_grads[step.write] : nullptr;
      grads[s] = outside ? outside + begin : gradient_buffer(scratch, s);
      fresh[s] = outside && fresh_writes && fresh_writes[step.write];
      has_grad[s] = outside && !fresh[s];
      if (step.write >= 0) {
        values[first_step + s] = writes[step.write] + begin;
        continue;
      }
      // Not kept: either recomputed, or read by no rule's backward (the buffer stays unread).
      float* y = value_buffer(scratch, s);
      values[first_step + s] = y;
      if (!step.recompute) continue;
      arguments(step, values, xs);
      step.op->elementwise.f(data_of(s, data), xs, step.nargs, y, n);
    }
    for (unsigned s = unsigned(steps_.size()); s-- > 0;) {
      const ChainStep& step = steps_[s];
      if (!has_grad[s] && fresh[s]) std::fill(grads[s], grads[s] + n, 0.f);
      if (!has_grad[s] || !step.op->elementwise.df) continue;
      arguments(step, values, xs);
      const float* y = values[first_step + s];
      for (unsigned a = 0; a < step.nargs; ++a) {
        const unsigned slot = arg_slots_[step.first_arg + a];
        if (slot >= first_step) {
          const unsigned to = slot - first_step;
          step.op->elementwise.df(data_of(s, data), a, xs, step.nargs, y, grads[s], grads[to], n, !has_grad[to]);
          has_grad[to] = true;
        } else if (read_grads[slot] && maps_[slot].in_place()) {
          const bool overwrite = fresh_reads && fresh_reads[slot] && !written[slot];
          step.op->elementwise.df(data_of(s, data), a, xs, step.nargs, y, grads[s], read_grads[slot] + begin, n,
                                  overwrite);
          written[slot] = true;
        } else if (read_grads[slot]) {
          step.op->elementwise.df(data_of(s, data), a, xs, step.nargs, y, grads[s], spare, n, true);
          maps_[slot].scatter_add(spare, begin, n, read_grads[slot]);
        }
      }
    }
    for (unsigned r = 0; r < reads_.size() && fresh_reads; ++r)
      if (fresh_reads[r] && read_grads[r] && !written[r])
        std::fill(read_grads[r] + begin, read_grads[r] + begin + n, 0.f);
  }
}

}  // namespace vertex
}  // namespace dynet
