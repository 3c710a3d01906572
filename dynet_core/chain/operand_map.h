#pragma once
// Where each element of a fused chain's iteration space reads one operand. The space is the
// chain's output over every instance of a task: instance after instance, each of the chain's
// shape. An operand of the same shape that lies instance after instance maps one to one, so the
// chain reads it in place; a broadcast one (a shared parameter, a batch or dimension of 1) is
// gathered per tile on the CPU, and its gradient summed back per tile. A device that runs the
// chain as one kernel maps element by element (at).

#include <cstddef>

#include "dynet_core/dim.h"
#include "dynet_core/ops/host_device.h"

namespace dynet {

class OperandMap {
 public:
  OperandMap() = default;
  /// `operand` broadcasts to `chain` (dimensions and batch equal or 1); `shared`: one tensor for
  /// every instance instead of one per instance.
  OperandMap(const Dim& operand, const Dim& chain, bool shared);

  /// Element i of the space is element i of the operand, so a tile reads it in place.
  DYBATCH_HD bool in_place() const { return axes_ == 1 && stride_[0] == 1; }
  /// The operand's element that element i of the space reads.
  DYBATCH_HD std::size_t at(std::size_t i) const {
    std::size_t offset = 0;
    for (unsigned k = 0; k + 1 < axes_; ++k) {
      offset += (i % size_[k]) * stride_[k];
      i /= size_[k];
    }
    return offset + i * stride_[axes_ - 1];
  }
  /// dst[k] = src[at(begin + k)] for k < n.
  void gather(const float* src, std::size_t begin, std::size_t n, float* dst) const;
  /// dst[at(begin + k)] += src[k] for k < n.
  void scatter_add(const float* src, std::size_t begin, std::size_t n, float* dst) const;

 private:
  static constexpr unsigned kAxes = Dim::kMaxDims + 2;  // the dimensions, the batch, the instances

  /// Calls run(operand offset, k, length, stride) over maximal runs of [begin, begin + n) that
  /// advance the operand by one stride per element.
  template <class Run>
  void walk(std::size_t begin, std::size_t n, Run&& run) const;

  // Axes after merging those that continue each other, innermost first; the last (instances) is
  // unbounded.
  unsigned axes_ = 0;
  std::size_t size_[kAxes] = {};
  std::size_t stride_[kAxes] = {};
};

}  // namespace dynet
