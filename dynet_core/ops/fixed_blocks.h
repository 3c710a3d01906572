#pragma once
// Elementwise functions and sums over a run of floats whose result depends on the values and the
// run's length alone, never on where the run lies. Eigen's loops over a map of dynamic size peel
// scalars up to the first aligned element, and its scalar and vector versions of exp, logistic
// or tanh (and its lane-wise sums) differ in the last bits: the same column at another address
// came out otherwise, and a graph's values depended on where its memory happened to lie. Here
// every block of kBlock floats takes the vector path and the last n % kBlock the scalar one.

#include <cstddef>

#include <Eigen/Core>

namespace dynet {

namespace fixed_blocks {

constexpr std::size_t kBlock = 16;
using Block = Eigen::Array<float, kBlock, 1>;
using One = Eigen::Array<float, 1, 1>;

}  // namespace fixed_blocks

/// y[i] = f(x[i]) for i < n, where f maps an Eigen array expression to one (e.g. `a.exp()`);
/// y may be x.
template <class F>
void map_in_blocks(const float* x, float* y, std::size_t n, F f) {
  using namespace fixed_blocks;
  std::size_t i = 0;
  for (; i + kBlock <= n; i += kBlock)
    Eigen::Map<Block, Eigen::Unaligned>(y + i) = f(Eigen::Map<const Block, Eigen::Unaligned>(x + i));
  for (; i < n; ++i) Eigen::Map<One>(y + i) = f(Eigen::Map<const One>(x + i));
}

/// The sum of term(i) for i < n, in an order fixed by n: lane l of kBlock sums the terms l, l + kBlock,
/// ..., then the last n % kBlock terms and the lanes, in order, are added.
template <class Term>
float ordered_sum(std::size_t n, Term term) {
  using namespace fixed_blocks;
  float lanes[kBlock] = {};
  std::size_t i = 0;
  for (; i + kBlock <= n; i += kBlock)
    for (std::size_t l = 0; l < kBlock; ++l) lanes[l] += term(i + l);
  float s = 0.f;
  for (; i < n; ++i) s += term(i);
  for (float lane : lanes) s += lane;
  return s;
}

}  // namespace dynet
