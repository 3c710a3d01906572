#include "dynet_core/ops/transpose_cache.h"

#include "dynet_core/ops/jit_gemm.h"

namespace dynet {

void TransposeCache::reset(AlignedMemoryPool& pool) {
  pool_ = &pool;
  entries_.clear();
}

const float* TransposeCache::find(const float* a, unsigned rows, unsigned cols) const {
  for (const Entry& e : entries_)
    if (e.a == a && e.rows == rows && e.cols == cols) return e.t;
  return nullptr;
}

const float* TransposeCache::get(const float* a, unsigned rows, unsigned cols) {
  if (const float* t = find(a, rows, cols)) return t;
  float* t = pool_->allocate_array<float>(std::size_t(rows) * cols);
  transpose_matrix(a, rows, cols, t);
  entries_.push_back({a, rows, cols, t});
  return t;
}

}  // namespace dynet
