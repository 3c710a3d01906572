#include "dynet_core/device/kernel_table.h"

#include <stdexcept>
#include <string>

#include "dynet_core/ops/registry.h"

namespace dynet {

namespace {
std::vector<OpKernels>& table(DeviceType type) {
  static std::vector<OpKernels> tables[2];
  return tables[static_cast<unsigned>(type)];
}
}  // namespace

const std::vector<OpKernels>& kernel_table(DeviceType type) { return table(type); }

void add_cpu_kernels(const OpDef& op) {
  std::vector<OpKernels>& t = table(DeviceType::CPU);
  if (t.size() <= op.id) t.resize(op.id + 1);
  t[op.id] = OpKernels{op.forward, op.backward, op.leaf_backward};
}

void set_kernels(DeviceType type, const OpDef& op, const OpKernels& kernels) {
  if (type == DeviceType::CPU)
    throw std::logic_error(std::string("set_kernels: the CPU kernels of '") + op.name + "' are its OpDef row");
  if (op.id == OpDef::kUnregistered)
    throw std::logic_error(std::string("set_kernels: op '") + op.name + "' is not registered");
  std::vector<OpKernels>& t = table(type);
  if (t.size() <= op.id) t.resize(op.id + 1);
  t[op.id] = kernels;
}

std::string missing_kernels(const std::vector<OpKernels>& t) {
  std::string missing;
  for (const OpDef* op : registered_ops()) {
    const OpKernels k = op->id < t.size() ? t[op->id] : OpKernels{};
    const char* lacks = !k.forward                              ? "forward"
                        : op->backward && !k.backward           ? "backward"
                        : op->leaf_backward && !k.leaf_backward ? "leaf_backward"
                                                                : nullptr;
    if (lacks) missing += std::string(missing.empty() ? "" : ", ") + op->name + " (" + lacks + ")";
  }
  return missing;
}

void check_kernels(DeviceType type, const char* backend) {
  const std::string missing = missing_kernels(table(type));
  if (!missing.empty())
    throw std::logic_error(std::string("device backend '") + backend + "' lacks kernels for: " + missing);
}

}  // namespace dynet
