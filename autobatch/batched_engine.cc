#include "autobatch/batched_engine.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "autobatch/signature.h"
#include "dynet_core/ops/accumulate.h"
#include "dynet_core/profiler.h"

namespace dynet {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint32_t kUnbatchable = 0xFFFFFFFEu;
constexpr VariableIndex kNoNode = 0xFFFFFFFFu;
constexpr std::uint32_t kEmptySlot = 0xFFFFFFFFu;

inline std::uint64_t spread(std::uint64_t k) {
  k ^= k >> 33;
  k *= 0xFF51AFD7ED558CCDull;
  return k ^ (k >> 33);
}

std::uint64_t elapsed_ns(Clock::time_point since) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - since).count());
}

/// How many nodes like n fit one group: the group runs as one tensor per argument and output,
/// and none may exceed Dim::kMaxElements (each node's own tensors fit, so this is at least 1).
std::uint32_t max_group(const ComputationGraph& cg, const Node& n) {
  std::size_t largest = n.dim.size();
  for (unsigned i = 0; i < n.nargs; ++i) largest = std::max(largest, cg.node(n.arg(i)).dim.size());
  return static_cast<std::uint32_t>(Dim::kMaxElements / largest);
}

}  // namespace

Tensor BatchedEngine::batched(const Dim& d, std::uint32_t count, float* v) const {
  return Tensor(d.with_batch(d.bd * count), v, cg_->device());
}

template <class F>
void BatchedEngine::for_each_run(const VariableIndex* nodes, std::uint32_t count, unsigned i, F&& f) const {
  VariableIndex a = cg_->node(nodes[0]).arg(i);
  for (std::uint32_t j = 0; j < count;) {
    const std::uint32_t group = node_batch_[a], position = node_pos_[a];
    std::uint32_t n = 1;
    VariableIndex next = a;
    for (; j + n < count; ++n) {
      next = cg_->node(nodes[j + n]).arg(i);
      if (group == kNotScheduled || node_batch_[next] != group || node_pos_[next] != position + n) break;
    }
    f(j, n, group, position, a);
    j += n;
    a = next;
  }
}

void BatchedEngine::on_forget() {
  alias_nodes_.clear();
  node_batch_.clear();
  node_pos_.clear();
  batches_.clear();
  batch_nodes_.clear();
  batch_data_.clear();
  batch_args_.clear();
}

void BatchedEngine::on_truncate(VariableIndex) {
  // Groups may mix surviving and dropped nodes; recomputing is simpler than splitting them.
  invalidate();
}

void BatchedEngine::clear_keys() {
  for (std::uint32_t pos : used_slots_) table_[pos].id = kEmptySlot;
  used_slots_.clear();
  keys_ = 0;
}

std::uint32_t BatchedEngine::key_id(std::uint64_t key) {
  if (table_.size() < 2 * (std::size_t(keys_) + 1)) {
    std::vector<KeySlot> old;
    old.swap(table_);
    table_.assign(old.empty() ? 1024 : 2 * old.size(), KeySlot{0, kEmptySlot});
    const std::size_t mask = table_.size() - 1;
    used_slots_.clear();
    for (const KeySlot& s : old) {
      if (s.id == kEmptySlot) continue;
      std::size_t pos = spread(s.key) & mask;
      while (table_[pos].id != kEmptySlot) pos = (pos + 1) & mask;
      table_[pos] = s;
      used_slots_.push_back(static_cast<std::uint32_t>(pos));
    }
  }
  const std::size_t mask = table_.size() - 1;
  std::size_t pos = spread(key) & mask;
  while (table_[pos].id != kEmptySlot) {
    if (table_[pos].key == key) return table_[pos].id;
    pos = (pos + 1) & mask;
  }
  const std::uint32_t id = keys_++;
  table_[pos] = {key, id};
  used_slots_.push_back(static_cast<std::uint32_t>(pos));
  if (ready_.size() <= id) {
    ready_.resize(id + 1);
    remaining_.resize(id + 1);
    key_nodes_.resize(id + 1);
    key_depth_sum_.resize(id + 1);
  }
  ready_[id].clear();
  remaining_[id] = 0;
  key_nodes_[id] = 0;
  key_depth_sum_[id] = 0;
  return id;
}

