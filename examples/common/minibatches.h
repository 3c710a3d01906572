#pragma once
// Cutting a training set into minibatches: one graph per minibatch, whose examples an
// autobatcher can run together.

#include <random>
#include <vector>

namespace examples {

using Minibatch = std::vector<unsigned>;

/// The indices 0..n-1 in random order, cut into minibatches of `size` (the last may be smaller).
std::vector<Minibatch> shuffled_minibatches(std::size_t n, unsigned size, std::mt19937& rng);
/// Minibatches of examples of equal or similar length (ties in random order), the minibatches in
/// random order: padding within a minibatch stays small.
std::vector<Minibatch> length_sorted_minibatches(const std::vector<unsigned>& lengths, unsigned size,
                                                 std::mt19937& rng);

}  // namespace examples
