#include "autobatch/vertex/vertex_function.h"

#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "autobatch/key_table.h"

namespace dynet {

namespace {

inline std::uint64_t mix(std::uint64_t h, std::uint64_t v) { return spread(h ^ v) + v; }

/// How the function sees an instance node's argument a: its position in the instance, or kExternal.
inline std::int32_t argument_symbol(const VertexInstance& inst, VariableIndex a) {
  return a >= inst.begin && a < inst.end ? static_cast<std::int32_t>(a - inst.begin) : VertexFunction::kExternal;
}

struct Registry {
  std::mutex mutex;
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::unique_ptr<VertexFunction>> functions;
};

Registry& registry() {
  static Registry r;
  return r;
}

std::unique_ptr<VertexFunction> trace(const ComputationGraph& cg, const VertexInstance& inst, std::uint64_t hash,
                                      std::uint32_t id) {
  auto f = std::make_unique<VertexFunction>();
  f->id = id;
  f->key = inst.key;
  f->hash = hash;
  for (VariableIndex j = inst.begin; j < inst.end; ++j) {
    const Node& n = cg.node(j);
    f->symbols.push_back({n.op, n.dim_hash, n.nargs, static_cast<std::uint32_t>(f->args.size())});
    for (unsigned i = 0; i < n.nargs; ++i) f->args.push_back(argument_symbol(inst, n.arg(i)));
  }
  return f;
}

}  // namespace

std::uint64_t structural_hash(const ComputationGraph& cg, const VertexInstance& inst) {
  // Each node is hashed on its own, with its position, and the nodes' hashes are summed: the
  // nodes' mixing steps do not wait on each other, where one chain through every node would
  // (discovery hashes every candidate of every graph).
  std::uint64_t h = mix(inst.key, inst.end - inst.begin);
  for (VariableIndex j = inst.begin; j < inst.end; ++j) {
    const Node& n = cg.node(j);
    std::uint64_t x = (std::uint64_t(n.op->id) << 32 | (j - inst.begin)) ^ n.dim_hash;
    for (unsigned i = 0; i < n.nargs; ++i)
      x = x * 0x9E3779B97F4A7C15ull + static_cast<std::uint32_t>(argument_symbol(inst, n.arg(i)));
    h += spread(x);
  }
  return h;
}

bool VertexFunction::matches(const ComputationGraph& cg, const VertexInstance& inst) const {
  if (inst.key != key || inst.end - inst.begin != symbols.size()) return false;
  for (std::uint32_t p = 0; p < symbols.size(); ++p) {
    const Node& n = cg.node(inst.begin + p);
    const Symbol& s = symbols[p];
    if (n.op != s.op || n.dim_hash != s.dim_hash || n.nargs != s.nargs) return false;
    for (unsigned i = 0; i < n.nargs; ++i)
      if (argument_symbol(inst, n.arg(i)) != args[s.first_arg + i]) return false;
  }
  return true;
}

const VertexFunction* function_of(const ComputationGraph& cg, const VertexInstance& inst, std::uint64_t hash) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::unique_ptr<VertexFunction>& f = r.functions[{inst.key, hash}];
  if (!f) {
    f = trace(cg, inst, hash, static_cast<std::uint32_t>(r.functions.size() - 1));
    return f.get();
  }
  return f->matches(cg, inst) ? f.get() : nullptr;
}

std::uint32_t traced_functions() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return static_cast<std::uint32_t>(r.functions.size());
}

}  // namespace dynet