void BatchedEngine::make_ready(VariableIndex node, std::uint32_t local) {
  const std::uint32_t k = key_of_[local];
  if (k == kUnbatchable) {
    immediate_.push_back(node);
    return;
  }
  std::vector<VariableIndex>& r = ready_[k];
  if (r.empty()) active_.push_back(k);
  r.push_back(node);
}

std::uint32_t BatchedEngine::pick_key() const {
  std::uint32_t best = active_[0];
  auto better = [&](std::uint32_t a, std::uint32_t b) {
    if (policy_ == Policy::Agenda) {
      const bool complete_a = ready_[a].size() == remaining_[a], complete_b = ready_[b].size() == remaining_[b];
      if (complete_a != complete_b) return complete_a;
    }
    const double depth_a = key_depth_sum_[a] / key_nodes_[a], depth_b = key_depth_sum_[b] / key_nodes_[b];
    if (depth_a != depth_b) return depth_a < depth_b;
    return ready_[a].size() > ready_[b].size();
  };
  for (std::uint32_t k : active_)
    if (better(k, best)) best = k;
  return best;
}

void BatchedEngine::forward_nodes(VariableIndex begin, VariableIndex end) {
  const Clock::time_point start = Clock::now();
  const std::uint64_t kernel_ns_before = kernel_ns_;
  const std::uint32_t n = end - begin;
  key_of_.assign(n, kNotScheduled);
  node_batch_.resize(end, kNotScheduled);
  node_pos_.resize(end);
  pending_.assign(n, 0);
  consumer_start_.assign(n + 1, 0);
  clear_keys();
  active_.clear();
  immediate_.clear();

  // Keys, dependency counts and the number of consumers of each node.
  for (std::uint32_t j = 0; j < n; ++j) {
    Node& nd = cg_->node(begin + j);
    if (nd.op->value_alias) {
      nd.value = nd.op->value_alias(nd.data);
      alias_nodes_.push_back(begin + j);
      continue;
    }
    if (nd.signature == 0) {
      key_of_[j] = kUnbatchable;
    } else {
      const std::uint64_t key = policy_ == Policy::Depth ? spread(nd.signature ^ spread(nd.depth + 1)) : nd.signature;
      const std::uint32_t k = key_id(key);
      key_of_[j] = k;
      ++remaining_[k];
      ++key_nodes_[k];
      key_depth_sum_[k] += nd.depth;
    }
    const VariableIndex* args = nd.args();
    for (unsigned i = 0; i < nd.nargs; ++i) {
      const VariableIndex a = args[i];
      if (a < begin || key_of_[a - begin] == kNotScheduled) continue;
      ++pending_[j];
      ++consumer_start_[a - begin + 1];
    }
  }
  for (std::uint32_t j = 0; j < n; ++j) consumer_start_[j + 1] += consumer_start_[j];
  consumers_.resize(consumer_start_[n]);
  for (std::uint32_t j = 0; j < n; ++j) {
    if (key_of_[j] == kNotScheduled) continue;
    const Node& nd = cg_->node(begin + j);
    const VariableIndex* args = nd.args();
    for (unsigned i = 0; i < nd.nargs; ++i) {
      const VariableIndex a = args[i];
      if (a < begin || key_of_[a - begin] == kNotScheduled) continue;
      consumers_[consumer_start_[a - begin]++] = begin + j;
    }
  }
  for (std::uint32_t j = n; j > 0; --j) consumer_start_[j] = consumer_start_[j - 1];
  consumer_start_[0] = 0;

  for (std::uint32_t j = 0; j < n; ++j)
    if (key_of_[j] != kNotScheduled && pending_[j] == 0) make_ready(begin + j, j);

  for (;;) {
    while (!immediate_.empty()) {
      const std::uint32_t first = static_cast<std::uint32_t>(batch_nodes_.size());
      batch_nodes_.push_back(immediate_.back());
      immediate_.pop_back();
      run_group(first, 1);
      release_consumers(first, 1, begin);
    }
    if (active_.empty()) break;
    const std::uint32_t k = pick_key();
    for (std::size_t a = 0; a < active_.size(); ++a)
      if (active_[a] == k) {
        active_[a] = active_.back();
        active_.pop_back();
        break;
      }
    const std::uint32_t first = static_cast<std::uint32_t>(batch_nodes_.size());
    const std::uint32_t count = static_cast<std::uint32_t>(ready_[k].size());
    batch_nodes_.insert(batch_nodes_.end(), ready_[k].begin(), ready_[k].end());
    ready_[k].clear();
    remaining_[k] -= count;
    const std::uint32_t most = max_group(*cg_, cg_->node(batch_nodes_[first]));
    for (std::uint32_t done = 0; done < count; done += most) run_group(first + done, std::min(most, count - done));
    release_consumers(first, count, begin);
  }
  const std::uint64_t scheduling = elapsed_ns(start) - (kernel_ns_ - kernel_ns_before);
  stats_.scheduling_ns += scheduling;
  if (profiling_) profile::add_time(profile::Phase::Scheduling, scheduling);
}

