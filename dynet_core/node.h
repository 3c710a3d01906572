#pragma once
// A node is a plain record in its graph's arena: op row, arguments, shape, op data, and the
// value/gradient memory an engine assigned to it.

#include <cstdint>

#include "dynet_core/dim.h"
#include "dynet_core/op_def.h"

namespace dynet {

using VariableIndex = std::uint32_t;

struct Node {
  static constexpr unsigned kInlineArgs = 3;

  const OpDef* op;
  const void* data;  ///< op data in the graph arena, or null
  Dim dim;
  std::uint32_t nargs;
  std::uint32_t epoch;  ///< graph epoch at creation; see ComputationGraph::revert
  VariableIndex inline_args[kInlineArgs];
  VariableIndex* more_args;  ///< all arguments when there are more than kInlineArgs
  float* value;
  float* grad;
  std::uint64_t signature;  ///< batching signature (dynet_core/signature.h); 0: never batched
  std::uint64_t dim_hash;   ///< hash of dim, so that consumers' signatures need not rehash it
  std::uint32_t depth;      ///< 0 for leaves, else 1 + the largest depth of the arguments

  const VariableIndex* args() const { return nargs <= kInlineArgs ? inline_args : more_args; }
  VariableIndex arg(unsigned i) const { return args()[i]; }
};

}  // namespace dynet
