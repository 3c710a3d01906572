#pragma once
// The vertex executor's memory movement, in one place: blocks of several groups gathered into
// one contiguous block.

#include <cstddef>

namespace dynet {

/// Copies runs[k] (sizes[k] floats each, k < n) one after another into `to`.
void gather_runs(const float* const* runs, const std::size_t* sizes, std::size_t n, float* to);

}  // namespace dynet