void BatchedEngine::release_consumers(std::uint32_t first, std::uint32_t count, VariableIndex begin) {
  for (std::uint32_t b = first; b < first + count; ++b) {
    const std::uint32_t local = batch_nodes_[b] - begin;
    for (std::uint32_t c = consumer_start_[local]; c < consumer_start_[local + 1]; ++c) {
      const VariableIndex consumer = consumers_[c];
      if (--pending_[consumer - begin] == 0) make_ready(consumer, consumer - begin);
    }
  }
}

bool BatchedEngine::consecutive_outputs(const VariableIndex* nodes, std::uint32_t count, unsigned i,
                                        std::uint32_t& producer, std::uint32_t& offset) const {
  const VariableIndex a0 = cg_->node(nodes[0]).arg(i);
  producer = node_batch_[a0];
  offset = node_pos_[a0];
  bool run = producer != kNotScheduled;
  for (std::uint32_t j = 1; j < count && run; ++j) {
    const VariableIndex a = cg_->node(nodes[j]).arg(i);
    run = node_batch_[a] == producer && node_pos_[a] == offset + j;
  }
  return run;
}

float* BatchedEngine::view_of_argument(const VariableIndex* nodes, std::uint32_t count, std::uint32_t& stride) const {
  const Node& n0 = cg_->node(nodes[0]);
  const OpDef& op = *n0.op;
  if (!op.argument_span || n0.nargs != 1 || (op.saves & kSavesOutput)) return nullptr;
  // Only computed values: a slice of a parameter (or any memory a leaf aliases) is a copy, so
  // that it keeps the value it was computed with when the parameter changes.
  const Node& a0 = cg_->node(n0.arg(0));
  unsigned begin = 0, end = 0;
  if (node_batch_[n0.arg(0)] == kNotScheduled || a0.dim.bd != 1 || !op.argument_span(n0.data, a0.dim, begin, end))
    return nullptr;
  if (count == 1) {
    stride = n0.dim.size();
    return a0.value + begin;
  }
  std::uint32_t producer, offset;
  if (!consecutive_outputs(nodes, count, 0, producer, offset)) return nullptr;
  const Batch& p = batches_[producer];
  stride = p.stride;
  return p.values + std::size_t(offset) * p.stride + begin;
}

