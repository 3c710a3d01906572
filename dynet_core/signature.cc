#include "dynet_core/signature.h"

#include <algorithm>
#include <cstring>

namespace dynet {

namespace {

inline std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v;
  h *= 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

}  // namespace

DimHash dim_hash(const Dim& d) {
  std::uint64_t h = mix(0xA5A5A5A5ull, (std::uint64_t(d.nd) << 32) | d.bd);
  // The element count is held at kMaxElements + 1 once past the limit: from a batch size below
  // 2^32, no product overflows 64 bits, and no branch is taken per dimension.
  constexpr std::uint64_t kPast = Dim::kMaxElements + 1;
  std::uint64_t elements = d.bd;
  for (unsigned k = 0; k < d.nd; ++k) {
    h = mix(h, d.d[k]);
    elements = std::min(elements * d.d[k], kPast);
  }
  return {h, elements < kPast};
}

std::uint64_t argument_identity(const Node& a, VariableIndex index) {
  // Parameter leaves alias their parameter's memory: that memory (and whether the leaf is
  // trainable) identifies them. Anything else is identified by its node.
  if (a.op->value_alias)
    return mix(reinterpret_cast<std::uintptr_t>(a.op->value_alias(a.data)), a.op->grad_alias ? 1 : 2);
  return mix(0x51ED, index);
}

std::uint64_t node_signature(const OpDef& op, const void* data, const Dim& out, std::uint64_t out_hash,
                             const Node* const* args, const VariableIndex* arg_indices, unsigned nargs) {
  if (op.batch.rule == BatchRule::None || op.value_alias) return 0;
  std::uint64_t h = mix(out_hash, op.id);
  if (op.batch.sig_bytes) {
    const unsigned char* bytes = static_cast<const unsigned char*>(data);
    unsigned k = 0;
    for (; k + 8 <= op.batch.sig_bytes; k += 8) {
      std::uint64_t word;
      std::memcpy(&word, bytes + k, 8);
      h = mix(h, word);
    }
    if (k < op.batch.sig_bytes) {
      std::uint64_t word = 0;
      std::memcpy(&word, bytes + k, op.batch.sig_bytes - k);
      h = mix(h, word);
    }
  }
  h = mix(h, nargs);
  for (unsigned i = 0; i < nargs; ++i)
    h = mix(h, shared_argument(op, i, *args[i], out) ? argument_identity(*args[i], arg_indices[i]) : args[i]->dim_hash);
  return h ? h : 1;
}

}  // namespace dynet
