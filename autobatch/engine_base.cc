#include "autobatch/engine_base.h"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "dynet_core/gradient_set.h"
#include "dynet_core/profiler.h"
#include "dynet_core/signature.h"

namespace dynet {

void EngineBase::bind(ComputationGraph& cg) {
  cg_ = &cg;
  profiling_ = profile::enabled();
  evaluated_ = 0;
  gradients_upto_ = 0;
  ++generation_;
  on_forget();
}

void EngineBase::invalidate() {
  GraphMemory& mem = cg_->memory();
  mem.forward.reset();
  mem.backward.reset();
  mem.scratch.reset();
  forget_gradients();
  evaluated_ = 0;
  ++generation_;
  on_forget();
}

void EngineBase::truncate(VariableIndex n) {
  cg_->memory().backward.reset();
  forget_gradients();
  if (evaluated_ > n) on_truncate(n);
}

void EngineBase::on_truncate(VariableIndex n) { evaluated_ = n; }

void EngineBase::forget_gradients() {
  for (VariableIndex j = 0; j < gradients_upto_ && j < cg_->size(); ++j) cg_->node(j).grad = nullptr;
  gradients_upto_ = 0;
}

bool EngineBase::has_gradient(VariableIndex i) const { return i < gradients_upto_ && cg_->node(i).grad != nullptr; }

void EngineBase::incremental_forward(VariableIndex last) {
  if (last < evaluated_) return;
  forward_nodes(evaluated_, last + 1);
  evaluated_ = last + 1;
}

OpCall EngineBase::node_call(Node& n, Tensor* inline_xs) {
  GraphMemory& mem = cg_->memory();
  Device* dev = cg_->device();
  if (n.nargs > kInlineTensors && wide_xs_.size() < n.nargs) wide_xs_.resize(n.nargs);
  Tensor* xs = n.nargs <= kInlineTensors ? inline_xs : wide_xs_.data();
  const VariableIndex* args = n.args();
  for (unsigned k = 0; k < n.nargs; ++k) {
    const Node& a = cg_->node(args[k]);
    xs[k] = Tensor(a.dim, a.value, dev);
  }
  OpCall call;
  call.xs = xs;
  call.nargs = n.nargs;
  call.y = Tensor(n.dim, n.value, dev);
  call.dy = Tensor(n.dim, n.grad, dev);
  call.data = &n.data;
  call.scratch = &mem.scratch;
  return call;
}

void EngineBase::forward_node(Node& n, const float* partial) {
  if (partial && n.nargs == 3) {  // x0 + x1 x2 is the whole of it: its value is what was computed ahead
    n.value = const_cast<float*>(partial);
    ++stats_.nodes;
    return;
  }
  const OpDef& op = *n.op;
  GraphMemory& mem = cg_->memory();
  n.value = op.value_alias ? op.value_alias(n.data) : mem.forward.allocate_array<float>(n.dim.size());
  const AlignedMemoryPool::Mark mark = mem.scratch.mark();
  Tensor inline_xs[kInlineTensors];
  OpCall call = node_call(n, inline_xs);
  if (partial) {  // call.xs is this engine's own array (inline_xs or wide_xs_)
    Tensor* rest = const_cast<Tensor*>(call.xs) + 2;
    rest[0] = Tensor(n.dim, const_cast<float*>(partial), cg_->device());
    call.xs = rest;
    call.nargs -= 2;
  }
  const std::uint64_t start = profiling_ ? profile::now_ns() : 0;
  cg_->device()->forward(op, call);
  if (profiling_ && !op.value_alias)
    profile::kernel(kernel_key(n), op, n.dim, 1, false, start, profile::now_ns() - start);
  mem.scratch.revert(mark);
  if (!op.value_alias) {
    ++stats_.nodes;
    ++stats_.batches;
  }
  if (mem.forward.debug() && !op.value_alias) check_guard(op, mem.forward, n.value, n.dim, "output");
}

void EngineBase::backward_node(Node& n, const std::uint8_t* needs, std::uint64_t skip) {
  const OpDef& op = *n.op;
  GraphMemory& mem = cg_->memory();
  const AlignedMemoryPool::Mark mark = mem.scratch.mark();
  Tensor inline_xs[kInlineTensors];
  OpCall call = node_call(n, inline_xs);
  call.transposes = &transposes_;
  const std::uint64_t start = profiling_ ? profile::now_ns() : 0;
  if (op.leaf_backward) cg_->device()->leaf_backward(op, call);
  if (op.backward) {
    const VariableIndex* args = n.args();
    for (unsigned k = 0; k < n.nargs; ++k) {
      Node& a = cg_->node(args[k]);
      if (!needs[args[k]] || (k < 64 && (skip >> k & 1))) continue;
      call.dx = Tensor(a.dim, a.grad, cg_->device());
      cg_->device()->backward(op, call, k);
      ++stats_.backward_batches;
      if (mem.backward.debug() && !a.op->grad_alias) check_guard(op, mem.backward, a.grad, a.dim, "argument gradient");
    }
  }
  if (profiling_) profile::kernel(kernel_key(n), op, n.dim, 1, true, start, profile::now_ns() - start);
  mem.scratch.revert(mark);
}

void EngineBase::check_guard(const OpDef& op, const AlignedMemoryPool& pool, const float* values, const Dim& d,
                             const char* what) {
  if (!pool.guard_intact(values, d.size() * sizeof(float)))
    throw std::logic_error(std::string("op '") + op.name + "' wrote past the end of its " + what + " " + to_string(d));
}

void EngineBase::backward(VariableIndex last, bool full, const float* seed) {
  incremental_forward(last);
  ComputationGraph& cg = *cg_;
  const Node& top = cg.node(last);
  if (!seed && top.dim.batch_size() != 1)
    throw std::invalid_argument("backward: the expression has dim " + to_string(top.dim) +
                                "; backward needs one value per batch element (reduce it first, "
                                "e.g. with sum_elems)");
  GraphMemory& mem = cg.memory();
  mem.backward.reset();
  transposes_.reset(mem.backward);
  forget_gradients();

  // A node needs a gradient when it depends on a trainable parameter and the loss depends on it.
  needs_flags_.resize(last + 1);
  std::uint8_t* needs = needs_flags_.data();
  for (VariableIndex j = 0; j <= last; ++j) {
    const Node& n = cg.node(j);
    std::uint8_t need = full || n.op->differentiable_leaf();
    if (!need && n.op->backward) {
      const VariableIndex* args = n.args();
      for (unsigned k = 0; k < n.nargs && !need; ++k) need = needs[args[k]];
    }
    needs[j] = need;
  }
  if (!full) {
    reach_flags_.assign(last + 1, 0);
    std::uint8_t* reach = reach_flags_.data();
    reach[last] = 1;
    for (VariableIndex j = last + 1; j-- > 0;) {
      const Node& n = cg.node(j);
      needs[j] &= reach[j];
      if (!needs[j] || !n.op->backward) continue;
      const VariableIndex* args = n.args();
      for (unsigned k = 0; k < n.nargs; ++k) reach[args[k]] = 1;
    }
  }

  // The node backward starts from has its seed as gradient, whatever it depends on (DyNet's
  // rule): loss.gradient() reads 1 even where no parameter reaches the loss.
  needs[last] = 1;
  const BackwardGradients parameter_gradients;
  allocate_gradients(last, needs);
  gradients_upto_ = last + 1;
  seed_gradient(top, seed);
  backward_nodes(last, needs);
}

void EngineBase::seed_gradient(const Node& top, const float* seed) {
  const unsigned n = top.dim.size();
  if (seed)
    seed_.assign(seed, seed + n);
  else
    seed_.assign(n, 1.f);
  AlignedMemoryPool& scratch = cg_->memory().scratch;
  const AlignedMemoryPool::Mark mark = scratch.mark();
  float* on_device = scratch.allocate_array<float>(n);
  Device& dev = *cg_->device();
  dev.to_device(on_device, seed_.data(), n);
  dev.accumulate(top.grad, on_device, n);
  scratch.revert(mark);
}

float* EngineBase::zeroed_gradient(const Node& n) {
  float* g = cg_->memory().backward.allocate_array<float>(n.dim.size());
  cg_->device()->zero(g, n.dim.size());
  return g;
}

void EngineBase::allocate_gradients(VariableIndex last, const std::uint8_t* needs) {
  // Gradients allocated one after another lie one after another, less than the alignment apart:
  // each such run is zeroed by one device call instead of one a node. In debug memory canaries
  // follow every allocation, and each gradient is zeroed alone.
  AlignedMemoryPool& pool = cg_->memory().backward;
  Device& dev = *cg_->device();
  const bool alone = pool.debug();
  float *run = nullptr, *run_end = nullptr;
  for (VariableIndex j = 0; j <= last; ++j) {
    if (!needs[j]) continue;
    Node& n = cg_->node(j);
    if (n.op->grad_alias) {
      n.grad = n.op->grad_alias(n.data);
      continue;
    }
    const std::size_t size = n.dim.size();
    float* g = pool.allocate_array<float>(size);
    // Past the run by less than the alignment, or elsewhere (another block; before it, wrapped).
    const std::uintptr_t gap = reinterpret_cast<std::uintptr_t>(g) - reinterpret_cast<std::uintptr_t>(run_end);
    if (!run || alone || gap >= AlignedMemoryPool::kAlign) {
      if (run) dev.zero(run, run_end - run);
      run = g;
    }
    run_end = g + size;
    n.grad = g;
  }
  if (run) dev.zero(run, run_end - run);
}

}  // namespace dynet
