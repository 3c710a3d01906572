#pragma once
// The op families, listed once: the core registers each family's rows (register_<family>_ops,
// ops/registry.cc) and the CUDA backend adds each family's kernels (add_<family>_kernels,
// gpu/ops/registry.cc) from this list, so a family missing on either side fails to link.
// The order is the order of registration: an op's id seeds the cases its tests draw.
// clang-format off
#define DYBATCH_OP_FAMILIES(X)                                                                      \
  X(leaf) X(arithmetic) X(elementwise) X(linalg) X(reduction) X(shape) X(select) X(softmax) X(loss) \
  X(random) X(gradient_control) X(lstm) X(convolution)
// clang-format on
