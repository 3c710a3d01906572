#pragma once
// The one GEMM entry point of the CUDA kernels, through cuBLAS, with the batch rules of the CPU's
// gemm (dynet_core/gemm/gemm.h): an operand with one batch element broadcasts; a y with one batch
// element sums the products of a batched product.

#include "dynet_core/tensor.h"

namespace dynet {
namespace gpu {

/// y = op(a) * op(b), or y += ... when `accumulate`; on y's device and its stream.
void gemm(const Tensor& y, const Tensor& a, bool ta, const Tensor& b, bool tb, bool accumulate);

}  // namespace gpu
}  // namespace dynet
