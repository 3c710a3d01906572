#include "gpu/kernel_table.h"

#include <cstring>
#include <stdexcept>

#include "dynet_core/ops/registry.h"
#include "gpu/element_chain.h"

namespace dynet {
namespace gpu {

void KernelTable::add(std::initializer_list<NamedKernel> kernels) {
  kernels_.insert(kernels_.end(), kernels.begin(), kernels.end());
}

std::vector<OpKernels> KernelTable::by_id() const {
  const std::vector<const OpDef*>& ops = registered_ops();
  std::vector<OpKernels> table(ops.size());
  std::vector<bool> given(ops.size(), false);
  std::string problems;
  for (const NamedKernel& k : kernels_) {
    const OpDef* op = find_op(k.op);
    std::string problem;
    if (!op)
      problem = std::string("a kernel for '") + k.op + "', which is no registered op";
    else if (given[op->id])
      problem = std::string("two kernels for '") + k.op + "'";
    if (!problem.empty()) {
      problems += (problems.empty() ? "" : "; ") + problem;
      continue;
    }
    table[op->id] = k.kernel;
    given[op->id] = true;
  }
  if (!problems.empty()) throw std::logic_error("CUDA kernel table: " + problems);
  return table;
}

void KernelTable::install() const {
  const std::vector<OpKernels> table = by_id();
  for (const OpDef* op : registered_ops()) set_kernels(DeviceType::GPU, *op, table[op->id]);
  check_kernels(DeviceType::GPU, "CUDA");
}

const OpKernels* KernelTable::find(const char* op) const {
  for (const NamedKernel& k : kernels_)
    if (std::strcmp(k.op, op) == 0) return &k.kernel;
  return nullptr;
}

void install_cuda_kernels() {
  register_all_ops();
  cuda_kernels().install();
}

}  // namespace gpu
}  // namespace dynet
