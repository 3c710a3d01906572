#include "autobatch/vertex/instance_plan.h"

#include "autobatch/key_table.h"
#include "dynet_core/signature.h"

namespace dynet {

void InstancePlan::clear() {
  units_.clear(0);
  functions_.clear();
  signature_key_.clear();
  node_start_.assign(1, 0);
  nodes_.clear();
  marked_ = 0;
}

void InstancePlan::build(const ComputationGraph& cg, VariableIndex begin, VariableIndex end) {
  clear();
  cg_ = &cg;
  begin_ = begin;
  units_.clear(end - begin);
  in_instance_.assign(end - begin, 0);
  // A graph without scopes is searched for repeated cells; one with scopes is taken as marked.
  const bool marked = !cg.vertex_instances().empty();
  if (!marked) discovery_.find(cg, begin, end);
  const std::vector<VertexInstance>& all = marked ? cg.vertex_instances() : discovery_.instances();
  for (const VertexInstance& inst : all) {
    if (inst.begin < begin || inst.end > end || inst.end <= inst.begin) continue;
    for (VariableIndex j = inst.begin; j < inst.end; ++j) in_instance_[j - begin] = 1;
  }
  for (std::size_t k = 0; k < all.size(); ++k) {
    const VertexInstance& inst = all[k];
    if (inst.begin >= begin && inst.end <= end && inst.end > inst.begin) {
      ++marked_;
      add(cg, inst, marked ? marked_function(cg, inst) : function_for(cg, inst, discovery_.hashes()[k]));
    }
  }
}

const VertexFunction* InstancePlan::function_for(const ComputationGraph& cg, const VertexInstance& inst,
                                                 std::uint64_t hash) {
  // A structural hash names one structure (the process-wide table checked the instance it was
  // traced from against it): a second comparison node by node would only repeat the hashing.
  const VertexFunction*& f = known_[spread(inst.key) ^ hash];
  if (f && f->hash == hash && f->key == inst.key) return f;
  const VertexFunction* found = function_of(cg, inst, hash);
  if (found) f = found;
  return found;
}

const VertexFunction* InstancePlan::marked_function(const ComputationGraph& cg, const VertexInstance& inst) {
  std::vector<const VertexFunction*>& seen = by_key_[inst.key];
  for (const VertexFunction* f : seen)
    if (f->matches(cg, inst)) return f;
  const VertexFunction* f = function_for(cg, inst, structural_hash(cg, inst));
  if (f && seen.size() < kMaxPerKey) seen.push_back(f);
  return f;
}

void InstancePlan::add(const ComputationGraph& cg, const VertexInstance& inst, const VertexFunction* f) {
  if (!f) return;
  const std::uint32_t n = inst.end - inst.begin;
  runs_.assign(n, 0);
  // Units of one function that run the same positions are scheduled together; their signatures
  // (which weights they read) only decide how each position splits into groups.
  std::uint64_t key = spread(0xF00DF00Dull + f->id), signatures = key;
  for (std::uint32_t p = 0; p < n; ++p) {
    const Node& nd = cg.node(inst.begin + p);
    if (nd.op->value_alias) continue;  // parameter leaves run nowhere
    // A node runs in the unit when it reads a gather (another instance's node) or a node that does.
    bool runs = false;
    for (unsigned i = 0; i < nd.nargs && !runs; ++i) {
      const VariableIndex a = nd.arg(i);
      runs = a >= inst.begin ? runs_[a - inst.begin] : a >= begin_ && in_instance_[a - begin_];
    }
    if (!runs) continue;
    if (nd.signature == 0) return;  // a node that is never batched cuts the instance
    runs_[p] = 1;
    key = spread(key + p);
    signatures = spread(signatures ^ nd.signature) + p;
  }
  const std::uint32_t u = static_cast<std::uint32_t>(functions_.size());
  VariableIndex first = 0;
  std::uint32_t count = 0;
  for (std::uint32_t p = 0; p < n; ++p) {
    if (!runs_[p]) continue;
    if (count++ == 0) first = inst.begin + p;
    nodes_.push_back(inst.begin + p);
    units_.unit_of[inst.begin + p - begin_] = u;
  }
  if (count == 0) return;  // hoisted whole: it reads no other instance
  functions_.push_back(f);
  node_start_.push_back(static_cast<std::uint32_t>(nodes_.size()));
  units_.first.push_back(first);
  units_.key.push_back(key ? key : 1);
  signature_key_.push_back(signatures);
}

}  // namespace dynet
