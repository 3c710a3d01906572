#include "autobatch/batched_engine.h"

#include <algorithm>
#include <cassert>

#include "autobatch/argument_placement.h"
#include "dynet_core/profiler.h"
#include "dynet_core/signature.h"

namespace dynet {

namespace {

constexpr VariableIndex kNoNode = 0xFFFFFFFFu;
constexpr std::uint32_t kNoGroup = GroupRecord::kNoGroup;

/// The backward kernel of `op` writes every element of an argument's gradient (not a slice of
/// it), so it may be given memory that holds anything.
bool overwrites_whole_gradient(const OpDef& op) { return op.backward_overwrites && !op.argument_span; }

/// How many nodes like n fit one group: the group runs as one tensor per argument and output,
/// and none may exceed Dim::kMaxElements (each node's own tensors fit, so this is at least 1).
std::uint32_t max_group(const ComputationGraph& cg, const Node& n) {
  std::size_t largest = n.dim.size();
  for (unsigned i = 0; i < n.nargs; ++i) largest = std::max(largest, cg.node(n.arg(i)).dim.size());
  return static_cast<std::uint32_t>(Dim::kMaxElements / largest);
}

}  // namespace

bool BatchedEngine::plans_units() const { return cg_->runs_vertex_tasks(); }

void BatchedEngine::point(Tensor& t, const Dim& d, std::uint32_t count, float* v) const {
  t.d = d;
  t.d.bd = d.bd * count;
  t.v = v;
  t.device = cg_->device();
}

void BatchedEngine::on_forget() {
  ahead_.forget();
  alias_nodes_.clear();
  record_.clear();
  group_function_.clear();
  fused_runs_.clear();
}

void BatchedEngine::on_truncate(VariableIndex) {
  // Groups may mix surviving and dropped nodes; recomputing is simpler than splitting them.
  invalidate();
}

void BatchedEngine::forward_nodes(VariableIndex begin, VariableIndex end) {
  const std::uint64_t start = profiling_ ? profile::now_ns() : 0;
  const std::uint64_t kernel_ns_before = kernel_ns_;
  record_.cover(end);
  const bool units = plans_units();
  if (units) {
    plan_.build(*cg_, begin, end);
    stats_.vertex_marked += plan_.marked();
    stats_.vertex_instances += plan_.size();
  }
  scheduler_.start(*cg_, begin, end, units ? &plan_.units() : nullptr);
  alias_parameter_leaves();
  // A unit's nodes run as one task; no group of theirs waits for a product computed elsewhere.
  leading_ = !units && cg_->vertex() != 0;
  pass_begin_ = begin;
  if (leading_) ahead_.plan(*cg_, record_, begin, end);
  for (;;) {
    const std::vector<VariableIndex>& group = scheduler_.next();
    if (group.empty()) break;
    const std::uint32_t count = static_cast<std::uint32_t>(group.size());
    if (units && plan_.unit_at(group[0]) != ScheduleUnits::kNoUnit) {
      task_function_ = &plan_.function(plan_.unit_at(group[0]));
      const std::uint64_t gathered_before = stats_.bytes_gathered;
      executor_.run_task(
          plan_, group.data(), count, [this](const VariableIndex* nodes, std::uint32_t n) { run_scheduled(nodes, n); },
          [this](const VertexExecutor::ChainTask& task) { return run_chain(task); });
      stats_.fused_chains += executor_.task_chains();
      if (profiling_)
        profile::vertex_task(task_function_->id, task_function_->key, count, stats_.bytes_gathered - gathered_before,
                             0);
      task_function_ = nullptr;
      ++stats_.vertex_tasks;
      const std::vector<VariableIndex>& done = executor_.task_nodes();
      scheduler_.computed(done.data(), static_cast<std::uint32_t>(done.size()));
      continue;
    }
    run_scheduled(group.data(), count);
    scheduler_.computed(group.data(), count);
  }
  if (profiling_) {
    const std::uint64_t scheduling = profile::now_ns() - start - (kernel_ns_ - kernel_ns_before);
    stats_.scheduling_ns += scheduling;
    profile::add_time(profile::Phase::Scheduling, scheduling);
  }
}

void BatchedEngine::run_scheduled(const VariableIndex* nodes, std::uint32_t count) {
  // Slices of the outputs of several groups run as one view of each, not as one copy of them all:
  // a view copies nothing forward and adds its gradient into its group's block in one kernel call,
  // where the copy writes every slice and scatters its gradient back run by run. (Under the agenda
  // the slices of two recurrences - a BiLSTM's two directions - are ready together.)
  unsigned begin, end;
  if (count > 1 && slices_computed_value(*cg_, record_, cg_->node(nodes[0]), begin, end)) {
    record_.for_each_run(*cg_, nodes, count, 0,
                         [&](std::uint32_t j, std::uint32_t n, std::uint32_t, std::uint32_t, VariableIndex) {
                           run_in_size_limits(nodes + j, n);
                         });
    return;
  }
  run_in_size_limits(nodes, count);
}

void BatchedEngine::run_in_size_limits(const VariableIndex* nodes, std::uint32_t count) {
  const std::uint32_t most = count == 1 ? 1 : max_group(*cg_, cg_->node(nodes[0]));  // one node always fits
  for (std::uint32_t done = 0; done < count; done += most) run_as_one_call(nodes + done, std::min(most, count - done));
}

void BatchedEngine::alias_parameter_leaves() {
  for (VariableIndex j : scheduler_.parameter_leaves()) {
    Node& n = cg_->node(j);
    n.value = n.op->value_alias(n.data);
    alias_nodes_.push_back(j);
  }
}

void BatchedEngine::run_as_one_call(const VariableIndex* nodes, std::uint32_t count, bool deferred) {
  const std::uint64_t start = profiling_ ? profile::now_ns() : 0;
  assert(one_op_and_signature(*cg_, nodes, count));
  GraphMemory& mem = cg_->memory();
  std::uint32_t stride;
  bool view;
  float* const out = place_outputs(nodes, count, stride, view);
  const std::uint32_t g = record_.add_group(*cg_, nodes, count, out, stride);

  const AlignedMemoryPool::Mark mark = mem.scratch.mark();
  const Node& n0 = cg_->node(nodes[0]);
  const unsigned nargs = n0.nargs;
  // A fused chain reads its arguments side by side, so a deferred group gathers slices.
  const bool strided = !deferred && !view && reads_strided(*cg_, n0, *cg_->device());
  ArgumentBytes bytes;
  bool along_runs = false;
  xs_.resize(nargs);
  for (unsigned i = 0; i < nargs; ++i) along_runs |= read_argument(nodes, count, i, view, strided, bytes);
  if (deferred) {
    if (profiling_) profile::add_bytes(bytes.gathered, bytes.in_place, 0);
  } else {
    // The record keeps every argument: backward reads b, W1 and x1 whether or not they were read.
    const bool ahead = leading_ && !view && !along_runs && runs_ahead(g, nodes, count);
    if (!view) run_forward_kernel(g, out, along_runs, bytes, ahead ? partials(nodes, count) : nullptr);
    mem.scratch.revert(mark);
  }

  group_function_.push_back(task_function_);
  stats_.nodes += count;
  stats_.bytes_in_place += bytes.in_place;
  stats_.bytes_gathered += bytes.gathered;
  if (profiling_) kernel_ns_ += profile::now_ns() - start;
}

bool BatchedEngine::run_chain(const VertexExecutor::ChainTask& task) {
  const vertex::FusedChain& chain = *task.chain;
  const std::uint32_t ops = static_cast<std::uint32_t>(chain.ops().size());
  const std::uint32_t count = task.count;
  Device& device = *cg_->device();
  bool fuse = FusedChainCall::runs_on(device);
  for (std::uint32_t k = 0; k < ops && fuse; ++k) fuse = count <= max_group(*cg_, cg_->node(task.nodes[k * count]));
  if (!fuse) {
    for (std::uint32_t k = 0; k < ops; ++k) run_scheduled(task.nodes + k * count, count);
    return false;
  }
  GraphMemory& mem = cg_->memory();
  const AlignedMemoryPool::Mark mark = mem.scratch.mark();
  const std::uint32_t first = record_.size();
  for (std::uint32_t k = 0; k < ops; ++k) run_as_one_call(task.nodes + k * count, count, true);
  const std::uint64_t start = profiling_ ? profile::now_ns() : 0;
  // Every op of the chain is one of its writes, in order (the executor keeps every value).
  assert(chain.writes().size() == ops);
  chain_call_.start(chain, false);
  for (std::size_t r = 0; r < chain_call_.reads.size(); ++r)
    chain_call_.reads[r] = record_.args(record_[first + task.read_op[r]])[task.read_arg[r]].values;
  for (std::uint32_t k = 0; k < ops; ++k) {
    const Group& g = record_[first + k];
    chain_call_.writes[k] = g.values;
    chain_call_.data[k] = record_.data(g)[0];
  }
  const std::uint64_t kernel_start = profiling_ ? profile::now_ns() : 0;
  chain_call_.forward(device, chain, count, mem.scratch);
  const Node& n0 = cg_->node(task.nodes[0]);
  if (profiling_)
    profile::fused_chain(task_function_->id, task_function_->key, ops, n0.dim, count, false, kernel_start,
                         profile::now_ns() - kernel_start);
  if (mem.forward.debug())
    for (std::uint32_t k = 0; k < ops; ++k) {
      const Node& n = cg_->node(task.nodes[k * count]);
      check_guard(*n.op, mem.forward, chain_call_.writes[k], n.dim.with_batch(n.dim.bd * count), "output");
    }
  mem.scratch.revert(mark);
  fused_runs_.push_back({first, ops, task.id});
  ++stats_.batches;
  if (profiling_) kernel_ns_ += profile::now_ns() - start;
  return true;
}

float* BatchedEngine::place_outputs(const VariableIndex* nodes, std::uint32_t count, std::uint32_t& stride,
                                    bool& view) {
  const std::size_t size = cg_->node(nodes[0]).dim.size();
  stride = static_cast<std::uint32_t>(size);
  float* const slices = view_of_argument(*cg_, record_, nodes, count, stride);
  view = slices != nullptr;
  return view ? slices : cg_->memory().forward.allocate_array<float>(size * count);
}

bool BatchedEngine::read_argument(const VariableIndex* nodes, std::uint32_t count, unsigned i, bool view, bool strided,
                                  ArgumentBytes& read) {
  GraphMemory& mem = cg_->memory();
  const Node& n0 = cg_->node(nodes[0]);
  const Node& a0 = cg_->node(n0.arg(i));
  const std::size_t asize = a0.dim.size();
  const ArgumentPlace place = place_argument(*cg_, record_, nodes, count, i);
  if (place.how == Placement::Shared) {
    point(xs_[i], a0.dim, 1, a0.value);
    record_.add_shared_argument(a0.value);
    if (!view) read.in_place += asize * sizeof(float);
    return false;
  }
  const std::uint64_t bytes = count * asize * sizeof(float);
  GroupArg arg{place.values, place.producer, place.offset, false};
  bool along_runs = false;
  if (view) {
    const Group& from = record_[place.producer];
    arg.values = from.values + std::size_t(place.offset) * from.stride;  // never read
  } else if (place.how == Placement::InPlace) {
    read.in_place += bytes;
  } else if (strided && place.producer != kNoGroup) {
    // Consecutive slices of one group's wider nodes; backward never reads them (reads_strided).
    const Group& from = record_[place.producer];
    arg.values = from.values + std::size_t(place.offset) * from.stride;
    read.in_place += bytes;
    along_runs = true;
  } else if (strided) {
    // The outputs of several groups, read along their runs; backward scatters along them too.
    record_.add_runs(*cg_, nodes, count, i, arg);
    arg.values = a0.value;  // never read
    read.in_place += bytes;
    along_runs = true;
  } else {
    const std::uint64_t gather_start = profiling_ ? profile::now_ns() : 0;
    // Backward reads the gathered copy again only when the op saves its inputs.
    arg.values = n0.op->saves & kSavesInputs ? mem.forward.allocate_array<float>(count * asize)
                                             : mem.scratch.allocate_array<float>(count * asize);
    record_.add_runs(*cg_, nodes, count, i, arg);
    gather_argument(*cg_, record_, arg, asize, arg.values, runs_);
    read.gathered += bytes;
    if (profiling_) profile::add_time(profile::Phase::Memory, profile::now_ns() - gather_start);
  }
  point(xs_[i], a0.dim, count, arg.values);
  record_.add_argument(arg);
  return along_runs;
}

bool BatchedEngine::runs_ahead(std::uint32_t g, const VariableIndex* nodes, std::uint32_t count) {
  if (!ahead_.member(nodes[0])) return false;
  // Group g itself is recorded but not computed yet: one of its nodes may be another member's x1.
  auto computed = [this, g](VariableIndex x) {
    return x < pass_begin_ || record_.group_of(x) < g || cg_->node(x).op->value_alias;  // kNoGroup is never < g
  };
  const Node& n0 = cg_->node(nodes[0]);
  const bool wide = std::uint64_t(count) * n0.dim.bd * n0.dim.cols() >= LeadingProducts::kBelowColumns;
  for (std::uint32_t k = 0; k < count; ++k) {
    const VariableIndex j = nodes[k];
    if (!ahead_.member(j)) return false;
    if (ahead_.started(j)) continue;
    if (wide) {
      ahead_.dissolve(j);
      return false;
    }
    // Members that run in this group take one product here whether or not it is computed ahead.
    std::uint32_t here = 0;
    for (std::uint32_t m = 0; m < count; ++m)
      here += ahead_.member(nodes[m]) && ahead_.group(nodes[m]) == ahead_.group(j);
    if (ahead_.keep_computed(*cg_, j, computed) <= here) {
      ahead_.dissolve(j);
      return false;
    }
    ahead_.start_group(*cg_, j, profiling_);
    ++stats_.batches;
    ++stats_.leading_products;
  }
  return true;
}

const float* BatchedEngine::partials(const VariableIndex* nodes, std::uint32_t count) {
  const std::size_t size = cg_->node(nodes[0]).dim.size();
  const float* first = ahead_.partial(nodes[0]);
  std::uint32_t k = 1;
  while (k < count && ahead_.partial(nodes[k]) == first + k * size) ++k;
  if (k == count) return first;
  float* side_by_side = cg_->memory().scratch.allocate_array<float>(size * count);
  runs_.resize(count);
  for (k = 0; k < count; ++k) runs_[k] = MemoryRun{side_by_side + k * size, ahead_.partial(nodes[k]), size};
  cg_->device()->apply_runs(RunOp::Copy, runs_.data(), count);
  stats_.bytes_gathered += count * size * sizeof(float);
  return side_by_side;
}

void BatchedEngine::run_forward_kernel(std::uint32_t g, float* out, bool along_runs, const ArgumentBytes& bytes,
                                       const float* partial) {
  GraphMemory& mem = cg_->memory();
  const Group& group = record_[g];
  const std::uint32_t count = group.count;
  const Node& n0 = cg_->node(record_.nodes(group)[0]);
  const OpDef& op = *n0.op;
  OpCall call;
  call.xs = xs_.data();
  call.nargs = n0.nargs;
  point(call.y, n0.dim, count, out);
  call.data = record_.data(group);
  call.nodes = count;
  call.scratch = &mem.scratch;
  if (partial) {  // b + W1 x1, then the other terms: the op's sum over its arguments from the fourth on
    constexpr unsigned kInput = LeadingProducts::kInput;
    point(xs_[kInput], n0.dim, count, const_cast<float*>(partial));
    call.xs = xs_.data() + kInput;
    call.nargs -= kInput;
  }
  const std::uint64_t kernel_start = profiling_ ? profile::now_ns() : 0;
  if (along_runs)
    run_strided(*cg_->device(), *cg_, record_, group);
  else
    cg_->device()->forward(op, call);
  if (profiling_) {
    profile::kernel(kernel_key(n0), op, n0.dim, count, false, kernel_start, profile::now_ns() - kernel_start);
    profile::add_bytes(bytes.gathered, bytes.in_place, 0);
  }
  if (mem.forward.debug()) check_guard(op, mem.forward, out, call.y.d, "output");
  ++stats_.batches;
}

void BatchedEngine::allocate_gradients(VariableIndex last, const std::uint8_t* needs) {
  // Each group's gradients are one block laid out like its values; coverage_ decides when a
  // block is zeroed, and a group whose block was never written has a zero gradient and is skipped.
  AlignedMemoryPool& pool = cg_->memory().backward;
  group_grad_.assign(record_.size(), nullptr);
  coverage_.clear();
  for (std::uint32_t g = 0; g < record_.size(); ++g) {
    const Group& group = record_[g];
    const VariableIndex* nodes = record_.nodes(group);
    const Dim& d = cg_->node(nodes[0]).dim;
    coverage_.add_block(group.count, d);
    bool any = false;
    for (std::uint32_t j = 0; j < group.count && !any; ++j) any = nodes[j] <= last && needs[nodes[j]];
    if (!any) continue;
    // Counted once: stores to the nodes below could change d as far as the compiler knows.
    const std::size_t size = d.size();
    float* block = pool.allocate_array<float>(size * group.count);
    group_grad_[g] = block;
    for (std::uint32_t j = 0; j < group.count; ++j) cg_->node(nodes[j]).grad = block + j * size;
  }
  // Parameter leaves are in no group: their gradient is the parameter's, or (for constants
  // whose gradient a full backward asks for) their own.
  for (VariableIndex j : alias_nodes_) {
    if (j > last || !needs[j]) continue;
    Node& n = cg_->node(j);
    n.grad = n.op->grad_alias ? n.op->grad_alias(n.data) : zeroed_gradient(n);
  }
  complete_block(record_.group_of(last));  // about to be seeded
}

void BatchedEngine::complete_block(std::uint32_t g) {
  if (g != kNoGroup && group_grad_[g]) coverage_.complete(g, group_grad_[g], *cg_->device());
}

bool BatchedEngine::may_overwrite_nodes(std::uint32_t g, std::uint32_t position, std::uint32_t n) {
  if (coverage_.claim_nodes(g, position, n)) return true;
  complete_block(g);
  return false;
}

bool BatchedEngine::may_overwrite(const OpCall& call, const Group& group, const GroupArg& arg, const Dim& ad) {
  const OpDef& op = *cg_->node(record_.nodes(group)[0]).op;
  if (overwrites_whole_gradient(op)) return may_overwrite_nodes(arg.producer, arg.offset, group.count);
  // A slice overwrites its span of every node when it reads the producer's nodes one to one.
  unsigned begin = 0, end = ad.batch_size();
  const bool overwrite = op.backward_overwrites && arg.offset == 0 && record_[arg.producer].count == group.count &&
                         op.argument_span(call.data[0], ad, begin, end) &&
                         coverage_.claim_span(arg.producer, begin, end);
  if (!overwrite) complete_block(arg.producer);
  return overwrite;
}

void BatchedEngine::backward_nodes(VariableIndex last, const std::uint8_t* needs) {
  last_ = last;
  needs_ = needs;
  lazy_.clear();  // parts left by a pass a kernel's exception ended
  ahead_.begin_backward(&transposes_);
  std::uint64_t leading_calls = 0;
  std::size_t run = fused_runs_.size();
  for (std::uint32_t g = record_.size(); g-- > 0;) {
    leading_calls += ahead_.before(*cg_, g, profiling_);
    while (run > 0 && fused_runs_[run - 1].first > g) --run;
    if (run > 0 && fused_runs_[run - 1].first + fused_runs_[run - 1].ops - 1 == g) {
      const FusedRun& f = fused_runs_[run - 1];
      VertexExecutor::ChainTask task{};
      task.nodes = record_.nodes(record_[f.first]);
      task.count = record_[f.first].count;
      if (executor_.find_chain(f.chain, task) && backward_chain(task, f.first)) {
        g = f.first;
        continue;
      }
    }
    if (group_grad_[g] && !coverage_.untouched(g)) backward_group(g);  // else no gradient reached it
  }
  leading_calls += ahead_.finish(*cg_, profiling_);
  // Gradients nothing reached are zero.
  for (std::uint32_t g = 0; g < record_.size(); ++g) complete_block(g);
  const std::uint64_t lazy_calls = lazy_.run(*cg_, record_, group_grad_, &transposes_, profiling_);
  stats_.backward_batches += leading_calls + lazy_calls;
  stats_.leading_gradients += leading_calls;
  stats_.lazy_weight_calls += lazy_calls;
}

void BatchedEngine::backward_group(std::uint32_t g) {
  GraphMemory& mem = cg_->memory();
  Device* dev = cg_->device();
  const Group& group = record_[g];
  const Node& n0 = cg_->node(record_.nodes(group)[0]);
  const OpDef& op = *n0.op;
  const GroupArg* args = record_.args(group);
  complete_block(g);  // gaps between written slices
  xs_.resize(n0.nargs);
  for (unsigned i = 0; i < n0.nargs; ++i) {
    const Dim& d = cg_->node(n0.arg(i)).dim;
    point(xs_[i], d, args[i].shared ? 1 : group.count, args[i].values);
  }
  OpCall call;
  call.xs = xs_.data();
  call.nargs = n0.nargs;
  point(call.y, n0.dim, group.count, group.values);
  point(call.dy, n0.dim, group.count, group_grad_[g]);
  call.data = record_.data(group);
  call.nodes = group.count;
  call.scratch = &mem.scratch;
  call.transposes = &transposes_;
  const AlignedMemoryPool::Mark mark = mem.scratch.mark();
  const std::uint64_t group_start = profiling_ ? profile::now_ns() : 0;
  std::uint64_t scatter_ns = 0, scattered = 0;
  if (op.leaf_backward) dev->leaf_backward(op, call);
  const bool input_waits = op.sum_of_products && input_gradients_wait(group);
  for (unsigned i = 0; op.backward && i < n0.nargs; ++i) {
    if (input_waits && i == LeadingProducts::kInput) continue;
    if (args[i].shared && cg_->vertex() != 0 && LazyWeightGradients::may_wait(*cg_, record_, g, i)) {
      // Parts for a trainable parameter from a small group wait for one call over every such
      // group (lazy_weight_gradients.h), counted when they run.
      const VariableIndex target = argument_needing_gradient(group, i);
      if (target != kNoNode) lazy_.wait(g, i, target);
      continue;
    }
    const Dim& ad = cg_->node(n0.arg(i)).dim;
    const bool spread = !args[i].shared && args[i].producer == kNoGroup;
    const bool whole = overwrites_whole_gradient(op);
    float* const dx = gradient_destination(group, i, !(spread && whole));
    if (!dx) continue;
    point(call.dx, ad, args[i].shared ? 1 : group.count, dx);
    call.overwrite = args[i].producer != kNoGroup ? may_overwrite(call, group, args[i], ad) : spread && whole;
    dev->backward(op, call, i);
    call.overwrite = false;
    ++stats_.backward_batches;
    if (!spread) continue;
    const std::uint64_t scatter_start = profiling_ ? profile::now_ns() : 0;
    scatter_gradient(group, i, dx, ad.size());
    if (profiling_) scatter_ns += profile::now_ns() - scatter_start;
    scattered += group.count * ad.size() * sizeof(float);
  }
  if (profiling_) {
    profile::kernel(kernel_key(n0), op, n0.dim, group.count, true, group_start,
                    profile::now_ns() - group_start - scatter_ns);
    profile::add_time(profile::Phase::Memory, scatter_ns);
    profile::add_bytes(0, 0, scattered);
    if (const VertexFunction* f = group_function_[g]; f && scattered)
      profile::vertex_task(f->id, f->key, 0, 0, scattered);
  }
  mem.scratch.revert(mark);
}

bool BatchedEngine::input_gradients_wait(const Group& group) {
  const VariableIndex* nodes = record_.nodes(group);
  for (std::uint32_t k = 0; k < group.count; ++k)
    if (!ahead_.member(nodes[k])) return false;
  // A node after the one backward started from has a zero gradient: it has nothing to add.
  constexpr std::uint64_t kWeightElsewhere = std::uint64_t(1) << LeadingProducts::kWeight;
  for (std::uint32_t k = 0; k < group.count; ++k)
    if (nodes[k] <= last_ && ahead_.wait(*cg_, nodes[k], needs_, kWeightElsewhere))
      complete_block(record_.group_of(cg_->node(nodes[k]).arg(LeadingProducts::kInput)));
  return true;
}

VariableIndex BatchedEngine::argument_needing_gradient(const Group& group, unsigned i) const {
  const VariableIndex* nodes = record_.nodes(group);
  for (std::uint32_t j = 0; j < group.count; ++j) {
    const VariableIndex a = cg_->node(nodes[j]).arg(i);
    if (needs_gradient(a)) return a;
  }
  return kNoNode;
}

float* BatchedEngine::gradient_destination(const Group& group, unsigned i, bool zero_scratch) {
  const GroupArg& arg = record_.args(group)[i];
  if (arg.shared) {
    // Every node of the group refers to the same argument (or parameter).
    const VariableIndex target = argument_needing_gradient(group, i);
    if (target == kNoNode) return nullptr;
    complete_block(record_.group_of(target));
    return cg_->node(target).grad;
  }
  const std::size_t asize = cg_->node(cg_->node(record_.nodes(group)[0]).arg(i)).dim.size();
  if (arg.producer != kNoGroup)  // the block exists when any of the producer's nodes needs a gradient
    return group_grad_[arg.producer] ? group_grad_[arg.producer] + std::size_t(arg.offset) * asize : nullptr;
  if (argument_needing_gradient(group, i) == kNoNode) return nullptr;
  float* g = cg_->memory().scratch.allocate_array<float>(asize * group.count);
  if (zero_scratch) cg_->device()->zero(g, asize * group.count);
  return g;
}

void BatchedEngine::scatter_gradient(const Group& group, unsigned i, const float* g, std::size_t asize) {
  // The argument was gathered, along runs recorded then. A run's gradients are consecutive in its
  // group's block, which exists when any of its nodes needs a gradient. Runs that may overwrite
  // are copied before the additions, which never land on them: a block is added to only once it
  // is whole, and then nothing claims it.
  const GroupArg& arg = record_.args(group)[i];
  assert(arg.runs > 0);
  const ArgumentRun* runs = record_.runs(arg);
  runs_.clear();
  adds_.clear();
  for (std::uint32_t r = 0; r < arg.runs; ++r) {
    const ArgumentRun& run = runs[r];
    const float* from = g + run.j * asize;
    if (run.group == kNoGroup) {
      if (needs_gradient(run.node)) adds_.push_back({cg_->node(run.node).grad, from, asize});
      continue;
    }
    if (!group_grad_[run.group]) continue;
    const MemoryRun copy{group_grad_[run.group] + std::size_t(run.position) * asize, from, run.n * asize};
    (may_overwrite_nodes(run.group, run.position, run.n) ? runs_ : adds_).push_back(copy);
  }
  cg_->device()->apply_runs(RunOp::Copy, runs_.data(), runs_.size());
  cg_->device()->apply_runs(RunOp::Accumulate, adds_.data(), adds_.size());
  stats_.bytes_scattered += group.count * asize * sizeof(float);
}

bool BatchedEngine::backward_chain(const VertexExecutor::ChainTask& task, std::uint32_t first) {
  const vertex::FusedChain& chain = *task.chain;
  const std::uint32_t ops = static_cast<std::uint32_t>(chain.ops().size());
  Device& device = *cg_->device();
  if (!FusedChainCall::runs_on(device)) return false;
  bool reached = false;  // whether a gradient reached any op of the chain
  for (std::uint32_t k = 0; k < ops; ++k)
    reached = reached || (group_grad_[first + k] && !coverage_.untouched(first + k));
  if (!reached) return true;
  GraphMemory& mem = cg_->memory();
  const AlignedMemoryPool::Mark mark = mem.scratch.mark();
  const std::uint64_t start = profiling_ ? profile::now_ns() : 0;
  // The chain adds what it passes back inside into an op's gradient from outside, or writes it
  // over a block no gradient has reached yet (the overwrite rule, for the whole block).
  FusedChainCall& c = chain_call_;
  c.start(chain, true);
  for (std::uint32_t k = 0; k < ops; ++k) {
    c.fresh_writes[k] = group_grad_[first + k] && may_overwrite_nodes(first + k, 0, task.count);
    c.write_grads[k] = group_grad_[first + k];
    c.writes[k] = record_[first + k].values;
    c.data[k] = record_.data(record_[first + k])[0];
  }
  const std::size_t reads = chain.reads().size();
  for (std::size_t r = 0; r < reads; ++r) {
    const Group& group = record_[first + task.read_op[r]];
    const GroupArg& arg = record_.args(group)[task.read_arg[r]];
    c.reads[r] = arg.values;
    c.read_grads[r] = gradient_destination(group, task.read_arg[r], true);
    c.fresh_reads[r] = 0;
    if (!c.read_grads[r] || arg.shared || arg.producer == kNoGroup) continue;
    // Written over only by the one read of its nodes (reads are the chain's inputs one by one,
    // and two of them may be one producer's).
    bool alone = chain.read_in_place(static_cast<unsigned>(r));
    for (std::size_t q = 0; q < reads && alone; ++q) {
      const GroupArg& other = record_.args(record_[first + task.read_op[q]])[task.read_arg[q]];
      alone = q == r || other.shared || other.producer != arg.producer;
    }
    if (alone)
      c.fresh_reads[r] = may_overwrite_nodes(arg.producer, arg.offset, task.count);
    else
      complete_block(arg.producer);
  }
  c.backward(device, chain, task.count, mem.scratch);
  const std::uint64_t kernel_end = profiling_ ? profile::now_ns() : 0;
  std::uint64_t scattered = 0;
  for (std::size_t r = 0; r < reads; ++r) {
    const Group& group = record_[first + task.read_op[r]];
    const unsigned i = task.read_arg[r];
    const GroupArg& arg = record_.args(group)[i];
    if (arg.shared || arg.producer != kNoGroup || !c.read_grads[r]) continue;
    const std::size_t asize = cg_->node(cg_->node(record_.nodes(group)[0]).arg(i)).dim.size();
    scatter_gradient(group, i, c.read_grads[r], asize);
    scattered += group.count * asize * sizeof(float);
  }
  if (profiling_) {
    const VertexFunction& f = *group_function_[first];
    profile::fused_chain(f.id, f.key, ops, cg_->node(task.nodes[0]).dim, task.count, true, start, kernel_end - start);
    profile::add_time(profile::Phase::Memory, profile::now_ns() - kernel_end);
    profile::add_bytes(0, 0, scattered);
    if (scattered) profile::vertex_task(f.id, f.key, 0, 0, scattered);
  }
  mem.scratch.revert(mark);
  ++stats_.backward_batches;
  ++stats_.fused_backward_chains;
  return true;
}

}  // namespace dynet