void BatchedEngine::run_group(std::uint32_t first, std::uint32_t count) {
  const Clock::time_point start = Clock::now();
  GraphMemory& mem = cg_->memory();
  const VariableIndex* nodes = batch_nodes_.data() + first;
  Node& n0 = cg_->node(nodes[0]);
  const OpDef& op = *n0.op;
  const std::size_t size = n0.dim.size();
  // A slice of a node, or of consecutive outputs of a group, needs no copy: the nodes point at
  // their slices, every `stride` floats (a strided group; its readers gather from it).
  std::uint32_t stride = static_cast<std::uint32_t>(size);
  float* const view = view_of_argument(nodes, count, stride);
  float* const out = view ? view : mem.forward.allocate_array<float>(size * count);
  batch_data_.resize(first + count);
  for (std::uint32_t j = 0; j < count; ++j) {
    Node& n = cg_->node(nodes[j]);
    n.value = out + std::size_t(j) * stride;
    batch_data_[first + j] = n.data;
  }

  const AlignedMemoryPool::Mark mark = mem.scratch.mark();
  const std::uint32_t first_arg = static_cast<std::uint32_t>(batch_args_.size());
  std::uint64_t gathered = 0, in_place = 0;
  xs_.resize(n0.nargs);
  for (unsigned i = 0; i < n0.nargs; ++i) {
    const VariableIndex a0_index = n0.arg(i);
    const Node& a0 = cg_->node(a0_index);
    const std::size_t asize = a0.dim.size();
    if (count == 1 || shared_argument(op, i, a0, n0.dim)) {
      xs_[i] = Tensor(a0.dim, a0.value, cg_->device());
      batch_args_.push_back({a0.value, kNoGroup, 0, true});
      if (!view) {
        stats_.bytes_in_place += asize * sizeof(float);
        in_place += asize * sizeof(float);
      }
      continue;
    }
    // In place when the arguments are consecutive outputs of one group, in order, side by side.
    std::uint32_t producer, offset;
    const bool run = consecutive_outputs(nodes, count, i, producer, offset);
    float* v;
    const std::uint64_t bytes = count * asize * sizeof(float);
    if (view) {
      v = batches_[producer].values + std::size_t(offset) * batches_[producer].stride;  // never read
    } else if (run && batches_[producer].stride == asize) {
      v = batches_[producer].values + std::size_t(offset) * asize;
      stats_.bytes_in_place += bytes;
      in_place += bytes;
    } else {
      const std::uint64_t gather_start = profiling_ ? profile::now_ns() : 0;
      // Backward reads the gathered copy again only when the op saves its inputs.
      v = op.saves & kSavesInputs ? mem.forward.allocate_array<float>(count * asize)
                                  : mem.scratch.allocate_array<float>(count * asize);
      for_each_run(nodes, count, i,
                   [&](std::uint32_t j, std::uint32_t n, std::uint32_t group, std::uint32_t position, VariableIndex a) {
                     if (group == kNotScheduled) {
                       std::memcpy(v + j * asize, cg_->node(a).value, asize * sizeof(float));
                       return;
                     }
                     const Batch& from = batches_[group];
                     if (from.stride == asize) {
                       std::memcpy(v + j * asize, from.values + std::size_t(position) * asize, n * asize * sizeof(float));
                       return;
                     }
                     for (std::uint32_t k = 0; k < n; ++k)
                       std::memcpy(v + (j + k) * asize, from.values + std::size_t(position + k) * from.stride,
                                   asize * sizeof(float));
                   });
      stats_.bytes_gathered += bytes;
      gathered += bytes;
      if (profiling_) profile::add_time(profile::Phase::Memory, profile::now_ns() - gather_start);
    }
    xs_[i] = batched(a0.dim, count, v);
    batch_args_.push_back({v, run ? producer : kNoGroup, offset, false});
  }
  if (!view) {
    OpCall call;
    call.xs = xs_.data();
    call.nargs = n0.nargs;
    call.y = batched(n0.dim, count, out);
    call.data = batch_data_.data() + first;
    call.nodes = count;
    call.scratch = &mem.scratch;
    const std::uint64_t kernel_start = profiling_ ? profile::now_ns() : 0;
    op.forward(call);
    if (profiling_) {
      profile::kernel(kernel_key(n0), op, n0.dim, count, false, kernel_start, profile::now_ns() - kernel_start);
      profile::add_bytes(gathered, in_place, 0);
    }
    if (mem.forward.debug()) check_guard(op, mem.forward, out, call.y.d, "output");
    ++stats_.batches;
  }
  mem.scratch.revert(mark);

  const std::uint32_t batch_index = static_cast<std::uint32_t>(batches_.size());
  for (std::uint32_t j = 0; j < count; ++j) {
    node_batch_[nodes[j]] = batch_index;
    node_pos_[nodes[j]] = j;
  }
  batches_.push_back({first, count, first_arg, out, stride});
  stats_.nodes += count;
  kernel_ns_ += elapsed_ns(start);
}

