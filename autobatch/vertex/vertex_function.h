#pragma once
// A vertex function (after Cavs): the static graph of one repeated cell, traced from the first
// instance of its key and kept for the life of the process. Its symbols are its nodes, by
// position in the instance; each argument of a node is another symbol or external (read from
// outside the instance: a gather, a pull or a shared value, which the instance plan tells apart).
// An instance belongs to a function only when its structure (ops, shapes, argument pattern)
// equals the traced one; one key may name several functions (the first step of a chain has no
// recurrent input), each found by its structural hash.

#include <cstdint>
#include <vector>

#include "dynet_core/graph.h"

namespace dynet {

struct VertexFunction {
  static constexpr std::int32_t kExternal = -1;
  struct Symbol {
    const OpDef* op;
    std::uint64_t dim_hash;
    std::uint32_t nargs;
    std::uint32_t first_arg;  ///< into args
  };

  std::uint32_t id;    ///< process-wide, dense from 0 in order of tracing
  std::uint64_t key;   ///< the VertexScope key
  std::uint64_t hash;  ///< structural hash
  std::vector<Symbol> symbols;
  std::vector<std::int32_t> args;  ///< a symbol's position, or kExternal

  /// Whether the instance's nodes have exactly this structure.
  bool matches(const ComputationGraph& cg, const VertexInstance& inst) const;
};

/// The structural hash of an instance's nodes.
std::uint64_t structural_hash(const ComputationGraph& cg, const VertexInstance& inst);

/// The process-wide function of this instance's key and structure, traced from it when it is the
/// first of its kind; null when the instance does not match the function its hash names.
/// Thread-safe; functions live until the process ends.
const VertexFunction* function_of(const ComputationGraph& cg, const VertexInstance& inst, std::uint64_t hash);

/// How many functions have been traced.
std::uint32_t traced_functions();

}  // namespace dynet
