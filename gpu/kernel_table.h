#pragma once
// The CUDA kernels of every op, by op id. Families add theirs by op name (rows live in the core's
// family files, private to them); the table is then checked against the op registry, so that a
// backend lacking a kernel is refused when it starts rather than when a graph first meets the op.

#include <initializer_list>
#include <string>
#include <vector>

#include "dynet_core/op_def.h"

namespace dynet {
namespace gpu {

struct Kernel {
  void (*forward)(const OpCall&) = nullptr;
  void (*backward)(const OpCall&, unsigned) = nullptr;
  /// For leaves that pass their gradient on to a parameter (lookups); see OpDef::leaf_backward.
  void (*leaf_backward)(const OpCall&) = nullptr;
};

struct NamedKernel {
  const char* op;
  Kernel kernel;
};

/// The entry of `op`: its forward and, where the op has one, its backward.
inline NamedKernel kernel_for(const char* op, void (*forward)(const OpCall&),
                              void (*backward)(const OpCall&, unsigned) = nullptr) {
  Kernel k;
  k.forward = forward;
  k.backward = backward;
  return {op, k};
}

/// Collects kernels by op name before the table is built.
class KernelTable {
 public:
  void add(std::initializer_list<NamedKernel> kernels);
  /// Kernels by op id for every op in `ops` (registered_ops() order); throws std::logic_error
  /// naming each op without a forward, without a backward where its row has one, without a leaf
  /// backward where its row has one, and each kernel given for an op that is not registered.
  std::vector<Kernel> build(const std::vector<const OpDef*>& ops) const;
  /// The kernel given for `op`, or null.
  const Kernel* find(const char* op) const;

 private:
  std::vector<NamedKernel> kernels_;
};

/// Every family's CUDA kernels (gpu/ops/registry.cc); needs no GPU.
KernelTable cuda_kernels();
/// cuda_kernels() built against the op registry, once; throws as KernelTable::build does.
const std::vector<Kernel>& cuda_kernel_table();

}  // namespace gpu
}  // namespace dynet
