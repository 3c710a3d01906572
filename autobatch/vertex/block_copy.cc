#include "autobatch/vertex/block_copy.h"

#include <cstring>

namespace dynet {

void gather_runs(const float* const* runs, const std::size_t* sizes, std::size_t n, float* to) {
  for (std::size_t k = 0; k < n; ++k) {
    std::memcpy(to, runs[k], sizes[k] * sizeof(float));
    to += sizes[k];
  }
}

}  // namespace dynet
