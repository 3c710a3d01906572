#pragma once
// Counter-based random numbers: value i of a stream is a pure function of (seed, i). Random ops
// store one seed per node, so every recomputation and every device sees the same values.

#include <cstdint>

#include "dynet_core/ops/host_device.h"

namespace dynet {
namespace counter_rng {

DYBATCH_HD std::uint64_t mix(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Uniform on [0, 1).
DYBATCH_HD float uniform(std::uint64_t seed, std::uint64_t i) {
  return static_cast<float>(mix(seed ^ mix(i)) >> 40) * (1.0f / 16777216.0f);
}

/// Standard normal (Box-Muller over two uniforms of the stream).
DYBATCH_HD float normal(std::uint64_t seed, std::uint64_t i) {
  const float u1 = 1.0f - uniform(seed, 2 * i);  // (0, 1], so the log is finite
  const float u2 = uniform(seed, 2 * i + 1);
  return sqrtf(-2.0f * logf(u1)) * cosf(6.2831853071795864f * u2);
}

}  // namespace counter_rng
}  // namespace dynet
