#include "dynet_core/gemm/transpose_cache.h"

#include <algorithm>

#include "dynet_core/gemm/jit_gemm.h"

namespace dynet {

void TransposeCache::reset(AlignedMemoryPool& pool) {
  pool_ = &pool;
  entries_.clear();
}

std::vector<TransposeCache::Entry>::const_iterator TransposeCache::find(const float* a, unsigned rows,
                                                                        unsigned cols) const {
  return std::find_if(entries_.begin(), entries_.end(),
                      [&](const Entry& e) { return e.a == a && e.rows == rows && e.cols == cols; });
}

TransposeCache::Entry& TransposeCache::entry(const float* a, unsigned rows, unsigned cols) {
  const auto found = find(a, rows, cols);
  if (found != entries_.end()) return entries_[found - entries_.begin()];
  entries_.push_back({a, rows, cols, nullptr, 0});
  return entries_.back();
}

const float* TransposeCache::copy(Entry& e) {
  if (!e.t) {
    float* t = pool_->allocate_array<float>(std::size_t(e.rows) * e.cols);
    transpose_matrix(e.a, e.rows, e.cols, t);
    e.t = t;
  }
  return e.t;
}

const float* TransposeCache::get(const float* a, unsigned rows, unsigned cols) { return copy(entry(a, rows, cols)); }

const float* TransposeCache::get_after(const float* a, unsigned rows, unsigned cols, unsigned columns, unsigned worth) {
  Entry& e = entry(a, rows, cols);
  e.columns += columns;
  return e.t || e.columns >= worth ? copy(e) : nullptr;
}

bool TransposeCache::holds(const float* a, unsigned rows, unsigned cols) const {
  const auto found = find(a, rows, cols);
  return found != entries_.end() && found->t;
}

}  // namespace dynet
