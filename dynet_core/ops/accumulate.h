#pragma once
// dst += src over n floats: the inner loop of every backward that routes gradients unchanged
// (copies, slices, concatenations, scatters). Restrict pointers let the compiler vectorize it.

#include <cstddef>

namespace dynet {

inline void accumulate(float* __restrict dst, const float* __restrict src, std::size_t n) {
  for (std::size_t e = 0; e < n; ++e) dst[e] += src[e];
}

}  // namespace dynet
