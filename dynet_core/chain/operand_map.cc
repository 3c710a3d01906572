#include "dynet_core/chain/operand_map.h"

#include <algorithm>

namespace dynet {

OperandMap::OperandMap(const Dim& operand, const Dim& chain, bool shared) {
  std::size_t reach = 1;  // the operand's elements spanned by the axes so far
  auto add_axis = [&](std::size_t size, bool broadcast) {
    if (size == 1) return;
    const std::size_t stride = broadcast ? 0 : reach;
    if (axes_ > 0 && stride == stride_[axes_ - 1] * size_[axes_ - 1]) {
      size_[axes_ - 1] *= size;
    } else {
      size_[axes_] = size;
      stride_[axes_] = stride;
      ++axes_;
    }
    if (!broadcast) reach *= size;
  };
  for (unsigned k = 0; k < Dim::kMaxDims; ++k) add_axis(chain[k], operand[k] == 1);
  add_axis(chain.bd, operand.bd == 1);
  // The instance axis: unbounded, so it is appended without its size and never merged by size.
  const std::size_t stride = shared ? 0 : reach;
  if (axes_ > 0 && stride == stride_[axes_ - 1] * size_[axes_ - 1]) {
    size_[axes_ - 1] = 0;  // unbounded
  } else {
    size_[axes_] = 0;
    stride_[axes_] = stride;
    ++axes_;
  }
}

template <class Run>
void OperandMap::walk(std::size_t begin, std::size_t n, Run&& run) const {
  std::size_t index[kAxes];
  std::size_t offset = 0, rest = begin;
  const unsigned last = axes_ - 1;
  for (unsigned k = 0; k < last; ++k) {
    index[k] = rest % size_[k];
    rest /= size_[k];
    offset += index[k] * stride_[k];
  }
  index[last] = rest;
  offset += rest * stride_[last];
  for (std::size_t done = 0; done < n;) {
    const std::size_t length = last == 0 ? n - done : std::min(n - done, size_[0] - index[0]);
    run(offset, done, length, stride_[0]);
    done += length;
    if (last == 0) return;
    // Step past the run: the innermost axis wraps, and each wrap carries into the next axis.
    offset += length * stride_[0];
    index[0] += length;
    for (unsigned k = 0; k < last && index[k] == size_[k]; ++k) {
      offset -= size_[k] * stride_[k];
      index[k] = 0;
      ++index[k + 1];
      offset += stride_[k + 1];
    }
  }
}

void OperandMap::gather(const float* src, std::size_t begin, std::size_t n, float* dst) const {
  walk(begin, n, [&](std::size_t at, std::size_t k, std::size_t length, std::size_t stride) {
    const float* s = src + at;
    float* d = dst + k;
    if (stride == 0) {
      const float v = *s;
      for (std::size_t e = 0; e < length; ++e) d[e] = v;
    } else {
      for (std::size_t e = 0; e < length; ++e) d[e] = s[e * stride];
    }
  });
}

void OperandMap::scatter_add(const float* src, std::size_t begin, std::size_t n, float* dst) const {
  walk(begin, n, [&](std::size_t at, std::size_t k, std::size_t length, std::size_t stride) {
    const float* s = src + k;
    float* d = dst + at;
    if (stride == 0) {
      float total = 0.f;
      for (std::size_t e = 0; e < length; ++e) total += s[e];
      *d += total;
    } else {
      for (std::size_t e = 0; e < length; ++e) d[e * stride] += s[e];
    }
  });
}

}  // namespace dynet