void BatchedEngine::allocate_gradients(VariableIndex last, const std::uint8_t* needs) {
  // Each group's gradients are one block laid out like its values; a block is zeroed only when
  // a gradient is first added to it (in cache, right before use) — not at all when its first
  // write covers it whole and may overwrite — and a group whose block was never written has a
  // zero gradient and is skipped.
  AlignedMemoryPool& pool = cg_->memory().backward;
  batch_grad_.assign(batches_.size(), nullptr);
  batch_written_.assign(batches_.size(), kWrittenNothing);
  first_span_.assign(batches_.size(), kNoSpan);
  spans_.clear();
  node_written_.assign(batch_nodes_.size(), 0);
  nodes_written_.assign(batches_.size(), 0);
  for (std::size_t bi = 0; bi < batches_.size(); ++bi) {
    const Batch& b = batches_[bi];
    const VariableIndex* nodes = batch_nodes_.data() + b.first_node;
    bool any = false;
    for (std::uint32_t j = 0; j < b.count && !any; ++j) any = nodes[j] <= last && needs[nodes[j]];
    if (!any) continue;
    const std::size_t size = cg_->node(nodes[0]).dim.size();
    float* g = pool.allocate_array<float>(size * b.count);
    batch_grad_[bi] = g;
    for (std::uint32_t j = 0; j < b.count; ++j) cg_->node(nodes[j]).grad = g + j * size;
  }
  // Parameter leaves are in no group: their gradient is the parameter's, or (for constants
  // whose gradient a full backward asks for) their own.
  for (VariableIndex j : alias_nodes_) {
    if (j > last || !needs[j]) continue;
    Node& n = cg_->node(j);
    n.grad = n.op->grad_alias ? n.op->grad_alias(n.data) : zeroed_gradient(n);
  }
  zero_gradient_block(node_batch_[last]);  // about to be seeded
}

