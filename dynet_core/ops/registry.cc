#include "dynet_core/ops/registry.h"

#include "dynet_core/device/kernel_table.h"
#include "dynet_core/ops/op_families.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace dynet {

#define DYBATCH_DECLARE_FAMILY(family) void register_##family##_ops();
DYBATCH_OP_FAMILIES(DYBATCH_DECLARE_FAMILY)
#undef DYBATCH_DECLARE_FAMILY
void register_table_row_ops();

namespace {
std::vector<const OpDef*>& table() {
  static std::vector<const OpDef*> t;
  return t;
}
}  // namespace

const std::vector<const OpDef*>& registered_ops() { return table(); }

const OpDef* find_op(const char* name) {
  for (const OpDef* op : table())
    if (std::strcmp(op->name, name) == 0) return op;
  return nullptr;
}

void register_ops(std::initializer_list<OpDef*> rows) {
  for (OpDef* op : rows) {
    if (op->id != OpDef::kUnregistered) continue;
    if (!op->name || !op->infer_dim || !op->forward)
      throw std::logic_error("an op row needs a name, infer_dim and forward");
    if (!op->check.build && !(op->check.skip_reason && *op->check.skip_reason))
      throw std::logic_error(std::string("op '") + op->name +
                             "' has no gradient check: give GradCheck::build, or a skip_reason");
    if (op->infer_dim == &first_argument_shape && op->arity == 0)
      throw std::logic_error(std::string("op '") + op->name + "' takes the shape of a first argument it has not");
    if (find_op(op->name)) throw std::logic_error(std::string("two ops are named '") + op->name + "'");
    if (op->elementwise.f && (op->elementwise.op == ElementwiseOp::none ||
                              std::strcmp(op->name, elementwise_op_name(op->elementwise.op)) != 0))
      throw std::logic_error(std::string("op '") + op->name +
                             "' has an elementwise rule but not its own identity (ops/elementwise_op_list.h)");
    op->id = static_cast<std::uint16_t>(table().size());
    table().push_back(op);
    add_cpu_kernels(*op);
  }
}

void register_all_ops() {
  if (!table().empty()) return;
#define DYBATCH_REGISTER_FAMILY(family) register_##family##_ops();
  DYBATCH_OP_FAMILIES(DYBATCH_REGISTER_FAMILY)
#undef DYBATCH_REGISTER_FAMILY
  // Ops added since are registered last: an op's id seeds the cases its tests draw, and appending
  // keeps every earlier op's. (Their kernels are the leaf family's.)
  register_table_row_ops();
  for (unsigned k = 0; k < kElementwiseOpCount; ++k)
    if (!find_op(elementwise_op_name(static_cast<ElementwiseOp>(k))))
      throw std::logic_error(std::string("elementwise op '") + elementwise_op_name(static_cast<ElementwiseOp>(k)) +
                             "' is listed in ops/elementwise_op_list.h, but no row of it was registered");
}

}  // namespace dynet
