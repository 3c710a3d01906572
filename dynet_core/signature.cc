#include "dynet_core/signature.h"

namespace dynet {

std::uint64_t argument_identity(const Node& a, VariableIndex index) {
  // Parameter leaves alias their parameter's memory: that memory (and whether the leaf is
  // trainable) identifies them. Anything else is identified by its node.
  if (a.op->value_alias)
    return signature_mix(reinterpret_cast<std::uintptr_t>(a.op->value_alias(a.data)), a.op->grad_alias ? 1 : 2);
  return signature_mix(0x51ED, index);
}

}  // namespace dynet
