#include "gpu/kernel_table.h"

#include <cstring>
#include <stdexcept>

#include "dynet_core/ops/registry.h"

namespace dynet {
namespace gpu {

void KernelTable::add(std::initializer_list<NamedKernel> kernels) {
  kernels_.insert(kernels_.end(), kernels.begin(), kernels.end());
}

std::vector<Kernel> KernelTable::build(const std::vector<const OpDef*>& ops) const {
  std::vector<Kernel> table(ops.size());
  std::vector<bool> given(ops.size(), false);
  std::string problems;
  auto problem = [&](const std::string& what) { problems += (problems.empty() ? "" : "; ") + what; };
  for (const NamedKernel& k : kernels_) {
    unsigned id = 0;
    while (id < ops.size() && std::strcmp(ops[id]->name, k.op) != 0) ++id;
    if (id == ops.size()) {
      problem(std::string("a kernel for '") + k.op + "', which is no registered op");
    } else if (given[id]) {
      problem(std::string("two kernels for '") + k.op + "'");
    } else {
      table[id] = k.kernel;
      given[id] = true;
    }
  }
  for (unsigned id = 0; id < ops.size(); ++id) {
    const OpDef& op = *ops[id];
    const Kernel& k = table[id];
    if (!k.forward) problem(std::string("no forward for '") + op.name + "'");
    if (op.backward && !k.backward) problem(std::string("no backward for '") + op.name + "'");
    if (op.leaf_backward && !k.leaf_backward) problem(std::string("no leaf backward for '") + op.name + "'");
  }
  if (!problems.empty()) throw std::logic_error("CUDA kernel table: " + problems);
  return table;
}

const Kernel* KernelTable::find(const char* op) const {
  for (const NamedKernel& k : kernels_)
    if (std::strcmp(k.op, op) == 0) return &k.kernel;
  return nullptr;
}

const std::vector<Kernel>& cuda_kernel_table() {
  register_all_ops();
  static const std::vector<Kernel> table = cuda_kernels().build(registered_ops());
  return table;
}

}  // namespace gpu
}  // namespace dynet
