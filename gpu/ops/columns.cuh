#pragma once
// A tensor seen as columns along one dimension (AlongDim of dynet_core/ops/broadcast.h), for
// kernels that give one thread a column: a softmax, a cumulative sum, a maximum.

#include <cstddef>

#include "dynet_core/ops/broadcast.h"

namespace dynet {
namespace gpu {

/// Column (i, k) holds elements i + pre (j + len k), j < len; columns are numbered i + pre k.
struct Columns {
  unsigned pre, len, post;
  explicit Columns(const AlongDim& a) : pre(a.pre), len(a.len), post(a.post) {}
  __host__ __device__ std::size_t count() const { return std::size_t(pre) * post; }
  __device__ std::size_t at(std::size_t col, unsigned j) const {
    const std::size_t i = col % pre, k = col / pre;
    return i + pre * (j + std::size_t(len) * k);
  }
};

}  // namespace gpu
}  // namespace dynet
