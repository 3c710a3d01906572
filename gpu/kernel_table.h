#pragma once
// The CUDA kernels of every op. Families add theirs by op name (rows live in the core's family
// files, private to them); install() registers them as the GPU kernel table of the core
// (set_kernels) and checks it (check_kernels), so that a backend lacking a kernel is refused when
// it starts rather than when a graph first meets the op.

#include <initializer_list>
#include <string>
#include <vector>

#include "dynet_core/device/kernel_table.h"
#include "dynet_core/op_def.h"

namespace dynet {
namespace gpu {

struct NamedKernel {
  const char* op;
  OpKernels kernel;
};

/// The entry of `op`: its forward and, where the op has one, its backward.
inline NamedKernel kernel_for(const char* op, void (*forward)(const OpCall&),
                              void (*backward)(const OpCall&, unsigned) = nullptr) {
  OpKernels k;
  k.forward = forward;
  k.backward = backward;
  return {op, k};
}

/// Collects kernels by op name.
class KernelTable {
 public:
  void add(std::initializer_list<NamedKernel> kernels);
  /// The kernels by op id, as set_kernels stores them; throws std::logic_error naming each kernel
  /// given for an op that is not registered and each op given two kernels. Ops without kernels
  /// are left empty (missing_kernels names them).
  std::vector<OpKernels> by_id() const;
  /// Sets every kernel as the DeviceType::GPU kernel of its op and checks the table: throws
  /// std::logic_error as by_id and check_kernels do.
  void install() const;
  /// The kernel given for `op`, or null.
  const OpKernels* find(const char* op) const;

 private:
  std::vector<NamedKernel> kernels_;
};

/// Every family's CUDA kernels (gpu/ops/registry.cc); needs no GPU.
KernelTable cuda_kernels();
/// Installs cuda_kernels() for the registered ops; throws as KernelTable::install does.
void install_cuda_kernels();

}  // namespace gpu
}  // namespace dynet
