// Every op family's CUDA kernels, collected into one table (cuda_kernels, gpu/kernel_table.h).
#include "dynet_core/ops/op_families.h"
#include "gpu/kernel_table.h"

namespace dynet {
namespace gpu {

#define DYBATCH_DECLARE_FAMILY(family) void add_##family##_kernels(KernelTable& t);
DYBATCH_OP_FAMILIES(DYBATCH_DECLARE_FAMILY)
#undef DYBATCH_DECLARE_FAMILY

KernelTable cuda_kernels() {
  KernelTable t;
#define DYBATCH_ADD_FAMILY(family) add_##family##_kernels(t);
  DYBATCH_OP_FAMILIES(DYBATCH_ADD_FAMILY)
#undef DYBATCH_ADD_FAMILY
  return t;
}

}  // namespace gpu
}  // namespace dynet
