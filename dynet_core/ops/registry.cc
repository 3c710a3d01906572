#include "dynet_core/ops/registry.h"

#include "dynet_core/device/kernel_table.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace dynet {

void register_arithmetic_ops();
void register_elementwise_ops();
void register_linalg_ops();
void register_reduction_ops();
void register_shape_ops();
void register_select_ops();
void register_softmax_ops();
void register_loss_ops();
void register_random_ops();
void register_leaf_ops();
void register_table_row_ops();
void register_gradient_control_ops();
void register_lstm_ops();
void register_convolution_ops();

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
    if (find_op(op->name))
      throw std::logic_error(std::string("two ops are named '") + op->name + "'");
    op->id = static_cast<std::uint16_t>(table().size());
    table().push_back(op);
    add_cpu_kernels(*op);
  }
}

void register_all_ops() {
  if (!table().empty()) return;
  register_leaf_ops();
  register_arithmetic_ops();
  register_elementwise_ops();
  register_linalg_ops();
  register_reduction_ops();
  register_shape_ops();
  register_select_ops();
  register_softmax_ops();
  register_loss_ops();
  register_random_ops();
  register_gradient_control_ops();
  register_lstm_ops();
  register_convolution_ops();
  // Ops added since are registered last: an op's id seeds the cases its tests draw, and appending
  // keeps every earlier op's.
  register_table_row_ops();
}

}  // namespace dynet
