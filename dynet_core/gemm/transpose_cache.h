#pragma once
// Transposed copies of matrices that a backward pass multiplies by transposed, made once per
// pass: the JIT GEMM kernels take no transposed left operand, and one copy of a weight serves
// every group (or every node, without batching) whose input gradient needs W^T * dY. Values do
// not change during a backward pass, so a copy stays valid until the engine resets the cache
// at the start of the next one.

#include <cstddef>
#include <vector>

#include "dynet_core/device/aligned_memory_pool.h"

namespace dynet {

class TransposeCache {
 public:
  /// Forgets every copy; new ones come from `pool`, which must outlive them.
  void reset(AlignedMemoryPool& pool);
  /// a^T (cols x rows) for a (rows x cols, column-major, leading dimension rows).
  const float* get(const float* a, unsigned rows, unsigned cols);
  /// a^T for a product of `columns` columns, once the products over a since reset() have reached
  /// `worth` columns in all (the copy then repays its cost); null before.
  const float* get_after(const float* a, unsigned rows, unsigned cols, unsigned columns, unsigned worth);
  /// Whether a copy of a has been made since reset().
  bool holds(const float* a, unsigned rows, unsigned cols) const;

 private:
  struct Entry {
    const float* a;
    unsigned rows, cols;
    const float* t;       ///< null until made
    std::size_t columns;  ///< asked for by get_after since reset()
  };
  std::vector<Entry>::const_iterator find(const float* a, unsigned rows, unsigned cols) const;
  /// The entry of a, made (with no copy yet) when there is none.
  Entry& entry(const float* a, unsigned rows, unsigned cols);
  /// e's copy, made now when there is none.
  const float* copy(Entry& e);

  AlignedMemoryPool* pool_ = nullptr;
  std::vector<Entry> entries_;  // a handful: one per weight
};

}  // namespace dynet
