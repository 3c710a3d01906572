#pragma once
// Batching signatures. Nodes with equal signatures run as one kernel call: same op, same output
// shape, same kernel-selecting op data, and argument by argument either the same shape (the
// arguments are concatenated along the batch) or the same node (a shared argument: a parameter
// the op declares shared, such as a weight, or where the kernel broadcasts, such as a bias, or
// anything broadcast along the batch). Parameter leaves count as "the same node" when they refer
// to the same parameter, so writing parameter() at every use batches exactly like writing it once
// per graph.
//
// A computed value where the op declares a shared argument (the left operand of H * att, with H
// each example's encoder states) is keyed by its shape, not by its node: the products of all
// examples then run as one call. Such a group shares the argument when every node reads the same
// one (autobatch/argument_placement.h) and otherwise runs as a batched product, each node's own
// matrix times its own operand.

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "dynet_core/node.h"

namespace dynet {

/// Whether argument i (the node `arg`) of a node of `op` with output `out` is shared by every group
/// of the node's signature rather than concatenated: broadcast along the batch, or a parameter the
/// op declares shared (with one batch element) or broadcasts. A group's call is one node with the
/// batch elements of all its nodes, so a kernel can serve one argument to all of them only by
/// broadcasting it: a declared shared argument with several batch elements (a batched matrix
/// times each node's batched operand) is concatenated, once per node, like any other.
inline bool shared_argument(const OpDef& op, unsigned i, const Node& arg, const Dim& out) {
  return arg.dim.bd < out.bd ||
         (arg.op->value_alias && ((op.batch.is_shared(i) && arg.dim.bd == 1) || op.batch.is_broadcast(i)));
}

/// The identity a shared argument contributes to a signature.
std::uint64_t argument_identity(const Node& a, VariableIndex index);

/// A hash of a shape (batch size included), which nodes keep for their consumers' signatures, and
/// whether the shape fits (Dim::fits): every new node needs both, told in one pass over its dims.
struct DimHash {
  std::uint64_t hash;
  bool fits;
};

// Inline, as they run for every node added: construction fused with them takes a few percent
// less time than calling them.

inline std::uint64_t signature_mix(std::uint64_t h, std::uint64_t v) {
  h ^= v;
  h *= 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

inline DimHash dim_hash(const Dim& d) {
  std::uint64_t h = signature_mix(0xA5A5A5A5ull, (std::uint64_t(d.nd) << 32) | d.bd);
  // The element count is held at kMaxElements + 1 once past the limit: from a batch size below
  // 2^32, no product overflows 64 bits, and no branch is taken per dimension.
  constexpr std::uint64_t kPast = Dim::kMaxElements + 1;
  std::uint64_t elements = d.bd;
  for (unsigned k = 0; k < d.nd; ++k) {
    h = signature_mix(h, d.d[k]);
    elements = std::min(elements * d.d[k], kPast);
  }
  return {h, elements < kPast};
}

/// The signature of a node about to be added with these arguments (out_hash = dim_hash(out).hash);
/// 0 means never batched.
inline std::uint64_t node_signature(const OpDef& op, const void* data, const Dim& out, std::uint64_t out_hash,
                                    const Node* const* args, const VariableIndex* arg_indices, unsigned nargs) {
  if (op.batch.rule == BatchRule::None || op.value_alias) return 0;
  std::uint64_t h = signature_mix(out_hash, op.id);
  if (op.batch.sig_bytes) {
    // A word at a time: a copy through a zeroed word on the stack stalls on the store buffer.
    const unsigned char* bytes = static_cast<const unsigned char*>(data);
    unsigned k = 0;
    for (; k + 8 <= op.batch.sig_bytes; k += 8) {
      std::uint64_t word;
      std::memcpy(&word, bytes + k, 8);
      h = signature_mix(h, word);
    }
    if (k < op.batch.sig_bytes) {
      std::uint64_t word = 0;
      std::memcpy(&word, bytes + k, op.batch.sig_bytes - k);
      h = signature_mix(h, word);
    }
  }
  h = signature_mix(h, nargs);
  for (unsigned i = 0; i < nargs; ++i)
    h = signature_mix(
        h, shared_argument(op, i, *args[i], out) ? argument_identity(*args[i], arg_indices[i]) : args[i]->dim_hash);
  return h ? h : 1;
}

/// The key kernels of a node are profiled under: its signature, or for nodes that are never
/// batched, its op and shape.
inline std::uint64_t kernel_key(const Node& n) {
  return n.signature ? n.signature : n.dim_hash ^ (std::uint64_t(n.op->id) * 0x9E3779B97F4A7C15ull);
}

}  // namespace dynet
