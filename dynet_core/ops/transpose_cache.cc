#include "dynet_core/ops/transpose_cache.h"

#include "dynet_core/ops/jit_gemm.h"

namespace dynet {

void TransposeCache::reset(AlignedMemoryPool& pool) {
  pool_ = &pool;
  entries_.clear();
}

TransposeCache::Entry& TransposeCache::entry(const float* a, unsigned rows, unsigned cols) {
  for (Entry& e : entries_)
    if (e.a == a && e.rows == rows && e.cols == cols) return e;
  entries_.push_back({a, rows, cols, nullptr, 0});
  return entries_.back();
}

const float* TransposeCache::get(const float* a, unsigned rows, unsigned cols) {
  Entry& e = entry(a, rows, cols);
  if (!e.t) {
    float* t = pool_->allocate_array<float>(std::size_t(rows) * cols);
    transpose_matrix(a, rows, cols, t);
    e.t = t;
  }
  return e.t;
}

const float* TransposeCache::get_after(const float* a, unsigned rows, unsigned cols, unsigned columns,
                                       unsigned worth) {
  Entry& e = entry(a, rows, cols);
  e.columns += columns;
  return e.t || e.columns >= worth ? get(a, rows, cols) : nullptr;
}

bool TransposeCache::holds(const float* a, unsigned rows, unsigned cols) const {
  for (const Entry& e : entries_)
    if (e.a == a && e.rows == rows && e.cols == cols) return e.t != nullptr;
  return false;
}

}  // namespace dynet
