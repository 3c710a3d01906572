#include "examples/common/minibatches.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace examples {

namespace {

std::vector<Minibatch> cut(const std::vector<unsigned>& order, unsigned size) {
  if (size == 0) throw std::invalid_argument("the minibatch size must be positive");
  std::vector<Minibatch> batches;
  for (std::size_t first = 0; first < order.size(); first += size)
    batches.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(first),
                         order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), first + size)));
  return batches;
}

}  // namespace

std::vector<Minibatch> shuffled_minibatches(std::size_t n, unsigned size, std::mt19937& rng) {
  std::vector<unsigned> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), rng);
  return cut(order, size);
}

std::vector<Minibatch> length_sorted_minibatches(const std::vector<unsigned>& lengths, unsigned size,
                                                 std::mt19937& rng) {
  std::vector<unsigned> order(lengths.size());
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), rng);
  std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) { return lengths[a] < lengths[b]; });
  std::vector<Minibatch> batches = cut(order, size);
  std::shuffle(batches.begin(), batches.end(), rng);
  return batches;
}

}  // namespace examples