void BatchedEngine::zero_gradient_block(std::uint32_t g) {
  if (g == kNotScheduled || batch_written_[g] == kWrittenAll || !batch_grad_[g]) return;
  const Batch& batch = batches_[g];
  const Dim& d = cg_->node(batch_nodes_[batch.first_node]).dim;
  float* block = batch_grad_[g];
  if (batch_written_[g] == kWrittenNothing) {
    std::memset(block, 0, d.size() * batch.count * sizeof(float));
  } else if (batch_written_[g] == kWrittenNodes) {
    const std::uint8_t* written = node_written_.data() + batch.first_node;
    for (std::uint32_t j = 0; j < batch.count;) {
      if (written[j]) {
        ++j;
        continue;
      }
      std::uint32_t n = 1;
      while (j + n < batch.count && !written[j + n]) ++n;
      std::memset(block + std::size_t(j) * d.size(), 0, n * d.size() * sizeof(float));
      j += n;
    }
  } else {
    // Zero the gaps between the written spans of every batch element.
    gaps_.clear();
    for (std::uint32_t s = first_span_[g]; s != kNoSpan; s = spans_[s].next) gaps_.push_back(spans_[s]);
    std::sort(gaps_.begin(), gaps_.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
    const std::size_t size = d.batch_size(), elements = std::size_t(d.bd) * batch.count;
    for (std::size_t e = 0; e < elements; ++e) {
      float* v = block + e * size;
      std::size_t from = 0;
      for (const Span& s : gaps_) {
        std::memset(v + from, 0, (s.begin - from) * sizeof(float));
        from = s.end;
      }
      std::memset(v + from, 0, (size - from) * sizeof(float));
    }
    first_span_[g] = kNoSpan;
  }
  batch_written_[g] = kWrittenAll;
}

bool BatchedEngine::claim_nodes(std::uint32_t g, std::uint32_t position, std::uint32_t n) {
  const Batch& batch = batches_[g];
  if (batch_written_[g] == kWrittenAll) return false;
  std::uint8_t* written = node_written_.data() + batch.first_node + position;
  bool fresh = batch_written_[g] != kWrittenSpans;
  for (std::uint32_t j = 0; j < n && fresh; ++j) fresh = !written[j];
  if (!fresh) {
    zero_gradient_block(g);
    return false;
  }
  nodes_written_[g] += n;
  if (nodes_written_[g] == batch.count) {
    batch_written_[g] = kWrittenAll;
  } else {
    std::memset(written, 1, n);
    batch_written_[g] = kWrittenNodes;
  }
  return true;
}

bool BatchedEngine::claim_span(std::uint32_t g, std::uint32_t begin, std::uint32_t end, std::uint32_t size) {
  if (batch_written_[g] == kWrittenAll) return false;
  if (batch_written_[g] == kWrittenNodes) {
    zero_gradient_block(g);
    return false;
  }
  std::uint32_t covered = end - begin;
  for (std::uint32_t s = first_span_[g]; s != kNoSpan; s = spans_[s].next) {
    if (spans_[s].begin < end && begin < spans_[s].end) {
      zero_gradient_block(g);
      return false;
    }
    covered += spans_[s].end - spans_[s].begin;
  }
  if (covered == size) {
    batch_written_[g] = kWrittenAll;
    first_span_[g] = kNoSpan;
  } else {
    spans_.push_back({begin, end, first_span_[g]});
    first_span_[g] = static_cast<std::uint32_t>(spans_.size() - 1);
    batch_written_[g] = kWrittenSpans;
  }
  return true;
}

void BatchedEngine::backward_nodes(VariableIndex last, const std::uint8_t* needs) {
  GraphMemory& mem = cg_->memory();
  Device* dev = cg_->device();
  auto wanted = [&](VariableIndex a) { return a <= last && needs[a]; };
  for (std::size_t bi = batches_.size(); bi-- > 0;) {
    const Batch& b = batches_[bi];
    if (!batch_grad_[bi] || batch_written_[bi] == kWrittenNothing) continue;  // no gradient reached this group
    zero_gradient_block(bi);  // gaps between written slices
    const VariableIndex* nodes = batch_nodes_.data() + b.first_node;
    const Node& n0 = cg_->node(nodes[0]);
    const OpDef& op = *n0.op;
    const GroupArg* args = batch_args_.data() + b.first_arg;
    xs_.resize(n0.nargs);
    for (unsigned i = 0; i < n0.nargs; ++i) {
      const Dim& d = cg_->node(n0.arg(i)).dim;
      xs_[i] = args[i].shared ? Tensor(d, args[i].values, dev) : batched(d, b.count, args[i].values);
    }
    OpCall call;
    call.xs = xs_.data();
    call.nargs = n0.nargs;
    call.y = batched(n0.dim, b.count, b.values);
    call.dy = batched(n0.dim, b.count, batch_grad_[bi]);
    call.data = batch_data_.data() + b.first_node;
    call.nodes = b.count;
    call.scratch = &mem.scratch;
    call.transposes = &transposes_;
    const AlignedMemoryPool::Mark mark = mem.scratch.mark();
    const std::uint64_t batch_start = profiling_ ? profile::now_ns() : 0;
    std::uint64_t scatter_ns = 0, scattered = 0;
    if (op.leaf_backward) op.leaf_backward(call);
    if (op.backward) {
      for (unsigned i = 0; i < n0.nargs; ++i) {
        const GroupArg& arg = args[i];
        if (arg.shared) {
          // Every node of the group refers to the same argument (or parameter): find one that
          // receives a gradient.
          VariableIndex target = kNoNode;
          for (std::uint32_t j = 0; j < b.count && target == kNoNode; ++j) {
            const VariableIndex a = cg_->node(nodes[j]).arg(i);
            if (wanted(a)) target = a;
          }
          if (target == kNoNode) continue;
          zero_gradient_block(node_batch_[target]);
          call.dx = Tensor(cg_->node(target).dim, cg_->node(target).grad, dev);
          op.backward(call, i);
          ++stats_.backward_batches;
          continue;
        }
        const Dim& ad = cg_->node(n0.arg(i)).dim;
        const std::size_t asize = ad.size();
        if (arg.producer != kNoGroup) {
          // Consecutive outputs of one group: their gradients are consecutive in its block, which
          // exists when any of its nodes needs a gradient. The first write of a whole block (or of
          // a slice of every node) needs no zeroing when the kernel can overwrite.
          const std::uint32_t p = arg.producer;
          if (!batch_grad_[p]) continue;
          if (!op.backward_overwrites) {
            call.overwrite = false;
          } else if (!op.argument_span) {
            call.overwrite = claim_nodes(p, arg.offset, b.count);
          } else {
            unsigned begin = 0, end = ad.batch_size();
            call.overwrite = arg.offset == 0 && batches_[p].count == b.count &&
                             op.argument_span(call.data[0], ad, begin, end) && claim_span(p, begin, end, ad.batch_size());
          }
          if (!call.overwrite) zero_gradient_block(p);
          call.dx = batched(ad, b.count, batch_grad_[p] + std::size_t(arg.offset) * asize);
          op.backward(call, i);
          call.overwrite = false;
        } else {
          bool any = false;
          for (std::uint32_t j = 0; j < b.count && !any; ++j) any = wanted(cg_->node(nodes[j]).arg(i));
          if (!any) continue;
          float* g = mem.scratch.allocate_array<float>(asize * b.count);
          const bool writes_whole = op.backward_overwrites && !op.argument_span;
          if (!writes_whole) std::memset(g, 0, asize * b.count * sizeof(float));
          call.dx = batched(ad, b.count, g);
          call.overwrite = writes_whole;
          op.backward(call, i);
          call.overwrite = false;
          const std::uint64_t scatter_start = profiling_ ? profile::now_ns() : 0;
          // A run's gradients are consecutive in its group's block, which exists when any of its
          // nodes needs a gradient.
          for_each_run(nodes, b.count, i,
                       [&](std::uint32_t j, std::uint32_t n, std::uint32_t group, std::uint32_t position, VariableIndex a) {
                         if (group == kNotScheduled ? !wanted(a) : !batch_grad_[group]) return;
                         if (group == kNotScheduled) {
                           accumulate(cg_->node(a).grad, g + j * asize, n * asize);
                           return;
                         }
                         accumulate(batch_grad_[group] + std::size_t(position) * asize, g + j * asize, n * asize,
                                    claim_nodes(group, position, n));
                       });
          if (profiling_) scatter_ns += profile::now_ns() - scatter_start;
          stats_.bytes_scattered += b.count * asize * sizeof(float);
          scattered += b.count * asize * sizeof(float);
        }
        ++stats_.backward_batches;
      }
    }
    if (profiling_) {
      profile::kernel(kernel_key(n0), op, n0.dim, b.count, true, batch_start,
                      profile::now_ns() - batch_start - scatter_ns);
      profile::add_time(profile::Phase::Memory, scatter_ns);
      profile::add_bytes(0, 0, scattered);
    }
    mem.scratch.revert(mark);
  }
  // Gradients nothing reached are zero.
  for (std::uint32_t bi = 0; bi < batches_.size(); ++bi) zero_gradient_block(bi);
}

}  // namespace dynet
