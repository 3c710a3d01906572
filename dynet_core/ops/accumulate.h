#pragma once
// dst += src over n floats: the inner loop of every backward that routes gradients unchanged
// (copies, slices, concatenations, scatters). Restrict pointers let the compiler vectorize it.

#include <cstddef>
#include <cstring>

namespace dynet {

inline void accumulate(float* __restrict dst, const float* __restrict src, std::size_t n) {
  for (std::size_t e = 0; e < n; ++e) dst[e] += src[e];
}

/// dst += src, or dst = src when overwriting (OpCall::overwrite).
inline void accumulate(float* __restrict dst, const float* __restrict src, std::size_t n, bool overwrite) {
  if (overwrite)
    std::memcpy(dst, src, n * sizeof(float));
  else
    accumulate(dst, src, n);
}

/// dx[e] += g(e), or dx[e] = g(e) when overwriting, for e in [0, n).
template <class G>
inline void write_gradient(float* __restrict dx, std::size_t n, bool overwrite, G&& g) {
  if (overwrite)
    for (std::size_t e = 0; e < n; ++e) dx[e] = g(e);
  else
    for (std::size_t e = 0; e < n; ++e) dx[e] += g(e);
}

}  // namespace dynet
