#pragma once
// Transposed copies of matrices that a backward pass multiplies by transposed, made once per
// pass: the JIT GEMM kernels take no transposed left operand, and one copy of a weight serves
// every group (or every node, without batching) whose input gradient needs W^T * dY. Values do
// not change during a backward pass, so a copy stays valid until the engine resets the cache
// at the start of the next one.

#include <vector>

#include "dynet_core/aligned_memory_pool.h"

namespace dynet {

class TransposeCache {
 public:
  /// Forgets every copy; new ones come from `pool`, which must outlive them.
  void reset(AlignedMemoryPool& pool);
  /// a^T (cols x rows) for a (rows x cols, column-major, leading dimension rows).
  const float* get(const float* a, unsigned rows, unsigned cols);
  /// Whether get(a, rows, cols) would return a copy already made.
  bool holds(const float* a, unsigned rows, unsigned cols) const { return find(a, rows, cols) != nullptr; }

 private:
  struct Entry {
    const float* a;
    unsigned rows, cols;
    const float* t;
  };
  const float* find(const float* a, unsigned rows, unsigned cols) const;

  AlignedMemoryPool* pool_ = nullptr;
  std::vector<Entry> entries_;  // a handful: one per weight
};

}  // namespace dynet
